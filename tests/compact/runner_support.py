"""Shared helpers for the test-runner rule tests: fixtures, the gate, savings, fragment checks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect
from tersh.compaction.clean import clean
from tersh.compaction.kit.base import Rule

__all__ = ["clean"]
from tests import corpus
from tests.compact import support

FIXTURES = Path(__file__).resolve().parent / "fixtures"


class Fixture(NamedTuple):
    """A recorded output kept in tests/compact/fixtures/<tool>/<name>.{cmd,exit,out}."""

    name: str
    cmd: str
    exit_code: int
    text: str


def fixtures(tool: str) -> list[Fixture]:
    """Every fixture recorded for ``tool``, sorted by name."""
    found = []
    for out in sorted((FIXTURES / tool).glob("*.out")):
        found.append(
            Fixture(
                name=out.stem,
                cmd=out.with_suffix(".cmd").read_text().strip(),
                exit_code=int(out.with_suffix(".exit").read_text().strip()),
                text=out.read_bytes().decode("utf-8", "replace"),
            )
        )
    return found


def corpus_cases(prefix: str) -> list[corpus.Case]:
    """Corpus cases whose name starts with ``prefix`` (e.g. ``test__pytest``)."""
    return [case for case in corpus.cases() if case.name.startswith(prefix)]


run = support.gate
saving = support.byte_saving
proposal_is_lossless = support.lost_by_proposal


def fragment_lines(prefix: str, tool: str) -> list[str]:
    """Real lines of one tool's outputs (corpus and fixtures), to assemble new outputs from."""
    lines: list[str] = []
    for case in corpus_cases(prefix):
        lines.extend(clean(case.combined).split("\n")[:400])
    for fixture in fixtures(tool):
        lines.extend(clean(fixture.text).split("\n")[:400])
    return lines


check_corpus_case = support.check_corpus_case


def fixture_outcome(rule: Rule, tool: str, name: str) -> str:
    """The gate's text for the recorded fixture ``name`` of ``tool``."""
    fixture = next(f for f in fixtures(tool) if f.name == name)
    return run(rule, fixture.text, fixture.cmd, fixture.exit_code)[2].text


def check_fixture(rule: Rule, fixture: Fixture, floor: float) -> str:
    """Gate one fixture; assert the rule's own proposal is lossless and the floor is met."""
    text, inv, outcome = run(rule, fixture.text, fixture.cmd, fixture.exit_code)
    assert proposal_is_lossless(rule, text, inv) == []
    assert saving(fixture.text, outcome.text) >= floor
    if outcome.applied:
        assert "[tersh] " in outcome.text  # every proposal says what it left out
    return outcome.text


def standard_tests(
    rule: Rule, tool: str, command: str, fixture_floors: dict[str, float]
) -> tuple[Callable[..., None], Callable[[], None]]:
    """The two tests every test-runner rule has besides its golden corpus cases (test_golden.py):
    each recorded fixture of ``tool`` (lossless proposal, floor, snapshot), and an empty input
    declined for ``command``."""

    @pytest.mark.parametrize("fixture", fixtures(tool), ids=lambda f: f.name)
    def test_recorded_mode(fixture: Fixture, snapshot: SnapshotAssertion) -> None:
        assert check_fixture(rule, fixture, fixture_floors.get(fixture.name, 0.0)) == snapshot

    def test_empty_input_is_declined() -> None:
        assert rule.compact("", detect.invocation(command, 0)) is None

    return test_recorded_mode, test_empty_input_is_declined


def fragment_test(rule: Rule, prefix: str, tool: str, fallback: str,
                  exit_codes: tuple[int, ...] = (0, 1)) -> Callable[..., None]:
    """A property test: outputs assembled from real lines of ``tool`` (corpus cases of
    ``prefix`` and fixtures; ``fallback`` when there are none) never crash ``rule`` and are never
    proposed lossy (see :func:`check_fragments`)."""
    pool = fragment_lines(prefix, tool) or [fallback]

    @settings(max_examples=60, deadline=None)
    @given(data=st.data())
    def test_outputs_assembled_from_real_fragments(data: st.DataObject) -> None:
        lines = data.draw(st.lists(st.sampled_from(pool), max_size=120))
        check_fragments(rule, lines, data.draw(st.sampled_from(exit_codes)))

    return test_outputs_assembled_from_real_fragments


def check_fragments(rule: Rule, lines: list[str], exit_code: int) -> None:
    """An output assembled from real lines never crashes the rule and is never proposed lossy."""
    text = "\n".join(lines)
    inv = detect.invocation(f"{rule.PROGRAMS[0]} --test", exit_code)
    assert proposal_is_lossless(rule, text, inv) == []
    score = rule.sniff(text)
    assert 0.0 <= score <= 1.0


def other_family_scores(rule: Rule) -> dict[str, float]:
    """The rule's sniff score on every corpus case that is not a test run, where it is >= 0.6."""
    scores = {}
    for case in corpus.cases():
        if case.family != "test":
            score = rule.sniff(clean(case.combined)[:20000])
            if score >= 0.6:
                scores[case.name] = score
    return scores
