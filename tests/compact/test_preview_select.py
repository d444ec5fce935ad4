"""The preview's selection reads each shape of line once (its digits aside): whether a line
carries a fact must not depend on which digits it holds, and the preview must be the one that
reading every line alone gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction import preview
from tersh.compaction.preview_read import _DIGITS_AS_ZERO, carries_fact
from tests import corpus

FIXTURES = Path(__file__).parent / "fixtures"


def _fixture_lines() -> list[str]:
    lines: set[str] = set()
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.stat().st_size < 1 << 20:
            text = path.read_bytes().decode("utf-8", "replace")
            lines.update(line[:300] for line in text.split("\n")[:300])
    for case in corpus.cases():
        lines.update(line[:300] for line in case.combined.split("\n")[:300])
    return sorted(lines)


_LINES = _fixture_lines()

_LINE = st.one_of(
    st.sampled_from(_LINES),
    st.text(st.sampled_from("aZf09 :./()[]-_=\"'FILEoknt×✗#@\tbcde"), max_size=80),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=80),
)


def _digit_variants(line: str, seed: int) -> list[str]:
    """``line`` with its ASCII digits changed (the same shape of line, other numbers)."""
    return [re.sub("[0-9]", lambda m, k=k: str((int(m[0]) * (seed + 1) + k) % 10), line)
            for k in range(3)]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_LINE, st.integers(0, 9))
def test_whether_a_line_carries_a_fact_does_not_depend_on_its_digits(line: str, seed: int) -> None:
    expected = carries_fact(line)
    assert carries_fact(line.translate(_DIGITS_AS_ZERO)) is expected, line
    for variant in _digit_variants(line, seed):
        assert carries_fact(variant) is expected, (line, variant)


def test_every_fixture_and_corpus_line_carries_what_its_shape_carries() -> None:
    for line in _LINES:
        assert carries_fact(line) is carries_fact(line.translate(_DIGITS_AS_ZERO)), line


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, min_size=1, max_size=40), st.integers(0, 9), st.integers(5, 60),
       st.integers(600, 4000))
def test_the_preview_is_the_one_each_line_read_alone_gives(
    lines: list[str], seed: int, max_lines: int, max_bytes: int
) -> None:
    varied = [variant for line in lines for variant in _digit_variants(line, seed)] * 3
    text = "\n".join(varied)
    by_shape = preview.bound_text(text, max_lines, max_bytes, filler_bytes=300)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(preview._Selection, "_carries_fact", lambda self, line: carries_fact(line))
        alone = preview.bound_text(text, max_lines, max_bytes, filler_bytes=300)
    assert by_shape == alone
