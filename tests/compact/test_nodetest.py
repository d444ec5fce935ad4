"""The nodetest rule on real node --test output: corpus cases, recorded modes, edge cases, properties."""

from __future__ import annotations

import functools

import pytest

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import nodetest as rule
from tests.compact import support

# Minimum share of bytes removed, per fixture (only where the output is noisy).
FIXTURE_FLOORS: dict[str, float] = {"tap-pass": 0.9, "spec-pass": 0.8, "tap-failure": 0.7}


test_recorded_mode, test_empty_input_is_declined = support.standard_tests(
    rule, "nodetest", "node --test", FIXTURE_FLOORS
)
_outcome = functools.partial(support.fixture_outcome, rule, "nodetest")


def test_node_running_a_script_is_declined() -> None:
    inv = detect.invocation("node build.js", 0)
    assert rule.compact("ok 1 - something\nok 2 - else\n" * 40, inv) is None


def test_not_ok_blocks_and_totals_are_kept() -> None:
    text = _outcome("tap-failure")
    for kept in ("not ok 2 - fails", "Expected values to be strictly equal:", "# fail 1", "# pass 42"):
        assert kept in text
    assert "ok 7 - adds 5" not in text


@pytest.mark.parametrize(
    "command", ["node --test", "node --test test/unit/a.test.js", "node --test --test-reporter=spec"]
)
def test_wrapped_commands_find_the_rule(command: str) -> None:
    assert rule_for_program(detect.invocation(command, 0)) is rule


def test_sniffs_nothing_outside_test_runs() -> None:
    assert support.other_family_scores(rule) == {}


test_outputs_assembled_from_real_fragments = support.fragment_test(
    rule, "test__node", "nodetest", "node --test"
)


def test_spec_failure_details_are_kept_once_under_failing_tests() -> None:
    text = _outcome("spec-failure")
    assert text.count("AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:") == 1
    assert "✖ fails (" in text.split("✖ failing tests:")[0]  # the row stays in the tree
    assert "repeated under ✖ failing tests" in text
