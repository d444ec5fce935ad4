"""Compact ``go test`` output (default and ``-v``): drop passing tests, keep failures and results.

``go test`` prints one result line per package (``ok  pkg 0.01s``, ``FAIL pkg 0.02s``,
``?   pkg [no test files]``); a failing test adds ``--- FAIL: TestX (0.00s)`` with its
``file_test.go:12: message`` lines. ``-v`` adds ``=== RUN``/``=== PAUSE``/``=== CONT`` markers,
``--- PASS:``/``--- SKIP:`` lines and a bare ``PASS`` before each package result.

Left out: the run/pause/continue markers, ``--- PASS``/``--- SKIP`` lines, bare ``PASS`` lines and
the ``[no test files]`` lines (their packages are named in the note). The note names the
skipped tests when there are at most ``MAX_SKIPPED_NAMED`` of them (a skip is news; hundreds of
them are a setting, counted). Kept as written: every
``--- FAIL``, every logged line (they carry ``file.go:line``), panics with their goroutine
traces, build errors, and every ``ok``/``FAIL`` package result.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import plural
from tersh.compaction.kit.testrun import Output, read_lines

NAME = "gotest"
CATEGORY = "tests"
PROGRAMS = ("go test", "gotestsum")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("=== RUN", "ok  \t", "FAIL\t")

_MARKER = lazy(r"^=== (?:RUN|PAUSE|CONT|NAME)\s")
_PASSED = lazy(r"^\s*--- (?P<status>PASS|SKIP): (?P<test>\S+) \([\d.]+s\)$")
#: Skipped tests named in the note up to this many.
MAX_SKIPPED_NAMED = 20
_BARE_PASS = lazy(r"^PASS$")
_NO_TEST_FILES = lazy(r"^\?\s+(?P<pkg>\S+)\s+\[no test files\]$")
# Consecutive lines (each ending in "\n") that ``compact`` leaves out with a passing mark, one
# by one: ``=== RUN``/``PAUSE``/``CONT`` markers and ``--- PASS`` lines (``_MARKER``, ``_PASSED``).
# Only the markers open with "=== " (a "\n=== " is one of them).
_PASSING_RUN = lazy(
    r"(?:(?:=== (?:RUN|PAUSE|CONT)[^\S\n][^\n]*|[^\S\n]*--- PASS: [^\s]+ \([\d.]+s\))\n)+"
)
_PACKAGE_RESULT = lazy(r"^(?:ok|FAIL|---)\s+\S+\s+(?:\(cached\)|[\d.]+s|\[)", MULTILINE)
_FAIL_HEADER = lazy(r"^\s*--- FAIL: \S+ \([\d.]+s\)$", MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop run markers and passing tests; keep failures, logs, panics and package results."""
    if not (_PACKAGE_RESULT.search(text) or _FAIL_HEADER.search(text) or "=== RUN" in text):
        return None  # not test output (go vet, a build error before tests, go help…)
    out = Output()
    passed = untested = 0
    skipped: list[str] = []

    def feed(line: str) -> None:
        nonlocal passed, untested
        passing = _PASSED.match(line)
        if passing:
            if passing["status"] == "PASS":
                passed += 1
                out.omit(line, passing=True)
            else:
                skipped.append(passing["test"])
                out.omit(line)
            return
        no_tests = _NO_TEST_FILES.match(line)
        if no_tests:
            untested += 1
            out.omit_in_file(line, no_tests["pkg"], "", passing=False)
            return
        if _MARKER.match(line) or _BARE_PASS.match(line):
            out.omit(line, passing=not line.startswith("=== NAME"))
            return
        out.keep(line)

    passing_run = _PASSING_RUN.match

    def bulk(text: str, position: int) -> int:
        """Leave out a run of markers and ``--- PASS`` lines at once, as ``feed`` would each."""
        run = passing_run(text, position)
        if run is None:
            return -1
        nonlocal passed
        end = run.end()
        lines = text.count("\n", position, end)
        markers = text.startswith("=== ", position) + text.count("\n=== ", position, end - 1)
        passed += lines - markers
        out.omit_passing_lines(text[position : end - 1], lines)
        return end

    read_lines(text, feed, bulk)
    parts = [plural(passed, "passing test")] if passed else []
    if len(skipped) > MAX_SKIPPED_NAMED:
        parts.append(f"{len(skipped):,} skipped")
    elif skipped:
        parts.append(f"{len(skipped):,} skipped ({', '.join(skipped)})")
    if untested:
        parts.append(plural(untested, "package") + " without test files")
    what = " and ".join(parts)
    return out.render(lambda omitted: f"{what or plural(omitted, 'run marker')} omitted", text)


#: A package result line of ``go test``: ``ok  \tpkg\t0.01s`` or ``FAIL\tpkg\t(cached)``.
_TAB_PACKAGE_RESULT = lazy(r"^(?:ok  |FAIL)\t\S+\t(?:\(cached\)|[\d.]+s)", MULTILINE)


def sniff(text: str) -> float:
    """Sure when go test's package result lines or its ``--- FAIL:``/``=== RUN`` markers show."""
    if "=== RUN" in text and ("--- PASS: " in text or "--- FAIL: " in text):
        return 0.95
    if _TAB_PACKAGE_RESULT.search(text):
        return 0.9
    return 0.0
