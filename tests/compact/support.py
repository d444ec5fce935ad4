"""Shared checks for the rule tests: one corpus case through the gate, the savings it made."""

from __future__ import annotations

import importlib
from types import ModuleType

from tersh import tokens
from tersh.compaction import apply, detect
from tersh.compaction.clean import clean
from tersh.compaction.kit.base import Invocation, Outcome, Rule
from tersh.compaction.verify import holds as verify
from tests import corpus

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
