"""Claude Code: ``tersh-shell-prefix`` run as the host runs it, and the PostToolUse hook."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tersh.command.quoting import quote
from tersh.hosts import claude_code, claude_prefix, limits
from tests.hosts.hostenv import TERSH, enable, host_env, run_hook

PREFIX = TERSH.with_name("tersh-shell-prefix")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    environment = host_env(tmp_path / "home", SHELL="/bin/bash")
    (tmp_path / "home").mkdir()
    enable(environment)
    return environment


def host_line(command: str, cwd_file: Path) -> str:
    """The line Claude Code 2.1.332 hands its shell prefix for one Bash call (seen in the binary)."""
    return (
        "source /nonexistent/snapshot-bash-1.sh 2>/dev/null || true && "
        "{ \\builtin shopt -u extglob || \\builtin setopt NO_EXTENDED_GLOB; } >/dev/null 2>&1 || true && "
        f"eval {quote(command)} < /dev/null && pwd -P >| {cwd_file}"
    )


def prefix(line: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PREFIX), line], capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


@pytest.mark.parametrize(
    "command",
    [
        "echo hi",
        "pwd",
        "echo \"it's\" $HOME; printf '%s|' a\\ b",
        "cat <<EOF\nx 'y' \"z\"\nEOF",
        "echo '\\' \"\\$x\"",
    ],
)
def test_the_requested_command_is_found_in_the_hosts_line(command: str, tmp_path: Path) -> None:
    parsed = claude_prefix.parse_bash_line(host_line(command, tmp_path / "claude-1a2b-cwd"))
    assert parsed is not None and parsed.command == command
    assert parsed.with_command(command) == host_line(command, tmp_path / "claude-1a2b-cwd")


def test_other_lines_are_not_bash_tool_lines() -> None:
    for line in ["echo hook", "python3 /srv/mcp.py 'a b'", "eval $(x) && pwd -P >| /tmp/claude-1-cwd"]:
        assert claude_prefix.parse_bash_line(line) is None


def test_bash_line_runs_compacted_keeping_exit_code_and_cwd(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    cwd_file = tmp_path / "claude-9f9f-cwd"
    command = "cd src && seq 1 30000; echo 'error: disk quota exceeded at step 7' >&2; true"
    run = prefix(host_line(command, cwd_file), env, tmp_path)
    assert run.returncode == 0
    text = run.stdout + run.stderr
    assert "error: disk quota exceeded at step 7" in text and "30000" in text
    assert "tersh retrieve" in text and len(text) < 30_000  # compacted, the capture reported
    assert cwd_file.read_text().strip() == str((tmp_path / "src").resolve())  # the host's tracking ran
    failed = prefix(host_line("echo out; exit 3", cwd_file), env, tmp_path)
    assert (failed.returncode, failed.stdout) == (3, "out\n")


def test_hooks_and_mcp_lines_pass_through_byte_exact(env: dict[str, str], tmp_path: Path) -> None:
    script = tmp_path / "argv.py"
    script.write_text("import sys, json; print(json.dumps(sys.argv[1:]))")
    words = [sys.executable, str(script), "a b", "$HOME;x", "it's", ""]
    run = prefix(" ".join(quote(w) for w in words), env, tmp_path)
    assert run.returncode == 0 and json.loads(run.stdout) == words[2:]
    hook = prefix('printf "%s" "$((1+2))" >&2; exit 4', env, tmp_path)
    assert (hook.returncode, hook.stdout, hook.stderr) == (4, "", "3")


def test_disabled_tersh_runs_the_line_untouched(tmp_path: Path) -> None:
    env = host_env(tmp_path, SHELL="/bin/bash")  # a new profile is disabled
    cwd_file = tmp_path / "claude-0000-cwd"
    run = prefix(host_line("seq 1 30000", cwd_file), env, tmp_path)
    assert run.returncode == 0 and run.stdout == "".join(f"{i}\n" for i in range(1, 30001))
    assert cwd_file.exists()


def test_a_broken_profile_fails_open(tmp_path: Path) -> None:
    env = host_env(tmp_path, SHELL="/bin/bash", TERSH_HOME=str(tmp_path / "profile"))
    (tmp_path / "profile").mkdir()
    (tmp_path / "profile" / "settings.toml").write_text("enabled = true\n[[[broken\n")
    run = prefix(host_line("echo still runs; exit 5", tmp_path / "claude-1-cwd"), env, tmp_path)
    assert (run.returncode, run.stdout) == (5, "still runs\n")


def test_no_capture_possible_runs_the_line_once_unchanged(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    env = host_env(tmp_path, SHELL="/bin/bash", TERSH_HOME=str(profile))
    enable(env)
    (tmp_path / "elsewhere").mkdir()
    (profile / "captures").symlink_to(tmp_path / "elsewhere")  # tersh refuses to write there
    counter = tmp_path / "ran"
    run = prefix(
        host_line(f"echo x >> {counter}; seq 1 3000; exit 7", tmp_path / "claude-1-cwd"), env, tmp_path
    )
    assert run.returncode == 7 and run.stdout == "".join(f"{i}\n" for i in range(1, 3001))
    assert counter.read_text() == "x\n"  # once, not twice
    assert "running without tersh" in run.stderr and run.stderr.count("\n") == 1


def test_passthrough_is_an_exec_not_a_pipeline(env: dict[str, str], tmp_path: Path) -> None:
    started = time.monotonic()
    run = prefix("echo $$ $PPID", env, tmp_path)
    assert run.returncode == 0 and time.monotonic() - started < 5
    pid, parent = run.stdout.split()
    assert parent != pid  # the shell replaced tersh: its parent is this test, not a tersh process
    assert int(parent) == __import__("os").getpid()


def test_the_preview_bound_fits_the_hosts_inline_limit() -> None:
    from tersh.commands import shell_prefix
    from tersh.settings import Settings

    assert shell_prefix.bounded(Settings()).int("preview.max_bytes") == limits.INLINE_CHARS["claude-code"]
    small = Settings({"preview.max_bytes": 4096})
    assert shell_prefix.bounded(small).int("preview.max_bytes") == 4096


def test_hook_no_longer_answers_pre_tool_use(env: dict[str, str], tmp_path: Path) -> None:
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
    run = run_hook("claude-code", payload, env, cwd=tmp_path)
    assert (run.code, run.stdout) == (0, "")


@pytest.mark.parametrize(
    "payload",
    [
        b"{not json",
        b"",
        b"[1, 2]",
        b'{"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_response": 5}',
        b'{"hook_event_name": "Stop"}',
        b"\xff\xfe garbage",
    ],
)
def test_malformed_or_unknown_input_fails_open(env: dict[str, str], payload: bytes) -> None:
    run = run_hook("claude-code", payload, env)
    assert (run.code, run.stdout) == (0, "")
    assert "Traceback" not in run.stderr


def test_unknown_host_fails_open(env: dict[str, str], tmp_path: Path) -> None:
    run = run_hook("cursor", {"hook_event_name": "PostToolUse", "tool_name": "Read"}, env)
    assert (run.code, run.stdout) == (0, "")


def test_init_writes_the_prefix_and_only_a_post_tool_use_hook(tmp_path: Path) -> None:
    settings: dict[str, Any] = {"env": {"FOO": "1"}, "permissions": {"deny": ["Bash(rm:*)"]}}
    installed, _ = claude_code.with_prefix(settings, str(TERSH))
    assert installed["env"] == {"FOO": "1", "CLAUDE_CODE_SHELL_PREFIX": str(PREFIX)}
    assert list(installed["hooks"]) == ["PostToolUse"] and installed["permissions"] == settings["permissions"]
    assert "Grep" not in installed["hooks"]["PostToolUse"][0]["matcher"]
    again, more = claude_code.with_prefix(installed, str(TERSH))
    assert again == installed and more == []
    removed, _ = claude_code.without_prefix(installed)
    assert removed == settings
    theirs = {"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/local/bin/audit"}}
    kept, notes = claude_code.with_prefix(theirs, str(TERSH))
    assert kept["env"] == theirs["env"] and any("yours, kept" in n for n in notes)


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


def test_read_keeps_every_line_number(env: dict[str, str], tmp_path: Path) -> None:
    source = "".join(
        f"# note {i}\n# more words for the reader\ndef f_{i}():\n    return {i}\n\n" for i in range(300)
    )
    response = {
        "type": "text",
        "file": {
            "filePath": str(tmp_path / "m.py"),
            "content": source,
            "numLines": 1500,
            "startLine": 1,
            "totalLines": 1500,
        },
    }
    payload = {"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_response": response}
    run = run_hook("claude-code", payload, env)
    replaced = run.answer()["hookSpecificOutput"]["updatedToolOutput"]
    assert {k: v for k, v in replaced["file"].items() if k != "content"} == {
        k: v for k, v in response["file"].items() if k != "content"
    }
    *shown, note = replaced["file"]["content"].split("\n")
    original = source.split("\n")[:-1]  # the text ends with a newline: the note follows it
    assert len(shown) == len(original) and note.startswith("[tersh: 600 comment lines shown empty")
    for number, (before, after) in enumerate(zip(original, shown, strict=True), start=1):
        assert after in (before, ""), number
        assert not before.startswith("def") or after == before, number


def test_the_retrieve_hint_under_the_shell_prefix_runs_as_printed_without_tersh_on_path(
    tmp_path: Path,
) -> None:
    import os
    import re
    import subprocess
    import sys

    env = host_env(tmp_path / "home")
    (tmp_path / "home").mkdir()
    enable(env)
    env["PATH"] = "/usr/bin:/bin"  # no tersh here: the hint must carry its own path
    prefix = Path(sys.executable).with_name("tersh-shell-prefix")
    cwd_file = tmp_path / "claude-1a2b-cwd"
    line = f"true && eval {quote('seq 1 300000')} < /dev/null && pwd -P >| {cwd_file}"
    done = subprocess.run([str(prefix), line], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    hint = re.search(r"read: (.+?) --offset N --limit M", done.stdout)
    assert hint, done.stdout[-500:]
    assert "shell-prefix" not in hint.group(1)
    page = subprocess.run(
        ["bash", "-c", hint.group(1) + " --offset 299990 --limit 3"],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert page.returncode == 0, page.stderr
    assert "299991" in page.stdout
    assert cwd_file.read_text().strip() == os.getcwd()
