"""The git ref-listing rule: branch -v padding, remote -v pairs; plain lists pass unchanged."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect
from tersh.compaction.rules import git_refs as rule
from tests.compact import support

FIXTURES = support.fixtures_for(rule, "git")


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    assert support.check_fixture(rule, fixture, 0.0) == snapshot


def test_remote_pairs_are_merged_only_when_urls_match() -> None:
    inv = detect.invocation("git remote -v", 0)
    text = "".join(
        f"peer{n}\thttps://example.com/team{n}/project.git (fetch)\n"
        f"peer{n}\thttps://example.com/team{n}/project.git (push)\n"
        for n in range(20)
    ) + (
        "fork\thttps://example.com/me/project.git (fetch)\n"
        "fork\tgit@example.com:me/project.git (push)\n"
    )
    out = rule.compact(text, inv)
    assert out is not None
    assert "peer3 https://example.com/team3/project.git (fetch, push)\n" in out
    assert "fork https://example.com/me/project.git (fetch)\n" in out
    assert "fork git@example.com:me/project.git (push)" in out


def test_branch_verbose_loses_only_padding() -> None:
    inv = detect.invocation("git branch -vv", 0)
    text = "".join(
        f"  f{'x' * n}{' ' * (60 - n)} 3c0a1b{n:02d} [origin/f: ahead {n}] Work {n}\n"
        for n in range(1, 60)
    ) + "* main                                                          9f8e7d6 [origin/main] Release\n"
    out = rule.compact(text, inv)
    assert out is not None
    assert "* main 9f8e7d6 [origin/main] Release\n" in out
    assert "  fxxx 3c0a1b03 [origin/f: ahead 3] Work 3\n" in out


def test_plain_listings_pass_unchanged() -> None:
    stash = detect.invocation("git stash list", 0)
    assert rule.compact("stash@{0}: WIP on main: 3c0a1b2 x\n", stash) is None
    assert rule.compact("", detect.invocation("git branch", 0)) is None
    assert rule.sniff("* main\n  dev\n") == 0.0
