"""Drive the real Claude Code binary (``claude -p``) against the scripted Anthropic model.

Each run gets a private HOME and ``CLAUDE_CONFIG_DIR`` (so no user setting leaks in), the
model server on 127.0.0.1 (``ANTHROPIC_BASE_URL``, a dummy ``ANTHROPIC_API_KEY``), and the
documented switches that turn off telemetry, error reporting, the auto-updater and other
non-essential traffic (https://code.claude.com/docs/en/env-vars). With ``tersh=True`` tersh is
installed the way a user installs it: ``tersh init claude-code`` then ``tersh enable``, with a
private ``TERSH_HOME``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from tests.e2e import anthropic, parity
from tests.e2e.fakemodel import Request, serving
from tests.e2e.hostbin import host_binary

#: The pinned Claude Code version these tests were written against (tests/e2e/package.json).
PINNED = "2.1.332"
TERSH = Path(sys.executable).with_name("tersh")


class ClaudeRun(NamedTuple):
    """What one ``claude -p`` run did: every request, the scripted conversation's last one."""

    requests: list[Request]
    last: dict[str, Any]  # the final main-conversation request body (the whole history)
    code: int
    stdout: str
    stderr: str
    seconds: float

    def results(self) -> list[str]:
        """The text of each tool result the model received, in order."""
        return [anthropic.result_text(block) for block in anthropic.tool_results(self.last)]

    def asked(self) -> list[str]:
        """The command of each Bash call as the history holds it."""
        return [str(use["input"].get("command")) for use in anthropic.conversation_tool_uses(self.last)]


def permissions(rules: parity.RuleSet) -> dict[str, Any]:
    """A rule set as Claude Code ``permissions`` (``Bash(prog:*)`` rules, the default mode)."""
    table: dict[str, Any] = {
        "defaultMode": "bypassPermissions" if rules.mode == "bypass" else "default",
    }
    for key in ("deny", "ask", "allow"):
        programs = getattr(rules, key)
        if programs:
            table[key] = [f"Bash({program}:*)" for program in programs]
    return table


def environment(home: Path, base_url: str, tersh_home: Path) -> dict[str, str]:
    """The environment ``claude`` runs in: private folders, the fake model, no extra traffic."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "SHELL": "/bin/bash",
        "LANG": "C.UTF-8",
        "TERSH_HOME": str(tersh_home),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_BUG_COMMAND": "1",
    }
    if os.geteuid() == 0:
        # bypassPermissions refuses to start as root outside a sandbox; CI containers run as root.
        env["IS_SANDBOX"] = "1"
    return env


def install_tersh(env: dict[str, str], cwd: Path) -> None:
    """``tersh init claude-code`` and ``tersh enable`` in the run's private HOME and profile."""
    for argv in (["init", "claude-code"], ["enable"]):
        subprocess.run([str(TERSH), *argv], env=env, cwd=cwd, check=True, capture_output=True, timeout=60)


def run_claude(
    workdir: Path,
    calls: Sequence[anthropic.ToolCall],
    *,
    settings: dict[str, Any],
    tersh: bool,
    home: Path,
    timeout: float = 600,
    before: Sequence[str] = (),
    extra_env: dict[str, str] | None = None,
) -> ClaudeRun:
    """One headless ``claude -p`` run that makes ``calls`` in order (one per turn)."""
    claude = host_binary("claude")
    model = anthropic.ScriptedModel(calls)
    config = home / ".claude"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    with serving(model) as server:
        env = environment(home, server.url, home / "tersh-profile") | (extra_env or {})
        if tersh:
            install_tersh(env, workdir)
        started = time.monotonic()
        done = subprocess.run(
            [str(claude), "-p", "Run the scripted commands.", "--output-format", "json", *before],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        seconds = time.monotonic() - started
        requests = list(server.requests)
    main = model.main_requests(requests)
    last = main[-1].body if main else {}
    return ClaudeRun(requests, last, done.returncode, done.stdout, done.stderr, seconds)
