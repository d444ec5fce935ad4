"""The flake8 rule on real flake8 output."""

from __future__ import annotations

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import flake8 as rule
from tests.compact import support


def test_every_finding_is_kept_under_its_file() -> None:
    case = support.case("lint__flake8-boltons")
    text = support.run(rule, case.combined, case.cmd, case.exit_code).text
    assert "boltons/dictutils.py (16)\n" in text
    assert "  64:80 723:80 905:80 E501 line too long (81 > 79 characters)" in text
    assert "  1554:5 F811 redefinition of unused 'OrderedMultiDict' from line 992" in text
    entries = sum(len(line.split(" E")[0].split()) for line in text.splitlines() if line.startswith("  "))
    assert entries >= 249  # every location, counted


def test_few_findings_stay_as_printed() -> None:
    outcome = support.check_text_fixture(rule, "flake8", "flake8-few", "flake8 src", 1)
    assert not outcome.applied
    assert outcome.text == support.text_fixture("flake8", "flake8-few")


def test_a_crash_is_kept() -> None:
    findings = "".join(f"a/m{i % 4}.py:{i + 1}:1: E302 expected 2 blank lines, found 1\n" for i in range(50))
    crash = 'Traceback (most recent call last):\n  File "/x/flake8/main.py", line 3, in run\nOSError: boom\n'
    outcome = support.run(rule, findings + crash, "flake8", 1)
    assert outcome.applied, outcome.refused
    assert crash.strip() in outcome.text


def test_empty_input_and_registry() -> None:
    assert rule.compact("", detect.invocation("flake8", 0)) is None
    assert rule_for_program(detect.invocation("python -m flake8 src", 1)) is rule
    assert rule.sniff(support.case("lint__flake8-boltons").combined) >= 0.9
    assert rule.sniff("x\n") == 0.0
