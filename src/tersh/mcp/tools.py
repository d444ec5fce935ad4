"""The bodies of tersh's MCP tools, as plain functions (no SDK): run, retrieve, search, stats.

Each returns an :class:`Answer`: the text blocks the model reads, a small structured record (ids,
sizes, codes; never a second copy of the text, which would cost the tokens tersh saves) and an
error flag. :mod:`tersh.mcp.server` turns answers into MCP results.

``run`` is an explicit request to run a command through tersh, so it always compacts, whether
or not the profile is enabled; the policy still applies (``# no-opt`` keeps the output as it
is, machine-readable output is never filtered). Nothing raises to the client: when tersh itself
fails, the command's raw output comes back instead.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from tersh import settings
from tersh.compaction.report import human_bytes
from tersh.errors import TershError
from tersh.result import Result

if TYPE_CHECKING:
    from tersh.retrieval.search_index import Found

ENTRY_ID = re.compile(r"^[co][0-9a-f]{12}$")
COMMAND_SHOWN_CHARS = 120
COUNT_LIMIT = 500  # calls whose token counts a stats request may compute


class Answer(NamedTuple):
    """What a tool call returns: text blocks for the model, a small record, an error flag."""

    blocks: list[str]
    data: dict[str, Any]
    is_error: bool = False


@dataclass
class ServerState:
    """What one server process remembers: when it started and what its own runs produced."""

    started: float = field(default_factory=time.time)
    calls: int = 0
    measured_calls: int = 0
    input_bytes: int = 0
    output_bytes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, result: Result) -> None:
        """Add one finished run to this server's own totals."""
        with self.lock:
            self.calls += 1
            if result.measured:
                self.measured_calls += 1
                self.input_bytes += result.input_bytes
                self.output_bytes += result.output_bytes


# --- run ----------------------------------------------------------------------------------------


def run_command(command: str, timeout: float | None = None, cwd: str | None = None,
                state: ServerState | None = None) -> Answer:
    """Run ``command`` through the whole pipeline; fail open to its raw output."""
    from tersh.execution import orchestrate

    if not command.strip():
        return Answer(["[tersh] nothing to run: give a command"], {}, True)
    if cwd is not None and not os.path.isdir(cwd):
        return Answer([f"[tersh] no such folder: {cwd} (the command was not run)"], {}, True)
    conf, problem = settings.load_or_defaults()
    try:
        call = orchestrate.prepare(command, conf)  # a policy failure here means nothing has run yet
    except Exception as exc:
        return run_plain(command, timeout, cwd, f"policy failed ({type(exc).__name__})")
    fallback = io.BytesIO()
    try:
        result = orchestrate.run_call(call, timeout=timeout, cwd=cwd, fallback=fallback)
    except orchestrate.CaptureUnavailable as exc:
        return run_plain(command, timeout, cwd, str(exc))
    except orchestrate.CaptureLost as exc:
        return raw_answer(fallback.getvalue(), exc.exit_code, str(exc))
    except Exception as exc:  # the command may have run: never run it twice
        note = (f"[tersh] internal error while running the command ({type(exc).__name__}: {exc}); "
                "its output is not available and it was not run again")
        return Answer([note], {"exit_code": None}, True)
    if state is not None:
        state.count(result)
    answer = result_answer(result)
    return answer._replace(blocks=[*answer.blocks, f"[tersh] {problem}"]) if problem else answer


def result_answer(result: Result) -> Answer:
    """The answer for a pipeline result: its text as ``tersh run`` prints it, plus the exit code."""
    timed_out = result.details.get("timed_out")
    blocks = [result.text if result.text else "[tersh] no output"]
    if timed_out is not None:
        blocks.append(f"[tersh] stopped after the {timed_out:g} s timeout")
    if result.exit_code != 0:
        blocks.append(f"[tersh] exit code {result.exit_code}")
    data = {
        "exit_code": result.exit_code,
        "capture_id": result.capture_id,
        "complete": result.complete,
        "category": result.category,
        "rule": result.rule,
        "input_bytes": result.input_bytes,
        "output_bytes": result.output_bytes,
        "timed_out": timed_out is not None,
    }
    return Answer(blocks, data, result.exit_code != 0)


def raw_answer(output: bytes, exit_code: int, reason: str) -> Answer:
    """The command's raw output (tersh could not keep a capture of it)."""
    text = output.decode("utf-8", "replace")
    blocks = [text if text else "[tersh] no output", f"[tersh] {reason}; raw output shown"]
    if exit_code != 0:
        blocks.append(f"[tersh] exit code {exit_code}")
    data = {"exit_code": exit_code, "capture_id": None, "complete": True, "category": None,
            "rule": None, "input_bytes": len(output), "output_bytes": len(text.encode("utf-8")),
            "timed_out": False}
    return Answer(blocks, data, exit_code != 0)


def run_plain(command: str, timeout: float | None, cwd: str | None, reason: str) -> Answer:
    """Run ``command`` without tersh (no capture, no compaction) and answer its raw output."""
    from tersh.execution import spawn as runner

    try:
        done = subprocess.run(
            runner.shell_argv(command), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=timeout, cwd=cwd, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        partial = exc.output if isinstance(exc.output, bytes) else b""
        return raw_answer(partial, runner.TIMEOUT_EXIT, f"{reason}; stopped after {timeout:g} s")
    except OSError as exc:
        return Answer([f"[tersh] could not start the command: {exc}"], {"exit_code": None}, True)
    return raw_answer(done.stdout, runner.exit_code_of(done.returncode), reason)


# --- retrieve -----------------------------------------------------------------------------------


def retrieve_entry(entry_id: str, offset: int = 0, limit: int = 200, query: str | None = None,
                   stream: str = "combined", by_bytes: bool = False) -> Answer:
    """One bounded page (or the matching lines) of a capture ``c…`` or tool output ``o…``."""
    from tersh.retrieval import pages as retrieval

    if not ENTRY_ID.match(entry_id):
        return Answer([f"[tersh] malformed id {entry_id!r}: expected c (a command's capture) or "
                       "o (a tool output) followed by 12 hex digits"], {"id": entry_id}, True)
    if query is not None and not query.strip():
        return Answer(["[tersh] the query is empty: give some text to look for"], {}, True)
    try:
        page = retrieval.retrieve(entry_id, offset=offset, limit=limit, query=query,
                                  stream=stream, by_bytes=by_bytes)
    except TershError as exc:
        return Answer([f"[tersh] {exc}"], {"id": entry_id}, True)
    except OSError as exc:
        return Answer([f"[tersh] cannot read {entry_id}: {exc.strerror or exc}"], {"id": entry_id},
                      True)
    text = page.render()  # says itself when the offset is past the end or the stream is empty
    data = {"id": page.id, "stream": page.stream, "mode": page.mode, "offset": page.offset,
            "next_offset": page.next_offset, "total_lines": page.total_lines, "size": page.size,
            "more": page.more}
    return Answer([text], data)


# --- search -------------------------------------------------------------------------------------


def search_session(query: str, limit: int = 20, state: ServerState | None = None) -> Answer:
    """Lines matching ``query`` across this session's captures."""
    from tersh.recording import ledger
    from tersh.retrieval import search_index

    if not query.strip():
        return Answer(["[tersh] the query is empty: give some text to look for"], {}, True)
    since = state.started if state is not None else time.time()
    sources = search_index.session_sources(ledger.session_id(), since)
    if not sources:
        return Answer(["[tersh] this session has no captures yet: run commands with the run tool"],
                      {"query": query, "searched": 0, "matches": [], "more": 0, "skipped": []})
    found = search_index.search(query, sources, limit)
    text = render_found(query, found, len(sources))
    _note_reads(found)
    data = {"query": query, "engine": found.engine, "searched": found.searched, "more": found.more,
            "matches": [{"capture_id": hit.capture_id, "line": hit.line} for hit in found.hits],
            "skipped": found.skipped}
    return Answer([text], data)


def render_found(query: str, found: Found, captures: int) -> str:
    """The model's view of a search: hits grouped by capture, newest first, and what was skipped."""
    if not found.hits:
        lines = [f"[tersh] no line matches {query!r} in {found.searched} of "
                 f"{_count(captures, 'capture')} of this session"]
    else:
        more = f"; {found.more:,} more not shown (raise limit)" if found.more else ""
        groups = len({hit.capture_id for hit in found.hits})
        lines = [f"[tersh] {_count(len(found.hits), 'matching line')} in "
                 f"{_count(groups, 'capture')} ({found.searched} of {captures} searched){more}"]
        current = None
        for hit in found.hits:
            if hit.capture_id != current:
                current = hit.capture_id
                lines.append(f"{hit.capture_id} $ {_shorten(hit.command)}")
            lines.append(f"  {hit.line}: {hit.text}")
        lines.append("[tersh] read around a line: retrieve with the capture id and offset=LINE-10")
    if found.skipped:
        lines.append("[tersh] not searched: " + ", ".join(found.skipped))
    return "\n".join(lines)


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _shorten(command: str) -> str:
    flat = " ".join(command.split())
    return flat if len(flat) <= COMMAND_SHOWN_CHARS else flat[: COMMAND_SHOWN_CHARS - 1] + "…"


def _note_reads(found: Found) -> None:
    """Count the text a search returned against each capture's saving (best effort)."""
    from tersh.recording import captures as capture
    from tersh.recording import ledger

    returned: dict[str, int] = {}
    for hit in found.hits:
        returned[hit.capture_id] = returned.get(hit.capture_id, 0) + len(hit.text.encode()) + 8
    for capture_id, count in returned.items():
        ledger.record_retrieval(capture_id, count)
        with contextlib.suppress(Exception):  # a courtesy: eviction still spares young captures
            capture.pin(capture_id, 3600)


# --- stats --------------------------------------------------------------------------------------


def session_stats(state: ServerState | None = None) -> Answer:
    """This session's savings (bytes and tokens) from the ledger, or this server's own totals."""
    from tersh.recording import ledger

    session = ledger.session_id()
    conf, _ = settings.load_or_defaults()
    figures: dict[str, Any] | None = None
    note = ""
    if conf.flag("ledger.enabled") and ledger.ledger_path().exists():
        figures, note = _ledger_figures(session)
    if figures is None or not figures["calls"]:
        own = _own_figures(state or ServerState())
        if own["calls"] or figures is None:
            figures = own
            note = note or "the ledger has no calls of this session: this server's own runs"
    text = render_stats(session, figures, note)
    return Answer([text], {"session": session, **figures})


def _ledger_figures(session: str) -> tuple[dict[str, Any] | None, str]:
    from tersh.recording import ledger

    note = ""
    try:
        with contextlib.closing(ledger.connect()) as db:
            try:
                from tersh.hosts import savings as hostview

                ledger.count_deferred(db, limit=COUNT_LIMIT, views=hostview.HOSTS)
            except Exception as exc:  # tokens stay uncounted; bytes are still exact
                note = f"tokens not counted ({type(exc).__name__})"
            savings = ledger.totals(db, session=session)
    except Exception as exc:
        return None, f"ledger unreadable ({type(exc).__name__})"
    return {**savings._asdict(), "unmeasured_calls": savings.unmeasured_calls,
            "source": "ledger"}, note


def _own_figures(state: ServerState) -> dict[str, Any]:
    with state.lock:
        removed = state.input_bytes - state.output_bytes
        return {
            "calls": state.calls, "measured_calls": state.measured_calls,
            "unmeasured_calls": state.calls - state.measured_calls,
            "input_bytes": state.input_bytes, "output_bytes": state.output_bytes,
            "removed_bytes": removed,
            "saving": removed / state.input_bytes if state.input_bytes else None,
            "retrieved_bytes": None, "net_saving": None, "counted_calls": 0,
            "input_tokens": None, "output_tokens": None, "token_saving": None,
            "source": "server",
        }


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def render_stats(session: str, figures: dict[str, Any], note: str) -> str:
    """The model's view of the savings figures."""
    lines = [
        f"[tersh] session {session}: {_count(figures['calls'], 'call')}, "
        f"{figures['measured_calls']:,} measured, {figures['unmeasured_calls']:,} unmeasured "
        "(excluded from savings)",
        f"bytes: {human_bytes(figures['input_bytes'])} in, {human_bytes(figures['output_bytes'])} "
        f"shown: {_percent(figures['saving'])} saved",
    ]
    if figures.get("retrieved_bytes") is not None:
        lines[-1] += (f" ({_percent(figures['net_saving'])} net of "
                      f"{human_bytes(figures['retrieved_bytes'])} read back)")
    if figures.get("input_tokens") is not None:
        lines.append(
            f"tokens (o200k): {figures['input_tokens']:,} in, {figures['output_tokens']:,} shown: "
            f"{_percent(figures['token_saving'])} saved ({figures['counted_calls']:,} of "
            f"{figures['measured_calls']:,} measured calls counted)"
        )
    else:
        lines.append("tokens: not counted")
    if note:
        lines.append(f"[tersh] {note}")
    return "\n".join(lines)
