"""The jest rule on real jest and vitest output: corpus cases, recorded modes, edge cases, properties."""

from __future__ import annotations

import functools

import pytest

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import jest as rule
from tests import corpus
from tests.compact import support

# Minimum share of bytes removed, per fixture (only where the output is noisy).
FIXTURE_FLOORS: dict[str, float] = {
    "jest-pass": 0.6, "jest-verbose-failure": 0.5, "vitest-failure": 0.6, "jest-mixed-console": 0.3,
    "jest-verbose-mixed": 0.5, "jest-pass-verbose-console": 0.75, "vitest-mixed-import-error": 0.5,
    "vitest-verbose-mixed": 0.8, "vitest-pass-verbose": 0.9,
}


test_recorded_mode, test_empty_input_is_declined = support.standard_tests(
    rule, "jest", "npx jest", FIXTURE_FLOORS
)
_outcome = functools.partial(support.fixture_outcome, rule, "jest")


def test_failing_tests_keep_their_tree_and_blocks() -> None:
    text = _outcome("jest-verbose-failure")
    for kept in (
        "FAIL test/math.test.js",
        "✕ joins wrong",
        "● strings › joins wrong",
        "Tests:       1 failed, 1 skipped, 61 passed, 63 total",
    ):
        assert kept in text
    assert "✓ adds 3" not in text
    vitest = _outcome("vitest-failure")
    assert "× joins wrong" in vitest
    assert "FAIL  vt/math.test.js > strings > joins wrong" in vitest


def test_vitest_rules_are_shortened_but_counters_kept() -> None:
    case = next(c for c in corpus.cases() if c.name == "test__vitest-ufo-failures")
    text = support.gate(rule, case.combined, case.cmd, case.exit_code)[2].text
    assert "⎯⎯⎯ [1/8]" in text
    assert "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/8]⎯" not in text
    assert "Failed Tests 8" in text


@pytest.mark.parametrize(
    "command", ["npx jest", "jest --ci", "npx vitest run", "pnpm exec vitest", "yarn exec jest -- --coverage"]
)
def test_wrapped_commands_find_the_rule(command: str) -> None:
    assert rule_for_program(detect.invocation(command, 0)) is rule


def test_sniffs_nothing_outside_test_runs() -> None:
    assert support.other_family_scores(rule) == {}


test_outputs_assembled_from_real_fragments = support.fragment_test(
    rule, "test__", "jest", "npx jest"
)
