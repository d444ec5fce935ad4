"""Hand a finished call to the ledger (history + session savings), when the ledger is on.

This runs after every ``tersh run``, so it stays off SQLite: the call's row is spooled beside the
ledger (``tersh.recording.spool``, folded in when the ledger is next opened) and the session's running
savings are updated in the tally (``tersh.recording.tally``), both under the status lock. Only the first
call of a profile or of another session goes to the ledger directly.
"""

from __future__ import annotations

import os
import time

from tersh import settings
from tersh.result import Result

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from tersh.recording.spool import Row
    from tersh.settings import Settings


def program_and_class(command: str, exit_code: int) -> tuple[str, str]:
    """The real program behind ``command`` and its per-class switch name.

    The program is the one ``tersh.compaction.detect.invocation`` names, found with the same shell
    walk (``tersh.command.parsed``) but without importing the compaction package.
    """
    from tersh.command import parsed

    found = parsed.parse(command)
    return found.program or "?", found.klass


def call_row(result: Result, *, session: str, host: str, program: str, klass: str,
             with_arguments: bool) -> Row:
    """The ledger row of one call (``tersh.recording.ledger.CALL_COLUMNS``, plus the model ``text`` while
    its tokens wait to be counted).

    Arguments are kept only ``with_arguments`` (they can hold secrets); the executed form of a
    rewritten call then keeps only the provider's command word and the program (``rtk git``).
    """
    empty = result.measured and result.input_bytes == 0 and result.output_bytes == 0
    deferred = 1 if result.measured and not empty else 0
    tokens = 0 if empty else None
    rewrite = result.details.get("rewrite") or {}
    recorded = str(rewrite.get("recorded") or "") if rewrite.get("verdict") == "rewritten" else ""
    from tersh.recording.redact import command_line

    executed = (command_line(recorded) if with_arguments else f"{recorded.split()[0]} {program}"
                ) if recorded else None
    refs = sorted(result.captures, key=lambda ref: ref.stream != "combined")
    row: Row = {
        "ts": time.time(), "session": session, "host": host, "program": program, "klass": klass,
        "arguments": command_line(result.requested_command) if with_arguments else None,
        "category": result.category, "rule": result.rule, "measured": int(result.measured),
        "complete": int(result.complete), "exit_code": result.exit_code,
        "duration_s": result.duration_s, "input_bytes": result.input_bytes,
        "output_bytes": result.output_bytes, "input_tokens": tokens, "output_tokens": tokens,
        "capture_id": result.capture_id, "capture_path": refs[0].path if refs else None,
        "deferred": deferred, "executed": executed, "spool_key": os.urandom(12).hex(),
    }
    filtered = result.details.get("rtk")
    if isinstance(filtered, dict) and filtered.get("outcome"):
        row["rtk_outcome"] = str(filtered["outcome"])
        row["rtk_bytes"] = int(filtered.get("rtk_bytes") or 0)
    if deferred:
        row["text"] = result.text
    return row


def record(result: Result, conf: Settings | None = None, *, program: str | None = None,
           klass: str | None = None, session: str | None = None, host: str | None = None) -> None:
    """Record ``result`` in the ledger and refresh the session's savings; never raises.

    ``program`` and ``klass`` are the call's (``tersh.command.parsed``; found from the requested
    command when not given); ``session`` and ``host`` default to the caller's. The row is spooled
    whenever it can be (no SQLite on the per-call path), else inserted into the ledger.
    """
    from tersh.errors import warn

    try:
        conf = conf or settings.load_or_defaults()[0]
        if not conf.flag("ledger.enabled"):
            return
        from tersh.session import session_id

        if program is None or klass is None:
            program, klass = program_and_class(result.requested_command, result.exit_code)
        row = call_row(result, session=session or session_id(),
                       host=host or os.environ.get("TERSH_HOST", "cli"), program=program or "?",
                       klass=klass, with_arguments=conf.flag("ledger.record_arguments"))
        if not _spool(row):
            from tersh.recording import ledger

            ledger.add_row(row)
    except Exception as exc:  # the ledger must never cost the user their output or exit code
        warn(f"savings not recorded: {type(exc).__name__}: {exc}")


def after_call(result: Result, conf: Settings, *, program: str, klass: str) -> None:
    """The record stage of a call: record it, then the once-a-minute upkeep (capture eviction,
    the ledger's maintenance: ``tersh.recording.upkeep``, detached); never fails the call."""
    from tersh.recording import upkeep

    record(result, conf, program=program, klass=klass)
    upkeep.after_call(conf)


def _spool(row: Row) -> bool:
    """Spool ``row`` and add it to the session's tally; False when the ledger must take it."""
    from tersh.recording import spool, status, tally
    from tersh.recording.paths import ledger_file, spool_folder

    if not os.path.exists(ledger_file()):
        return False  # the first call creates the ledger
    try:
        with status.lock(status.RUN_LOCK_TIMEOUT_SECONDS):
            current = tally.session_counters(str(row["session"]))
            if current is None:
                return False  # a session the status file does not list: the ledger computes its sums
            spool.put(spool_folder(), row)
            tally.publish(str(row["session"]), tally.savings("total", *_added(current, row)))
    except status.LockTimeout:  # a stuck lock holder: the row is kept, the tally catches up
        spool.put(spool_folder(), row)  # when the ledger next folds and publishes
    return True


def _added(counters: tuple[int, ...], row: Row) -> tuple[int, ...]:
    """``counters`` (tally.COUNTERS) with one more call."""
    calls, measured, in_bytes, out_bytes, retrieved, counted, in_tokens, out_tokens = counters
    calls += 1
    if row["measured"]:
        measured += 1
        in_bytes += int(row["input_bytes"] or 0)
        out_bytes += int(row["output_bytes"] or 0)
        if row["input_tokens"] is not None and row["output_tokens"] is not None:
            counted += 1
            in_tokens += int(row["input_tokens"])
            out_tokens += int(row["output_tokens"])
    return calls, measured, in_bytes, out_bytes, retrieved, counted, in_tokens, out_tokens
