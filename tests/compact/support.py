"""The one support module of the rule tests: corpus cases and recorded fixtures through the gate.

Corpus cases come from the shared corpus (tests/corpus.py); every case a rule owns is checked by
test_golden.py with ``check_corpus_case``. Recorded fixtures live in fixtures/<tool>/, either as
``<name>.{cmd,exit,out}`` (``fixtures``, ``check_fixture``) or as a bare ``<name>.txt``
(``text_fixture``, ``check_text_fixture``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh import tokens
from tersh.compaction import apply, detect, rule_for_program
from tersh.compaction.clean import clean
from tersh.compaction.kit.base import Invocation, Outcome, Rule
from tersh.compaction.verify import holds as verify
from tests import corpus

__all__ = ["clean"]  # the tests clean texts as the pipeline does

FIXTURES = Path(__file__).resolve().parent / "fixtures"

#: What the pipeline appends to a compacted text (capture ids and retrieve commands).
REPORT_TOKENS = 40


def rule_module(name: str) -> ModuleType:
    """The rule module ``tersh.compaction.rules.<name>``."""
    return importlib.import_module(f"tersh.compaction.rules.{name}")


def case(name: str) -> corpus.Case:
    """The corpus case called ``name`` (StopIteration when the corpus lacks it)."""
    return next(c for c in corpus.cases() if c.name == name)


def gate(rule: ModuleType | Rule, raw: str, cmd: str, exit_code: int) -> tuple[str, Invocation, Outcome]:
    """Clean ``raw`` as the pipeline does and pass it through the gate with ``rule``."""
    text = clean(raw)
    inv = detect.invocation(cmd, exit_code)
    return text, inv, apply(rule, text, inv)  # type: ignore[arg-type]


def byte_saving(before: str, after: str) -> float:
    """The share of UTF-8 bytes removed."""
    size = len(before.encode())
    return 1 - len(after.encode()) / size if size else 0.0


def token_saving(raw: str, text: str) -> float:
    """Share of o200k tokens saved, the capture report counted when the text changed."""
    before = tokens.count(raw)
    after = tokens.count(text) + (REPORT_TOKENS if text != clean(raw) else 0)
    return 1 - after / before if before else 0.0


def lost_by_proposal(rule: ModuleType | Rule, text: str, inv: Invocation) -> list[verify.Fact]:
    """Facts the rule's own proposal lost (the gate would refuse it); [] when it declined."""
    proposal = rule.compact(text, inv)
    if proposal is None:
        return []
    assert isinstance(proposal, str)
    return verify.missing_facts(text, proposal, inv)


def check_corpus_case(
    rule: ModuleType | Rule, item: corpus.Case, floor: float, applied: bool, in_tokens: bool = False
) -> str:
    """Gate one corpus case and return the model's text, asserting: applied as expected, no
    must_keep fact lost, the rule's own proposal lossless, a ``[tersh]`` note on an applied text
    and the cleaned output unchanged otherwise, and the saving (tokens with ``in_tokens``, else
    bytes) at least ``floor``."""
    text, inv, outcome = gate(rule, item.combined, item.cmd, item.exit_code)
    assert outcome.applied is applied, outcome.refused
    assert corpus.lost_facts(item, outcome.text) == []
    assert lost_by_proposal(rule, text, inv) == []
    if applied:
        assert "\n[tersh] " in "\n" + outcome.text  # every proposal says what it left out
    else:
        assert outcome.text == text
    saving = (
        token_saving(item.combined, outcome.text) if in_tokens else byte_saving(item.combined, outcome.text)
    )
    assert saving >= floor, f"{item.name}: saved {saving:.0%}, floor {floor:.0%}"
    return outcome.text


def run(rule: ModuleType | Rule, text: str, cmd: str, exit_code: int) -> Outcome:
    """The gate's outcome for ``rule`` on ``text`` (cleaned as the pipeline does)."""
    return gate(rule, text, cmd, exit_code)[2]


def text_fixture(tool: str, name: str) -> str:
    """The text of ``fixtures/<tool>/<name>.txt``."""
    return (FIXTURES / tool / f"{name}.txt").read_text(encoding="utf-8")


def check_text_fixture(rule: ModuleType, tool: str, name: str, cmd: str, exit_code: int) -> Outcome:
    """Run a ``.txt`` fixture through the gate; whatever happens, no protected fact may be missing."""
    text = text_fixture(tool, name)
    outcome = run(rule, text, cmd, exit_code)
    assert verify.missing_facts(clean(text), outcome.text) == []
    return outcome


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


def fixtures_for(rule: ModuleType, folder: str) -> list[Fixture]:
    """The fixtures recorded under ``fixtures/<folder>`` whose command maps to ``rule``."""
    return [
        fixture
        for fixture in fixtures(folder)
        if rule_for_program(detect.invocation(fixture.cmd, fixture.exit_code)) is rule
    ]


def fixture_outcome(rule: Rule, tool: str, name: str) -> str:
    """The gate's text for the recorded fixture ``name`` of ``tool``."""
    fixture = next(f for f in fixtures(tool) if f.name == name)
    return outcome_text(rule, fixture)


def outcome_text(rule: Rule, fixture: Fixture) -> str:
    """The model text the gate yields for ``fixture``."""
    return run(rule, fixture.text, fixture.cmd, fixture.exit_code).text


def check_fixture(rule: Rule, fixture: Fixture, floor: float) -> str:
    """Gate one fixture; assert the rule's own proposal is lossless and the floor (bytes) is met."""
    text, inv, outcome = gate(rule, fixture.text, fixture.cmd, fixture.exit_code)
    assert lost_by_proposal(rule, text, inv) == []
    assert byte_saving(fixture.text, outcome.text) >= floor
    if outcome.applied:
        assert "[tersh] " in outcome.text  # every proposal says what it left out
    return outcome.text


def corpus_cases(prefix: str) -> list[corpus.Case]:
    """Corpus cases whose name starts with ``prefix`` (e.g. ``test__pytest``)."""
    return [case for case in corpus.cases() if case.name.startswith(prefix)]


def cases_for(rule: ModuleType) -> list[corpus.Case]:
    """The git__/pkg__ corpus cases whose command the registry sends to ``rule``."""
    found = []
    for case in corpus.cases():
        if case.family in {"git", "pkg"}:
            owner = rule_for_program(detect.invocation(case.cmd, case.exit_code))
            if owner is rule:
                found.append(case)
    return found


def fragment_lines(prefix: str, tool: str) -> list[str]:
    """Real lines of one tool's outputs (corpus cases of ``prefix`` and fixtures of ``tool``)."""
    return _head_lines(corpus_cases(prefix), fixtures(tool), 400)


def rule_fragment_lines(rule: ModuleType, folder: str) -> list[str]:
    """Real lines of the rule's git/pkg corpus cases and of the fixtures under ``folder``."""
    return _head_lines(cases_for(rule), fixtures(folder), 300)


def _head_lines(cases: list[corpus.Case], recorded: list[Fixture], count: int) -> list[str]:
    """The first ``count`` lines of each case and fixture, cleaned, to assemble new outputs from."""
    texts = [case.combined for case in cases] + [fixture.text for fixture in recorded]
    return [line for text in texts for line in clean(text).split("\n")[:count]]


def check_fragments(rule: Rule, lines: list[str], exit_code: int) -> None:
    """An output assembled from real lines never crashes the rule and is never proposed lossy
    (run as the rule's first program with ``--test``)."""
    check_command_fragments(rule, lines, f"{rule.PROGRAMS[0]} --test", exit_code)


def check_command_fragments(rule: Rule, lines: list[str], cmd: str, exit_code: int) -> None:
    """An output assembled from real lines never crashes ``rule`` under ``cmd`` and is never
    proposed lossy; the gate gives the text or the proposal."""
    text = "\n".join(lines)
    inv = detect.invocation(cmd, exit_code)
    proposal = rule.compact(text, inv)
    if proposal is not None:
        assert verify.missing_facts(text, proposal, inv) == []
        assert apply(rule, text, inv).text in {text, proposal}
    assert 0.0 <= rule.sniff(text) <= 1.0


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


def fragment_test(
    rule: Rule, prefix: str, tool: str, fallback: str, exit_codes: tuple[int, ...] = (0, 1)
) -> Callable[..., None]:
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


def other_family_scores(rule: Rule) -> dict[str, float]:
    """The rule's sniff score on every corpus case that is not a test run, where it is >= 0.6."""
    return foreign_sniffs(rule, {case.name for case in corpus.cases() if case.family == "test"})


def foreign_sniffs(rule: Rule, own: set[str]) -> dict[str, float]:
    """Corpus cases outside ``own`` on which ``rule`` sniffs 0.6 or more (should be none)."""
    scores = {}
    for case in corpus.cases():
        if case.name not in own:
            score = rule.sniff(clean(case.combined)[:20000])
            if score >= 0.6:
                scores[case.name] = score
    return scores
