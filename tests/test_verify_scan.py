"""The verifier's bulk scans give exactly the per-line answers of is_diagnostic/iter_locations."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tersh.compaction.verify import facts
from tersh.compaction.verify import scan as verify_scan
from tests import corpus

# Pieces that make the per-line functions say yes, no, or nearly: severity words inside and
# outside options and words, passing marks, locations of every form, case folds, URLs.
_PIECES = [
    "error",
    "Error:",
    "ERROR",
    "errors",
    "warning",
    "WARN",
    "failed",
    "FAILED",
    "failure",
    "fatal",
    "panicked",
    "traceback",
    "Traceback (most recent call last):",
    "deprecated",
    "critical",
    "aborted",
    "segmentation fault",
    "AssertionError",
    "assert",
    "exception",
    "-Werror",
    "--fail-fast",
    "noerror",
    "error_code",
    "PASSED",
    "PASS",
    "ok",
    "... ok",
    "ok 12 ",
    "=== RUN",
    "--- PASS",
    "SKIPPED",
    "xfail",
    "\u2713",
    "\u2714",
    "\u2717",
    "not ok",
    "src/app.py:12:",
    "a.c:3:4:",
    "file.cs(12,5)",
    "Foo.java(7)",
    'File "x.py", line 3',
    "http://host:8080/a.py:12",
    "C:\\x",
    ":5",
    "(9",
    "x:",
    "\u0130",
    "\u212a",
    "\u017f",
    "ß",
    "é",
    "\ufffd",
    "\u0663",
    "\u00e9.py:\u0663",
    "x.\u00e9:1",
    "\u2501 12:3",
    " ",
    "  ",
    "\t",
    "-",
    "/",
    ".",
    "word",
    "12",
]
_LINE = st.lists(st.sampled_from(_PIECES) | st.text(max_size=6), max_size=8).map(
    lambda pieces: "".join(pieces).replace("\n", " ")
)
_CHUNK = st.lists(_LINE, max_size=30).map("\n".join)


def _expected(chunk: str) -> tuple[list[int], list[int]]:
    lines = chunk.split("\n")
    diagnostic = [i for i, line in enumerate(lines) if facts.is_diagnostic(line)]
    located = [i for i, line in enumerate(lines) if next(facts.iter_locations(line), None)]
    return diagnostic, located


def _check(chunk: str) -> None:
    diagnostic, located = _expected(chunk)
    assert verify_scan.diagnostic_lines(chunk) == diagnostic
    assert verify_scan.located_lines(chunk) == located
    assert verify_scan.fact_lines(chunk) == sorted({*diagnostic, *located})


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_CHUNK)
def test_bulk_scans_equal_the_per_line_functions(chunk: str) -> None:
    _check(chunk)


def test_bulk_scans_equal_the_per_line_functions_on_the_corpus() -> None:
    for case in corpus.cases():
        _check(case.combined)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        _LINE.map(lambda s: s.encode("utf-8")) | st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")),
        max_size=20,
    )
)
def test_byte_offsets_are_the_lines_the_decoded_text_judges(lines: list[bytes]) -> None:
    data = b"\n".join(lines)
    decoded = [line.decode("utf-8", "replace") for line in lines]
    offsets, position = [], 0
    for line, text in zip(lines, decoded, strict=True):
        if facts.is_diagnostic(text) or next(facts.iter_locations(text), None):
            offsets.append(position)
        position += len(line) + 1
    assert verify_scan.fact_line_offsets(data) == offsets


# Path words: runs of path characters with and without "/" or ".", after ":" and after "+"/"~"
# (where the pattern's look-behind lets a word start inside a run), non-ASCII letters and marks.
_PATH_PIECES = ["a", "Z9", "_", ".", "/", ":", "+", "~", "-", "@", " ", "\n", "\t", "(", ",", "é", "│"]
_PATH_TEXT = st.lists(st.sampled_from(_PATH_PIECES) | st.text(max_size=3), max_size=40).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_PATH_TEXT)
def test_path_words_are_the_pattern_s_words(text: str) -> None:
    assert verify_scan._path_word_set(text) == set(facts._PATH_CANDIDATE.findall(text))
    assert verify_scan._path_words(text) == facts._PATH_CANDIDATE.findall(text)


@settings(max_examples=1000, deadline=None)
@given(_PATH_TEXT.map(lambda text: text.replace("\u00e9", "\u00b7")))  # marks past ASCII, no letter
def test_path_words_of_a_text_with_marks_past_ascii_are_the_pattern_s_words(text: str) -> None:
    assert verify_scan._path_words(text) == facts._PATH_CANDIDATE.findall(text)
    assert verify_scan._path_word_set(text) == set(facts._PATH_CANDIDATE.findall(text))


@settings(max_examples=500, deadline=None)
@given(st.lists(_PATH_TEXT, max_size=12), st.integers(min_value=0, max_value=12))
def test_path_words_of_lines_with_and_without_letters_past_ascii_are_the_pattern_s_words(
    lines: list[str], letters: int
) -> None:
    # lines of marks past ASCII beside lines with letters past ASCII (few, or more than the
    # ones looked for line by line): each line read the way it allows
    wide = "".join(chr(0x3b1 + index) for index in range(letters))  # Greek letters
    text = "\n".join([*(line.replace("\u00e9", "\u00b7") for line in lines), f"a/{wide}.py \u2502 x", *lines])
    assert verify_scan._path_word_set(text) == set(facts._PATH_CANDIDATE.findall(text))


def test_path_words_are_the_pattern_s_words_on_the_corpus() -> None:
    for case in corpus.cases():
        for chunk in verify_scan._chunks(case.combined):
            assert verify_scan._path_word_set(chunk) == set(facts._PATH_CANDIDATE.findall(chunk))


# Path pieces with the characters past ASCII a stand-in reads: letters (one of them as "and/or"
# reads it), digits and numbers, marks, blanks and a lone surrogate; URLs and extensions.
_NAMING_PIECES = [
    *_PATH_PIECES, "\u00e4nd/or", "x.p\u00f6", "\u0663/", "\u00b2.", "\u2501", "\u00b7", "\u3000", "\u2028",
    "\udc80", "\u212a", "http://h/a.py", "kB/s", "N/A", "a.py", "deadbee", "1234abc",
]  # fmt: skip
_NAMING_TEXT = st.lists(st.sampled_from(_NAMING_PIECES) | st.text(max_size=3), max_size=40).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_NAMING_TEXT)
def test_path_lines_are_the_lines_iter_paths_reads_a_path_on(text: str) -> None:
    expected = [i for i, line in enumerate(text.split("\n")) if next(facts.iter_paths(line), None)]
    assert verify_scan.path_lines(text) == expected
    assert verify_scan._pattern_path_lines(verify_scan._without_urls(text)) == expected


def test_path_lines_past_many_characters_past_ascii_are_read_by_the_pattern() -> None:
    many = "".join(map(chr, range(0x4E00, 0x4E00 + verify_scan._STAND_INS + 1)))
    text = f"{many} a.py\n{many}\nb/{many}"
    assert verify_scan._ascii_stand_in(text) is None
    assert verify_scan.path_lines(text) == [0, 2]


def test_path_lines_on_the_corpus() -> None:
    for case in corpus.cases():
        for chunk in verify_scan._chunks(case.combined):
            lines = chunk.split("\n")
            assert verify_scan.path_lines(chunk) == [
                i for i, line in enumerate(lines) if next(facts.iter_paths(line), None)
            ]


@settings(max_examples=1000, deadline=None)
@given(_NAMING_TEXT)
def test_commit_matches_are_the_pattern_s_matches(text: str) -> None:
    found = [(match.start(), match.group()) for match in verify_scan._commit_matches(text)]
    assert found == [(match.start(), match.group()) for match in facts._COMMIT.finditer(text)]
    assert verify_scan.commit_words(text) == facts._COMMIT.findall(text)
    expected = [i for i, line in enumerate(text.split("\n")) if next(facts.iter_commits(line), None)]
    assert verify_scan.commit_lines(text) == expected


# Commit-shaped words: hex runs of 6, 7, 40 and 41 digits, fenced by word characters or not.
_HEX_PIECES = ["abc1234", "abc123", "a" * 20 + "1" * 20, "a" * 21 + "1" * 20, "1234567", "abcdefa", "_", "g",
               "A", "-", " ", "\n", ":", "\u00e9", "\u2502", "0x"]  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_HEX_PIECES), max_size=30).map("".join))
def test_commit_words_and_lines_are_the_pattern_s(text: str) -> None:
    assert verify_scan.commit_words(text) == facts._COMMIT.findall(text)
    expected = [i for i, line in enumerate(text.split("\n")) if next(facts.iter_commits(line), None)]
    assert verify_scan.commit_lines(text) == expected


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_CHUNK)
@example("é.py:\u0663:\u0130")  # two colons whose marks share a character past ASCII
def test_colon_candidates_hold_every_colon_location(chunk: str) -> None:
    """Every ``path:line`` the colon form finds and names a file ends at a candidate colon."""
    candidates = set(verify_scan._colon_candidates(chunk))
    for match in facts._LOCATION_COLON.finditer(chunk):
        if facts._colon_location_path(match["path"]) is not None:
            assert match.end("path") in candidates


_FRAME_PIECES = st.sampled_from(
    [
        " ",
        "\t",
        "\u00a0",
        "\x1c",
        ">",
        "|",
        "\u2502",
        "-",
        "+",
        "~",
        ".",
        "...",
        "12",
        "4 4",
        "\u0663",
        "x",
        "^",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_FRAME_PIECES | _LINE, max_size=8).map("".join))
def test_the_frame_shape_pattern_is_in_frame_shape(line: str) -> None:
    line = line.replace("\n", " ")
    assert (verify_scan._IN_FRAME_SHAPE.match(line) is not None) == facts.in_frame_shape(line)


def _found_one_by_one(text: str, head: str) -> list[int]:
    positions, position = [], text.find(head)
    while position >= 0:
        positions.append(position)
        position = text.find(head, position + len(head))
    return positions


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["error", "err", "rror", "errorerror", "x", "\n", "warn", "é"]), max_size=120),
    st.integers(1, 4),
)
def test_head_positions_are_found_one_by_one(pieces: list[str], copies: int) -> None:
    """Past _SPLIT_FINDS finds a head's places come from one split: the same places."""
    text = "".join(pieces) * copies
    heads = ("error", "warn", "rr")
    expected = [position for head in heads for position in _found_one_by_one(text, head)]
    assert verify_scan._head_positions(text, heads) == expected
    encoded = text.encode("ascii", "replace")
    assert verify_scan._head_positions(encoded, tuple(h.encode() for h in heads)) == expected


@settings(max_examples=300, deadline=None)
@given(_LINE)
def test_passing_marks_are_the_passing_pre_test(line: str) -> None:
    assert facts._may_pass(line) == any(mark in line for mark in facts.PASSING_MARKS)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, min_size=1, max_size=8), st.integers(5, 40))
def test_bulk_scans_of_many_severity_words(lines: list[str], copies: int) -> None:
    """Lines repeated until their heads are found by a split (``_head_positions``)."""
    _check("\n".join(lines * copies))
