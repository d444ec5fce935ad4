"""``tersh hook HOST``: read the host's hook JSON on stdin, print the host's JSON answer.

Fail open, always: malformed stdin, an unknown host or tool, a disabled profile, any error inside
tersh — exit 0 and print nothing, so the host carries on exactly as without tersh. Only the
finished answer is ever written to stdout, never a traceback. Imports stay minimal (sys, os and
the C JSON accelerator on the common path; no json, re, argparse, tomllib or platformdirs): this
runs before every tool call of the agent.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import argparse
    from typing import Any

MAX_STDIN_BYTES = 64 * 1024 * 1024  # a tool output larger than this is left to the host


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``HOST``: claude-code, codex or gemini."""
    parser.add_argument("host", help="the agent host that runs this hook")


def main(args: argparse.Namespace, name: str) -> int:
    """Answer one hook call (``tersh hook --help`` and odd argv end up here)."""
    return run(args.host)


def run(host_name: str) -> int:
    """Answer one hook call; every failure is an empty answer with exit code 0.

    ``tersh.cli`` calls this directly for ``tersh hook HOST``, without building an argparse
    parser (that alone costs several milliseconds on every tool call).
    """
    try:
        reply = _reply(host_name, sys.stdin.buffer.read(MAX_STDIN_BYTES + 1))
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
    from tersh._startup import leanjson

    payload = leanjson.loads(raw)
    if not isinstance(payload, dict) or not _enabled():
        return None
    from tersh import hosts

    host = hosts.load(host_name)
    answer: dict[str, Any] | None = host.answer(payload, hosts.tersh_command())
    return leanjson.dumps(answer) if answer else None


def _enabled() -> bool:
    quick = quick_enabled()
    if quick is not None:
        return quick
    from tersh import settings

    current, _ = settings.load_or_defaults()
    return current.flag("enabled")


_BARE_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _top_level_line(line: str) -> bool:
    """A ``dotted.bare-key = value`` line or a ``[table]`` header (comment allowed after it)."""
    if line.startswith("["):
        header, close, rest = line[1:].partition("]")
        tail = rest.lstrip()
        return bool(close) and bool(header) and "[" not in header and (not tail or tail[0] == "#")
    key, equals, value = line.partition("=")
    parts = key.rstrip().split(".")
    return bool(equals) and bool(value.strip()) and all(
        part and _BARE_KEY.issuperset(part) for part in parts
    )


def _enabled_value(line: str) -> bool | None:
    """True/False for an ``enabled = true|false`` line (comment allowed), else None."""
    key, equals, rest = line.partition("=")
    if not equals or key.rstrip() != "enabled":
        return None
    value = rest.lstrip()
    for word, meaning in (("true", True), ("false", False)):
        if value.startswith(word):
            tail = value[len(word):].lstrip()
            return meaning if not tail or tail[0] == "#" else None
    return None


def quick_enabled() -> bool | None:
    """The profile's on/off switch without importing tomllib or platformdirs, or None.

    Reads the settings file ``tersh.settings`` would read, in the layout ``tersh.settings.save``
    writes (``enabled = true`` before any table). Anything unusual returns None and the caller
    asks ``tersh.settings`` itself. A missing file means the default: disabled.
    """
    home = os.environ.get("TERSH_HOME")
    if not home:
        from tersh._startup.userdirs import quick_user_data_dir

        home = quick_user_data_dir("tersh")
        if home is None:
            return None
    try:
        with open(os.path.join(home, "settings.toml"), "rb") as handle:
            text = handle.read().decode("utf-8")
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError):
        return None
    value = None
    in_tables = False
    for raw in text.split("\n"):  # TOML lines end at \n only (str.splitlines also splits at U+0085)
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not _top_level_line(line):
            return None
        in_tables = in_tables or line.startswith("[")
        if in_tables:
            continue
        found = _enabled_value(line)
        if found is not None and value is None:
            value = found
        elif found is not None or line.startswith(("enabled", '"enabled', "'enabled")):
            return None
    return bool(value)
