"""The poetry rule: per-package progress goes, finished operations are joined, failures stay."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect
from tersh.compaction.rules import poetry as rule
from tests.compact import support

FIXTURES = support.fixtures_for(rule, "poetry")


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    floor = 0.4 if fixture.name == "install-tty" else 0.0
    assert support.check_fixture(rule, fixture, floor) == snapshot


def test_operations_are_joined_in_order_and_the_failure_kept() -> None:
    text = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "install-tty"))
    assert (
        "  - Installing: certifi (2024.8.30), charset-normalizer (3.4.0), idna (3.10)\n"
        "  - Updating: urllib3 (2.2.2 -> 2.2.3)\n"
        "  - Installing: requests (2.32.3)\n"
        "  - Installing pytest (8.3.3): Failed\n"
    ) in text
    assert "Pending..." not in text and "Downloading..." not in text
    assert "    → 164│                 raise error from None" in text
    assert "[tersh] 22 progress lines omitted" in text


def test_small_outputs_are_left_alone() -> None:
    for name in ("install-noop", "add-unsatisfiable"):
        fixture = next(f for f in FIXTURES if f.name == name)
        assert support.outcome_text(rule, fixture) == support.clean(fixture.text)
    assert rule.compact("", detect.invocation("poetry install", 0)) is None


def test_sniff() -> None:
    tty = next(f for f in FIXTURES if f.name == "install-tty")
    assert rule.sniff(support.clean(tty.text)) >= 0.9
    assert support.foreign_sniffs(rule, set()) == {}
