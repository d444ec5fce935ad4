"""Compact jest and vitest output: drop passing files and tests, keep every failure and the totals.

jest prints ``PASS path`` / ``FAIL path`` per file, ``✓``/``✕``/``○`` per test with ``--verbose``,
a ``●`` block per failure, then ``Test Suites:`` / ``Tests:`` totals. vitest prints ``✓ path (n
tests)`` per passing file, ``❯ path (n tests | k failed)`` with ``✓``/``×``/``↓`` rows per failing
file, ``FAIL path > name`` blocks between ``⎯`` rules, then ``Test Files`` / ``Tests`` totals.

Left out: passing files, passing/skipped/todo tests, and the describe-block titles that only lead
to them. Long ``⎯`` rules between vitest failure blocks are shortened (they cost ~80 tokens each).
Everything else — failure blocks, console output, coverage tables, the totals — stays as written.
"""

from __future__ import annotations

import re

from tersh.compact._testrun import Output, plural
from tersh.compact.base import Invocation

NAME = "jest"
CATEGORY = "tests"
SWITCH = "tests"
PROGRAMS = ("jest", "vitest")

_PASS_FILE = re.compile(
    r"^(?:PASS\s+(?P<jest>\S+)(?P<jest_rest>.*)"
    r"|\s?✓\s+(?:\|[^|]+\| )?(?P<vitest>\S+)(?P<vitest_rest> \(\d+ tests?\b.*))$"
)
_TEST_ROW = re.compile(r"^\s{2,}(?:(?P<passed>[✓✔√])|[○↓✎])\s")
_OTHER_TEST = re.compile(r"^\s+[✕×✗✖]\s")
_TITLE = re.compile(r"^ {2,}[^\s●❯›>✓✔√○↓✎✕×✗✖|-]")
_RULE = re.compile(r"^\s*⎯{4,}(?P<inner>\[\d+/\d+\])?⎯*\s*$")
_TOTALS = re.compile(r"^(?:Tests:|Test Suites:)\s+.*\btotal\b", re.MULTILINE)
_VITEST_TOTALS = re.compile(r"^\s+Test Files\s+.*\(\d+\)\s*$", re.MULTILINE)
_PROGRESS_ORDER = re.compile(r"^(?:PASS|FAIL)\s+\S+", re.MULTILINE)


def _is_file_line(line: str) -> bool:
    return line.startswith(("PASS ", "FAIL ", " ✓ ", " ❯ ", " × ", "✓ ", "❯ "))


def compact(text: str, inv: Invocation) -> str | None:
    """Drop passing files and tests (and titles leading only to them); keep failures and totals."""
    out = Output()
    passed = skipped = files = 0
    titles: list[str] = []  # describe titles waiting to see whether a failure follows
    in_tree = False  # inside a file's tree of describe titles and test rows

    def settle(omit: bool) -> None:
        for title in titles:
            if omit:
                out.omit(title)
            else:
                out.keep(title)
        titles.clear()

    test_row = _TEST_ROW.match
    run: list[str] = []  # consecutive passing rows, handed over together
    for line in text.split("\n"):
        row = test_row(line) if line.startswith(" ") else None
        if row:
            if titles:
                settle(omit=True)
            if row["passed"]:
                run.append(line)
            else:
                skipped += 1
                passed += len(run)
                out.omit_run(run)
                run.clear()
                out.omit(line)
            in_tree = True
            continue
        if run:
            passed += len(run)
            out.omit_run(run)
            run.clear()
        file_match = _PASS_FILE.match(line) if _is_file_line(line) else None
        if file_match:
            path = file_match["jest"] or file_match["vitest"]
            rest = file_match["jest_rest"] or file_match["vitest_rest"] or ""
            if titles:
                settle(omit=True)
            files += 1
            out.omit_in_file(line, path, rest)
            in_tree = True
            continue
        if in_tree and _TITLE.match(line) and not _OTHER_TEST.match(line) and len(line) < 200:
            titles.append(line)
            continue
        if titles:
            settle(omit=False)
        in_tree = _is_file_line(line) or bool(_OTHER_TEST.match(line))
        rule = _RULE.match(line)
        if rule:
            out.keep(f"⎯⎯⎯ {rule['inner']}" if rule["inner"] else "⎯⎯⎯")
            continue
        out.keep(line)
    passed += len(run)
    out.omit_run(run)
    settle(omit=False)
    parts = []
    if files:
        parts.append(plural(files, "passing file"))
    if passed:
        parts.append(plural(passed, "passing test"))
    if skipped:
        parts.append(f"{skipped:,} skipped/todo")
    return out.render(lambda omitted: f"{' and '.join(parts) or plural(omitted, 'line')} omitted", text)


def sniff(text: str) -> float:
    """Sure when jest's ``Tests: … total`` or vitest's ``Test Files … (n)`` totals are there."""
    if ("Tests:" in text and _TOTALS.search(text)) or (
        "Test Files" in text and _VITEST_TOTALS.search(text)
    ):
        return 0.95
    if _PROGRESS_ORDER.search(text) and "●" in text:
        return 0.8
    return 0.0
