"""Hand a finished call to the ledger (history + session savings), when the ledger is on."""

from __future__ import annotations

import os

from tersh.compact.detect import invocation
from tersh.result import Result
from tersh.settings import Settings


def program_and_class(command: str, exit_code: int) -> tuple[str, str]:
    """The real program behind ``command`` and its per-class switch name."""
    program = invocation(command, exit_code).program or "?"
    try:
        from tersh import classify

        klass = classify.classify_command(command)
    except (ImportError, AttributeError):
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
