"""Where the pinned real host binaries are (installed by ``scripts/install_hosts.sh``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
#: The npm package behind each host's command.
PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "opencode": "opencode-ai",
    "gemini": "@google/gemini-cli",
    "codex": "@openai/codex",
}


def pinned_version(command: str) -> str:
    """The version package.json pins for ``command``'s package."""
    pins: dict[str, str] = json.loads((HERE / "package.json").read_text())["dependencies"]
    return pins[PACKAGES[command]]


def host_binary(command: str) -> Path:
    """The installed host command; fails (CI) or skips (a developer without npm) when missing."""
    path = BIN / command
    if path.exists():
        return path
    message = f"{command} not installed: run scripts/install_hosts.sh"
    if os.environ.get("TERSH_REQUIRE_HOSTS") == "1":
        pytest.fail(message)
    pytest.skip(message)
