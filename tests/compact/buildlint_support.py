"""Shared checks for the build, type-check and lint rule tests (corpus cases and fixtures)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tersh import tokens
from tersh.compaction import apply, detect
from tersh.compaction.clean import clean
from tersh.compaction.kit.base import Outcome, Rule
from tersh.compaction.verify import holds as verify
from tests import corpus

FIXTURES = Path(__file__).parent / "fixtures"

#: What the pipeline appends to a compacted text (capture ids and retrieve commands).
REPORT_TOKENS = 40


def case(name: str) -> corpus.Case:
    """The corpus case called ``name``."""
    return next(c for c in corpus.cases() if c.name == name)


def names(prefix: str) -> list[str]:
    """The names of the corpus cases starting with ``prefix``."""
    return [c.name for c in corpus.cases() if c.name.startswith(prefix)]


def run(rule: ModuleType | Rule, text: str, cmd: str, exit_code: int) -> Outcome:
    """The gate's outcome for ``rule`` on ``text`` (cleaned as the pipeline does)."""
    return apply(rule, clean(text), detect.invocation(cmd, exit_code))  # type: ignore[arg-type]


def token_saving(raw: str, text: str) -> float:
    """Share of o200k tokens saved, the capture report counted when the text changed."""
    before = tokens.count(raw)
    after = tokens.count(text) + (REPORT_TOKENS if text != clean(raw) else 0)
    return 1 - after / before if before else 0.0


def check_case(rule: ModuleType, name: str, floor: float, applied: bool) -> str:
    """Run a corpus case: no must_keep fact lost, applied as expected, saving ≥ ``floor``."""
    item = case(name)
    outcome = run(rule, item.combined, item.cmd, item.exit_code)
    assert corpus.lost_facts(item, outcome.text) == []
    assert outcome.applied is applied, outcome.refused
    saving = token_saving(item.combined, outcome.text)
    assert saving >= floor, f"{name}: saved {saving:.0%}, floor {floor:.0%}"
    assert saving >= 0.0 or not outcome.applied
    return outcome.text


def fixture(tool: str, name: str) -> str:
    """The text of ``fixtures/<tool>/<name>.txt``."""
    return (FIXTURES / tool / f"{name}.txt").read_text(encoding="utf-8")


def check_fixture(rule: ModuleType, tool: str, name: str, cmd: str, exit_code: int) -> Outcome:
    """Run a fixture through the gate; whatever happens, no protected fact may be missing."""
    text = fixture(tool, name)
    outcome = run(rule, text, cmd, exit_code)
    assert verify.missing_facts(clean(text), outcome.text) == []
    return outcome
