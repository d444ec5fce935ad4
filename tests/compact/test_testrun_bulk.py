"""The test-runner kit's bulk entries, held equal to the lines they stand for left out one by one."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction.kit import testrun

_PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


_PASSING_LINES = (
    "test tests::it_works ... ok", "test tests::at_src/lib.rs:12 ... ok", "test tests::ERROR_in_name ... ok",
    "test tests::commit_1a2b3c4d ... ok", "test a::b ... ok (see lib/x.py:3)", "  ✓ renders (12 ms)",
    "test x FAILED ... ok", "test tests::with/a/path.rs ... ok", "ok 3 - at File \"a.py\", line 2",
    "test tests::" + "long_name_" * 30 + " ... ok",  # enough left out for the note to pay off
)  # fmt: skip
_OTHER_ENTRIES = ("running 3 tests", "error: see src/a.rs:3", "warning: x", "Compiling y v1 (/tmp/y)", "x")


def _render(parts: list[tuple[str, list[str]]], packets: bool) -> tuple[str | None, int]:
    out = testrun.Output()
    for kind, lines in parts:
        if kind == "keep":
            out.keep(lines[0])
        elif kind == "plain":
            out.omit(lines[0])
        elif packets:
            out.omit_passing_lines("\n".join(lines), len(lines))
        else:
            out.omit_run(lines)
    text = "\n".join(line for _, lines in parts for line in lines) + "\n" + "x" * 4000
    return out.render(lambda omitted: f"omitted {omitted}", text), out.omitted_lines


_PARTS = st.lists(
    st.one_of(
        st.tuples(st.just("keep"), st.sampled_from(_OTHER_ENTRIES).map(lambda line: [line])),
        st.tuples(st.just("plain"), st.sampled_from(_OTHER_ENTRIES).map(lambda line: [line])),
        st.tuples(st.just("run"), st.lists(st.sampled_from(_PASSING_LINES), min_size=1, max_size=10)),
    ),
    max_size=30,
)


@_PROPERTY
@given(_PARTS)
def test_passing_lines_left_out_as_one_entry_render_as_one_by_one(parts: list[tuple[str, list[str]]]) -> None:
    assert _render(parts, packets=True) == _render(parts, packets=False)


# Lines with and without a passing mark; some name a severity, a location, a commit or a path.
_MIXED_LINES = (
    *_PASSING_LINES, "  describe errors", "    # Subtest: handles ERROR codes", "      ---",
    "      ...", "  error: see src/a.rs:3", "  warning: deprecated 1a2b3c4d", "      duration_ms: 1.5",
    "  İstanbul error x", "  ✔ handles errors", "  ✔ fails with error at lib/x.js:3:4",
    "  suite in lib/y.js", "",
)  # fmt: skip


def _passing_mark(line: str) -> bool:
    return line.lstrip().startswith(("✔", "✓", "test ", "ok "))


def _render_mixed(parts: list[tuple[str, list[str]]], bulk: bool) -> tuple[str | None, int]:
    out = testrun.Output()
    for kind, lines in parts:
        if kind == "keep":
            out.keep(lines[0])
        elif bulk:
            out.omit_lines("\n".join(lines), len(lines), _passing_mark)
        else:
            for line in lines:
                out.omit(line, passing=_passing_mark(line))
    text = "\n".join(line for _, lines in parts for line in lines) + "\n" + "x" * 4000
    return out.render(lambda omitted: f"omitted {omitted}", text), out.omitted_lines


_MIXED_PARTS = st.lists(
    st.one_of(
        st.tuples(st.just("keep"), st.sampled_from(_OTHER_ENTRIES).map(lambda line: [line])),
        st.tuples(st.just("run"), st.lists(st.sampled_from(_MIXED_LINES), min_size=1, max_size=10)),
    ),
    max_size=30,
)


@_PROPERTY
@given(_MIXED_PARTS)
def test_lines_left_out_as_one_mixed_entry_render_as_one_by_one(parts: list[tuple[str, list[str]]]) -> None:
    assert _render_mixed(parts, bulk=True) == _render_mixed(parts, bulk=False)


_LINE_PATTERNS = (
    re.compile(r"^\s+\d+ failing\s*$", re.MULTILINE),
    re.compile(r"^(?:not )?ok \d+ ", re.MULTILINE),
)


_LINE_SHAPES = (
    "", " ", "\t", "  2 failing", "2 failing", "x 2 failing", "ok 1 a", "not ok 2", " ok 3 b", "ok x",
    "failing", " \u00a0",
)


@_PROPERTY
@given(st.lists(st.sampled_from(_LINE_SHAPES), max_size=12), st.booleans())
def test_any_line_matches_is_the_pattern_searched(lines: list[str], newline_at_end: bool) -> None:
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    for pattern, needle in zip(_LINE_PATTERNS, (" failing", "ok "), strict=True):
        assert testrun.any_line_matches(text, needle, pattern) == (pattern.search(text) is not None)
