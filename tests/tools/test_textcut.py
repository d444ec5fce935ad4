"""Cuts fall between grapheme clusters: emoji sequences, flags, combining marks, CJK."""

from __future__ import annotations

import regex
from hypothesis import given
from hypothesis import strategies as st

from tersh.compaction import textcut

CLUSTER = regex.compile(r"\X")

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one cluster, 7 code points
FLAG = "\U0001f1eb\U0001f1f7"  # France: two regional indicators
THUMB = "\U0001f44d\U0001f3fd"  # emoji + skin tone modifier
E_ACUTE = "e\u0301"  # e + combining acute
HANGUL = "\u1112\u1161\u11ab"  # 한 in conjoining jamo


def boundaries(text: str) -> set[int]:
    return {0} | {m.end() for m in CLUSTER.finditer(text)}


def test_every_index_maps_to_a_true_boundary() -> None:
    text = f"ab{FAMILY}cd{FLAG}{FLAG}é{E_ACUTE}{THUMB}漢字かな{HANGUL}\r\nxyz"
    valid = boundaries(text)
    for index in range(len(text) + 1):
        before = textcut.boundary_at_or_before(text, index)
        after = textcut.boundary_at_or_after(text, index)
        assert before in valid and after in valid
        assert before <= index <= after
        assert not any(before < b < index for b in valid)
        assert not any(index < b < after for b in valid)


def test_head_and_tail_never_split_a_cluster() -> None:
    text = (FAMILY + E_ACUTE + FLAG + "字") * 50
    for limit in range(0, 120):
        head = textcut.head(text, limit)
        tail = textcut.tail(text, limit)
        assert len(head) <= limit and len(tail) <= limit
        assert len(head) in boundaries(text)
        assert len(text) - len(tail) in boundaries(text)


def test_regional_indicator_parity_is_respected() -> None:
    text = FLAG * 40
    assert textcut.boundary_at_or_before(text, 41) == 40
    assert textcut.boundary_at_or_after(text, 41) == 42


def test_long_runs_of_combining_marks_do_not_recurse() -> None:
    text = "a" + "\u0301" * 100_000 + "b"
    assert textcut.boundary_at_or_before(text, 50_000) == 0
    assert textcut.boundary_at_or_after(text, 50_000) == 100_001


@given(
    st.lists(
        st.sampled_from(["a", " ", "\n", "é", E_ACUTE, FAMILY, FLAG, THUMB, "字", HANGUL, "\r\n"]),
        max_size=60,
    ),
    st.integers(min_value=0, max_value=400),
)
def test_cut_points_are_cluster_boundaries(pieces: list[str], index: int) -> None:
    text = "".join(pieces)
    valid = boundaries(text)
    assert textcut.boundary_at_or_before(text, index) in valid
    assert textcut.boundary_at_or_after(text, index) in valid
