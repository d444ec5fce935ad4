"""Compact ``python -m unittest`` (and nose2) output: drop passing tests, keep failures and totals.

Default mode prints a row of progress marks (``..F.E.s``); ``-v`` prints one line per test
(``test_x (pkg.mod.Case.test_x) ... ok``), with the first docstring line on a line of its own
when there is one. Left out: rows of progress marks (a row with ``E`` or ``F`` only when the run
reached its ``FAILED (...)`` verdict, so every failure is listed in full below it), the lines of
passing and skipped tests, the ``=``/``-`` bars between blocks and Python's ``~~^^^`` underlines
(lines of nothing but spaces, ``^`` and ``~``). Everything else (every ``FAIL:``/``ERROR:``
block with its ``File "...", line N`` lines and exception lines, printed output, the
``Ran N tests`` line and the ``OK``/``FAILED (...)`` verdict) is kept as written.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import MARK, plural
from tersh.compaction.kit.testrun import Output, read_lines

NAME = "unittest"
CATEGORY = "tests"
PROGRAMS = ("unittest", "nose2")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("Ran ", " ... ")
#: A line form the head holds whenever ``sniff`` picks it: ``_RAN`` or ``_VERBOSE_ROW``.
SNIFF_LINE = (r"^Ran \d+ tests? in [\d.]+s$"
              r"|^\w+ \([\w.]+\)(?: \.\.\. |\n.*? \.\.\. )(?:ok|FAIL|ERROR)$")

_MARKS_ROW = lazy(r"^[.EFsxu]+$")
_NAME_LINE = lazy(r"^\w+ \([\w.]+\)$")
_PASSING_END = lazy(
    r"^(?P<head>.*?) \.\.\. (?P<status>ok|skipped(?: .*)?)$"
)
# Consecutive lines (each ending in "\n") that end as a passing -v row, each maybe after its
# name line (``_NAME_LINE``) when it is not itself a row opening with one (then it is the test's
# docstring): with no "skipped" among them, ``_PASSING_END`` reads each row as "ok" (its head is
# all but " ... ok"), and only the name lines have the name line's shape.
_OK_RUN = lazy(r"(?:(?:\w+ \([\w.]+\)\n(?!\w+ \([\w.]+\) \.\.\. ok\n))?[^\n]* \.\.\. ok\n)+")
_CARETS = lazy(r"^ +[~^]+ *$")
# A SyntaxError's location has no ", in function": its caret is the only mention of the column.
_SYNTAX_AT = lazy(r'^ *File ".*", line \d+$')
_BAR = lazy(r"^(?:={20,}|-{20,})$")
_RAN = lazy(r"^Ran \d+ tests? in [\d.]+s$", MULTILINE)
_VERDICT = lazy(r"^(?:OK|FAILED)(?: \([\w=, ]+\))?$", MULTILINE)

_VERBOSE_ROW = lazy(r"^\w+ \([\w.]+\)(?: \.\.\. |\n.*? \.\.\. )(?:ok|FAIL|ERROR)$", MULTILINE)

_TRACEBACK = "Traceback (most recent call last):"
_FRAME = lazy(r'^  File ".*", line \d+, in ')
_FRAME_CODE = lazy(r"^    \S")
#: Frames an earlier traceback showed are told, not repeated, from this many in a row on.
MIN_REPEATED_FRAMES = 3

# mark -> what one mark and several marks are called
_MARK_OUTCOMES = {".": ("passed", "passed"), "s": ("skipped", "skipped"),
                  "x": ("expected failure", "expected failures"),
                  "u": ("unexpected success", "unexpected successes"),
                  "F": ("failed", "failed"), "E": ("error", "errors")}


class _Tally:
    """What the left-out lines were, for the omission note."""

    def __init__(self) -> None:
        self.marks: dict[str, int] = {}
        self.rows = self.carets = self.bars = self.frames = self.frame_lines = 0

    def count_row(self, row: str) -> None:
        self.rows += 1
        for mark in _MARK_OUTCOMES:
            if mark in row:
                self.marks[mark] = self.marks.get(mark, 0) + row.count(mark)

    def describe(self, omitted: int, counts: dict[str, int]) -> str:
        """``omitted`` lines in all; ``counts`` the passing/skipped test lines by outcome."""
        parts = []
        # bars go unsaid, as collapsed blank lines do
        lines = omitted - self.rows - self.bars - self.frame_lines
        if lines > self.carets:
            tally = ", ".join(f"{count:,} {outcome}" for outcome, count in counts.items())
            what = f"{plural(lines, 'line')} of passing/skipped tests{' and underlines' * bool(self.carets)}"
            parts.append(f"{what} ({tally})" if tally else what)
        elif self.carets:
            parts.append(plural(self.carets, "underline"))
        if self.rows:
            marks = ", ".join(f"{count:,} {_MARK_OUTCOMES[mark][count != 1]}"
                              for mark, count in self.marks.items())
            parts.append(f"{plural(self.rows, 'progress row')} ({marks})")
        if self.frames:
            parts.append(plural(self.frames, "repeated frame"))
        return "; ".join(parts) + " omitted"


class _Frames:
    """The frames of tracebacks: a run of frames earlier tracebacks showed becomes one line."""

    def __init__(self, out: Output) -> None:
        self.out = out
        self.seen: set[tuple[str, ...]] = set()  # frames of the tracebacks before this one
        self.current: set[tuple[str, ...]] = set()
        self.run: list[tuple[str, ...]] = []  # consecutive frames found in ``seen``
        self.frame: list[str] | None = None  # the frame being read: its File line, its code line
        self.told = self.told_lines = 0  # frames left out, and their lines

    @property
    def idle(self) -> bool:
        """Whether no frame is being read or held back (``read`` then takes no line but a frame's)."""
        return self.frame is None and not self.run

    def read(self, line: str) -> bool:
        """Take ``line`` when it belongs to a frame; False when the caller must read it."""
        if _FRAME.match(line):
            self.end_frame()
            self.frame = [line]
            return True
        if self.frame is not None and len(self.frame) == 1 and _FRAME_CODE.match(line):
            self.frame.append(line)
            return True
        if self.frame is None and not self.run:
            if line == _TRACEBACK:
                self.seen |= self.current
                self.current = set()
            return False
        if _CARETS.match(line):
            return False  # an underline inside a frame: the caller drops it
        self.end_frame()
        self.flush()
        if line == _TRACEBACK:
            self.seen |= self.current
            self.current = set()
        return False

    def end_frame(self) -> None:
        if self.frame is None:
            return
        frame, self.frame = tuple(self.frame), None
        self.current.add(frame)
        if frame in self.seen:
            self.run.append(frame)
            return
        self.flush()
        self.out.kept.extend(frame)

    def flush(self) -> None:
        run, self.run = self.run, []
        if len(run) < MIN_REPEATED_FRAMES:
            for frame in run:
                self.out.kept.extend(frame)
            return
        self.out.kept.extend(run[0])
        self.out.kept.append(f"  {MARK} {len(run) - 1} more frames, each shown in a traceback above")
        self.told += len(run) - 1
        for frame in run[1:]:
            self.told_lines += len(frame)
            for line in frame:
                self.out.omit_copy(line)

    def finish(self) -> None:
        """Place what is still held back."""
        self.end_frame()
        self.flush()


def compact(text: str, inv: Invocation, bulk: bool = True) -> str | None:
    """Drop progress marks and passing/skipped test lines; keep every failure and the totals
    (``bulk``: runs of passing rows read at once, the same as line by line)."""
    out = Output()
    tally = _Tally()
    frames = _Frames(out)
    counts: dict[str, int] = {}
    finished = has_verdict(text)  # every E and F is then listed in full below
    back2 = back1 = ""  # the two lines before this one
    pending: str | None = None  # a "name (dotted.id)" line waiting for its docstring line

    def feed(line: str) -> None:
        nonlocal back2, back1, pending
        passing = _PASSING_END.match(line)
        if passing:
            outcome = "passed" if passing["status"] == "ok" else "skipped"
            counts[outcome] = counts.get(outcome, 0) + 1
            if pending is not None and not _NAME_LINE.match(passing["head"]):
                out.omit(pending)
            elif pending is not None:
                out.keep(pending)
            pending = None
            out.omit(line, passing=True)
            return
        if pending is not None:
            out.keep(pending)
            pending = None
        if frames.read(line):
            pass
        elif _NAME_LINE.match(line):
            pending = line
        elif _CARETS.match(line) and not _SYNTAX_AT.match(back2):
            tally.carets += 1
            out.omit_marks(line)  # Python's ~~^^^ underline of the failing expression
        elif _BAR.match(line):
            tally.bars += 1
            out.omit_marks(line)  # a bar of 70 "=" or "-" between blocks
        elif _MARKS_ROW.match(line) and (finished or ("E" not in line and "F" not in line)):
            tally.count_row(line)
            out.omit_marks(line)
        elif not line.strip():
            out.keep_blank(line)  # a run of blank lines (a bar between two went) becomes one
        else:
            out.keep(line)
        back2, back1 = back1, line

    ok_run = _OK_RUN.match

    def read_bulk(text: str, position: int) -> int:
        """Leave out a run of rows that passed (and their name lines) at once, as ``feed`` would
        each (none is pending; no frame is being read, so none of them is one's)."""
        nonlocal back2, back1
        run = ok_run(text, position) if pending is None and frames.idle else None
        if run is None or text.find("skipped", position, run.end()) >= 0:
            return -1
        end = run.end()
        # Its name lines are left out without a passing mark, its rows with one; a name line
        # ends in ")", a row in "ok": the name lines are those before a ")\n".
        names = text.count(")\n", position, end)
        last = end
        for _ in range(min(names, 2)):  # the last two lines read with feed's last step
            close = text.rfind(")\n", position, last)
            last = max(text.rfind("\n", position, close) + 1, position)
            back2, back1 = back1, text[last : close + 1]
        if names > 1:
            back2, back1 = back1, back2
        out.omit_lines(text[position : end - 1], text.count("\n", position, end), _is_row)
        counts["passed"] = counts.get("passed", 0) + text.count("\n", position, end) - names
        return end

    if bulk:
        read_lines(text, feed, read_bulk)
    else:
        for line in text.split("\n"):
            feed(line)
    frames.finish()
    if pending is not None:
        out.keep(pending)
    tally.frames, tally.frame_lines = frames.told, frames.told_lines
    return out.render(lambda omitted: tally.describe(omitted, counts), text)


def _is_row(line: str) -> bool:
    """Whether a line of a run of passing rows is one (not a test's name line)."""
    return _NAME_LINE.match(line) is None


def has_verdict(text: str) -> bool:
    """Whether a line of ``text`` is unittest's verdict (``_VERDICT.search``: only lines that
    open with "OK" or "FAILED" are tried, found by str.find)."""
    verdict = _VERDICT.match
    for word in ("OK", "FAILED"):
        if text.startswith(word) and verdict(text):
            return True
        at = text.find("\n" + word)
        while at >= 0:
            if verdict(text, at + 1):
                return True
            at = text.find("\n" + word, at + 1)
    return False


def sniff(text: str) -> float:
    """Sure when unittest's ``Ran N tests in Xs`` line and its verdict are both there."""
    if "Ran " in text and _RAN.search(text) and _VERDICT.search(text):
        return 0.95
    if len(_VERBOSE_ROW.findall(text, 0, 20000)) >= 5:
        return 0.9  # a -v run whose footer is beyond the head
    return 0.0
