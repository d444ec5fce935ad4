"""Compact mocha output: drop passing and pending tests, keep failures and the totals.

The spec reporter prints a tree of describe titles with ``✔ title (12ms)`` rows for passing
tests, ``- title`` for pending ones and ``1) title`` for failing ones, then ``N passing (4s)``,
``N pending``, ``N failing`` and one numbered block per failure. The dot reporter prints rows of
``․`` (``,`` pending, ``!`` failing) instead of the tree; the TAP reporter ``ok N title`` lines.
Passing and pending rows are left out, with the describe titles that lead only to them; when
numbered failure blocks follow the totals (they repeat each failing test's title path), the
tree's failing rows and their titles go too. Everything from the totals on is kept as written.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import plural
from tersh.compaction.kit.testrun import Output, any_line_matches, read_lines

NAME = "mocha"
CATEGORY = "tests"
PROGRAMS = ("mocha", "_mocha")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (" passing (", " failing", "✔ ", "✓ ")

_PASS_ROW = lazy(r"^\s+[✔✓√]\s")
_PENDING_ROW = lazy(r"^\s+- \S")
_FAIL_ROW = lazy(r"^\s+\d+\) \S")
_PASS_ROW_M = lazy(r"^ {2,}[✔✓] .*$", MULTILINE)
_TAP_OK = lazy(r"^ok \d+ ")
_TAP_ANY = lazy(r"^(?:not )?ok \d+ ", MULTILINE)
_TAP_PLAN = lazy(r"^\d+\.\.\d+$")
_DOT_ROW = lazy(r"^\s*[․.,!]+\s*$")
_TITLE = lazy(r"^ {2,}\S")
_PASSING_TOTAL = lazy(r"^\s+\d+ passing \(\d+(?:\.\d+)?m?s\)\s*$", MULTILINE)
_FAILING_TOTAL = lazy(r"^\s+\d+ failing\s*$", MULTILINE)


# A run of spec-tree lines (each ending in "\n") that ``_Reader.feed`` would leave out one by one,
# if a passing row ends it: passing rows (indented by spaces) and describe titles, each under 200
# characters long. A title here opens (after two spaces or more) with a character no other row
# kind ``feed`` tries first can open with (a digit, a mark, "-", a dot), or with dots and then
# another character (not a row of dots). The spaces are taken possessively: a line is tried
# once, never again with fewer.
_TREE_LINES = lazy(
    r"(?:(?=.{0,199}\n) ++(?:[✔✓√][^\S\n]|(?<=  )(?:[^\s\d✔✓√\-․.,!]|[․.,!]++[^\s․.,!])).*\n)+"
)
_MARK_AFTER_SPACES = lazy(r" +[✔✓√]")
_ROW_AFTER_BREAK = lazy(r"\n +[✔✓√]")


class _Reader:
    """Reads mocha's output line by line (or a run of passing tree lines at once)."""

    def __init__(self, text: str) -> None:
        self.out = Output()
        self.passed = self.pending = 0
        self.titles: list[str] = []
        self.totals_seen = False
        # With numbered failure blocks below (each with its full title path), the tree's failing
        # rows and their titles only repeat them.
        self.repeated_below = any_line_matches(text, " failing", _FAILING_TOTAL)
        self.repeated = 0
        self.tap = any_line_matches(text, "ok ", _TAP_ANY)

    def omit_titles(self) -> None:
        for title in self.titles:
            self.out.omit(title)
        self.titles.clear()

    def feed(self, line: str) -> None:
        """Read one line."""
        out, titles = self.out, self.titles
        if self.totals_seen:
            out.keep(line)
            return
        if _PASSING_TOTAL.match(line):
            self.totals_seen = True
        elif self.tap and _TAP_OK.match(line):
            if "# SKIP" in line:
                self.pending += 1
                out.omit(line)
            else:
                self.passed += 1
                out.omit(line, passing=True)
            return
        elif self.tap and _TAP_PLAN.match(line):
            out.omit(line)
            return
        elif self.tap:  # a TAP run: everything but the passing lines and the plan is kept
            pass
        elif self.repeated_below and _FAIL_ROW.match(line):
            self.omit_titles()
            self.repeated += 1
            out.omit(line)
            return
        elif _PASS_ROW.match(line) or _PENDING_ROW.match(line):
            self.omit_titles()
            if _PASS_ROW.match(line):
                self.passed += 1
                out.omit(line, passing=True)
            else:
                self.pending += 1
                out.omit(line)
            return
        elif _DOT_ROW.match(line) and "!" not in line:
            self.passed += line.count("․") + line.count(".")
            self.pending += line.count(",")
            out.omit_marks(line)
            return
        elif _TITLE.match(line) and not _FAIL_ROW.match(line) and len(line) < 200:
            titles.append(line)
            return
        for title in titles:
            out.keep(title)
        titles.clear()
        if line.strip():
            out.keep(line)
        else:
            out.keep_blank(line)

    def bulk(self, text: str, position: int) -> int:
        """Leave out runs of passing rows and the titles leading to them, and read the empty
        lines between them, at once, as ``feed`` would one by one (outside TAP and before the
        totals); -1 when none starts here."""
        if self.totals_seen or self.tap:
            return -1
        start = position
        while True:
            if text.startswith("\n", position) and not self.titles:
                self.out.keep_blank("")
                position += 1
                continue
            run = _TREE_LINES.match(text, position)
            end = -1 if run is None else _after_last_row(text, position, run.end())
            if end < 0:
                return position if position > start else -1
            self.omit_titles()
            rows = text.count("\n", position, end)
            self.passed += len(_ROW_AFTER_BREAK.findall(text, position, end - 1))
            self.passed += _MARK_AFTER_SPACES.match(text, position) is not None
            self.out.omit_lines(text[position : end - 1], rows, _has_pass_mark)
            position = end

    def finish(self, text: str) -> str | None:
        for title in self.titles:
            self.out.keep(title)
        parts = [plural(self.passed, "passing test")] if self.passed else []
        if self.pending:
            parts.append(plural(self.pending, "pending test"))
        if self.repeated:
            parts.append(f"{plural(self.repeated, 'failing row')} of the tree (numbered blocks below)")
        return self.out.render(
            lambda omitted: f"{' and '.join(parts) or plural(omitted, 'line')} omitted", text
        )


def _after_last_row(text: str, start: int, end: int) -> int:
    """Where the last passing row of the tree lines ``text[start:end]`` ends (-1: none there)."""
    while end > start:
        line = text.rfind("\n", start, end - 1) + 1 or start
        if _MARK_AFTER_SPACES.match(text, line):
            return end
        end = line
    return -1


def _has_pass_mark(line: str) -> bool:
    return _PASS_ROW.match(line) is not None


def compact(text: str, inv: Invocation, bulk: bool = True) -> str | None:
    """Drop passing/pending rows and the titles leading only to them; keep the rest
    (``bulk``: runs of passing tree lines read at once, the same as line by line)."""
    reader = _Reader(text)
    if bulk:
        read_lines(text, reader.feed, reader.bulk)
    else:
        for line in text.split("\n"):
            reader.feed(line)
    return reader.finish(text)


#: The first entry of mocha's failure list (``  1) suite``).
_FIRST_FAILURE = lazy(r"^\s+1\) \S", MULTILINE)


def sniff(text: str) -> float:
    """Sure when mocha's ``N passing (Xs)`` total is there."""
    if " passing (" in text and _PASSING_TOTAL.search(text):
        return 0.9
    if _FAILING_TOTAL.search(text) and _FIRST_FAILURE.search(text):
        return 0.7
    if "ℹ " not in text and "▶ " not in text and len(_PASS_ROW_M.findall(text, 0, 20000)) >= 5:
        return 0.7  # a spec tree whose totals are beyond the head (node --test uses ▶ and ℹ)
    return 0.0
