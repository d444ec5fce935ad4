"""The git blame rule: one header per commit run, every id, author, day, line and code kept."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.compaction import apply, detect
from tersh.compaction.rules import git_blame as rule
from tests.compact import support

CASES = support.cases_for(rule)
LINES = support.rule_fragment_lines(rule, "git")


def test_commits_listed_once_then_runs_under_their_id() -> None:
    text = support.check_corpus_case(rule, CASES[0], 0.5, applied=True)
    legend = text.split("\n1885ed64\n", 1)[0]
    assert legend.startswith("1885ed64 Jesse 2021-05-17\n3b26fff7 Mahmoud Hashemi 2015-04-06\n")
    assert "\n1b1d3787 gtkacz 2025-09-28\n" in legend
    assert legend.count("\n") + 1 == len({line.split(" ", 1)[0] for line in legend.split("\n")})
    assert "\n1885ed64\n1) # Copyright (c) 2013, Mahmoud Hashemi\n2) #\n" in text
    assert "\n1b1d3787\n39) import collections\n" in text
    assert "+0200" not in text  # no row of this file reads as a diagnostic


def test_diagnostic_code_lines_are_kept_exactly() -> None:
    source = (
        "1885ed64 (Jesse  2021-05-17 03:05:17 +0200 1) try:\n"
        "1885ed64 (Jesse  2021-05-17 03:05:17 +0200 2)     pass\n"
        "1885ed64 (Jesse  2021-05-17 03:05:17 +0200 3) except Exception:\n"
        "1885ed64 (Jesse  2021-05-17 03:05:17 +0200 4)     raise\n"
    ) * 20
    inv = detect.invocation("git blame a.py", 0)
    outcome = apply(rule, source, inv)
    assert outcome.applied
    assert "1885ed64 (Jesse  2021-05-17 03:05:17 +0200 3) except Exception:" in outcome.text


def test_other_blame_formats_are_declined() -> None:
    inv = detect.invocation("git blame -s a.py", 0)
    assert rule.compact("1885ed64  1) import os\n", inv) is None
    assert rule.compact("", inv) is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=80))
def test_fragments_never_crash_or_lose_a_fact(lines: list[str]) -> None:
    support.check_command_fragments(rule, lines, "git blame boltons/strutils.py", 0)


def test_sniff_claims_only_blame_output() -> None:
    assert rule.sniff(support.clean(CASES[0].combined)) >= 0.9
    assert support.foreign_sniffs(rule, {"git__blame-file"}) == {}
