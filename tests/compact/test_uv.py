"""The uv rule: chatter goes, package changes are joined per sign, errors stay."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compact import detect
from tersh.compact import uv as rule
from tests.compact import gitpkg_support as gp
from tests.compact import runner_support as support

FIXTURES = gp.fixtures_for(rule, "uv")


def test_every_fixture_is_routed_here() -> None:
    assert len(FIXTURES) == len(support.fixtures("uv")) >= 5


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    floor = 0.2 if fixture.name in {"add", "remove"} else 0.0
    assert gp.check_fixture(rule, fixture, floor) == snapshot


def test_changes_are_joined_and_every_package_kept() -> None:
    text = gp.outcome_text(rule, next(f for f in FIXTURES if f.name == "add"))
    assert " + certifi==2026.10.19.post1, charset-normalizer==3.5.3, demo==0.1.0" in text
    assert "rich==15.0.0, urllib3==2.8.0\n" in text
    assert "Installed 10 packages in 13ms" in text and "Downloaded pygments" not in text


def test_errors_and_hints_pass_unchanged() -> None:
    fixture = next(f for f in FIXTURES if f.name == "add-unsatisfiable")
    assert gp.outcome_text(rule, fixture) == support.clean(fixture.text)
    assert rule.compact("", detect.invocation("uv sync", 0)) is None


def test_sniff() -> None:
    add = next(f for f in FIXTURES if f.name == "add")
    assert rule.sniff(support.clean(add.text)) >= 0.9
    assert gp.foreign_sniffs(rule, set()) == {}
