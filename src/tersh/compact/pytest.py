"""Compact pytest output: drop the session header and passing progress, keep everything else.

Handles the default (``file.py ..F.  [ 40%]``), quiet (``-q``: bare progress rows), verbose
(``-v``: ``file.py::test PASSED [ 40%]``) and xdist (``[gw0] [ 40%] PASSED file.py::test``)
progress forms. Every section after the progress (FAILURES, ERRORS, warnings summary, short test
summary, captured output, coverage) and the final summary line are kept as pytest wrote them; a
progress row that shows a failure or an error (``F``/``E``) is kept too. A run that crashed at
collection, was interrupted, or has no footer therefore keeps all its evidence: only rows of
passing or skipped tests are ever left out, and the note says how many.
"""

from __future__ import annotations

import re

from tersh.compact._testrun import PREFIX, Output, plural
from tersh.compact.base import Invocation

NAME = "pytest"
CATEGORY = "tests"
SWITCH = "tests"
PROGRAMS = ("pytest", "py.test")

_SESSION_START = re.compile(r"^=+ test session starts =+$")
_SECTION = re.compile(r"^=+ .+ =+$")
_TRACEBACK_SECTION = re.compile(r"^=+ (?:FAILURES|ERRORS) =+$")
#: Lines of test source kept before the failing (``>``) line of a traceback entry.
SOURCE_CONTEXT = 5
_SESSION_BANNER = re.compile(r"^=+ test session starts =+$", re.MULTILINE)
_HEADER_ITEM = re.compile(r"^[\w .-]+: |^collect(?:ing|ed) |^platform ")
_HEADER_KEPT = re.compile(r"^(?:rootdir: |collected |collecting \.\.\. collected )")
_MARKS = r"[.sxFEXRfp]+"
_PROGRESS_IN_FILE = re.compile(rf"^(?P<path>[^\s:]+\.py) (?P<marks>{_MARKS})\s*(?:\[\s*\d+%\])?$")
_PROGRESS_BARE = re.compile(rf"^(?P<marks>{_MARKS})\s*(?:\[\s*\d+%\])?$")
_VERBOSE = re.compile(
    r"^(?P<path>[^\s:]+\.py)::(?P<rest>.*?) ?(?P<status>PASSED|SKIPPED|XFAIL)"
    r"(?P<tail>(?: \(.*?\))?\s*(?:\[\s*\d+%\])?)$"
)
_XDIST_VERBOSE = re.compile(
    r"^\[gw\d+\] \[\s*\d+%\] (?P<status>PASSED|SKIPPED|XFAIL) (?P<path>[^\s:]+\.py)::(?P<rest>.*)$"
)
_REPORT_PASSED = re.compile(r"^PASSED (?P<path>[^\s:]+\.py)::(?P<rest>.*)$")
_FOOTER = re.compile(
    r"^(?:=+ )?(?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)"
    r"(?:, )?)+ in [\d.]+s(?: \([\d:]+\))?(?: =+)?$",
    re.MULTILINE,
)


class _Counts:
    """Tests seen on omitted progress rows, by outcome."""

    def __init__(self) -> None:
        self.by_outcome: dict[str, int] = {}

    def add(self, outcome: str, number: int = 1) -> None:
        if number:
            self.by_outcome[outcome] = self.by_outcome.get(outcome, 0) + number

    def add_marks(self, marks: str) -> None:
        for mark, outcome in _MARK_OUTCOMES.items():
            self.add(outcome, marks.count(mark))

    def describe(self) -> str:
        """``'1,204 passed, 3 skipped'``."""
        return ", ".join(f"{count:,} {outcome}" for outcome, count in self.by_outcome.items())


_MARK_OUTCOMES = {".": "passed", "s": "skipped", "x": "xfailed", "X": "xpassed"}
_STATUS_OUTCOMES = {"PASSED": "passed", "SKIPPED": "skipped", "XFAIL": "xfailed"}


def _omit_progress(line: str, out: Output, counts: _Counts) -> bool:
    """Leave out ``line`` when it is a progress row of passing/skipped tests; False if not one."""
    match = _PROGRESS_IN_FILE.match(line) or _PROGRESS_BARE.match(line)
    if match:
        marks = match["marks"]
        if "F" in marks or "E" in marks:
            out.keep(line)
        elif "path" in match.groupdict():
            counts.add_marks(marks)
            out.omit_in_file(line, match["path"], "", passing=False)
        else:
            counts.add_marks(marks)
            out.omit_marks(line)
        return True
    match = _VERBOSE.match(line) or _XDIST_VERBOSE.match(line) or _REPORT_PASSED.match(line)
    if match:
        counts.add(_STATUS_OUTCOMES[match.groupdict().get("status") or "PASSED"])
        out.omit_in_file(line, match["path"], match["rest"])
        return True
    return False


def _flush_source(source: list[str], out: Output, failing_line_next: bool) -> int:
    """Keep the test source echoed in a traceback; before a ``>`` line, only its last lines.

    Returns how many source lines were left out (protected lines are always kept in place).
    """
    cut = len(source) - SOURCE_CONTEXT if failing_line_next else 0
    if cut < 2:
        out.kept.extend(source)
        source.clear()
        return 0
    marker_at = len(out.kept)
    dropped = 0
    for line in source[:cut]:
        if out.drop_now(line):
            dropped += 1
        else:
            out.keep(line)
    if dropped:
        out.kept.insert(marker_at, f"    {PREFIX} {plural(dropped, 'source line')} omitted")
    out.kept.extend(source[cut:])
    source.clear()
    return dropped


def compact(text: str, inv: Invocation) -> str | None:
    """Drop header chatter and passing progress rows; keep failures, errors and the summary."""
    out = Output()
    counts = _Counts()
    in_header = in_tracebacks = False
    source: list[str] = []  # test source lines echoed in a traceback entry, not yet placed
    trimmed = 0
    for line in text.split("\n"):
        if in_tracebacks:
            if line.startswith("    ") or (source and not line.strip()):
                source.append(line)
                continue
            trimmed += _flush_source(source, out, line.startswith(">"))
        if _SECTION.match(line):
            in_tracebacks = bool(_TRACEBACK_SECTION.match(line))
        if _SESSION_START.match(line):
            in_header = True
            out.omit(line)
            continue
        if in_header:
            if not line.strip():
                in_header = False
            elif _HEADER_ITEM.match(line) and not _HEADER_KEPT.match(line):
                out.omit(line)
                continue
        if line and line[0] not in " =_>E" and _omit_progress(line, out, counts):
            continue
        out.keep(line)
    trimmed += _flush_source(source, out, failing_line_next=False)

    def describe(omitted: int) -> str:
        what = f"{plural(omitted - trimmed, 'line')} of session header and passing progress omitted"
        if counts.by_outcome:
            what += f" ({counts.describe()})"
        if trimmed:
            what += f"; {plural(trimmed, 'line')} of test source omitted from tracebacks"
        return what

    return out.render(describe, text)


def sniff(text: str) -> float:
    """Sure when pytest's session banner or its final summary line is there."""
    if "test session starts" in text and _SESSION_BANNER.search(text):
        return 0.95
    if "short test summary info" in text or _FOOTER.search(text):
        return 0.9
    return 0.0
