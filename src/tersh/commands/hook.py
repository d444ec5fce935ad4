"""``tersh hook HOST``: read the host's hook JSON on stdin, print the host's JSON answer.

Fail open, always: malformed stdin, an unknown host or tool, a disabled profile, any error inside
tersh — exit 0 and print nothing, so the host carries on exactly as without tersh. Only the
finished answer is ever written to stdout, never a traceback. Imports stay minimal (json, sys,
os on the common path): this runs before every tool call of the agent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

MAX_STDIN_BYTES = 64 * 1024 * 1024  # a tool output larger than this is left to the host


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``HOST``: claude-code, codex or gemini."""
    parser.add_argument("host", help="the agent host that runs this hook")


def main(args: argparse.Namespace, name: str) -> int:
    """Answer one hook call; every failure is an empty answer with exit code 0."""
    try:
        reply = _reply(args.host, sys.stdin.buffer.read(MAX_STDIN_BYTES + 1))
        if reply is not None:
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()
    except BaseException:
        if os.environ.get("TERSH_DEBUG"):
            import traceback

            traceback.print_exc(file=sys.stderr)
    return 0


def _reply(host_name: str, raw: bytes) -> str | None:
    if len(raw) > MAX_STDIN_BYTES or not raw.strip():
        return None
    payload = json.loads(raw)
    if not isinstance(payload, dict) or not _enabled():
        return None
    from tersh import hosts

    host = hosts.load(host_name)
    answer: dict[str, Any] | None = host.answer(payload, hosts.tersh_command())
    return json.dumps(answer) if answer else None


def _enabled() -> bool:
    from tersh import settings

    current, _ = settings.load_or_defaults()
    return current.flag("enabled")
