"""The apt rule: dpkg progress and downloads go; package lists, summary and errors stay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect
from tersh.compaction.rules import apt as rule
from tests.compact import support
from tests.compact.golden_table import GOLDEN

CASES = support.cases_for(rule)
FIXTURES = support.fixtures_for(rule, "apt")
LINES = support.rule_fragment_lines(rule, "apt")


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    floor = 0.4 if fixture.name == "install-two" else 0.0
    assert support.check_fixture(rule, fixture, floor) == snapshot


def test_install_keeps_what_was_set_up() -> None:
    case = next(c for c in CASES if c.name == "pkg__apt-get-install")
    text = support.check_corpus_case(rule, case, 0.5, applied=True)
    assert "The following NEW packages will be installed:\n  figlet tree\n" in text
    assert "Setting up figlet (2.2.5-3+b1)\n" in text
    assert "Need to get" not in text and "Fetched" not in text
    assert "Unpacking" not in text and "Get:1" not in text
    assert "they named bookworm/main, .../figlet_2.2.5-3+b1_amd64.deb" in text


def test_update_loses_only_counters_and_sizes() -> None:
    inv = detect.invocation("apt-get update", 0)
    text = "".join(
        f"Hit:{n} http://deb.example.invalid/debian bookworm-{n} InRelease [{n}51 kB]\n"
        for n in range(1, 61)
    ) + "Reading package lists...\n"
    out = rule.compact(text, inv)
    assert out is not None
    assert "Hit http://deb.example.invalid/debian bookworm-3 InRelease\n" in out
    assert out.endswith("Reading package lists...\n[tersh] download counters and sizes omitted\n")


def test_errors_pass_unchanged() -> None:
    case = next(c for c in CASES if c.name == "pkg__apt-get-install-unknown")
    assert "E: Unable to locate package python3-doesnotexist" in support.check_corpus_case(
        rule, case, 0.0, applied=False
    )
    assert rule.compact("", detect.invocation("apt-get install x", 0)) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=60), st.sampled_from([0, 100]))
def test_fragments_never_crash_or_lose_a_fact(lines: list[str], exit_code: int) -> None:
    support.check_command_fragments(rule, lines, "apt-get install -y tree", exit_code)


def test_sniff() -> None:
    case = next(c for c in CASES if c.name == "pkg__apt-get-install")
    assert rule.sniff(support.clean(case.combined)) >= 0.9
    assert support.foreign_sniffs(rule, set(GOLDEN["apt"])) == {}


def test_simulation_keeps_each_inst_line_without_its_archive_and_drops_conf() -> None:
    fixture = next(f for f in FIXTURES if f.name == "upgrade-simulate")
    text = support.check_fixture(rule, fixture, 0.4)
    assert "\nInst bash [5.2.15-2+b8] (5.2.15-2+b13)\n" in text
    assert "\nInst liblzma-dev [5.4.1-1] (5.4.1-1+deb12u2) []\n" in text  # what it breaks stays
    assert "Conf " not in text and "oldstable" not in text
    assert text.count("\nInst ") == support.clean(fixture.text).count("\nInst ")
    assert "124 upgraded, 0 newly installed, 0 to remove and 0 not upgraded." in text


def test_unchosen_lists_go_and_a_commit_shaped_version_keeps_its_line() -> None:
    fixture = next(f for f in FIXTURES if f.name == "download-only")
    text = support.check_fixture(rule, fixture, 0.3)
    assert "Suggested packages:" not in text and "inkscape" not in text
    assert "libjxr-tools amd64 1.2~git20170615.f752187-5 [17.3 kB]" in text
    assert "Need to get 7009 kB/27.3 MB of archives." in text  # "kB/27.3" reads as a path
    assert "Download complete and in download only mode" in text
