"""The pytest rule on real pytest output: corpus cases, recorded modes, edge cases, properties."""

from __future__ import annotations

import types

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import apply, detect, rule_for_program
from tersh.compaction.rules import pytest as rule
from tests import corpus
from tests.compact import support

FIXTURE_FLOORS = {
    "crash-no-footer-v": 0.85,
    "mixed-failures-v": 0.5,
    "no-tests-ran": 0.4,
    "collection-import-errors": 0.35,
    "default-mixed-carets": 0.2,
    "xdist-v-mixed": 0.65,
    "q-mixed": 0.15,
    "ra-passes-section": 0.6,
}


@pytest.mark.parametrize("fixture", support.fixtures("pytest"), ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    assert support.check_fixture(rule, fixture, FIXTURE_FLOORS.get(fixture.name, 0.0)) == snapshot


def _outcome(name: str) -> str:
    return support.fixture_outcome(rule, "pytest", name)


def test_collection_error_is_never_summarised_as_green() -> None:
    text = _outcome("collection-error")
    assert "ERROR collecting tests/test_broken.py" in text
    assert "ModuleNotFoundError: No module named 'not_a_module_that_exists'" in text
    assert "Interrupted: 1 error during collection" in text
    assert "passed" not in text.split("[tersh]", 1)[1].split("\n", 1)[0]


def test_crash_without_footer_keeps_the_last_test_started() -> None:
    text = _outcome("crash-no-footer-v")
    assert text.rstrip().endswith("tests/test_crash.py::test_crash")
    assert "tests/test_ok.py::test_many[3] PASSED" not in text


def test_failures_keep_their_blocks_and_summary() -> None:
    text = _outcome("mixed-failures-v")
    for kept in (
        "FAILED tests/test_fail.py::test_helper - assert 5 == 10",
        "captured output of a failing test",
        "tests/test_fail.py:19: KeyError",
        "2 failed, 32 passed, 1 skipped, 1 xfailed, 1 warning",
        "DeprecationWarning: the old api is deprecated",
    ):
        assert kept in text


def test_traceback_source_is_cut_to_the_lines_before_the_failing_line() -> None:
    case = next(c for c in corpus.cases() if c.name == "test__pytest-click-default-failures")
    text = support.gate(rule, case.combined, case.cmd, case.exit_code)[2].text
    assert ">       assert type.convert(value, None, None) == expect" in text
    assert "    def test_range(type, value, expect):" in text  # within the kept context
    assert "@pytest.mark.parametrize" not in text
    assert "    [tersh] 14 source lines omitted" in text
    short = _outcome("mixed-failures-ra")  # the last SOURCE_CONTEXT lines before ">" stay
    assert "    [tersh] 3 source lines omitted\n        unused = 4\n        more = 5\n" in short
    assert "    def test_helper():" not in short


def test_empty_and_foreign_text_are_declined() -> None:
    inv = detect.invocation("pytest", 0)
    assert rule.compact("", inv) is None
    assert rule.compact("pytest 9.2.0\n", inv) is None


def test_a_lossy_variant_is_refused_by_the_gate() -> None:
    case = next(c for c in corpus.cases() if c.name == "test__pytest-click-default-failures")
    inv = detect.invocation(case.cmd, case.exit_code)

    def lossy(text: str, inv: detect.Invocation) -> str | None:
        proposal = rule.compact(text, inv) or text
        return "\n".join(line for line in proposal.split("\n") if not line.startswith("FAILED"))

    def green(text: str, inv: detect.Invocation) -> str | None:
        return (rule.compact(text, inv) or "") + "\n[tersh] all tests passed"

    for compact in (lossy, green):
        variant = types.SimpleNamespace(NAME="lossy", CATEGORY="tests", compact=compact)
        outcome = apply(variant, support.clean(case.combined), inv)  # type: ignore[arg-type]
        assert not outcome.applied
        assert outcome.refused


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q",
        "python -m pytest tests",
        "uv run pytest -x",
        "poetry run py.test",
        "env CI=1 timeout 60 python3 -m pytest",
        "cd app && .venv/bin/pytest -v",
    ],
)
def test_wrapped_commands_find_the_rule(command: str) -> None:
    assert rule_for_program(detect.invocation(command, 0)) is rule


def test_sniffs_pytest_output_only() -> None:
    for case in support.corpus_cases("test__pytest"):
        assert rule.sniff(support.clean(case.combined)[:20000]) >= 0.9
    assert support.other_family_scores(rule) == {}


test_outputs_assembled_from_real_fragments = support.fragment_test(
    rule, "test__pytest", "pytest", "pytest", exit_codes=(0, 1, 2, 5)
)


def test_pytest9_subtest_rows_are_counted_and_the_failing_one_kept() -> None:
    fixture = next(f for f in support.fixtures("pytest") if f.name == "subtests-v")
    _, _, outcome = support.gate(rule, fixture.text, fixture.cmd, fixture.exit_code)
    assert outcome.applied, outcome.refused
    assert "SUBPASSED" not in outcome.text and "69 subtests passed" in outcome.text
    assert "test_sub.py::test_parse_bad SUBFAILED(i=17)" in outcome.text
    assert "E               AssertionError: value 17 rejected" in outcome.text


def _line_by_line(text: str) -> str | None:
    """The rule reading every line alone (what ``compact`` does but for its runs of -v rows)."""
    reported = {m["id"] for m in rule._XDIST_STATUS.finditer(text)} if "[gw" in text else set()
    reader = rule._Reader(reported)
    reader.counts.footer = rule._FOOTER.search(text, max(0, len(text) - 4096)) is not None
    for line in text.split("\n"):
        reader.feed(line)
    return reader.finish(text)


# -v rows in the shapes the bulk reader takes, and rows that only look like them.
_ROWS = (
    "tests/test_a.py::test_one PASSED                                   [ 10%]",
    "tests/test_a.py::test_two[a/b.json-x.y] PASSED [ 20%]",
    "tests/test_a.py::test_sha[deadbeef01] PASSED [ 20%]",
    "tests/test_a.py::test_three SKIPPED (needs src/lib.py or tests/conftest.py) [ 30%]",
    "tests/test_a.py::test_four XFAIL (see 1a2b3c4d) [ 40%]",
    "tests/test_a.py::test_PASSED_in_name PASSED [ 50%]",
    "tests/test_a.py::test_two_words PASSED PASSED [ 50%]",
    "tests/test_a.py::test_skip SKIPPED (x PASSED (y)) [ 50%]",
    "tests/test_a.py::test_glued_PASSED [ 55%]",
    "tests/test_a.py::test_sub SUBPASSED[msg] (i=0) [ 60%]",
    "tests/test_a.py::test_sub_word[SUBPASSED] PASSED [ 60%]",
    "tests/test_b.py::test_loc[x.py:12] PASSED [ 70%]",
    "tests/test_b.py::test_fail_word[FAILED] PASSED [ 70%]",
    "tests/test_b.py::test_error[ERROR: boom] PASSED [ 70%]",
    "tests/test_b.py::test_tab\tPASSED [ 80%]",
    "tests/test_b.py::test_classic PASSED",
    "tests/test_b.py::test_odd_tail PASSED [ab]",
    "Etests/e.py::test_e PASSED [ 90%]",
    "_private.py::test_u PASSED [ 90%]",
    "tests/test_c.py::test_über[ß] PASSED [ 95%]",
    "tests/test_c.py::test_last PASSED [100%]",
    "tests/test_a.py::test_nested SKIPPED (a XFAIL (b)) [ 60%]",
    "tests/test_a.py::test_reason_word XFAIL (PASSED) [ 60%]",
    "tests/test_a.py::test_open_reason SKIPPED (unclosed [ 60%]",
    "tests/test_a.py::test_no_status [ 60%]",
    "tests/test_a.py:: PASSED [ 60%]",
    "tests/test_a.py::test_xfail_plain XFAIL",
    "tests/test_a.py::test_tail PASSED  [  5%] ",
    "tests/test_a.py::test_paren XFAIL (x) y (z) [ 60%]",
)
_OTHER = (
    "",
    "============================= test session starts ==============================",
    "platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0 -- /usr/bin/python3",
    "collected 20 items",
    "=================================== FAILURES ===================================",
    "___________________________________ test_x ___________________________________",
    "    def test_x():",
    ">       assert 1 == 2",
    "E       assert 1 == 2",
    "tests/test_a.py:12: AssertionError",
    "=========================== short test summary info ============================",
    "FAILED tests/test_a.py::test_x - assert 1 == 2",
    "========================= 1 failed, 19 passed in 0.12s =========================",
)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_ROWS + _OTHER), max_size=60), st.lists(st.sampled_from(_ROWS), max_size=5))
def test_runs_of_rows_are_read_as_line_by_line(lines: list[str], run: list[str]) -> None:
    text = "\n".join(lines[: len(lines) // 2] + run * 30 + lines[len(lines) // 2 :]) + "\n"
    inv = detect.invocation("pytest -v", 1)
    assert rule.compact(text, inv) == _line_by_line(text)
    assert rule.compact(text.rstrip("\n"), inv) == _line_by_line(text.rstrip("\n"))


def test_runs_of_rows_on_the_corpus_are_read_as_line_by_line() -> None:
    inv = detect.invocation("pytest -v", 1)
    for case in support.corpus_cases("test__pytest"):
        text = support.clean(case.combined)
        assert rule.compact(text, inv) == _line_by_line(text), case.name


@settings(max_examples=500)
@given(st.lists(st.sampled_from(_ROWS), min_size=1, max_size=12))
def test_conforming_counts_are_sure_only_of_rows_the_row_pattern_takes(rows: list[str]) -> None:
    path = rows[0].split("::")[0]
    lines = [row for row in rows if row.startswith(f"{path}::")]
    text = "\n".join(lines) + "\n"
    found = rule._FILE_LINES.match(text)
    assume(found is not None and found.end() == len(text))
    counts = rule.conforming_counts(text, 0, len(text))
    if counts is not None:
        match = rule._FILE_ROWS.match(text)
        assert match is not None and match.end() == len(text)
        assert counts == [text.count(status) for status in rule._ROW_STATUSES] and sum(counts) == len(lines)


def test_conforming_counts_take_the_common_rows() -> None:
    text = "".join(row + "\n" for row in _ROWS[:5] + _ROWS[-1:])  # a reason may hold parentheses
    assert rule.conforming_counts(text, 0, len(text)) == [3, 1, 2]
    nested = text + "tests/test_a.py::test_nested SKIPPED (a XFAIL (b)) [ 60%]\n"
    assert rule.conforming_counts(nested, 0, len(nested)) is None  # not sure: _FILE_ROWS decides


# Progress rows of the default form, the shapes the bulk reader takes and ones that only look like them.
_PROGRESS = (
    "tests/test_a.py ................................................ [  2%]",
    "tests/test_b.py ...s..x.X                                        [ 11%]",
    "tests/test_c.py ....F..                                          [ 12%]",
    "tests/test_d.py ..E", "........................................................................ [ 22%]",
    ".....sssssssssssssssssssss.............                         [ 76%]", "sx.X", "...F.", "....E",
    "Etests/e.py ....", "_private.py ...", "s.py .....", ".hidden.py ..s", "tests/x.py ....  [ 5%] ",
    "tests/y.py .... [5%]", "tests/z.py ....[ 5%]", "tests/w.py", "tests/v.py  ....", "... [  3%]",
    "tests/test_utils/test_LazyFile.py .                                  [ 89%]", "tests/u.py ..RRfp",
)  # fmt: skip


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_PROGRESS + _OTHER), max_size=60),
       st.lists(st.sampled_from(_PROGRESS), max_size=5))
def test_progress_rows_are_read_as_line_by_line(lines: list[str], run: list[str]) -> None:
    text = "\n".join(lines[: len(lines) // 2] + run * 30 + lines[len(lines) // 2 :]) + "\n"
    inv = detect.invocation("pytest", 1)
    assert rule.compact(text, inv) == _line_by_line(text)
    assert rule.compact(text.rstrip("\n"), inv) == _line_by_line(text.rstrip("\n"))
