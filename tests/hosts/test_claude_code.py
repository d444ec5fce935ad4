"""Claude Code: the hook run as Claude Code runs it, then the rewritten command in a real shell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tersh.hosts import claude_code
from tests.hosts.hostenv import enable, host_env, run_hook, run_shell


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    environment = host_env(tmp_path / "home")
    (tmp_path / "home").mkdir()
    enable(environment)
    return environment


def pre_tool_use(command: str, cwd: Path, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "abc123",
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run it", **extra},
        "tool_use_id": "toolu_01",
    }


def rewritten(env: dict[str, str], command: str, cwd: Path, **extra: Any) -> dict[str, Any]:
    run = run_hook("claude-code", pre_tool_use(command, cwd, **extra), env, cwd=cwd)
    assert run.code == 0 and run.stderr == ""
    output: dict[str, Any] = run.answer()["hookSpecificOutput"]
    return output


def test_bash_rewrite_keeps_exit_code_and_errors(env: dict[str, str], tmp_path: Path) -> None:
    command = "seq 1 3000; echo 'error: disk quota exceeded at step 7' >&2; exit 3"
    output = rewritten(env, command, tmp_path, timeout=60000)
    assert output["hookEventName"] == "PreToolUse"
    assert "permissionDecision" not in output  # the user's permission flow decides
    updated = output["updatedInput"]
    assert updated["description"] == "run it" and updated["timeout"] == 60000
    assert updated["command"].endswith("run -c " + "'" + command.replace("'", "'\"'\"'") + "'")
    shell = run_shell(updated["command"], env, cwd=tmp_path)
    direct = run_shell(command, env, cwd=tmp_path)
    assert shell.code == direct.code == 3
    assert "error: disk quota exceeded at step 7" in shell.stdout + shell.stderr
    assert "3000" in shell.stdout + shell.stderr


def test_small_output_reaches_the_model_intact(env: dict[str, str], tmp_path: Path) -> None:
    command = "printf '%s|' 'it'\"'\"'s' \"a  b\" $'tab\\there'; echo"
    updated = rewritten(env, command, tmp_path)["updatedInput"]
    shell = run_shell(updated["command"], env, cwd=tmp_path)
    direct = run_shell(command, env, cwd=tmp_path)
    assert shell.code == direct.code == 0
    assert direct.stdout in shell.stdout


def test_disabled_profile_prints_nothing(tmp_path: Path) -> None:
    env = host_env(tmp_path)
    run = run_hook("claude-code", pre_tool_use("ls", tmp_path), env)
    assert (run.code, run.stdout) == (0, "")


@pytest.mark.parametrize(
    "payload",
    [
        b"{not json",
        b"",
        b"[1, 2]",
        b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}',
        b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": 5}}',
        b'{"hook_event_name": "Stop"}',
        b"\xff\xfe garbage",
    ],
)
def test_malformed_or_unknown_input_fails_open(env: dict[str, str], payload: bytes) -> None:
    run = run_hook("claude-code", payload, env)
    assert (run.code, run.stdout) == (0, "")
    assert "Traceback" not in run.stderr


def test_unknown_host_fails_open(env: dict[str, str], tmp_path: Path) -> None:
    run = run_hook("cursor", pre_tool_use("ls", tmp_path), env)
    assert (run.code, run.stdout) == (0, "")


def test_bypass_marker_and_cd_are_left_alone(env: dict[str, str], tmp_path: Path) -> None:
    for command in ["pytest -q  # no-opt", "cd src && make"]:
        run = run_hook("claude-code", pre_tool_use(command, tmp_path), env, cwd=tmp_path)
        assert (run.code, run.stdout) == (0, ""), command


def test_user_deny_and_ask_rules_still_see_the_original(env: dict[str, str], tmp_path: Path) -> None:
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(git push:*)"]}}))
    project = tmp_path / "proj" / ".claude"
    project.mkdir(parents=True)
    (project / "settings.local.json").write_text(json.dumps({"permissions": {"ask": ["Bash(rm -rf *)"]}}))
    cwd = tmp_path / "proj"
    for command in ["git push origin main", "make && git push", "rm -rf build"]:
        run = run_hook("claude-code", pre_tool_use(command, cwd), env, cwd=cwd)
        assert (run.code, run.stdout) == (0, ""), command
    assert rewritten(env, "git status", cwd)["updatedInput"]["command"].endswith("'git status'")


def test_post_tool_use_without_a_change_prints_nothing(env: dict[str, str], tmp_path: Path) -> None:
    payload = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": "/x.py"},
        "tool_response": {"type": "text", "file": {"filePath": "/x.py", "content": "x = 1\n"}},
        "cwd": str(tmp_path),
    }
    run = run_hook("claude-code", payload, env)
    assert (run.code, run.stdout) == (0, "")


def test_post_tool_use_never_touches_edits_or_bash(monkeypatch: pytest.MonkeyPatch) -> None:
    from tersh.hosts import tool_output

    monkeypatch.setattr(tool_output, "compress", lambda tool, value, meta: "SHORT")
    for tool in ["Edit", "Write", "Bash", "TodoWrite"]:
        payload = {"hook_event_name": "PostToolUse", "tool_name": tool, "tool_response": "x" * 9}
        assert claude_code.answer(payload, "tersh") is None


def test_post_tool_use_replacement_keeps_each_tools_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    from tersh.hosts import tool_output

    seen: list[tuple[str, object]] = []

    def fake(tool: str, value: object, meta: dict[str, object]) -> object:
        seen.append((tool, value))
        return [{"type": "text", "text": "SHORT"}] if isinstance(value, list) else "SHORT\nLINES"

    monkeypatch.setattr(tool_output, "compress", fake)
    read = {"type": "text", "file": {"filePath": "/a", "content": "long", "numLines": 1}}
    out = post("Read", read)["updatedToolOutput"]
    assert out == {"type": "text", "file": {"filePath": "/a", "content": "SHORT\nLINES", "numLines": 1}}
    assert read["file"]["content"] == "long"  # the input object is not mutated
    out = post("Grep", {"mode": "content", "content": "a:1:x", "numLines": 1})["updatedToolOutput"]
    assert out["content"] == "SHORT\nLINES" and out["mode"] == "content"
    out = post("Glob", {"filenames": ["a", "b"], "numFiles": 2})["updatedToolOutput"]
    assert out["filenames"] == ["SHORT", "LINES"] and out["numFiles"] == 2
    assert post("WebFetch", {"result": "page", "code": 200})["updatedToolOutput"]["result"]
    blocks = [{"type": "text", "text": "big"}, {"type": "image", "data": "AAAA"}]
    mcp = post("mcp__github__search", blocks)
    assert mcp == {
        "hookEventName": "PostToolUse",
        "updatedMCPToolOutput": [{"type": "text", "text": "SHORT"}],
    }
    assert seen[-1] == ("mcp__github__search", blocks)
    assert post("mcp__x__y", "plain text")["updatedMCPToolOutput"] == "SHORT\nLINES"


def post(tool: str, response: object) -> dict[str, Any]:
    payload = {"hook_event_name": "PostToolUse", "tool_name": tool, "tool_response": response}
    answer = claude_code.answer(payload, "tersh")
    assert answer is not None
    output: dict[str, Any] = answer["hookSpecificOutput"]
    return output


def test_post_tool_use_with_the_real_tools_module_fails_open_or_compresses(
    env: dict[str, str], tmp_path: Path
) -> None:
    text = "".join(f"line {i}: some repeated filler text for the reader\n" for i in range(4000))
    payload = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": str(tmp_path / "big.txt")},
        "tool_response": {"type": "text", "file": {"filePath": "big.txt", "content": text}},
    }
    run = run_hook("claude-code", payload, env)
    assert run.code == 0 and "Traceback" not in run.stdout
    if run.stdout:  # the tool-output module is installed: a smaller Read result, same shape
        replaced = run.answer()["hookSpecificOutput"]["updatedToolOutput"]
        assert replaced["file"]["filePath"] == "big.txt"
        assert len(replaced["file"]["content"]) < len(text)


def test_real_pytest_run_through_the_hook(env: dict[str, str], tmp_path: Path) -> None:
    import sys

    tests = "".join(f"def test_ok_{i}():\n    assert True\n\n" for i in range(120))
    tests += "def test_broken():\n    assert 2 + 2 == 5, 'arithmetic is off'\n"
    (tmp_path / "test_sample.py").write_text(tests)
    command = f"{sys.executable} -m pytest -p no:cacheprovider test_sample.py"
    updated = rewritten(env, command, tmp_path)["updatedInput"]
    shell = run_shell(updated["command"], env, cwd=tmp_path)
    direct = run_shell(command, env, cwd=tmp_path)
    assert direct.code == shell.code == 1
    text = shell.stdout + shell.stderr
    for fact in ["test_broken", "arithmetic is off", "test_sample.py:", "1 failed, 120 passed"]:
        assert fact in text, fact
    assert len(text) <= len(direct.stdout + direct.stderr)
