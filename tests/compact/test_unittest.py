"""The unittest rule on real unittest output: corpus cases, recorded modes, edge cases, properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.rules import detect, rule_for_program
from tersh.rules import unittest as rule
from tests import corpus
from tests.compact import runner_support as support

# Minimum share of bytes removed, per corpus case / fixture (only where the output is noisy).
FLOORS: dict[str, float] = {"test__unittest-more-itertools-v-pass": 0.97}
APPLIED = {"test__unittest-more-itertools-v-pass"}
FIXTURE_FLOORS: dict[str, float] = {"failures-v": 0.6}


@pytest.mark.parametrize("case", support.corpus_cases("test__unittest"), ids=lambda c: c.name)
def test_corpus_case(case: corpus.Case, snapshot: SnapshotAssertion) -> None:
    floor = FLOORS.get(case.name, 0.0)
    assert support.check_corpus_case(rule, case, floor, case.name in APPLIED) == snapshot


@pytest.mark.parametrize("fixture", support.fixtures("unittest"), ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    assert support.check_fixture(rule, fixture, FIXTURE_FLOORS.get(fixture.name, 0.0)) == snapshot


def _outcome(name: str) -> str:
    return support.fixture_outcome(rule, "unittest", name)


def test_empty_input_is_declined() -> None:
    assert rule.compact("", detect.invocation("python -m unittest", 0)) is None


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


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_outputs_assembled_from_real_fragments(data: st.DataObject) -> None:
    lines = data.draw(st.lists(st.sampled_from(_FRAGMENTS), max_size=120))
    support.check_fragments(rule, lines, data.draw(st.sampled_from([0, 1])))


_FRAGMENTS = support.fragment_lines("test__unittest", "unittest") or ["python -m unittest"]
