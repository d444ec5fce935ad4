"""Codex CLI and Gemini CLI hooks, run as each host runs them, then in a real shell."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from tersh.hosts import gemini
from tests.hosts.hostenv import TERSH, enable, host_env, run_hook, run_shell


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    environment = host_env(home, CODEX_HOME=str(home / ".codex"))
    enable(environment)
    return environment


def codex_payload(command: object, cwd: Path) -> dict[str, Any]:
    return {
        "session_id": "019fecd6-44bf",
        "turn_id": "019fecd6-453c",
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5",
        "permission_mode": "bypassPermissions",  # approval policy "never" (all of `codex exec`)
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "exec-0faab0a6",
    }


def test_codex_rewrite_runs_through_tersh(env: dict[str, str], tmp_path: Path) -> None:
    command = "echo 'warning: deprecated flag' >&2; seq 1 500; exit 2"
    run = run_hook("codex", codex_payload(command, tmp_path), env, cwd=tmp_path)
    output = run.answer()["hookSpecificOutput"]
    # Codex only applies updatedInput next to "allow"; its sandbox and approvals still apply.
    assert output["permissionDecision"] == "allow"
    assert set(output) == {"hookEventName", "permissionDecision", "updatedInput"}
    shell = run_shell(output["updatedInput"]["command"], env, cwd=tmp_path)
    assert shell.code == 2
    assert "warning: deprecated flag" in shell.stdout + shell.stderr


def test_codex_stays_quiet_when_exec_policy_rules_exist(env: dict[str, str], tmp_path: Path) -> None:
    rules = Path(env["CODEX_HOME"]) / "rules"
    rules.mkdir(parents=True)
    (rules / "default.rules").write_text('prefix_rule(pattern=["git", "push"], decision="forbidden")\n')
    run = run_hook("codex", codex_payload("git push", tmp_path), env, cwd=tmp_path)
    assert (run.code, run.stdout) == (0, "")


def test_codex_stays_quiet_when_codex_may_ask(env: dict[str, str], tmp_path: Path) -> None:
    # Under an approval policy that can ask, Codex would ask about (or exempt) the rewritten
    # command instead of the requested one.
    for mode in ("default", "acceptEdits", None):
        payload = {**codex_payload("seq 1 500", tmp_path), "permission_mode": mode}
        run = run_hook("codex", payload, env, cwd=tmp_path)
        assert (run.code, run.stdout) == (0, "")


@pytest.mark.parametrize(
    "command",
    [
        "rm -f x",
        "ls && /bin/rm -rf build",
        "r''m -f x",
        "\\rm -f x",
        'bash -c "rm -f x"',
        "cat <<EOF | sh\nrm -f x\nEOF",
        "find . -name x -exec rm {} +",
        "echo $(rm -f x)",
    ],
)
def test_codex_never_rewrites_a_command_mentioning_rm(
    env: dict[str, str], tmp_path: Path, command: str
) -> None:
    # Codex refuses `rm -f` on its own (0.171, every mode); a rewrite would hide it.
    run = run_hook("codex", codex_payload(command, tmp_path), env, cwd=tmp_path)
    assert (run.code, run.stdout) == (0, "")


@pytest.mark.parametrize("command", ["ls -l", "git log --format=%H", "echo form; seq 1 3", "npm run lint"])
def test_codex_rm_check_spares_other_words(env: dict[str, str], tmp_path: Path, command: str) -> None:
    run = run_hook("codex", codex_payload(command, tmp_path), env, cwd=tmp_path)
    words = shlex.split(run.answer()["hookSpecificOutput"]["updatedInput"]["command"])
    assert words[-3:] == ["run", "-c", command]


@pytest.mark.parametrize("command", [["bash", "-lc", "ls"], "", "ls # no-opt"])
def test_codex_leaves_other_shapes_alone(env: dict[str, str], tmp_path: Path, command: object) -> None:
    run = run_hook("codex", codex_payload(command, tmp_path), env, cwd=tmp_path)
    assert (run.code, run.stdout) == (0, "")


def test_codex_post_tool_use_is_never_answered(env: dict[str, str], tmp_path: Path) -> None:
    payload = {**codex_payload("ls", tmp_path), "hook_event_name": "PostToolUse", "tool_response": "x"}
    run = run_hook("codex", payload, env)
    assert (run.code, run.stdout) == (0, "")


def gemini_payload(event: str, tool: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": "/tmp/t.json",
        "cwd": "/tmp",
        "hook_event_name": event,
        "timestamp": "2026-01-01T00:00:00Z",
        "tool_name": tool,
        **fields,
    }


def headless_yolo(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Pretend the hook runs under ``gemini -p … --yolo`` with ``home`` as HOME."""
    from tersh.hosts import gemini_policy

    process = gemini_policy.GeminiProcess(("-p", "go", "--yolo"), {"HOME": str(home)})
    monkeypatch.setattr(gemini_policy, "find_process", lambda pid=None: process)


def test_gemini_before_tool_rewrites_the_shell_command(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    headless_yolo(monkeypatch, Path(env["HOME"]))
    command = "python3 -c 'import sys; print(\"Traceback: x\", file=sys.stderr); sys.exit(5)'"
    payload = gemini_payload(
        "BeforeTool", "run_shell_command", tool_input={"command": command, "description": "d"}
    )
    payload["cwd"] = str(tmp_path)
    output = gemini.answer(payload, str(TERSH))
    assert output is not None and "decision" not in output  # Gemini's own policy still decides
    hook_output = output["hookSpecificOutput"]
    assert hook_output["hookEventName"] == "BeforeTool"
    assert set(hook_output["tool_input"]) == {"command"}  # merged over the model's arguments
    shell = run_shell(hook_output["tool_input"]["command"], env, cwd=tmp_path)
    assert shell.code == 5 and "Traceback: x" in shell.stdout + shell.stderr


def test_gemini_rewrites_nothing_outside_a_headless_yolo_session(env: dict[str, str]) -> None:
    payload = gemini_payload("BeforeTool", "run_shell_command", tool_input={"command": "seq 1 500"})
    run = run_hook("gemini", payload, env)  # started by pytest, not by Gemini CLI
    assert (run.code, run.stdout) == (0, "")


def test_gemini_keeps_commands_a_policy_rule_names(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(env["HOME"])
    headless_yolo(monkeypatch, home)
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "policies" / "p.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\n'
    )
    for command, rewritten in [("seq 1 500", True), ("timeout 5 rm -f x", False), ("echo $(date)", False)]:
        payload = gemini_payload("BeforeTool", "run_shell_command", tool_input={"command": command})
        payload["cwd"] = str(tmp_path)
        assert (gemini.answer(payload, "tersh") is not None) is rewritten, command


def test_gemini_ignores_other_tools_before_they_run(env: dict[str, str]) -> None:
    payload = gemini_payload("BeforeTool", "read_file", tool_input={"file_path": "a"})
    run = run_hook("gemini", payload, env)
    assert (run.code, run.stdout) == (0, "")


def test_gemini_after_tool_is_never_answered() -> None:
    text = {"llmContent": "long text", "returnDisplay": "long text"}
    for tool in ("read_file", "mcp_server_tool", "run_shell_command"):
        assert gemini.answer(gemini_payload("AfterTool", tool, tool_response=text), "t") is None
    assert [spec.event for spec in gemini.hook_specs("t")] == ["BeforeTool"]


def test_gemini_disabled_profile_prints_nothing(tmp_path: Path) -> None:
    payload = gemini_payload("BeforeTool", "run_shell_command", tool_input={"command": "ls"})
    run = run_hook("gemini", payload, host_env(tmp_path))
    assert (run.code, run.stdout) == (0, "")


def test_gemini_init_replaces_an_old_after_tool_hook() -> None:
    from tersh.hosts import hookconfig

    old = {"name": "tersh", "type": "command", "command": "/abs/tersh hook gemini"}
    settings = {"hooks": {"AfterTool": [{"matcher": "read_file", "hooks": [old]}], "BeforeTool": []}}
    updated, _ = hookconfig.with_tersh(settings, "gemini", gemini.hook_specs("/abs/tersh"))
    assert "AfterTool" not in updated["hooks"]
    assert hookconfig.installed_commands(updated, "gemini") == ["BeforeTool [run_shell_command]"]
