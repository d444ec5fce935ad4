"""The pip rule: downloads, bars and resolver chatter go; outcome, errors and conflicts stay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import apply, detect
from tersh.compaction.rules import pip as rule
from tests.compact import support
from tests.compact.golden_table import GOLDEN

FIXTURE_FLOORS = {"install-fresh": 0.4, "install-already-satisfied": 0.5}
CASES = support.cases_for(rule)
FIXTURES = support.fixtures_for(rule, "pip")
LINES = support.rule_fragment_lines(rule, "pip")


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    assert support.check_fixture(rule, fixture, FIXTURE_FLOORS.get(fixture.name, 0.0)) == snapshot


def test_install_keeps_the_outcome_and_says_what_went() -> None:
    case = next(c for c in CASES if c.name == "pkg__pip-install-fresh-venv")
    text = support.check_corpus_case(rule, case, 0.85, applied=True)
    assert text.startswith("Successfully installed anyio-4.16.0 certifi-2026.10.19.post1 ")
    assert text.rstrip().endswith(
        "[tersh] 28 download lines, 12 progress bars, 1 install step, 2 pip notices omitted"
    )


def test_conflicts_and_build_failures_keep_every_line_of_explanation() -> None:
    conflict = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "install-conflict"))
    for kept in (
        "The conflict is caused by:",
        "    The user requested urllib3==1.20",
        "    requests 2.31.0 depends on urllib3<3 and >=1.21.1",
        "ERROR: ResolutionImpossible: for help visit",
    ):
        assert kept in conflict
    build = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "install-build-failure"))
    assert "RuntimeError: boom: cannot build" in build
    assert "× Getting requirements to build wheel did not run successfully." in build


def test_a_build_traceback_keeps_every_frame_but_not_its_carets() -> None:
    fixture = next(f for f in FIXTURES if f.name == "build-traceback")
    source = support.clean(fixture.text)
    text = support.check_fixture(rule, fixture, 0.1)
    assert "^^^^" not in text and "[notice]" not in text
    assert [line for line in source.splitlines() if 'File "' in line] == [
        line for line in text.splitlines() if 'File "' in line
    ]
    assert "RuntimeError: native extension requires libfoo >= 2.0 (not found)" in text


def test_a_conflict_found_after_installing_is_kept_with_the_outcome() -> None:
    text = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "conflict-after-install"))
    assert "ERROR: pip's dependency resolver does not currently take into account" in text
    assert "flask 3.1.3 requires werkzeug>=3.1.0, but you have werkzeug 2.0.0 which is incompatible." in text
    assert text.rstrip().endswith("Successfully installed werkzeug-2.0.0")


def test_requested_packages_already_there_are_the_answer() -> None:
    fixture = next(f for f in FIXTURES if f.name == "install-already-satisfied")
    text = support.outcome_text(rule, fixture)
    assert "Requirement already satisfied: requests==2.31.0 in ./lib/python3.11/" in text
    assert "(from requests==2.31.0)" not in text


def test_listing_keeps_every_name_and_version() -> None:
    case = next(c for c in CASES if c.name == "pkg__pip-list-system")
    text = support.check_corpus_case(rule, case, 0.3, applied=True)
    assert "\njsonschema-specifications 2025.9.1\n" in text and "-----" not in text


def test_empty_and_unknown_output_is_declined() -> None:
    inv = detect.invocation("pip install x", 0)
    assert rule.compact("", inv) is None
    assert rule.compact("something else entirely\n", inv) is None


def test_a_rule_that_drops_an_error_is_refused() -> None:
    case = next(c for c in CASES if c.name == "pkg__pip-install-nonexistent-version")
    text = support.clean(case.combined)
    inv = detect.invocation(case.cmd, case.exit_code)

    class Lossy:
        NAME, CATEGORY = "lossy", "packages"

        @staticmethod
        def compact(text: str, inv: object) -> str:
            return "[tersh] pip output omitted\n"

    outcome = apply(Lossy, text, inv)  # type: ignore[arg-type]
    assert not outcome.applied and "diagnostic" in (outcome.refused or "")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=60), st.sampled_from([0, 1]))
def test_fragments_never_crash_or_lose_a_fact(lines: list[str], exit_code: int) -> None:
    support.check_command_fragments(rule, lines, "pip install requests", exit_code)


def test_sniff_claims_only_pip_installs() -> None:
    fresh = next(c for c in CASES if c.name == "pkg__pip-install-fresh-venv")
    assert rule.sniff(support.clean(fresh.combined)) >= 0.9
    assert support.foreign_sniffs(rule, set(GOLDEN["pip"])) == {}


def test_download_keeps_where_each_file_was_saved() -> None:
    """`pip download` answers with the files it wrote: those lines are the outcome, not chatter."""
    fixture = next(f for f in FIXTURES if f.name == "download")
    saved = [line for line in support.clean(fixture.text).splitlines() if line.startswith("Saved ./dl/")]
    text = support.outcome_text(rule, fixture)
    assert len(saved) == 5
    assert [line for line in text.splitlines() if line.startswith("Saved ")] == saved
    assert "Collecting " not in text
