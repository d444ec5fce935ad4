"""Compact jest and vitest output: drop passing files and tests, keep every failure and the totals.

jest prints ``PASS path`` / ``FAIL path`` per file, ``✓``/``✕``/``○`` per test with ``--verbose``,
a ``●`` block per failure, then ``Test Suites:`` / ``Tests:`` totals. vitest prints ``✓ path (n
tests)`` per passing file (``✓ path > suite > test`` per test with ``--reporter=verbose``),
``❯ path (n tests | k failed)`` with ``✓``/``×``/``↓`` rows per failing file, ``FAIL path > name``
blocks between ``⎯`` rules, then ``Test Files`` / ``Tests`` totals.

Left out: passing files, passing/skipped/todo tests, the describe-block titles that only lead to
them, the console output of passing test files (the line that logged it stays), the context
lines of code frames (the failing line, marked ``>`` by jest or underlined ``^`` by vitest,
stays), stack frames without a location (``at Array.forEach (<anonymous>)``) and blank runs.
Long ``⎯`` rules between vitest failure blocks are shortened. Everything else — failure blocks,
messages, diffs, stack locations, coverage tables, the totals — stays as written.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import plural
from tersh.compaction.kit.testrun import Output, read_lines

NAME = "jest"
CATEGORY = "tests"
PROGRAMS = ("jest", "vitest")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("Tests:", "Test Files", "●")

_PASS_FILE = lazy(
    r"^(?:PASS\s+(?P<jest>\S+)(?P<jest_rest>.*)"
    r"|\s?✓\s+(?:\|[^|]+\| )?(?P<vitest>\S+)(?P<vitest_rest> \(\d+ tests?\b.*))$"
)
_PASSED_ROW = lazy(r"^\s{2,}[✓✔√]\s")
_TEST_ROW = lazy(r"^\s{2,}(?:(?P<passed>[✓✔√])|[○↓✎□])\s")
# vitest --reporter=verbose: one row per test, " ✓ path > suite > name 3ms".
_VERBOSE_ROW = lazy(
    r"^ (?P<mark>[✓↓□]) (?:\|[^|]+\| )?(?P<path>\S+) > (?P<rest>.*?)(?P<time> \d+m?s)?$"
)
_PASS_FILES = lazy(
    r"^(?:PASS[ \t]+(?P<jest>\S+)|[ \t]?✓[ \t]+(?:\|[^|\n]+\| )?(?P<vitest>\S+) \(\d+ tests?\b)",
    MULTILINE,
)
_PASSING_ROWS = lazy(
    r"^ ✓ (?:\|[^|\n]+\| )?(?P<path>\S+) > (?P<rest>[^\n]*?)(?: \d+m?s)?$", MULTILINE
)
_OTHER_TEST = lazy(r"^\s+[✕×✗✖]\s")
_TITLE = lazy(r"^ {2,}[^\s●❯›>✓✔√○↓✎□✕×✗✖|-]")
_RULE = lazy(r"^\s*⎯{4,}(?P<inner>\[\d+/\d+\])?⎯*\s*$")
_TOTALS = lazy(r"^(?:Tests:|Test Suites:)\s+.*\btotal\b", MULTILINE)
_VITEST_TOTALS = lazy(r"^\s+Test Files\s+.*\(\d+\)\s*$", MULTILINE)
_PROGRESS_ORDER = lazy(r"^(?:PASS|FAIL)\s+\S+", MULTILINE)
# A code frame: "    > 191 |   code" / "      189 |   code" (jest), "     15|   code" and the
# caret line "       |     ^" (both).
_FRAME = lazy(r"^\s+(?P<mark>>\s*)?\d+\s?\|")
_CARET = lazy(r"^\s+\|\s*\^\s*$")
_NO_LOCATION_FRAME = lazy(r"^\s+at (?:.* )?\(?<anonymous>\)?$")
# Console output: jest "    console.log" (then the message, then "at fn (path:line:col)"),
# vitest "stdout | path > suite > test" (then the message, then a blank line).
_JEST_CONSOLE = lazy(r"^\s+console\.(?:log|info|warn|error|debug|trace|dir|table|group)\s*$")
_VITEST_CONSOLE = lazy(r"^(?:stdout|stderr) \| (?P<key>(?P<path>\S+)(?: > .*)?)$")
_CONSOLE_SITE = lazy(r"^\s+(?P<caller>at [^()]*?)\s*\((?P<location>[^\s()]+:\d+:\d+)\)$")
_STACK_AT = lazy(r"^\s+at (?:.*\()?(?P<path>[^\s():]+):\d+:\d+\)?$")
#: A console block longer than this is kept as it is (the end of the block may be far away).
MAX_CONSOLE_LINES = 200


# First characters of the lines handle_line() may do more with than keep (blank, indented, files).
_SPECIAL_FIRST = frozenset(" \tPFT✓❯×")


def _is_file_line(line: str) -> bool:
    return line.startswith(("PASS ", "FAIL ", " ✓ ", " ❯ ", " × ", "✓ ", "❯ "))


def _passing(text: str) -> set[str]:
    """Paths of passing files, and ``path > suite > test`` keys of passing vitest verbose rows.

    Only needed when console output is there (a whole-text scan at C speed, no list of lines).
    """
    found: set[str] = set()
    if "console." not in text and "stdout | " not in text and "stderr | " not in text:
        return found
    for match in _PASS_FILES.finditer(text):
        found.add(match["jest"] or match["vitest"])
    for row in _PASSING_ROWS.finditer(text):
        found.add(f"{row['path']} > {row['rest']}")
    return found


class _Counts:
    def __init__(self) -> None:
        self.files = self.passed = self.skipped = self.frames = self.stack = self.console = 0

    def describe(self, omitted: int) -> str:
        parts = []
        if self.files:
            parts.append(plural(self.files, "passing file"))
        if self.passed:
            parts.append(plural(self.passed, "passing test"))
        if self.skipped:
            parts.append(f"{self.skipped:,} skipped/todo")
        if self.console:
            parts.append(f"console output of {plural(self.console, 'passing test')}")
        if self.frames:
            parts.append(plural(self.frames, "code-frame context line"))
        if self.stack:
            parts.append(plural(self.stack, "stack frame") + " without a location")
        return f"{', '.join(parts) or plural(omitted, 'line')} omitted"


class _Compactor:
    """Reads the output line by line; :meth:`feed` decides each line's fate."""

    def __init__(self, passing: set[str]) -> None:
        self.out = Output()
        self.counts = _Counts()
        self.passing = passing
        # describe titles of the current branch: (indent, line, placed); a title is placed
        # (kept) when a failing test follows it, and omitted when its branch ends without one
        self.titles: list[tuple[int, str, bool]] = []
        self.in_tree = False  # inside a file's tree of describe titles and test rows
        self.in_passing_file = False  # after a PASS line (jest prints its console blocks there)
        self.run: list[str] = []  # consecutive passing rows, handed over together
        self.frame: list[str] = []  # code frame lines not yet placed
        self.console: list[str] = []  # a console block not yet placed
        self.console_ends_blank = False  # vitest blocks end at a blank line, jest's at "at …"
        self.last_kept = True  # whether the last line read was kept
        # "console.log at Object.log" -> the locations it logged from, and its line in out.kept
        self.sites: dict[str, tuple[list[str], int]] = {}

    def settle(self, omit: bool, below: int = -1) -> None:
        """End the branches of titles indented deeper than ``below``; omit or keep unplaced ones."""
        while self.titles and self.titles[-1][0] > below:
            _, title, placed = self.titles.pop()
            if placed:
                continue
            if omit:
                self.out.omit(title)
            else:
                self.out.keep(title)

    def place_titles(self) -> None:
        """Keep the titles leading to a failing test."""
        for index, (indent, title, placed) in enumerate(self.titles):
            if not placed:
                self.out.keep(title)
                self.titles[index] = (indent, title, True)

    def flush_run(self) -> None:
        self.counts.passed += len(self.run)
        self.out.omit_run(self.run)
        self.run.clear()

    def flush_frame(self) -> None:
        """Keep the failing line of a code frame (``>`` or above the caret); omit its context."""
        frame = self.frame[:]
        self.frame.clear()  # the same list: compact() holds it
        marks = [_FRAME.match(line) for line in frame]
        failing = {i for i, match in enumerate(marks) if match and match["mark"]}
        failing.update(i - 1 for i, line in enumerate(frame) if i and _CARET.match(line))
        for index, line in enumerate(frame):
            if not failing or index in failing:
                self.out.keep(line)
            else:
                self.counts.frames += 1
                self.out.omit(line)

    def flush_console(self, dropped: bool) -> None:
        block = self.console[:]
        self.console.clear()  # the same list: compact() holds it
        if not dropped:
            for line in block:
                self.handle(line)
            return
        self.counts.console += 1
        head = block[0].strip()
        for line in block[1:]:
            site = _CONSOLE_SITE.match(line) if head.startswith("console.") else None
            if site:  # where the passing test logged it: one line per console method and caller
                key = f"{head} {site['caller']}"
                if key not in self.sites:
                    self.sites[key] = ([], len(self.out.kept))
                    self.out.keep(key)
                self.sites[key][0].append(site["location"])
            else:
                self.out.omit(line)
        self.out.omit(block[0])

    def console_is_passing(self) -> bool:
        head = self.console[0]
        vitest = _VITEST_CONSOLE.match(head)
        if vitest:
            return vitest["path"] in self.passing or vitest["key"] in self.passing
        if self.in_passing_file:
            return True
        paths = [m["path"] for m in map(_STACK_AT.match, self.console) if m]
        return bool(paths) and all(path in self.passing for path in paths)

    def feed(self, line: str) -> None:
        """Read one line (console blocks are gathered first, then read line by line)."""
        if self.console:
            block = self.console
            if len(block) > MAX_CONSOLE_LINES or _is_file_line(line) or line.startswith("Test"):
                self.flush_console(dropped=False)
            elif self.console_ends_blank:
                if not line.strip():
                    block.append(line)
                    self.flush_console(self.console_is_passing())
                    return
                block.append(line)
                return
            elif _STACK_AT.match(line) or not _STACK_AT.match(block[-1]):
                block.append(line)
                return
            else:  # the line after the block's last "at" line
                self.flush_console(self.console_is_passing())
        if ("console." in line and _JEST_CONSOLE.match(line)) or (
            line.startswith(("stdout | ", "stderr | ")) and _VITEST_CONSOLE.match(line)
        ):
            self.console.append(line)
            self.console_ends_blank = not line.startswith(" ")
            return
        self.handle(line)

    def handle(self, line: str) -> None:
        """Decide the fate of one line outside a console block (a blank after an omission goes)."""
        if not line.strip() and not self.last_kept:
            return
        before = len(self.out.kept)
        self.handle_line(line)
        self.last_kept = len(self.out.kept) > before

    def handle_line(self, line: str) -> None:
        out = self.out
        indented = line[:1] == " "
        framed = indented and "|" in line and bool(_FRAME.match(line) or _CARET.match(line))
        if self.frame and not framed:
            self.flush_frame()
        row = _TEST_ROW.match(line) if indented else None
        if row:
            if row["passed"]:
                self.run.append(line)
            else:
                self.counts.skipped += 1
                self.flush_run()
                out.omit(line)
            self.in_tree = True
            return
        if self.run:
            self.flush_run()
        file_line = _is_file_line(line)
        if file_line:
            if self.file_line(line):
                return
        elif framed:
            self.frame.append(line)
            return
        failing_row = indented and bool(_OTHER_TEST.match(line))
        if self.in_tree and not failing_row and len(line) < 200 and _TITLE.match(line):
            indent = len(line) - len(line.lstrip())
            self.settle(omit=True, below=indent - 1)
            self.titles.append((indent, line, False))
            return
        stripped = line.strip()
        if failing_row:
            self.place_titles()
        elif self.titles:  # the tree ends: titles not placed led only to passing tests
            self.settle(omit=not indented or not stripped)
        self.in_tree = file_line or failing_row
        if line.startswith(("FAIL", "Test", "  ●")) and stripped != "● Console":
            self.in_passing_file = False
        if not stripped:
            out.keep_blank("")
        elif "<anonymous>" in line and _NO_LOCATION_FRAME.match(line):
            self.counts.stack += 1
            out.omit(line)
        elif self.in_passing_file and stripped == "● Console":
            out.omit(line)
        elif "⎯" in line and (rule := _RULE.match(line)):
            out.keep(f"⎯⎯⎯ {rule['inner']}" if rule["inner"] else "⎯⎯⎯")
        else:
            out.keep(line)

    def file_line(self, line: str) -> bool:
        """Leave out a passing file or vitest verbose row; False when ``line`` is neither."""
        match = _PASS_FILE.match(line)
        if match:
            path = match["jest"] or match["vitest"]
            rest = match["jest_rest"] or match["vitest_rest"] or ""
            self.settle(omit=True)
            self.counts.files += 1
            self.out.omit_in_file(line, path, rest)
            self.in_tree = True
            self.in_passing_file = bool(match["jest"])
            return True
        row = _VERBOSE_ROW.match(line)
        if row:
            if row["mark"] == "✓":
                self.counts.passed += 1
            else:
                self.counts.skipped += 1
            self.out.omit_in_file(line, row["path"], row["rest"], passing=row["mark"] == "✓")
            return True
        return False

    def failing_rows(self, rows: list[str]) -> None:
        """Keep failing test rows as :meth:`handle_line` would one by one, with the titles that
        lead to them."""
        if self.run:
            self.flush_run()
        self.place_titles()
        self.out.kept.extend(rows)
        self.in_tree, self.last_kept = True, True

    def passing_files(self, text: str, start: int, end: int) -> None:
        """Leave out the passing file lines ``_PASS_FILE_LINES`` found in ``text[start:end]`` as
        :meth:`file_line` would one by one (each then ends its file's tree)."""
        if self.run:
            self.flush_run()
        self.settle(omit=True)
        lines = text[start : end - 1]
        self.counts.files += text.count("\n", start, end)
        for match in _PASS_FILE_LINE.finditer(lines):
            path = match["jest"] or match["vitest"]
            self.out.omit_in_file(match[0], path, match["jest_rest"] or match["vitest_rest"] or "")
        self.in_passing_file = bool(match["jest"])
        self.in_tree, self.last_kept = True, False

    def finish(self, text: str) -> str | None:
        if self.console:
            self.flush_console(dropped=False)
        for key, (locations, at) in self.sites.items():
            self.out.kept[at] = f"    {key} ({', '.join(locations)})"
        if self.frame:
            self.flush_frame()
        self.flush_run()
        self.settle(omit=False)
        return self.out.render(self.counts.describe, text, at_top=True)


# Consecutive passing rows (each ending in "\n") that ``compact`` adds to the run one by one: two
# spaces open each (the spaces taken possessively: a line is tried once).
_PASSED_ROWS = lazy(r"(?:  [^\S\n]*+[✓✔√][^\S\n].*\n)+")
# Consecutive failing rows (each ending in "\n") that ``_Compactor.handle_line`` keeps one by one,
# placing the titles that lead to them (a row opening with a mark is no stack frame or rule).
_FAILING_ROWS = lazy(r"(?:  [^\S\n]*+[✕×✗✖][^\S\n].*\n)+")
# Consecutive passing file lines (each ending in "\n") that ``_Compactor.file_line`` leaves out
# one by one: "PASS path" (jest) and " ✓ path (n tests)" (vitest), in the shapes ``_is_file_line``
# lets through (a space after "PASS" and after "✓"); ``_PASS_FILE_LINE`` takes each apart.
_VITEST_FILE = r" ?✓ [^\S\n]*+(?:\|[^|\n]+\| )?(?P<vitest>\S+)(?P<vitest_rest> \(\d+ tests?\b.*)"
_PASS_FILE_LINES = lazy(rf"(?:(?:PASS [^\S\n]*+\S+.*|{_VITEST_FILE})\n)+")
_PASS_FILE_LINE = lazy(
    rf"^(?:PASS [^\S\n]*+(?P<jest>\S+)(?P<jest_rest>.*)|{_VITEST_FILE})$", MULTILINE
)


def compact(text: str, inv: Invocation, bulk: bool = True) -> str | None:
    """Drop passing files and tests, their console output, code-frame context and blank runs
    (``bulk``: runs of passing rows and files read at once, the same as line by line)."""
    compactor = _Compactor(_passing(text))
    passed_row, run, feed, kept = _PASSED_ROW.match, compactor.run, compactor.feed, compactor.out.kept
    handle_line, console, frame = compactor.handle_line, compactor.console, compactor.frame

    def read(line: str) -> None:
        if line[:2] == "  " and not frame and not console and passed_row(line):
            run.append(line)  # the bulk of a verbose run: a passing test
            return
        if run:  # what handle_line() would have noted for those rows
            compactor.in_tree, compactor.last_kept = True, False
        if console or "console." in line or line[:7] in ("stdout ", "stderr "):
            feed(line)
            return
        if not compactor.last_kept and not line.strip():
            return  # what handle() does, without the call
        plain = line and line[:1] not in _SPECIAL_FIRST and "⎯" not in line
        if plain and not frame and not compactor.in_tree:
            kept.append(line)  # a plain line of a failure block: kept as it is
            compactor.last_kept = True
            return
        before = len(kept)
        handle_line(line)
        compactor.last_kept = len(kept) > before

    passed_rows, failing_rows = _PASSED_ROWS.match, _FAILING_ROWS.match
    pass_file_lines = _PASS_FILE_LINES.match

    def read_bulk(text: str, position: int) -> int:
        """Read runs of passing and failing rows, or a run of passing file lines, at once, as
        ``read`` would each (no code frame or console block is being gathered)."""
        if frame or console:
            return -1
        start = position
        while True:  # alternating runs of passing and failing rows (a vitest file's tree)
            rows = passed_rows(text, position)
            if rows is not None:
                run.extend(text[position : rows.end() - 1].split("\n"))
                compactor.in_tree, compactor.last_kept = True, False
                position = rows.end()
            failing = failing_rows(text, position)
            if failing is None:
                break
            compactor.failing_rows(text[position : failing.end() - 1].split("\n"))
            position = failing.end()
        if position > start:
            return position
        files = pass_file_lines(text, position)
        if files is None:
            return -1
        compactor.passing_files(text, position, files.end())
        return files.end()

    if bulk:
        read_lines(text, read, read_bulk)
    else:
        for line in text.split("\n"):
            read(line)
    return compactor.finish(text)


def sniff(text: str) -> float:
    """Sure when jest's ``Tests: … total`` or vitest's ``Test Files … (n)`` totals are there."""
    if ("Tests:" in text and _TOTALS.search(text)) or (
        "Test Files" in text and _VITEST_TOTALS.search(text)
    ):
        return 0.95
    if _PROGRESS_ORDER.search(text) and "●" in text:
        return 0.8
    return 0.0
