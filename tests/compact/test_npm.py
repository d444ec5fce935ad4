"""The npm/pnpm/bun rule: spinners, funding and progress go; outcome and every warning stay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import apply, detect, rule_for_program
from tersh.compaction.rules import npm as rule
from tests.compact import support
from tests.compact.golden_table import GOLDEN

CASES = support.cases_for(rule)
FIXTURES = support.fixtures_for(rule, "npm")
LINES = support.rule_fragment_lines(rule, "npm")


def test_npm_test_and_run_are_left_to_the_test_rules() -> None:
    for command in ("npm test", "npm run build", "pnpm test", "bun test"):
        assert rule_for_program(detect.invocation(command, 1)) is not rule


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    assert support.check_fixture(rule, fixture, 0.0) == snapshot


def test_spinner_frames_go_and_the_outcome_stays() -> None:
    case = next(c for c in CASES if c.name == "pkg__npm-install-ansi")
    assert support.clean(case.combined).strip() == "added 406 packages in 18s"  # ESC[1G redraws
    spun = "\n".join(["⠋", "⠙", "⠹", "added 3 packages in 1s", "⠸"] * 20)
    text = rule.compact(spun, detect.invocation("npm install", 0)) or ""
    assert "⠋" not in text and "added 3 packages in 1s" in text and "spinner lines omitted" in text


def test_repeated_warnings_are_written_once_with_a_count() -> None:
    case = next(c for c in CASES if c.name == "pkg__npm-install-legacy-deps")
    text = support.check_corpus_case(rule, case, 0.1, applied=True)
    assert text.count("npm warn deprecated core-js@2.6.12:") == 1
    assert "(×3)" in text
    assert "added 1788 packages in 1m" in text


def test_tree_glyphs_become_indentation_but_diagnostic_words_keep_theirs() -> None:
    fixture = next(f for f in FIXTURES if f.name == "ls-all")
    tree = rule.compact(support.clean(fixture.text) * 3, detect.invocation(fixture.cmd, 0)) or ""
    assert tree.startswith("np@1.0.0 /home/dev/work/np\n  express@4.22.3\n    accepts@1.3.8\n")
    assert "│ │ ├── http-errors@2.0.1 deduped" in tree  # "errors" keeps the line verbatim
    assert rule.untree("│ │ └── negotiator@0.6.3") == "      negotiator@0.6.3"


def test_errors_pass_unchanged() -> None:
    fixture = next(f for f in FIXTURES if f.name == "install-e404")
    assert support.outcome_text(rule, fixture) == support.clean(fixture.text)
    assert rule.compact("", detect.invocation("npm install", 0)) is None


def test_a_rule_that_drops_a_deprecation_is_refused() -> None:
    case = next(c for c in CASES if c.name == "pkg__npm-install-legacy-deps")
    text = support.clean(case.combined)
    inv = detect.invocation(case.cmd, case.exit_code)
    proposal = rule.compact(text, inv)
    assert proposal is not None

    class Lossy:
        NAME, CATEGORY = "lossy", "packages"

        @staticmethod
        def compact(text: str, inv: object) -> str:
            return "\n".join(line for line in proposal.split("\n") if "left-pad" not in line)

    outcome = apply(Lossy, text, inv)  # type: ignore[arg-type]
    assert not outcome.applied and "left-pad" in (outcome.refused or "")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=60), st.sampled_from([0, 1]))
def test_fragments_never_crash_or_lose_a_fact(lines: list[str], exit_code: int) -> None:
    support.check_command_fragments(rule, lines, "npm install", exit_code)
    support.check_command_fragments(rule, lines, "npm ls --all", exit_code)


def test_sniff_claims_only_install_output() -> None:
    legacy = next(c for c in CASES if c.name == "pkg__npm-install-legacy-deps")
    assert rule.sniff(support.clean(legacy.combined)) >= 0.9
    assert support.foreign_sniffs(rule, set(GOLDEN["npm"])) == {}


def test_a_short_install_that_is_mostly_spinner_is_still_compacted() -> None:
    frames = "⠙⠹⠸⠼⠴⠦⠧⠇⠏⠋" * 6
    text = f"{frames}\nadded 133 packages in 7s\n⠸"
    proposal = rule.compact(text, detect.invocation("npm install express@4 webpack@5", 0))
    assert proposal == "added 133 packages in 7s\n[tersh] 2 spinner lines omitted\n"


@pytest.mark.parametrize("level", ["http", "verbose"])
def test_raised_loglevel_lines_go_and_the_outcome_stays(level: str) -> None:
    fixture = next(f for f in FIXTURES if f.name == f"install-loglevel-{level}")
    _, _, outcome = support.gate(rule, fixture.text, fixture.cmd, fixture.exit_code)
    assert outcome.applied, outcome.refused
    assert "added 3 packages in 7s" in outcome.text and "npm http fetch" not in outcome.text
    assert "npm log lines omitted" in outcome.text
