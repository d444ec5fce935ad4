"""The cargotest rule on real cargo test output: corpus cases, recorded modes, edge cases, properties."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import cargotest as rule
from tersh.compaction.verify import holds as verify
from tests.compact import support

# Minimum share of bytes removed, per fixture (only where the output is noisy).
FIXTURE_FLOORS: dict[str, float] = {"unit-pass": 0.45}


test_recorded_mode, test_empty_input_is_declined = support.standard_tests(
    rule, "cargotest", "cargo test", FIXTURE_FLOORS
)
_outcome = functools.partial(support.fixture_outcome, rule, "cargotest")


def test_failures_and_results_are_kept() -> None:
    text = _outcome("unit-failure")
    for kept in (
        "test tests::adds_wrong ... FAILED",
        "panicked at src/lib.rs:16:31:",
        "assertion `left == right` failed: two and two",
        "test result: FAILED.",
    ):
        assert kept in text
    assert "test tests::t03 ... ok" not in text


def test_a_build_that_failed_before_tests_is_declined() -> None:
    fixture = next(f for f in support.fixtures("cargotest") if f.name == "compile-error")
    assert rule.compact(fixture.text, detect.invocation(fixture.cmd, 101)) is None


@pytest.mark.parametrize(
    "command",
    [
        "cargo test",
        "cargo test --workspace -- --nocapture",
        "cargo nextest run",
        "env RUST_BACKTRACE=1 cargo test",
    ],
)
def test_wrapped_commands_find_the_rule(command: str) -> None:
    assert rule_for_program(detect.invocation(command, 0)) is rule


def test_sniffs_nothing_outside_test_runs() -> None:
    assert support.other_family_scores(rule) == {}


test_outputs_assembled_from_real_fragments = support.fragment_test(
    rule, "test__cargo", "cargotest", "cargo test"
)


def test_quiet_progress_rows_go_and_failed_names_stay() -> None:
    text = _outcome("quiet-failures")
    assert "....... 7/401" not in text and " 95/401" not in text
    for kept in (
        "tests::check_007 --- FAILED",
        "tests::check_231 --- FAILED",
        "panicked at src/lib.rs:20:22",
        "test result: FAILED. 398 passed; 2 failed; 1 ignored;",
    ):
        assert kept in text
    assert "398 passing tests, 1 ignored" in text  # the marks are counted, not dropped unsaid
    assert "\n    tests::check_231\n" not in text  # the failures: list repeats the FAILED lines


def _line_by_line(text: str) -> str | None:
    """The rule reading every line alone (``compact`` reads runs of passing lines at once)."""
    if not (rule._RESULT.search(text) or rule._NEXTEST_SUMMARY.search(text) or "running " in text):
        return None
    lines = text.split("\n")
    failed = {m["name"] or m["terse"] for m in map(rule._FAILED_TEST.match, lines) if m}
    reader = rule._Reader(failed)
    for line in lines:
        reader.feed(line)
    return reader.finish(text)


_LINES = (
    "test tests::it_works ... ok",
    "test tests::with/a/path.rs ... ok",
    "test tests::at_src/lib.rs:12 ... ok",
    "test tests::commit_1a2b3c4d ... ok",
    "test tests::slow ... ignored, takes long",
    "test tests::boom ... FAILED",
    "test tests::boom - should panic ... FAILED",
    "test tests::ERROR_in_name ... ok",
    "test tests::odd ... okay",
    "",
    "running 3 tests",
    "     Running unittests src/lib.rs (target/debug/deps/x-0123abcd)",
    "   Doc-tests x",
    "failures:",
    "    tests::boom",
    "---- tests::boom stdout ----",
    "thread 'tests::boom' panicked at src/lib.rs:9:5:",
    "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
    "error: test failed, to rerun pass `--lib`",
)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_LINES), max_size=50), st.lists(st.sampled_from(_LINES[:5]), max_size=4))
def test_runs_of_passing_lines_are_read_as_line_by_line(lines: list[str], run: list[str]) -> None:
    for copies in (3, 40):
        text = "\n".join(lines[: len(lines) // 2] + run * copies + lines[len(lines) // 2 :])
        for ending in ("", "\n"):
            inv = detect.invocation("cargo test", 101)
            assert rule.compact(text + ending, inv) == _line_by_line(text + ending)


def test_corpus_runs_are_read_as_line_by_line() -> None:
    inv = detect.invocation("cargo test", 101)
    for case in support.corpus_cases("test__cargo"):
        text = support.clean(case.combined)
        assert rule.compact(text, inv) == _line_by_line(text), case.name


def test_a_binary_started_as_the_output_ends_is_kept() -> None:
    running = "     Running unittests src/lib.rs (target/debug/deps/semver-08707e0d390c1b5c)"
    result = "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s"
    text = "\n".join(["   Compiling semver v1.0.27 (/home/dev/work/semver)"] * 7 + [result, running])
    inv = detect.invocation("cargo test", 0)
    proposal = rule.compact(text, inv)
    assert proposal is not None and running in proposal
    assert verify.missing_facts(text, proposal, inv) == []


# The lines of one test binary, each a shape ``_PASSING_BINARY`` reads or one that breaks it.
_BINARY_LINES = st.sampled_from(
    (
        "     Running unittests src/lib.rs (target/debug/deps/x-0123abcd)",
        "   Doc-tests x",
        "\tRunning tests/it.rs (target/debug/deps/it-89ab)",
        "     Running ",
        "   Doc-tests x y",
    )
)
_RESULTS = st.sampled_from(
    (
        "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
        "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
        "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
        "test result: ok. 1 passed; at src/lib.rs:3 ... ok",
        "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
    )
)
_BINARY = st.tuples(
    _BINARY_LINES,
    st.sampled_from(("", "x")),
    st.sampled_from(("running 0 tests", "running 3 tests", "running 1 test")),
    st.lists(st.sampled_from(_LINES[:4] + _LINES[8:9]), max_size=40),
    st.sampled_from(("", " ")),
    _RESULTS,
    st.sampled_from(((), ("",), ("", ""), ("x",))),
).map(lambda parts: [parts[0], parts[1], parts[2], *parts[3], parts[4], parts[5], *parts[6]])


@settings(max_examples=300)
@given(st.lists(st.one_of(_BINARY, st.lists(st.sampled_from(_LINES), max_size=3)), max_size=12))
def test_binaries_that_passed_are_read_as_line_by_line(parts: list[list[str]]) -> None:
    text = "\n".join(line for part in parts for line in part)
    for ending in ("", "\n"):
        inv = detect.invocation("cargo test", 101)
        assert rule.compact(text + ending, inv) == _line_by_line(text + ending)
