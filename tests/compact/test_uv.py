"""The uv rule: chatter goes, package changes are joined per sign, errors stay."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect
from tersh.compaction.rules import uv as rule
from tests.compact import support

FIXTURES = support.fixtures_for(rule, "uv")


def test_every_fixture_is_routed_here() -> None:
    assert len(FIXTURES) == len(support.fixtures("uv")) >= 5


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    assert support.check_fixture(rule, fixture, 0.0) == snapshot


def test_small_real_outputs_are_left_alone() -> None:
    for fixture in FIXTURES:  # uv is terse: most of these are not worth a note and a report
        if fixture.name not in {"add-many", "add-new-project"}:
            assert support.outcome_text(rule, fixture) == support.clean(fixture.text)
    many = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "add-many"))
    assert " + alabaster==1.0.0, babel==2.19.0\n ~ demo==0.1.0 (from file:///tmp/uvp)\n" in many


def test_a_new_project_keeps_every_installed_version_and_drops_downloads() -> None:
    fixture = next(f for f in FIXTURES if f.name == "add-new-project")
    text = support.check_fixture(rule, fixture, 0.2)
    assert "Downloading numpy" not in text and "Built uvproj" not in text
    assert "Installed 16 packages in 126ms" in text
    for line in support.clean(fixture.text).splitlines():
        if line.startswith(" + "):
            assert line[3:] in text


def test_changes_are_joined_and_every_package_kept() -> None:
    fixture = next(f for f in FIXTURES if f.name == "add-many")
    names = [f"pkg-{n:03d}" for n in range(120)]
    text = (
        "Resolved 120 packages in 1.2s\n"
        + "".join(f"Downloading {name} (1.2MiB)\n Downloaded {name}\n" for name in names)
        + "Prepared 120 packages in 2.1s\nInstalled 120 packages in 80ms\n"
        + "".join(f" + {name}==1.0.{n}\n" for n, name in enumerate(names))
    )
    out = rule.compact(text, detect.invocation(fixture.cmd, 0))
    assert out is not None
    assert " + pkg-000==1.0.0, pkg-001==1.0.1, pkg-002==1.0.2," in out
    assert "Installed 120 packages in 80ms" in out and "Downloaded pkg" not in out
    assert out.rstrip().endswith("[tersh] 2 count lines, 240 download lines omitted")


def test_errors_and_hints_pass_unchanged() -> None:
    fixture = next(f for f in FIXTURES if f.name == "add-unsatisfiable")
    assert support.outcome_text(rule, fixture) == support.clean(fixture.text)
    assert rule.compact("", detect.invocation("uv sync", 0)) is None


def test_sniff() -> None:
    add = next(f for f in FIXTURES if f.name == "add")
    assert rule.sniff(support.clean(add.text)) >= 0.9
    assert support.foreign_sniffs(rule, set()) == {}
