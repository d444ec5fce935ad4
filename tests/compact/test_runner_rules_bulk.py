"""The bulk readings of the test-runner rules, held equal to their line-by-line readings.

Each rule reads runs of passing lines (and the lines that only lead to them) with one compiled
regex and leaves them out as one entry; its ``compact(..., bulk=False)`` reads every line on its
own, as the definition. Outputs assembled from real lines of each tool, mixed with lines of the
shapes where the two readings could part, must give the same result (with the minimum saving
lifted, so that every reading renders).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction import detect
from tersh.compaction.kit import core, testrun
from tersh.compaction.rules import jest, mocha, nodetest, unittest
from tersh.compaction.rules import pytest as pytest_rule
from tests.compact import support

_PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Compact = Callable[..., str | None]


def _both(
    compact: Compact, lines: list[str], newline_at_end: bool, command: str
) -> tuple[str | None, str | None]:
    """What ``compact`` gives for the output of ``lines``, read in bulk and line by line."""
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    inv = detect.invocation(command, 1)
    with (
        mock.patch.object(testrun, "MIN_SAVED_TOKENS", -(10**9)),
        mock.patch.object(core, "saves_enough", lambda *_: True),
    ):
        return compact(text, inv, bulk=True), compact(text, inv, bulk=False)


def _outputs(
    real: list[str], edges: list[str], blocks: tuple[list[str], ...] = ()
) -> st.SearchStrategy[list[str]]:
    """Outputs of real lines and edge lines, runs of real lines as they were written, and
    ``blocks`` (lines that only mean something together)."""
    line = st.one_of(st.sampled_from(real), st.sampled_from(edges))
    runs = st.tuples(st.integers(0, len(real) - 1), st.integers(1, 40)).map(
        lambda at: real[at[0] : at[0] + at[1]]
    )
    parts = [line.map(lambda one: [one]), runs, *([st.sampled_from(blocks)] if blocks else [])]
    return st.lists(st.one_of(*parts), min_size=1, max_size=30).map(
        lambda parts: [one for part in parts for one in part]
    )


_MOCHA_EDGES = [
    "  ✔ passes",
    "    ✔ passes (12ms)",
    "  ✓ ok",
    "  √ ok",
    "\t✔ tab",
    "  ✔",
    "  ✔x",
    "    - pending one",
    "  describe",
    "    nested title",
    "  1) fails",
    "  12 passing (3s)",
    "  2 failing",
    "  1 pending",
    "  " + "long title " * 20,
    "  x" * 66 + "ab",
    "  .dotted",
    "  ․․․",
    "  ,,",
    "  ..",
    "  .. ",
    "  ..1x",
    "  .-x",
    "  .✔ x",
    "  ,x",
    "  !x",
    "  !bang",
    "  -dash",
    "   error in src/a.js:3:4",
    "  ✔ handles error at lib/x.js:3:4",
    "  title with 1a2b3c4d commit",
    "  ✔ reports ERROR codes",
    "  İ title error",
    "",
    " ",
    "ok 1 passes",
    "not ok 2 fails",
    "1..2",
    "  suite ✖ failing",
    "\u00a0 title",
    "  \u00a0title",
]
_MOCHA_LINES = support.fragment_lines("test__mocha", "mocha")


@_PROPERTY
@given(_outputs(_MOCHA_LINES, _MOCHA_EDGES), st.booleans())
def test_mocha_reads_passing_trees_in_bulk_as_line_by_line(lines: list[str], newline_at_end: bool) -> None:
    bulk, each = _both(mocha.compact, lines, newline_at_end, "npx mocha")
    assert bulk == each


_JEST_EDGES = [
    "PASS src/a.test.js",
    "PASS  src/b.test.js (5 ms)",
    "PASS\tsrc/c.js",
    "PASS",
    "PASS src/console.test.js",
    " ✓ test/a.test.ts (3 tests) 2ms",
    "✓ test/b.test.ts (1 test)",
    " ✓ |proj| test/c.ts (2 tests) 1ms",
    " ✓ |a b| c (2 tests)",
    " ✓  two-spaced.ts (4 tests)",
    "\t✓ tab.ts (1 test)",
    " ✓ x (y)",
    " ✓ test/d.ts > s > t 1ms",
    "  ✓ passes (3 ms)",
    "    ✓ passes",
    "  \t✓ tabbed",
    "   ✔ other mark",
    "   √ third",
    "  ✓",
    "  ✓x",
    "  ○ skipped one",
    "  ✕ fails (4 ms)",
    "  × fails",
    "    × at f (<anonymous>)",
    "    × ⎯⎯⎯⎯⎯",
    "  ✕ fails at src/a.test.js:3:4",
    "  describe block",
    "    nested describe",
    "FAIL src/x.test.js",
    " ❯ test/e.ts (2 tests | 1 failed)",
    "    console.log",
    "      logged",
    "      at Object.<anonymous> (src/a.test.js:3:9)",
    "stdout | test/a.test.ts > s > t",
    "",
    "  ● s › t",
    "    > 12 |   expect(x)",
    "      13 |   y",
    "       |   ^",
    "Tests:       2 passed, 2 total",
    " ✓ error/at.ts:3:4 (1 test)",
    "PASS lib/error 1a2b3c4d.js",
    "  ✓ logs ERROR at x.js:1:2",
]
_JEST_LINES = support.fragment_lines("test__jest", "jest") + support.fragment_lines("test__vitest", "jest")
# A console block, as jest prints it in a passing file and vitest under a passing test.
_JEST_BLOCKS = (
    ["    console.log", "      logged 1", "", "      at Object.<anonymous> (src/a.test.js:3:9)", ""],
    ["  ● Console", "", "    console.warn", "      careful", "      at log (src/b.test.js:9:1)", ""],
    ["stdout | test/a.test.ts > s > t", "printed", ""],
    ["stdout | test/a.test.ts", "printed", "more", ""],
)


@_PROPERTY
@given(
    _outputs(_JEST_LINES, _JEST_EDGES, _JEST_BLOCKS),
    st.booleans(),
    st.sampled_from(("npx jest --verbose", "npx vitest run")),
)
def test_jest_reads_passing_rows_and_files_in_bulk_as_line_by_line(
    lines: list[str], newline_at_end: bool, command: str
) -> None:
    bulk, each = _both(jest.compact, lines, newline_at_end, command)
    assert bulk == each


@pytest.mark.parametrize(
    ("rule", "folder"),
    [
        (jest, "jest"),
        (mocha, "mocha"),
        (nodetest, "nodetest"),
        (pytest_rule, "pytest"),
        (unittest, "unittest"),
    ],
    ids=lambda value: getattr(value, "NAME", value),
)
def test_recorded_outputs_read_in_bulk_as_line_by_line(rule: ModuleType, folder: str) -> None:
    recorded = [(fixture.text, fixture.cmd) for fixture in support.fixtures(folder)]
    recorded += [(case.combined, case.cmd) for case in support.cases_for(rule)]
    assert recorded
    for text, command in recorded:
        bulk, each = _both(rule.compact, text.split("\n"), False, command)
        assert bulk == each


_NODE_EDGES = [
    "TAP version 13",
    "# Subtest: top",
    "    # Subtest: nested",
    "    ok 1 - nested",
    "ok 2 - top # SKIP",
    "ok 3 - x # todo later",
    "not ok 4 - fails",
    "  ---",
    "  ...",
    "    ---",
    "    ...",
    "  duration_ms: 1.5",
    "      duration_ms: 2",
    "  type: 'test'",
    "  ok 5 - inside yaml",
    "  error: see src/a.js:3:4",
    "  stack: |-",
    "    at f (node:internal/x:1:2)",
    "    TestContext.<anonymous> (file:///a/b.test.js:3:4)",
    "    async Promise.all (index 0)",
    "1..4",
    "# tests 4",
    "# pass 3",
    "# fail 1",
    "# skipped 0",
    "# duration_ms 12.5",
    "▶ suite",
    "  ✔ passes (1ms)",
    "  ✖ fails (2ms)",
    "✖ failing tests:",
    "ℹ tests 2",
    "",
    " ",
    "  ... ",
    "  ---  ",
    "ok 6 - commit 1a2b3c4d error",
]
_NODE_LINES = support.fragment_lines("test__node", "nodetest")
# A passing TAP test, as node prints it.
_NODE_BLOCKS = (
    ["# Subtest: passes", "ok 1 - passes", "  ---", "  duration_ms: 1.2", "  ...", ""],
    [
        "    # Subtest: inner",
        "    ok 2 - inner",
        "      ---",
        "      duration_ms: 0.5",
        "      type: 'test'",
        "      ...",
    ],
    ["ok 3 - bare", "  ---", "  ..."],
)


@_PROPERTY
@given(_outputs(_NODE_LINES, _NODE_EDGES, _NODE_BLOCKS), st.booleans())
def test_nodetest_reads_passing_tap_tests_in_bulk_as_line_by_line(
    lines: list[str], newline_at_end: bool
) -> None:
    bulk, each = _both(nodetest.compact, lines, newline_at_end, "node --test")
    assert bulk == each


_PYTEST_EDGES = [
    "2026-12-02 07:40:00,123 INFO worker[42]: processed request id=7f3a9c path=/api/v1/items",
    "12:00:01 WARNING retrying in 3s",
    "E   assert 1 == 2",
    "> raise x",
    "_ _ _ _ _ _ _ _ _ _",
    "    indented log",
    "tests/test_a.py .....",
    "tests/test_a.py ..F..  [ 40%]",
    "tests/test_a.py::test_x PASSED  [ 50%]",
    "tests/test_a.py::test_y SKIPPED (no db)",
    "tests/test_a.py:12: AssertionError",
    "a.py x",
    "a.py:3 note",
    "....",
    ".... [100%]",
    "..s.x  [ 10%]",
    "sxf",
    "sx f",
    "fxs\t",
    "[gw0] [ 50%] PASSED tests/a.py::t",
    "[gw",
    "[info] started",
    "PASSED tests/a.py::t",
    "PASSEDx",
    "scheduling tests via LoadScheduling",
    "scheduling",
    "=== FAILURES ===",
    "= x =",
    "==== 1 failed, 2 passed in 0.12s ====",
    "=",
    "=x",
    "collected 3 items",
    "rootdir: /tmp/x",
    "platform linux -- Python 3.11.0",
    "",
    " ",
    "\t",
    "x",
    "E",
    "Ex",
    "pytest.py",
    "fail.py:",
    "________ test_x ________",
    "    def test_x():",
    "        assert f() == 3",
    "short test summary info",
]
_PYTEST_LINES = support.fragment_lines("test__pytest", "pytest")


@_PROPERTY
@given(_outputs(_PYTEST_LINES, _PYTEST_EDGES), st.booleans())
def test_pytest_reads_plain_and_passing_lines_in_bulk_as_line_by_line(
    lines: list[str], newline_at_end: bool
) -> None:
    bulk, each = _both(pytest_rule.compact, lines, newline_at_end, "pytest")
    assert bulk == each


_UNITTEST_EDGES = [
    "test_a (pkg.mod.Case.test_a) ... ok",
    "test_b (pkg.mod.Case.test_b)",
    "Checks the error path. ... ok",
    "test_c (pkg.Case.test_c) ... skipped 'no db'",
    "test_d (pkg.Case.test_d) ... FAIL",
    "test_e (x.y) ... ERROR",
    "Docstring naming src/a.py:3 ... ok",
    "deadbeef1 commit ... ok",
    "x ... ok",
    " ... ok",
    "... ok",
    "ok",
    "test_f (a.b)",
    "name (x)",
    "======================================================================",
    "----------------------------------------------------------------------",
    "Traceback (most recent call last):",
    '  File "/tmp/t.py", line 3, in test_x',
    "    x = 1 / 0",
    "    ~~^~~",
    "ZeroDivisionError: division by zero",
    "Ran 3 tests in 0.01s",
    "OK",
    "FAILED (failures=1)",
    "..F.s",
    "....",
    "",
    " ",
]
_UNITTEST_LINES = support.fragment_lines("test__unittest", "unittest")
# A test with a docstring: its name line, then the docstring's first line as its row.
_UNITTEST_BLOCKS = (
    ["test_error (pkg.deadbeef1.Case.test_error)", "Raises an error. ... ok"],
    ["test_a (pkg.Case.test_a)", "Reads src/a.py:3 ... ok"],
    ["test_b (pkg.Case.test_b)", "test_c (pkg.Case.test_c) ... ok"],
)


@_PROPERTY
@given(_outputs(_UNITTEST_LINES, _UNITTEST_EDGES, _UNITTEST_BLOCKS), st.booleans())
def test_unittest_reads_passing_rows_in_bulk_as_line_by_line(lines: list[str], newline_at_end: bool) -> None:
    bulk, each = _both(unittest.compact, lines, newline_at_end, "python -m unittest -v")
    assert bulk == each
