"""The gotest rule on real go test output: corpus cases, recorded modes, edge cases, properties."""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import gotest as rule
from tests.compact import support

# Minimum share of bytes removed, per fixture (only where the output is noisy).
FIXTURE_FLOORS: dict[str, float] = {"verbose-failures": 0.6, "verbose-pass": 0.6}


test_recorded_mode, test_empty_input_is_declined = support.standard_tests(
    rule, "gotest", "go test ./...", FIXTURE_FLOORS
)
_outcome = functools.partial(support.fixture_outcome, rule, "gotest")


def test_failures_logs_and_results_are_kept() -> None:
    text = _outcome("verbose-failures")
    for kept in (
        "--- FAIL: TestPriceRounding (0.00s)",
        "price_test.go:27: Round(2.675)",
        "slow_test.go:12: skipping in short mode",
        "FAIL\texample.com/shop/pricing",
    ):
        assert kept in text
    assert "=== RUN" not in text
    assert "--- PASS: TestTable/case_3 (0.00s)" not in text


def test_panics_and_build_failures_stay_whole() -> None:
    for name in ("panic", "build-failed"):
        fixture = next(f for f in support.fixtures("gotest") if f.name == name)
        _, _, outcome = support.gate(rule, fixture.text, fixture.cmd, fixture.exit_code)
        assert outcome.text == support.clean(fixture.text)


@pytest.mark.parametrize(
    "command", ["go test ./...", "go test -v -run TestX ./pkg", "env CGO_ENABLED=0 go test ./..."]
)
def test_wrapped_commands_find_the_rule(command: str) -> None:
    assert rule_for_program(detect.invocation(command, 0)) is rule


def test_sniffs_nothing_outside_test_runs() -> None:
    assert support.other_family_scores(rule) == {}


test_outputs_assembled_from_real_fragments = support.fragment_test(
    rule, "zz_no_corpus", "gotest", "go test ./..."
)


def _line_by_line(text: str) -> str | None:
    """The rule reading every line alone (``compact`` but for its runs of markers and passes)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rule, "_PASSING_RUN", re.compile(r"(?!)"))
        return rule.compact(text, detect.invocation("go test -v ./...", 1))


_LINES = (
    "=== RUN   TestAdd", "=== RUN   TestItems/item_1", "=== PAUSE TestPar", "=== CONT  TestPar",
    "=== NAME  TestPar", "=== RUN", "=== RUN\tTestTab", "=== RUNNER x", "--- PASS: TestAdd (0.00s)",
    "    --- PASS: TestItems/item_1 (0.01s)", "--- PASS: TestOdd (0.00s) extra", "--- PASS: Test=== (0.00s)",
    "=== RUN   Test--- PASS: x (0.00s)", "--- SKIP: TestSkip (0.00s)", "--- FAIL: TestBad (0.00s)",
    "    add_test.go:12: got 3, want 4", "PASS", "FAIL", "ok  \texample.com/cart\t0.012s",
    "FAIL\texample.com/cart\t0.015s", "?   \texample.com/cmd\t[no test files]", "", " ",
    "panic: runtime error: index out of range [recovered]", "=== RUN   TestCommit_1a2b3c4d",
    "=== RUN   TestAt/src/a.go:12",
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINES), max_size=60), st.lists(st.sampled_from(_LINES[:13]), max_size=6))
def test_runs_of_markers_and_passes_are_read_as_line_by_line(lines: list[str], run: list[str]) -> None:
    text = "\n".join(lines[: len(lines) // 2] + run * 20 + lines[len(lines) // 2 :])
    inv = detect.invocation("go test -v ./...", 1)
    for ending in ("", "\n"):
        assert rule.compact(text + ending, inv) == _line_by_line(text + ending)


def test_fixtures_are_read_as_line_by_line() -> None:
    inv = detect.invocation("go test -v ./...", 1)
    for fixture in support.fixtures("gotest"):
        assert rule.compact(fixture.text, inv) == _line_by_line(fixture.text), fixture.name
