"""The yarn rule: classic steps and berry frames go; outcome, warnings and trees stay."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect
from tersh.compaction.rules import yarn as rule
from tests.compact import support

FIXTURES = support.fixtures_for(rule, "yarn")


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    floor = 0.5 if fixture.name == "berry-install" else 0.0
    assert support.check_fixture(rule, fixture, floor) == snapshot


def test_berry_keeps_warnings_and_the_outcome() -> None:
    text = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "berry-install"))
    assert "➤ YN0002: │ demo@workspace:. doesn't provide react (p3c1a2), requested by react-dom" in text
    assert "➤ YN0000: · Done with warnings in 1s 840ms" in text
    assert "can't be found in the cache" not in text


def test_output_that_is_not_yarn_s_own_is_declined() -> None:
    jest = "PASS src/a.test.js\nTests:       3 passed, 3 total\nDone in 2.1s.\n"
    assert rule.compact(jest, detect.invocation("yarn test", 0)) is None
    assert rule.compact("", detect.invocation("yarn", 0)) is None


def test_sniff() -> None:
    add = next(f for f in FIXTURES if f.name == "yarn-add")
    assert rule.sniff(support.clean(add.text)) >= 0.9
    assert support.foreign_sniffs(rule, set()) == {}


def test_a_dependency_tree_becomes_one_line_with_every_package() -> None:
    fixture = next(f for f in FIXTURES if f.name == "yarn-add-many")
    text = support.check_fixture(rule, fixture, 0.15)
    assert "info Direct dependencies\n  express@4.22.3 request@2.88.2\n" in text
    assert "├─" not in text and "└─" not in text
    for line in support.clean(fixture.text).splitlines():
        if line.startswith(("├─ ", "└─ ")):
            assert f" {line[3:]} " in text.replace("\n", " ")
