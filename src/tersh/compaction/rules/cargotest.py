"""Compact ``cargo test`` and ``cargo nextest`` output: drop passing tests, keep failures and totals.

``cargo test`` compiles (``Compiling``/``Finished``), then for each test binary prints
``Running path (target/…/name-hash)``, ``running N tests``, one ``test name ... ok`` line per
test, and ``test result: ok. N passed; …``; failures add ``---- name stdout ----`` blocks with
the panic message and location, a ``failures:`` list and ``error: test failed…``. nextest
prints ``PASS [ 0.004s] crate name`` rows and a ``Summary`` line.

Left out: compile progress, ``running N tests``, passing and ignored test lines, nextest
``PASS``/``SKIP`` rows, blank lines between binaries, the second ``failures:`` list (it repeats
the ``FAILED`` lines), the ``RUST_BACKTRACE`` hint and the doctest timing line. Binaries that ran
no test share one line that names each of them and quotes their common ``test result``. Kept as
written: every other binary's ``Running`` and ``test result`` lines, every ``FAILED`` line,
panic, warning and error, and everything cargo printed otherwise.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, escape, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import MARK, plural
from tersh.compaction.kit.testrun import Output, read_lines

NAME = "cargotest"
CATEGORY = "tests"
PROGRAMS = ("cargo test", "cargo nextest", "cargo-nextest")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("test result: ", "Summary [")

_PASSING = lazy(r"^test .+ \.\.\. (?:ok|ignored(?:, .*)?)$")
#: Fewer passing lines in a row than this are left out one by one (a block costs more to set up).
MIN_BLOCK = 32
# Consecutive lines that _PASSING matches as passing ("… ok"), each ending in "\n".
_PASSING_RUN = lazy(r"(?:test [^\n]+ \.\.\. ok\n)+")
# A binary whose tests all passed, in libtest's usual lines (each ending in "\n"): its Running or
# Doc-tests line, a blank line, "running N tests", the passing lines (_PASSING_RUN), a blank line,
# its "test result: ok." line and the blank line after it. Each line is one ``_Reader.feed`` reads
# with the branch ``_Reader.passing_binary`` takes for it.
_PASSING_BINARY = lazy(
    r"([ \t]+(?:Running [^\n]+|Doc-tests [^\s]+))\n\n(running \d+ tests?)\n"
    r"((?:test [^\n]+ \.\.\. ok\n)*)\n(test result: ok\. [^\n]*)\n\n?"
)
_FAILED_TEST = lazy(
    r"^(?:test (?P<name>.+?)(?: - should panic)? \.\.\. FAILED|(?P<terse>.+?) --- FAILED)$"
)
# -q (terse) progress: "." passed, "i" ignored, "F" failed, "b" bench; " 8/18" ends a row
_TERSE_ROW = lazy(r"^(?:[.iFb]+(?: \d+/\d+)?| \d+/\d+)$")
_RUNNING_COUNT = lazy(r"^running \d+ tests?$")
_PROGRESS = lazy(r"^\s+(?:Compiling|Finished|Fresh|Downloaded|Downloading|Blocking) ")
_NEXTEST_PASS = lazy(r"^\s+(?:PASS|SKIP) \[\s*[\d.]+s\] ")
_BINARY = lazy(r"^\s+(?:Running (?P<running>.+)|(?P<doc>Doc-tests \S+))$")
_EMPTY_RESULT_TEXT = "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured;"
_EMPTY_RESULT = lazy("^" + escape(_EMPTY_RESULT_TEXT))
_CHATTER = lazy(
    r"^(?:note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
    r"|all doctests ran in [\d.]+s(?:; merged doctests compilation took [\d.]+s)?)$"
)
_RESULT = lazy(r"^test result: (?:ok|FAILED)\. \d+ passed; \d+ failed", MULTILINE)
_NEXTEST_SUMMARY = lazy(r"^\s+Summary \[\s*[\d.]+s\] \d+ tests? run", MULTILINE)


class _Reader:
    """Reads cargo's output line by line; a binary's lines wait until its result is known."""

    def __init__(self, failed: set[str]) -> None:
        self.out = Output()
        self.failed = failed  # names of the tests cargo marked FAILED
        self.passed = self.ignored = self.repeated = 0
        self.binary: str | None = None  # the Running/Doc-tests line of the binary being read
        self.shown = False  # whether that line has been placed in the kept text
        self.listing: list[str] | None = None  # a "failures:" section not yet placed
        # "test result" line shared by binaries without tests -> their lines, its place in kept
        self.empty: dict[str, tuple[list[str], int]] = {}

    def passing_run(self, lines: str, count: int) -> None:
        """Read ``count`` consecutive ``test … ... ok`` lines (``lines``) at once, as :meth:`feed`
        would read them one by one (outside a ``failures:`` list)."""
        self.passed += count
        if count < MIN_BLOCK:
            self.out.omit_passing_lines(lines, count)
        else:
            self.out.omit_passing_block(lines, count, lines)

    def passing_binaries(self, text: str, position: int) -> int:
        """Read the binaries whose tests all passed (``_PASSING_BINARY``) from ``position`` on, as
        :meth:`feed` would read their lines one by one (outside a ``failures:`` list); where
        they end (``position`` when none is there)."""
        out, match = self.out, _PASSING_BINARY.match
        kept, omit, omit_passing = out.kept, out.omit, out.omit_passing_lines
        first = True
        while (section := match(text, position)) is not None:
            binary, running, tests, result = section.groups()
            if " ... " in result:  # the result may read as a test line: feed decides
                return position
            if first:  # after a binary read here, none is waiting to be shown
                self.show_binary()
                first = False
            # the blank lines up to the result stay out; "running N tests" has no passing mark
            count = tests.count("\n")
            self.passed += count
            omit(running)
            if count >= MIN_BLOCK:
                out.omit_passing_block(tests[:-1], count, tests[:-1])
            elif count:
                omit_passing(tests[:-1], count)
            if result.startswith(_EMPTY_RESULT_TEXT):
                self.binary, self.shown = binary, False
                self.group_empty(result)
            else:  # what feed does with a "test result: " line
                kept.append(binary)
                kept.append(result)
                self.shown, self.binary = True, None
            # the blank line after the result: feed drops it (no binary is left)
            position = section.end()
        return position

    def feed(self, line: str) -> None:
        """Read one line."""
        if self.listing is not None and self.listing_line(line):
            return
        out = self.out
        if not line:  # no shape below matches an empty line
            if self.binary is not None and self.shown:
                out.keep_blank(line)
            return
        # each shape below opens with one character or white space (\\s is str.isspace)
        first = line[0]
        space = first.isspace()
        if (first == "t" and _PASSING.match(line)) or (space and _NEXTEST_PASS.match(line)):
            if line.endswith(" ok") or "PASS [" in line:
                self.passed += 1
                out.omit(line, passing=True)
            else:
                self.ignored += 1
                out.omit(line)
        elif first in ".iFb " and _TERSE_ROW.match(line):
            self.passed += line.count(".")
            self.ignored += line.count("i")
            out.omit_marks(line)  # a failed test is named on a line of its own, or in failures:
        elif (
            (first == "r" and _RUNNING_COUNT.match(line))
            or (space and _PROGRESS.match(line))
            or (first in "na" and _CHATTER.match(line))
        ):
            out.omit(line)
        elif space and _BINARY.match(line):
            self.show_binary()
            self.binary, self.shown = line, False
        elif first == "t" and _EMPTY_RESULT.match(line) and self.binary is not None and not self.shown:
            self.group_empty(line)
        elif line == "failures:":
            self.listing = [line]
        elif line.strip():
            self.show_binary()
            out.keep(line)
            if line.startswith("test result: "):
                self.binary = None
        elif self.binary is not None and self.shown:
            out.keep_blank(line)

    def show_binary(self) -> None:
        if self.binary is not None and not self.shown:
            self.out.keep(self.binary)
            self.shown = True

    def group_empty(self, result: str) -> None:
        if result not in self.empty:
            self.empty[result] = ([], len(self.out.kept))
            self.out.keep(result)  # replaced by the group's line(s) at the end
        self.empty[result][0].append(self.binary or "")
        self.binary = None

    def listing_line(self, line: str) -> bool:
        """Gather the ``failures:`` list; False when ``line`` ends it (and is read as usual)."""
        listing = self.listing
        assert listing is not None
        if not line.strip() or (line.startswith("    ") and line.strip() in self.failed):
            listing.append(line)
            return True
        self.end_listing(line)
        return False

    def end_listing(self, line: str) -> None:
        """Place the ``failures:`` section; a list of FAILED names before the result goes."""
        listing = self.listing or []
        self.listing = None
        names = [entry for entry in listing[1:] if entry.strip()]
        if names and line.startswith("test result: "):  # the list repeats the FAILED lines
            self.repeated += 1 + len(names)
            self.out.omit_copy(listing[0])  # "failures:" is kept above, over the stdout blocks
            for entry in names:
                self.out.omit(entry)
            return
        self.show_binary()
        self.out.keep(listing[0])
        for entry in listing[1:]:
            if entry.strip():
                self.out.keep(entry)
            else:
                self.out.keep_blank(entry)

    def finish(self, text: str) -> str | None:
        if self.listing is not None:
            self.end_listing("")
        self.show_binary()  # a binary that started as the output ended: its line stays
        for result, (binaries, at) in self.empty.items():
            if len(binaries) == 1:
                self.out.kept[at] = f"{binaries[0]}\n{result}"
                continue
            names = [match["running"] or match["doc"] for match in map(_BINARY.match, binaries) if match]
            # the result stays a line of its own: quoted inside a line of ours, "0 failed" would
            # read as a claim of success
            group = f"{MARK} {len(binaries)} binaries ran no test: {'; '.join(names)}; each:"
            self.out.kept[at] = f"{group}\n{result}"
        parts = [plural(self.passed, "passing test")] if self.passed else []
        if self.ignored:
            parts.append(f"{self.ignored:,} ignored")
        if self.repeated:
            parts.append("the repeated failures: list")
        what = ", ".join(parts) or "compile progress"

        def describe(omitted: int) -> str:
            return f"{what} and other chatter omitted ({plural(omitted, 'line')})"

        return self.out.render(describe, text, at_top=True)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop compile progress and passing test lines; keep every binary's result and failures."""
    if not (_RESULT.search(text) or _NEXTEST_SUMMARY.search(text) or "running " in text):
        return None  # not test output (a build that failed before any test ran, a --help…)
    reader = _Reader(_failed_tests(text))
    passing_run = _PASSING_RUN.match

    def bulk(text: str, position: int) -> int:
        """Read a run of passing lines, or a binary whose tests all passed, at ``position``."""
        if reader.listing is not None:
            return -1
        if text.startswith("test ", position):
            run = passing_run(text, position)
            if run is None:
                return -1
            reader.passing_run(text[position : run.end() - 1], text.count("\n", position, run.end()))
            return run.end()
        if text.startswith(" ", position):
            after = reader.passing_binaries(text, position)
            return after if after > position else -1
        return -1

    read_lines(text, reader.feed, bulk)
    return reader.finish(text)


def _failed_tests(text: str) -> set[str]:
    """The names on the lines ``_FAILED_TEST`` matches (each ends in "FAILED"; few do)."""
    failed = set()
    at = text.find("FAILED")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        match = _FAILED_TEST.match(text[start:end])
        if match:
            failed.add(match["name"] or match["terse"])
        at = text.find("FAILED", end)
    return failed


def sniff(text: str) -> float:
    """Sure when libtest's ``test result: ok. N passed; M failed`` line is there."""
    if "test result: " in text and _RESULT.search(text):
        return 0.95
    if "Summary [" in text and _NEXTEST_SUMMARY.search(text):
        return 0.9
    return 0.0
