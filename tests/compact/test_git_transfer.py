"""The git clone/fetch/pull/push rule: object-transfer progress goes, outcome and refs stay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect
from tersh.compaction.rules import git_transfer as rule
from tests.compact import support

FIXTURES = support.fixtures_for(rule, "git")
FLOORS = {"clone-progress": 0.8}
LINES = support.rule_fragment_lines(rule, "git")


def test_fixtures_cover_every_transfer_command() -> None:
    assert {f.cmd.split()[1] for f in FIXTURES} == {"clone", "fetch", "pull", "push"}


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    assert support.check_fixture(rule, fixture, FLOORS.get(fixture.name, 0.0)) == snapshot


def test_ref_updates_and_outcome_survive() -> None:
    fixture = next(f for f in FIXTURES if f.name == "pull-fastforward")
    pull = support.clean(fixture.text)
    assert support.outcome_text(rule, fixture) == pull  # a short pull is not worth a note
    proposal = rule.compact(pull * 3, detect.invocation(fixture.cmd, 0)) or ""
    for kept in (
        " * branch            main       -> FETCH_HEAD",
        "   6272179..51a1ddc  main       -> origin/main",
        "Updating 6272179..51a1ddc\nFast-forward\n notes.txt | 1\n src/app.py | 1",
        "2 files changed, 2 insertions(+)",
    ):
        assert kept in proposal
    assert "objects" not in proposal
    assert proposal.rstrip().endswith("[tersh] 12 progress lines, 6 diffstat bars omitted")


def test_a_rejected_push_keeps_every_line() -> None:
    rejected = next(f for f in FIXTURES if f.name == "push-rejected")
    assert support.outcome_text(rule, rejected) == support.clean(rejected.text)


def test_output_without_progress_is_declined() -> None:
    inv = detect.invocation("git pull", 0)
    assert rule.compact("Already up to date.\n", inv) is None
    assert rule.compact("", inv) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=60))
def test_fragments_never_crash_or_lose_a_fact(lines: list[str]) -> None:
    support.check_command_fragments(rule, lines, "git fetch origin", 0)


def test_sniff() -> None:
    clone = next(f for f in FIXTURES if f.name == "clone-progress")
    assert rule.sniff(support.clean(clone.text)) >= 0.9
    assert support.foreign_sniffs(rule, set()) == {}


@pytest.mark.parametrize("name", ["fetch-prune-many-branches", "fetch-rejected-many-branches"])
def test_unchanged_refs_are_counted_and_every_moved_ref_kept(name: str) -> None:
    fixture = next(f for f in FIXTURES if f.name == name)
    source = support.clean(fixture.text)
    proposal = support.outcome_text(rule, fixture)
    unchanged = [line for line in source.split("\n") if line.startswith(" = [up to date]")]
    assert len(unchanged) > 500 and not any("[up to date]" in line for line in proposal.split("\n"))
    assert f"[tersh] {len(unchanged):,} up-to-date refs omitted" in proposal
    for line in source.split("\n"):
        if line and line not in unchanged:  # "From …", new, updated, forced, deleted, rejected refs
            assert line in proposal
    assert len(proposal) * 20 < len(source)


def test_only_unchanged_refs_are_dropped_from_a_verbose_push() -> None:
    refs = [f" = [up to date]      topic-{i} -> topic-{i}" for i in range(40)]
    text = "\n".join(["Pushing to /srv/git/app.git", "To /srv/git/app.git", *refs,
                      " ! [rejected]        main -> main (fetch first)",
                      "error: failed to push some refs to '/srv/git/app.git'"])  # fmt: skip
    proposal = rule.compact(text, detect.invocation("git push -v --all", 1)) or ""
    assert "topic-" not in proposal and "40 up-to-date refs omitted" in proposal
    assert " ! [rejected]        main -> main (fetch first)" in proposal
    assert "error: failed to push some refs to '/srv/git/app.git'" in proposal
