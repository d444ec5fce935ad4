"""The generic compactor's bulk classification, held equal to its per-line definitions.

``generic._codes`` finds the protected, frame and chatter lines of a whole text with searches
and reads only the lines they mark; ``generic._line_codes`` reads every line with the per-line
functions. The masks of a line come from one of three patterns chosen by what the line holds;
each must mask the line as ``_MASK`` does.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tersh.compaction import blanks, generic
from tersh.compaction.verify.facts import quoted_source

GENERIC = Path(__file__).parent / "fixtures" / "generic"
# Lines of real no-rule outputs (frames, findings, chatter, hex ids, wide characters).
_REAL = sorted(
    {
        line
        for case in GENERIC.iterdir()
        if case.is_dir()
        for line in (case / "combined").read_text().split("\n")
    }
)
_PIECES = [
    "INFO", "info", "ok", "PASSED", " PASS ", "\u2713", "%", "42%", "####", "  |", "  \u2502 ", "  ^^^",
    "12 ", "  3 \u2502 x", "7 + ", "src/a.py", ":12:3", "(4,5)", 'File "x.py", line 3', "error", "Warning",
    "deadbeef", "0x1f", "1a2b3c4d5e", "http://h/x", "10:11:12", "1.5ms", "\u0663", "\u00b2", "\t", " ",
    "-", "/", "Downloading", "[info]", "ERROR", "..."," ok", "(pass) ", "(fail) ", " ........ ", "Start ",
]  # fmt: skip
_LINE = st.one_of(
    st.sampled_from(_REAL),
    st.lists(st.sampled_from(_PIECES), max_size=6).map("".join),
    st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=30),
)


@given(st.lists(_LINE, min_size=1, max_size=60))
@settings(max_examples=300, deadline=None)
def test_bulk_codes_are_the_per_line_codes(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert generic._codes(text, lines, generic._fact_flags(text)) == generic._line_codes(lines)


# A caret frame's parts: findings, quoted lines (some naming a fact), marker lines (some not one).
_CARET_PIECES = [
    "lib/a.rb:3:5: C: Style/X: msg.", "a.c:12:1: error: bad", "A.java:7: warning: [x] y", "  x = 1",
    "  raise 'error here'", "  load 'src/b.rb'", "  see a.c:4", "", "    ^", "  ^~~~", "~~~ ^", "  ^ x",
    "\t^", "  ~~", "^^^^^^^^", "  12 | x",
]  # fmt: skip
_CARET_LINE = st.one_of(st.sampled_from(_CARET_PIECES), _LINE)


@given(st.lists(_CARET_LINE, min_size=1, max_size=60))
@settings(max_examples=300, deadline=None)
def test_bulk_codes_are_the_per_line_codes_around_caret_frames(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert generic._codes(text, lines, generic._fact_flags(text)) == generic._line_codes(lines)


# Numbered excerpts under findings (bandit), links a tool repeats, places written without a path.
_EXCERPT_PIECES = [
    "   Location: a/b.py:12:3", "a.c:7:1: error: x", "11\t    x = 1", "12\t    raise Error()", "13\t",
    "14\t    see src/c.py", "12\tdeadbeef1", "7\tok", "   More Info: https://x.io/b101.html",
    "   CWE: CWE-703 (https://cwe.io/703.html)", "  3:10  \u2716  Too many  max",
    "L:  12 | P:   1 | LT02 | x", "src/a.css", "",
]  # fmt: skip
_EXCERPT_LINE = st.one_of(st.sampled_from(_EXCERPT_PIECES), _LINE)


@given(st.lists(_EXCERPT_LINE, min_size=1, max_size=60))
@settings(max_examples=300, deadline=None)
def test_bulk_codes_are_the_per_line_codes_around_excerpts_links_and_places(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert generic._codes(text, lines, generic._fact_flags(text)) == generic._line_codes(lines)


_BLANK_PIECES = [" ", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "a", "12", "\u2003"]
_BLANKS_LINE = st.lists(st.sampled_from(_BLANK_PIECES), max_size=8).map("".join)  # blanks of every kind


@given(st.lists(st.one_of(_LINE, _BLANKS_LINE), min_size=1, max_size=60))
@settings(max_examples=300, deadline=None)
def test_each_line_is_masked_as_the_one_mask_masks_it(lines: list[str]) -> None:
    text = "\n".join(lines)
    forms = generic._mask_forms(text, len(lines))
    assert generic._mask_forms(text, len(lines), lines) == forms  # the lines given, not split again
    masks = generic._Masks(lines, forms)
    for index, line in enumerate(lines):
        # a leader of dots is one whatever its length (it pads a name to a column)
        assert masks.mask(index) == blanks.squeeze(generic._LEADER.sub("...", generic._MASK.sub("#", line)))
    for line, form in zip(lines, forms, strict=True):
        assert form & 3 == (
            2 if "/" in line else 1 if any(_hex_run(line, i) for i in range(len(line))) else 0
        )
        assert form & 4 == (4 if not line.isascii() else 0)
        assert generic._MASK_FORMS[form & 3].sub("#", line) == generic._MASK.sub("#", line)


def test_a_line_written_again_is_masked_once_as_the_one_mask_masks_it() -> None:
    # the masks are kept by the text of their line: each line again is read from that
    lines = ["x 12 src/a.py deadbeef1", "step 3 ........ ok 1.5ms", "\u2713 t 4", "x 12 src/a.py deadbeef1"]
    lines *= 3
    masks = generic._Masks(lines, generic._mask_forms("\n".join(lines), len(lines)))
    for index, line in [*enumerate(lines), *reversed(list(enumerate(lines)))]:
        assert masks.mask(index) == blanks.squeeze(generic._LEADER.sub("...", generic._MASK.sub("#", line)))
    assert len(masks.cache) == 3


def _hex_run(line: str, start: int) -> bool:
    return len(line) - start >= 7 and all(c in "0123456789abcdef" for c in line[start : start + 7])


def test_chunked_reading_finds_the_facts_of_every_chunk(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    lines = [f"step {i} \u2502 ok" if i % 3 else f"src/m{i}.py:{i}:1: error E{i}" for i in range(300)]
    text = "\n".join(lines)
    whole = generic._fact_flags(text)
    monkeypatch.setattr(generic, "CHUNK_CHARS", 64)
    assert generic._fact_flags(text) == whole
    assert generic._mask_forms(text, len(lines)) == bytearray(2 if "/" in line else 4 for line in lines)
    assert generic._mask_forms(text, len(lines), lines) == generic._mask_forms(text, len(lines))
    assert whole == bytearray(0 if i % 3 else 1 for i in range(300))


_FRAME_PIECES = [
    "  12 \u2502 x",
    "   |",
    "   | ^^^",
    "  ...",
    "12 x",
    "   ~~~",
    "  4 4 \u2502",
    "   - y",
    "7 + z",
    "plain",
]
_FRAME_LINE = st.one_of(st.sampled_from(_FRAME_PIECES), _LINE)


@given(st.lists(_FRAME_LINE, min_size=1, max_size=80))
@settings(max_examples=300, deadline=None)
def test_quoted_lines_answer_as_quoted_source(lines: list[str]) -> None:
    expected = [quoted_source(lines, i) for i in range(len(lines))]
    assert list(map(bool, generic._quoted_lines(lines, list(range(len(lines)))))) == expected


@given(st.lists(_FRAME_LINE, min_size=1, max_size=80), st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_quoted_lines_answer_as_quoted_source_for_some_lines(lines: list[str], random) -> None:  # type: ignore[no-untyped-def]
    some = sorted(random.sample(range(len(lines)), random.randint(0, len(lines))))
    assert list(map(bool, generic._quoted_lines(lines, some))) == [quoted_source(lines, i) for i in some]


def cycle_flag(lines: list[str], lone: bytes, forms: bytearray, period: int, index: int) -> bool:
    """Whether line ``index`` has the skeletons of line ``index + period``, the lines from one to
    the other all lone."""
    if index + period >= len(lines) or not all(lone[index : index + period + 1]):
        return False
    ends = (index, index + period)
    one, other = (blanks.squeeze(lines[at]).encode("utf-8", "surrogatepass") for at in ends)
    weak = forms[index] >= 2 or forms[index + period] >= 2
    same_blanks = one.translate(None, generic._NOT_BLANK) == other.translate(None, generic._NOT_BLANK)
    same_strong = one.translate(None, generic._FIELD_BYTES) == other.translate(None, generic._FIELD_BYTES)
    return same_blanks and (same_strong or weak)


_CYCLE_LINE = st.sampled_from(
    ["Start 1: a", "Start 22: b", "  1/9 Test #1: a .... Passed", "x/y z", "\u00e9 1"]
)
_PAIRS = [f"Start {n}: a" if n % 2 else f"Test #{n} .. {'.' * n} Passed" for n in range(20)]
_CYCLES_EXAMPLE = ["head", *_PAIRS, "x/y"]
_TRIPLES = [("Start 1: a b c", "x/y", "\u00e9 1")[n % 3] for n in range(14)]
_WEAK_CYCLES_EXAMPLE = ["h", *_TRIPLES, "Start 22: b", "t"]


@given(st.lists(st.one_of(_LINE, _CYCLE_LINE), min_size=1, max_size=80), st.integers(1, 8))
@example(_CYCLES_EXAMPLE, 3)
@example(_WEAK_CYCLES_EXAMPLE, 5)
@settings(max_examples=300, deadline=None)
def test_cycle_flags_are_read_as_line_by_line(lines: list[str], window: int) -> None:
    import pytest

    text = "\n".join(lines)
    codes = generic._codes(text, lines, generic._fact_flags(text))
    forms = generic._mask_forms(text, len(lines))
    lone = generic._lone_lines(lines, codes, forms)
    expected = {
        p: bytes(cycle_flag(lines, lone, forms, p, i) for i in range(len(lines))) for p in generic.CYCLES
    }
    found = generic._cycle_flags(lines, lone, forms)
    if lines[0] in ("head", "h"):  # the examples: cycles found
        assert any(b"\x01" in flags for flags in found.values())
    long_stretch = b"\x01" * (min(generic.CYCLES) * generic.MIN_RUN) in lone
    assert found == (expected if long_stretch else {})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "SKELETON_WINDOW", window)  # several windows
        found = generic._cycle_flags(lines, lone, forms)
        assert found == (expected if long_stretch else {})
        assert generic._lone_lines(lines, codes, forms, generic._alike_after(lines, forms, (1, 2))) == lone


@given(st.lists(st.one_of(_FRAME_LINE, _CARET_LINE), min_size=1, max_size=80))
@settings(max_examples=300, deadline=None)
def test_bulk_frame_lines_are_the_per_line_frame_lines(lines: list[str]) -> None:
    from tersh.compaction.verify.scan import fact_lines

    protected = [bool(fact_lines(line)) for line in lines]
    codes = bytearray(generic._PROTECTED if flag else 0 for flag in protected)
    expected = generic._frame_lines(lines, protected, range(len(lines)))
    assert generic._bulk_frame_lines(lines, codes) == sorted(expected)
    assert codes == bytearray(generic._PROTECTED if flag else 0 for flag in protected)
    again = bytearray(generic._PROTECTED if bool(fact_lines(line)) else 0 for line in lines)
    assert generic._bulk_frame_lines(lines, again, "\n".join(lines)) == sorted(expected)
    assert again == codes


_LITERAL_LINES = ["a|b", "|", "", "x", "\u2502", "ok", "^~", "a", "bb"]


@given(st.lists(st.sampled_from(_LITERAL_LINES), min_size=1, max_size=80))
@settings(max_examples=300, deadline=None)
def test_lines_holding_a_literal_are_found_in_the_text_as_line_by_line(lines: list[str]) -> None:
    text = "\n".join(lines)
    for literal in ("|", "\u2502", "ok", "^", "~", "a"):
        expected = bytes(literal in line for line in lines)
        assert generic._has(lines, literal) == expected
        assert generic._has(lines, literal, text) == expected


@given(st.lists(_LINE, min_size=1, max_size=60))
@settings(max_examples=300, deadline=None)
@example(["...", "...."])
def test_skeletons_tell_apart_only_lines_of_other_shapes(lines: list[str]) -> None:
    text = "\n".join(lines)
    codes = generic._codes(text, lines, generic._fact_flags(text))
    forms = generic._mask_forms(text, len(lines))
    masks = generic._Masks(lines, forms)
    lone = generic._lone_lines(lines, codes, forms)
    # (a leader of dots is one whatever its length, as in the masks: "..." and "...." alike)
    masked = [blanks.squeeze(generic._LEADER.sub("...", generic._MASK.sub("#", line))) for line in lines]
    for i in range(len(lines)):
        if i + 1 < len(lines):
            assert masks.same(i, i + 1) == (masked[i] == masked[i + 1])
        if lone[i]:
            assert codes[i] == 0
            if i + 1 < len(lines) and codes[i + 1] != generic._PROTECTED:
                assert codes[i + 1] == 0 and masked[i] != masked[i + 1]


@given(st.lists(_LINE, max_size=60), st.integers(min_value=1, max_value=8))
@settings(max_examples=300, deadline=None)
def test_the_values_a_note_lists_are_the_per_line_values(lines: list[str], window: int) -> None:
    import pytest

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "SKELETON_WINDOW", window)  # several slices, as on a long run
        assert generic._values(lines) == generic._line_values(lines)
    assert generic._values(lines) == generic._line_values(lines)


def test_quoted_lines_reach_as_far_as_quoted_source() -> None:
    import pytest

    for length in (generic.FRAME_REACH - 1, generic.FRAME_REACH, generic.FRAME_REACH + 1, 70):
        for gutter_first in (True, False):
            source = [f"  {i} \u2502 x" for i in range(length)]
            lines = ["   |", *source, "plain"] if gutter_first else ["plain", *source, "   |"]
            expected = [quoted_source(lines, i) for i in range(len(lines))]
            answers = generic._quoted_lines(lines, list(range(len(lines))))
            assert list(map(bool, answers)) == expected
            for window in (generic.FRAME_REACH, generic.FRAME_REACH + 5):  # several windows
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(generic, "FRAME_WINDOW", window)
                    for some in (list(range(len(lines))), [len(lines) // 2], [0, len(lines) - 1]):
                        answers = generic._quoted_lines(lines, some)
                        assert list(map(bool, answers)) == [expected[i] for i in some]


@given(st.lists(_LINE, max_size=60), st.integers(min_value=1, max_value=8))
@settings(max_examples=300, deadline=None)
def test_lines_naming_something_are_found_as_line_by_line(lines: list[str], window: int) -> None:
    import pytest

    expected = [generic._names_something(line) for line in lines]
    assert list(map(bool, generic._naming_lines(lines))) == expected
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "NAMING_WINDOW", window)  # several slices
        assert list(map(bool, generic._naming_lines(lines))) == expected


def shape_run(
    lines: list[str], masks: generic._Masks, codes: bytearray, index: int
) -> tuple[list[int], list[int]]:
    """The lines of the shape of line ``index`` that follow it with only chatter between (a log
    line under each, as java.util.logging writes them), and the chatter lines between them: what
    ``_Masks.run`` answers in one loop."""
    members: list[int] = [index]
    between: list[int] = []
    pending: list[int] = []
    other = index + 1
    while other < len(lines) and codes[other] != generic._PROTECTED:
        if masks.same(other, index):
            members.append(other)
            between += pending
            pending = []
        elif codes[other]:
            pending.append(other)
        else:
            break
        other += 1
    return members, between


@given(st.lists(_LINE, min_size=1, max_size=60), st.integers(min_value=1, max_value=8))
@settings(max_examples=300, deadline=None)
def test_a_shape_run_is_read_in_one_loop_as_line_by_line(lines: list[str], window: int) -> None:
    import pytest

    text = "\n".join(lines)
    codes = generic._codes(text, lines, generic._fact_flags(text))
    forms = generic._mask_forms(text, len(lines))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "SKELETON_WINDOW", window)  # runs across windows of skeletons
        kept: dict[int, tuple[list[bytes], list[bytes]]] = {}
        generic._alike_after(lines, forms, (1, *generic.CYCLES), kept)  # the skeletons it made
        for low, skeletons in kept.items():
            assert skeletons == generic._skeletons(lines[low : low + window])
        for index in range(len(lines)):
            if codes[index] != generic._PROTECTED:
                expected = shape_run(lines, generic._Masks(lines, forms), codes, index)
                assert generic._Masks(lines, forms).run(index, codes) == expected
                assert generic._Masks(lines, forms, kept).run(index, codes) == expected


def lone_line(lines: list[str], codes: bytearray, forms: bytearray, index: int) -> bool:
    """Whether plain line ``index`` starts no run, read from its own skeletons and the next line's."""
    if codes[index] != 0:
        return False
    if index + 1 == len(lines) or codes[index + 1] == generic._PROTECTED:
        return True
    if codes[index + 1] != 0:
        return False
    one, other = (blanks.squeeze(line).encode("utf-8", "surrogatepass") for line in lines[index : index + 2])
    weak = forms[index] >= 2 or forms[index + 1] >= 2
    same_blanks = one.translate(None, generic._NOT_BLANK) == other.translate(None, generic._NOT_BLANK)
    same_strong = one.translate(None, generic._FIELD_BYTES) == other.translate(None, generic._FIELD_BYTES)
    return not (same_blanks and (same_strong or weak))


@given(st.lists(_LINE, min_size=1, max_size=60), st.integers(min_value=1, max_value=8))
@settings(max_examples=300, deadline=None)
def test_lone_lines_are_read_as_line_by_line(lines: list[str], window: int) -> None:
    import pytest

    text = "\n".join(lines)
    codes = generic._codes(text, lines, generic._fact_flags(text))
    forms = generic._mask_forms(text, len(lines))
    expected = bytes(lone_line(lines, codes, forms, i) for i in range(len(lines)))
    assert generic._lone_lines(lines, codes, forms) == expected
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "SKELETON_WINDOW", window)  # several windows
        assert generic._lone_lines(lines, codes, forms) == expected


@given(st.lists(st.one_of(_FRAME_LINE, _CARET_LINE), min_size=1, max_size=80))
@settings(max_examples=300, deadline=None)
def test_code_frame_lines_name_nothing_a_note_would_list(lines: list[str]) -> None:
    text = "\n".join(lines)
    codes = generic._codes(text, lines, generic._fact_flags(text))
    framed = [line for line, code in zip(lines, codes, strict=True) if code == generic._FRAME_CODE]
    assert generic._line_values(framed) == []


@given(
    st.lists(_LINE, max_size=60), st.integers(min_value=0, max_value=6), st.integers(min_value=1, max_value=8)
)
@settings(max_examples=300, deadline=None)
def test_values_read_up_to_a_limit_tell_whether_there_are_more(
    lines: list[str], limit: int, window: int
) -> None:
    import pytest

    every = generic._line_values(lines)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "SKELETON_WINDOW", window)  # several slices
        some = generic._values(lines, limit)
    if len(every) <= limit:
        assert some == every
    else:
        assert len(some) > limit and set(some) <= set(every)


@given(
    st.lists(
        _LINE | st.sampled_from(["\u0130RROR x", "\u212aill error", "a.py:3: \u017f", "ok"]),
        min_size=1,
        max_size=60,
    )
)
@settings(max_examples=300, deadline=None)
def test_fact_flags_are_the_per_line_fact_lines(lines: list[str]) -> None:
    """A chunk read whole, or (a letter folding onto ASCII in it) as its ASCII and its wide lines."""
    from tersh.compaction.verify.scan import fact_lines

    text = "\n".join(lines)
    assert list(generic._fact_flags(text)) == [1 if fact_lines(line) else 0 for line in lines]


# Pieces of a frame's lines, blanks of every kind (some no line break of ``str.split("\n")``).
_FRAME_BITS = [" ", "  ", "\t", "\x0b", "\x0c", "\r", "\x1c", "\x85", "\u2028", "\u00a0", ">", "12", "3",
               "\u0663", "|", "\u2502", "+", "-", "~", "...", ".", "x", "^"]  # fmt: skip
_FRAME_BITS_LINE = st.lists(st.sampled_from(_FRAME_BITS), max_size=8).map("".join)


@given(st.lists(st.one_of(_FRAME_LINE, _CARET_LINE, _FRAME_BITS_LINE), min_size=1, max_size=80))
@settings(max_examples=500, deadline=None)
def test_frame_patterns_over_a_text_find_the_lines_they_match(lines: list[str]) -> None:
    """Each frame pattern searched over the lines joined finds the lines it matches one by one."""
    from tersh.compaction.verify import facts

    text = "\n" + "\n".join(lines)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for one, over_text in (
        (facts._FRAME_GUTTER, generic._GUTTER_LINES),
        (facts._FRAME_SOURCE, generic._SOURCE_LINES),
        (facts._FRAME_ELISION, generic._ELISION_LINES),
    ):
        found = [starts.index(match.start()) for match in over_text.finditer(text)]
        assert found == [index for index, line in enumerate(lines) if one.match(line)]


@given(st.lists(st.one_of(_FRAME_LINE, _CARET_LINE), min_size=1, max_size=80))
@settings(max_examples=300, deadline=None)
def test_findings_and_their_runs_are_read_in_bulk_as_line_by_line(lines: list[str]) -> None:
    """``_finding_lines`` is ``_finding`` of each protected line; ``_bulk_findings_run`` is
    ``_findings_run`` from each finding."""
    text = "\n".join(lines)
    codes = generic._codes(text, lines, generic._fact_flags(text))
    findings = generic._finding_lines(lines, codes)
    expected = [
        int(code == generic._PROTECTED and generic._finding(line))
        for code, line in zip(codes, lines, strict=True)
    ]
    assert list(findings) == expected
    in_run = generic._or_flags(findings, codes.translate(generic._FRAME_TO_ONE))
    for index in range(len(lines)):
        if findings[index]:
            run = generic._findings_run(lines, codes, index)
            assert generic._bulk_findings_run(findings, in_run, index) == run
