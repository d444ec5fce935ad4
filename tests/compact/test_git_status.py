"""The git status rule: short codes per section, hints gone, every path and state kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import apply, detect
from tersh.compaction.rules import git_status as rule
from tests.compact import support
from tests.compact.golden_table import GOLDEN

CASES = support.cases_for(rule)
FIXTURES = support.fixtures_for(rule, "git")
LINES = support.rule_fragment_lines(rule, "git")


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    assert support.check_fixture(rule, fixture, 0.0) == snapshot


def test_states_become_short_codes_under_sections_without_hints() -> None:
    case = next(c for c in CASES if c.name == "git__status-messy-worktree")
    text = support.check_corpus_case(rule, case, 0.25, applied=True)
    assert "staged:\n  R docs/virtualenv.md -> docs/virtual-environments.md\n" in text
    assert "\n  D docs/why.md\n" in text
    assert "not staged:\n  D docs/faqs.md\n  M src/click/__init__.py" in text
    assert "untracked:\n  notes/\n" in text
    assert "(use " not in text
    assert "Your branch is up to date with 'origin/main'." in text
    assert text.rstrip().endswith("[tersh] 4 hint lines omitted; they named add/rm")


def test_conflicts_keep_their_own_words_and_the_merge_state() -> None:
    text = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "status-conflict"))
    assert "You have unmerged paths." in text
    assert "unmerged:\n  both added: src/errors.py" in text
    assert "Your branch is ahead of 'origin/main' by 1 commit." in text
    assert "  new file.txt" in text
    assert "no changes added to commit\n" in text


def test_short_and_empty_outputs_pass_unchanged() -> None:
    inv = detect.invocation("git status -s", 0)
    assert rule.compact(" M src/a.py\n?? notes/\n", inv) is None
    assert rule.compact("", inv) is None


def test_a_rule_that_drops_an_entry_is_refused() -> None:
    case = next(c for c in CASES if c.name == "git__status-messy-worktree")
    text = support.clean(case.combined)
    inv = detect.invocation(case.cmd, case.exit_code)
    lossy = rule.compact(text, inv)
    assert lossy is not None

    class Lossy:
        NAME, CATEGORY = "lossy", "git"

        @staticmethod
        def compact(text: str, inv: object) -> str:
            return lossy.replace("  M src/click/core.py\n", "")

    outcome = apply(Lossy, text, inv)  # type: ignore[arg-type]
    assert not outcome.applied and "src/click/core.py" in (outcome.refused or "")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=60))
def test_fragments_never_crash_or_lose_a_fact(lines: list[str]) -> None:
    support.check_command_fragments(rule, lines, "git status", 0)


def test_sniff_claims_only_status_output() -> None:
    assert rule.sniff(support.clean(CASES[0].combined)) >= 0.9
    assert support.foreign_sniffs(rule, set(GOLDEN["git_status"])) == {}
