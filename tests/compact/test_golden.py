"""The golden test: every corpus case of the golden table through its rule and the gate.

Each case keeps its must_keep facts, is applied or left as the table says, saves at least its
floor, and gives the text of its snapshot. What a rule keeps and drops in particular is
asserted in that rule's own test file.
"""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tests import corpus
from tests.compact import support
from tests.compact.golden_table import FLOORS_IN_TOKENS, GOLDEN, SNAPSHOT_CHARS

ROWS = [(rule, name) for rule, cases in GOLDEN.items() for name in cases]


@pytest.mark.skipif(not corpus.cases(), reason="the shared corpus is not there")
@pytest.mark.parametrize(("rule", "name"), ROWS, ids=[f"{rule}:{name}" for rule, name in ROWS])
def test_golden(rule: str, name: str, snapshot: SnapshotAssertion) -> None:
    applied, floor = GOLDEN[rule][name]
    module = support.rule_module(rule)
    text = support.check_corpus_case(module, support.case(name), floor, applied, rule in FLOORS_IN_TOKENS)
    assert text[: SNAPSHOT_CHARS.get(rule)] == snapshot


@pytest.mark.skipif(not corpus.cases(), reason="the shared corpus is not there")
def test_every_case_the_registry_sends_to_a_table_rule_is_in_its_table() -> None:
    missing = []
    for case in corpus.cases():
        owner = rule_for_program(detect.invocation(case.cmd, case.exit_code))
        name = getattr(owner, "__name__", "").rsplit(".", 1)[-1]
        if name in GOLDEN and case.name not in GOLDEN[name]:
            missing.append(f"{name}: {case.name}")
    assert missing == []


@pytest.mark.skipif(not corpus.cases(), reason="the shared corpus is not there")
@pytest.mark.parametrize(("rule", "name"), ROWS, ids=[f"{rule}:{name}" for rule, name in ROWS])
def test_the_registry_sends_each_table_case_to_its_rule(rule: str, name: str) -> None:
    case = support.case(name)
    assert rule_for_program(detect.invocation(case.cmd, case.exit_code)) is support.rule_module(rule)
