"""The eslint rule on real eslint output (stylish) and the unix format."""

from __future__ import annotations

from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import eslint as rule
from tests.compact import support


def test_repeated_messages_share_an_entry_with_every_location() -> None:
    case = support.case("lint__eslint-express-no-var-rule")
    text = support.run(rule, case.combined, case.cmd, case.exit_code).text
    assert "/home/dev/work/express/examples/auth/index.js (9)\n" in text
    message = " error Unexpected var, use let or const instead  no-var"
    assert "  7:1 8:1 9:1 10:1 12:1 31:3 32:3 43:1 62:3" + message in text
    assert "✖ 1750 problems (1750 errors, 0 warnings)" in text
    entries = [line for line in text.splitlines() if line.endswith(message)]
    locations = sum(len(line.split(" error ")[0].split()) for line in entries)
    assert locations == 1750


def test_unix_format_is_grouped(snapshot: SnapshotAssertion) -> None:
    outcome = support.check_text_fixture(rule, "eslint", "eslint-unix-many", "npx eslint -f unix .", 1)
    assert outcome.applied, outcome.refused
    assert "/home/dev/work/app/src/a.js (18)" in outcome.text
    assert outcome.text == snapshot


def test_few_findings_stay_as_printed() -> None:
    outcome = support.check_text_fixture(rule, "eslint", "eslint-few-stylish", "npx eslint .", 1)
    assert not outcome.applied


def test_empty_input_and_registry() -> None:
    assert rule.compact("", detect.invocation("eslint .", 0)) is None
    assert rule_for_program(detect.invocation("npx eslint . --fix", 1)) is rule
    assert rule.sniff(support.case("lint__eslint-express-no-var-rule").combined) >= 0.9
    assert rule.sniff("x\n") == 0.0
