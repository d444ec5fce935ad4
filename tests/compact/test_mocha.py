"""The mocha rule on real mocha output: corpus cases, recorded modes, edge cases, properties."""

from __future__ import annotations

import functools

import pytest

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import mocha as rule
from tests.compact import support

# Minimum share of bytes removed, per fixture (only where the output is noisy).
FIXTURE_FLOORS: dict[str, float] = {"spec-failure": 0.6, "spec-pass": 0.8}


test_recorded_mode, test_empty_input_is_declined = support.standard_tests(
    rule, "mocha", "npx mocha", FIXTURE_FLOORS
)
_outcome = functools.partial(support.fixture_outcome, rule, "mocha")


def test_failing_test_keeps_its_title_and_block() -> None:
    text = _outcome("spec-failure")
    for kept in (
        "1) strings\n       joins wrong:",
        "1 failing",
        "AssertionError [ERR_ASSERTION]",
        "at Context.<anonymous> (test/math.test.js:10:34)",
        "errors",
    ):
        assert kept in text
    assert "✔ adds 4" not in text
    assert "    1) joins wrong" not in text  # the tree's failing row: the block below names it


def test_tap_reporter_keeps_failures_and_details() -> None:
    text = _outcome("tap-failures")
    assert "ok 1 strings slugify slugs case 0" not in text
    assert "not ok 26 strings slugify keeps underscores" in text
    assert "  - 'a_b-c'" in text  # a diff line of a failure is not a pending test
    assert "# fail 5" in text


@pytest.mark.parametrize(
    "command", ["npx mocha", "mocha --reporter spec test/", "npx mocha --require test/support/env"]
)
def test_wrapped_commands_find_the_rule(command: str) -> None:
    assert rule_for_program(detect.invocation(command, 0)) is rule


def test_sniffs_nothing_outside_test_runs() -> None:
    assert support.other_family_scores(rule) == {}


test_outputs_assembled_from_real_fragments = support.fragment_test(
    rule, "test__mocha", "mocha", "npx mocha"
)
