"""The pylint rule on real and recorded pylint output."""

from __future__ import annotations

from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import pylint as rule
from tests.compact import support


def test_banners_go_findings_and_score_stay(snapshot: SnapshotAssertion) -> None:
    text = support.text_fixture("pylint", "pylint-score")
    body = "".join(
        f"src/app/gen{i % 5}.py:{i + 1}:0: C0116: Missing function or method docstring"
        " (missing-function-docstring)\n"
        for i in range(45)
    )
    banner = "************* Module app.cli\n"
    outcome = support.run(rule, text.replace(banner, banner + body), "pylint src", 16)
    assert outcome.applied, outcome.refused
    assert "*************" not in outcome.text and "-----" not in outcome.text
    assert "Your code has been rated at 7.12/10 (previous run: 7.40/10, -0.28)" in outcome.text
    assert "src/app/gen0.py (9)" in outcome.text
    assert outcome.text == snapshot


def test_parseable_format_findings_are_grouped(snapshot: SnapshotAssertion) -> None:
    """pylint --output-format=parseable on idna (50 messages)."""
    cmd = "pylint -f parseable idna"
    outcome = support.check_text_fixture(rule, "pylint", "pylint-parseable-idna", cmd, 30)
    assert outcome.applied, outcome.refused
    assert "idna/core.py (20)" in outcome.text
    assert "[E0606(possibly-used-before-assignment), main] Possibly using variable 'domains'" in outcome.text
    assert "Your code has been rated at 9.19/10" in outcome.text
    assert outcome.text == snapshot


def test_default_format_on_a_real_package(snapshot: SnapshotAssertion) -> None:
    """pylint on h11 (default text format, 100+ messages, score)."""
    outcome = support.check_text_fixture(rule, "pylint", "pylint-default-h11", "pylint h11", 28)
    assert outcome.applied, outcome.refused
    assert "*************" not in outcome.text
    assert support.token_saving(support.text_fixture("pylint", "pylint-default-h11"), outcome.text) >= 0.35
    assert outcome.text == snapshot


def test_empty_and_foreign_input() -> None:
    inv = detect.invocation("pylint src", 0)
    assert rule.compact("", inv) is None
    assert rule.compact("a/b.py:1:0: something\n", inv) is None


def test_registry_and_sniffer() -> None:
    assert rule_for_program(detect.invocation("python -m pylint -E src", 2)) is rule
    assert rule.sniff(support.case("lint__pylint-click-errors-only").combined) >= 0.9
    assert rule.sniff("x\n") == 0.0
