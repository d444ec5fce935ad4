"""The gotest rule on real go test output: corpus cases, recorded modes, edge cases, properties."""

from __future__ import annotations

import functools

import pytest

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
