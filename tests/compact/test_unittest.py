"""The unittest rule on real unittest output: corpus cases, recorded modes, edge cases, properties."""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import unittest as rule
from tests import corpus
from tests.compact import support

# Minimum share of bytes removed, per fixture (only where the output is noisy).
FIXTURE_FLOORS: dict[str, float] = {"failures-v": 0.6}


test_recorded_mode, test_empty_input_is_declined = support.standard_tests(
    rule, "unittest", "python -m unittest", FIXTURE_FLOORS
)
_outcome = functools.partial(support.fixture_outcome, rule, "unittest")


def test_failures_errors_and_verdict_are_kept() -> None:
    text = _outcome("failures-v")
    for kept in (
        "test_div_zero (test_calc.CalcTests.test_div_zero) ... ERROR",
        "Multiplication is checked against a wrong value. ... FAIL",
        "ZeroDivisionError: division by zero",
        "AssertionError: 6 != 7",
        "Ran 66 tests in",
        "FAILED (failures=1, errors=1, skipped=1, expected failures=1)",
    ):
        assert kept in text
    assert "test_case_07 (test_calc.ManyTests.test_case_07) ... ok" not in text


def test_a_short_run_with_nothing_worth_dropping_is_left_alone() -> None:
    case = next(c for c in corpus.cases() if c.name == "test__unittest-more-itertools-pass")
    assert rule.compact(support.clean(case.combined), detect.invocation(case.cmd, 0)) is None


@pytest.mark.parametrize(
    "command",
    [
        "python -m unittest",
        "python3 -m unittest discover -s tests",
        "uv run python -m unittest -v",
        "nose2 -v",
    ],
)
def test_wrapped_commands_find_the_rule(command: str) -> None:
    assert rule_for_program(detect.invocation(command, 0)) is rule


def test_sniffs_nothing_outside_test_runs() -> None:
    assert support.other_family_scores(rule) == {}


test_outputs_assembled_from_real_fragments = support.fragment_test(
    rule, "test__unittest", "unittest", "python -m unittest"
)


def test_progress_row_with_failures_goes_when_the_verdict_lists_them() -> None:
    text = _outcome("shared-helper-failures")
    assert "....." not in text
    assert "1 progress row (150 passed, 5 skipped, 1 failed, 3 errors)" in text
    for kept in ("ERROR: test_empty_field (test_parse.ParseTests.test_empty_field)",
                 "FAIL: test_sum (test_parse.ParseTests.test_sum)",
                 "ValueError: invalid literal for int() with base 10: 'two'",
                 "Ran 159 tests", "FAILED (failures=1, errors=3, skipped=5)"):
        assert kept in text
    assert "^^^^" not in text and "=====" not in text


def test_a_syntax_error_caret_stays_and_repeated_frames_are_told() -> None:
    text = _outcome("shared-helper-failures")
    assert '  File "snippet.py", line 1\n    def f(:\n          ^\nSyntaxError' in text
    assert text.count('  File "/tmp/ut_h/helpers.py", line 2, in parse') == 2
    assert text.count('  File "/tmp/ut_h/helpers.py", line 8, in _num') == 1
    assert "3 more frames, each shown in a traceback above" in text


def test_a_row_with_failures_stays_when_the_run_stopped_before_its_verdict() -> None:
    row = ".........E.........F" * 8
    text = "\n".join([row, *["." * 160] * 60, "Traceback (most recent call last):",
                      '  File "/tmp/x/runner.py", line 3, in <module>', "KeyboardInterrupt"])
    out = rule.compact(text, detect.invocation("python -m unittest", 130))
    assert out is not None and row in out and "." * 160 not in out


def _line_by_line(text: str) -> str | None:
    """The rule reading every line alone (``compact`` but for its runs of rows that passed)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rule, "_OK_RUN", re.compile(r"(?!)"))
        return rule.compact(text, detect.invocation("python -m unittest -v", 1))


_ROWS = (
    "test_basic (tests.test_more.AdjacentTests.test_basic) ... ok",
    "test_x (tests.A.test_x) ... skipped 'no network' ... ok", "test_odd ... ok ... ok",
    "test_y (tests.A.test_y) ... skipped 'why'", "test_z (tests.A.test_z) ... FAIL",
    "test_doc (tests.A.test_doc)", "Check the docstring ... ok", "test_at (src/a.py:12) ... ok",
    "test_commit_1a2b3c4d (x.Y) ... ok", "test_err (x.Y) ... ERROR", "ok", " ... ok",
    "======================================================================",
    "FAIL: test_z (tests.A.test_z)", "Traceback (most recent call last):",
    '  File "/src/tests/a.py", line 12, in test_z', "    self.assertEqual(1, 2)",
    "            ^^^^^", "AssertionError: 1 != 2", "", "Ran 12 tests in 0.003s", "FAILED (failures=1)", "OK",
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ROWS), max_size=60), st.lists(st.sampled_from(_ROWS[:12]), max_size=5))
def test_runs_of_passing_rows_are_read_as_line_by_line(lines: list[str], run: list[str]) -> None:
    text = "\n".join(lines[: len(lines) // 2] + run * 20 + lines[len(lines) // 2 :])
    inv = detect.invocation("python -m unittest -v", 1)
    for ending in ("", "\n"):
        assert rule.compact(text + ending, inv) == _line_by_line(text + ending)


def test_corpus_and_fixtures_are_read_as_line_by_line() -> None:
    inv = detect.invocation("python -m unittest -v", 1)
    texts = [support.clean(case.combined) for case in support.corpus_cases("test__unittest")]
    for text in texts + [fixture.text for fixture in support.fixtures("unittest")]:
        assert rule.compact(text, inv) == _line_by_line(text)


_VERDICT_LINES = ("OK", "FAILED", "OK (skipped=2)", "FAILED (failures=1)", "OKAY", "xOK", "\rOK", "FAILED ()")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_VERDICT_LINES), max_size=8))
def test_the_verdict_is_found_as_the_pattern_finds_it(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert rule.has_verdict(text) == (rule._VERDICT.search(text) is not None)
