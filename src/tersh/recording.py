"""Hand a finished call to the ledger (history + session savings), when the ledger is on."""

from __future__ import annotations

import os

from tersh.result import Result
from tersh.settings import Settings


def program_and_class(command: str, exit_code: int) -> tuple[str, str]:
    """The real program behind ``command`` and its per-class switch name.

    The program is the one ``tersh.compact.detect.invocation`` names, found with the same shell
    walk but without importing the compaction package (this runs after every command).
    """
    from tersh import classify

    try:
        words = classify.main_command(command)
    except Exception:  # the lexer must never cost the record: fall back to plain words
        words = command.split()
    program = (classify.basename(words[0]) if words else "") or "?"
    try:
        klass = classify.classify(words) or classify.OTHER
    except Exception:
        klass = "other"
    return program, klass


def record(result: Result, conf: Settings) -> None:
    """Write one ledger row for ``result`` (and refresh the session's savings)."""
    if not conf.flag("ledger.enabled"):
        return
    try:
        from tersh import ledger
    except ImportError:
        return
    program, klass = program_and_class(result.requested_command, result.exit_code)
    ledger.record(
        result,
        session=ledger.session_id(),
        host=os.environ.get("TERSH_HOST", "cli"),
        program=program,
        klass=klass,
    )
