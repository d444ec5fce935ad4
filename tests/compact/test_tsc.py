"""The tsc rule on real and recorded TypeScript compiler output."""

from __future__ import annotations

from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import tsc as rule
from tests.compact import support


def test_pretty_output_loses_its_frames(snapshot: SnapshotAssertion) -> None:
    outcome = support.check_text_fixture(rule, "tsc", "tsc-pretty-errors", "npx tsc --pretty", 2)
    assert outcome.applied, outcome.refused
    text = outcome.text
    assert "src/api/client.ts:42:7 - error TS2322: Type 'string' is not assignable" in text
    assert "The expected type comes from property 'timeout'" in text
    assert "  src/api/types.ts:8:3" in text
    assert "~~~" not in text and 'timeout: options.timeout ?? "30",' not in text
    assert "Found 7 errors in 2 files." in text and "     6  src/api/client.ts:42" in text
    assert text == snapshot


def test_many_plain_errors_are_grouped() -> None:
    lines = [
        f"src/m{i % 3}.ts({i + 1},5): error TS2345: Argument of type 'string' is not assignable."
        for i in range(60)
    ]
    text = "\n".join(lines) + "\n"
    outcome = support.run(rule, text, "tsc --noEmit", 2)
    assert outcome.applied, outcome.refused
    assert "src/m0.ts (20)" in outcome.text


def test_empty_input() -> None:
    assert rule.compact("", detect.invocation("tsc", 0)) is None


def test_registry_and_sniffer() -> None:
    assert rule_for_program(detect.invocation("npx vue-tsc --noEmit", 2)) is rule
    assert rule.sniff(support.case("build__tsc-ufo-injected-errors").combined) >= 0.9
    assert rule.sniff("fine\n") == 0.0
