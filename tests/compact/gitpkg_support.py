"""Shared checks for the git and package-manager rule tests (corpus, fixtures, fragments, sniff)."""

from __future__ import annotations

from types import ModuleType

from tersh.compaction import apply, detect, rule_for_program
from tersh.compaction.clean import clean
from tersh.compaction.kit.base import Rule
from tersh.compaction.verify import holds as verify
from tests import corpus
from tests.compact import runner_support as support

__all__ = [
    "cases_for",
    "check_case",
    "check_fixture",
    "check_fragments",
    "fixtures_for",
    "foreign_sniffs",
    "fragment_lines",
    "outcome_text",
]


def cases_for(rule: ModuleType) -> list[corpus.Case]:
    """The git__/pkg__ corpus cases whose command the registry sends to ``rule``."""
    found = []
    for case in corpus.cases():
        if case.family in {"git", "pkg"}:
            owner = rule_for_program(detect.invocation(case.cmd, case.exit_code))
            if owner is rule:
                found.append(case)
    return found


def check_case(rule: Rule, case: corpus.Case, floor: float, applied: bool) -> str:
    """Gate one corpus case (see support.check_corpus_case), floor in bytes."""
    return support.check_corpus_case(rule, case, floor, applied)


def check_fixture(rule: Rule, fixture: support.Fixture, floor: float) -> str:
    """Gate one recorded fixture (see runner_support.check_fixture); returns the model text."""
    return support.check_fixture(rule, fixture, floor)


def check_fragments(rule: Rule, lines: list[str], cmd: str, exit_code: int) -> None:
    """An output assembled from real lines never crashes ``rule`` and is never proposed lossy."""
    text = "\n".join(lines)
    inv = detect.invocation(cmd, exit_code)
    proposal = rule.compact(text, inv)
    if proposal is not None:
        assert verify.missing_facts(text, proposal, inv) == []
        assert apply(rule, text, inv).text in {text, proposal}
    assert 0.0 <= rule.sniff(text) <= 1.0


def foreign_sniffs(rule: Rule, own: set[str]) -> dict[str, float]:
    """Corpus cases outside ``own`` on which ``rule`` sniffs 0.6 or more (should be none)."""
    scores = {}
    for case in corpus.cases():
        if case.name not in own:
            score = rule.sniff(clean(case.combined)[:20000])
            if score >= 0.6:
                scores[case.name] = score
    return scores


def fixtures_for(rule: ModuleType, folder: str) -> list[support.Fixture]:
    """The fixtures recorded under ``fixtures/<folder>`` whose command maps to ``rule``."""
    return [
        fixture
        for fixture in support.fixtures(folder)
        if rule_for_program(detect.invocation(fixture.cmd, fixture.exit_code)) is rule
    ]


def outcome_text(rule: Rule, fixture: support.Fixture) -> str:
    """The model text the gate yields for ``fixture``."""
    return support.run(rule, fixture.text, fixture.cmd, fixture.exit_code)[2].text


def fragment_lines(rule: ModuleType, folder: str) -> list[str]:
    """Real lines of the rule's corpus cases and fixtures, to assemble new outputs from."""
    lines: list[str] = []
    for case in cases_for(rule):
        lines.extend(clean(case.combined).split("\n")[:300])
    for fixture in support.fixtures(folder):
        lines.extend(clean(fixture.text).split("\n")[:300])
    return lines
