"""Shared checks for the build, type-check and lint rule tests (corpus cases and fixtures)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tersh.compaction import apply, detect
from tersh.compaction.clean import clean
from tersh.compaction.kit.base import Outcome, Rule
from tersh.compaction.verify import holds as verify
from tests import corpus
from tests.compact import support

FIXTURES = Path(__file__).parent / "fixtures"

case = support.case


def names(prefix: str) -> list[str]:
    """The names of the corpus cases starting with ``prefix``."""
    return [c.name for c in corpus.cases() if c.name.startswith(prefix)]


def run(rule: ModuleType | Rule, text: str, cmd: str, exit_code: int) -> Outcome:
    """The gate's outcome for ``rule`` on ``text`` (cleaned as the pipeline does)."""
    return apply(rule, clean(text), detect.invocation(cmd, exit_code))  # type: ignore[arg-type]


token_saving = support.token_saving


def check_case(rule: ModuleType, name: str, floor: float, applied: bool) -> str:
    """Run a corpus case through the gate (see support.check_corpus_case), floor in tokens."""
    return support.check_corpus_case(rule, case(name), floor, applied, in_tokens=True)


def fixture(tool: str, name: str) -> str:
    """The text of ``fixtures/<tool>/<name>.txt``."""
    return (FIXTURES / tool / f"{name}.txt").read_text(encoding="utf-8")


def check_fixture(rule: ModuleType, tool: str, name: str, cmd: str, exit_code: int) -> Outcome:
    """Run a fixture through the gate; whatever happens, no protected fact may be missing."""
    text = fixture(tool, name)
    outcome = run(rule, text, cmd, exit_code)
    assert verify.missing_facts(clean(text), outcome.text) == []
    return outcome
