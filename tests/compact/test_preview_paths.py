"""Lines that differ only in the letters of the file they open with are read alike (preview_paths).

The bulk scan reads one line of each masked shape for all of them when its reading holds a
location: the readings (and shape-line flags) of lines masked alike are held equal, the search of
many lines held equal to masking each, and the bulk scan over files whose lines name ever other
files held equal to the per-line scan.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction import preview_bulk, preview_paths, preview_read
from tests.compact.test_preview_bulk import (
    LINES,
    REAL_LINES,
    SHAPE_LINES,
    _file,
    assert_bulk_reads_as_lines,
)

_ZERO = bytes.maketrans(b"123456789", b"000000000")


def _key(line: str) -> bytes:
    return line.encode("utf-8", "surrogatepass").translate(_ZERO)


# Words that some pattern of the reading reads as words (severity, summaries, failing tests, end
# codes, definitions, extensions, rates), put into paths to try the masking against them.
_WORDS = ["error", "errors", "warning", "fail", "FAIL", "FAILED", "ERROR", "ok", "not", "tests", "test",
          "passed", "files", "file", "found", "ran", "Found", "Ran", "def", "class", "fn", "pub",
          "commit", "Date", "CommitDate", "clippy", "report", "py", "ts", "rs", "R", "r", "c", "in",
          "kB", "s", "sec", "it", "N", "A", "I", "O", "and", "or", "w", "o", "E501", "TS2345", "src",
          "x", "deadbeef", "abc1234", "File", "line", "col", "http", "https", "skipped", "xfail"]
_PATH_PIECE = st.one_of(st.sampled_from(_WORDS), st.text(st.sampled_from("abcxyzAZ09_-.@+~/"), max_size=6))
_PATH = st.builds(
    lambda pieces, ext: "".join(pieces) + "." + ext,
    st.lists(st.tuples(_PATH_PIECE, st.sampled_from(["/", "_", "-", ".", "", "@"])).map("".join),
             min_size=0, max_size=5),
    st.sampled_from(["py", "ts", "rs", "c", "R", "txt", "x", "js", "go", "0", "a_b", "tsx"]),
)
# (leads with words are never masked: a broader masking would read the path's letters with them)
_LEAD = st.sampled_from(["", " ", "  ", "\t", "  --> ", "   -->  ", "-->", " --> \t", "3 ", "FAIL ", "ok ",
                         "error: ", "not ok 1 - ", "def ", "commit ", "= ", "Found 2 ", "  12 "])
_PLACE = st.sampled_from(["(12,5)", "(3)", "(4, 7)", "(12", "(1,", ":12:5", ":3", ":12:5:", ":7:x",
                          ":1:2:3", ":4\u0663", ":9a", "(1)x", ":5 "])
_REST = st.one_of(
    st.sampled_from([": error TS2345: Argument of type 'string'.", ": E501 Line too long (100 > 88)",
                     " F401 [*] `os` imported but unused", ": warning: unused  no-var", " 3 passed in 0.2s",
                     " FAILED tests/x.py::t - boom", ": note: see src/y.py:4 [misc]", " ... FAIL",
                     " (reportGeneralTypeIssues)", " see https://x.org/a.py:3", "", " = 2 failed =",
                     ": error: x (unused-import)", " File \"a.py\", line 3", " clippy::needless_return",
                     " 12 files would be reformatted", "  \u00d7 bad", " Found 3 errors", " \u2717 t1 x"]),
    st.sampled_from([line for line in REAL_LINES + SHAPE_LINES if "\n" not in line]).map(" ".join),
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n"), max_size=30),
)
_LOWER = "abcdefghijklmnopqrstuvwxyz"


def _renamed(line: str, start: int, end: int, letters: str) -> str:
    """``line`` with each lower-case ASCII letter of ``line[start:end]`` another (from ``letters``)."""
    chars = list(line)
    picked = iter(letters * (end - start + 1))
    for index in range(start, end):
        if "a" <= chars[index] <= "z":
            chars[index] = next(picked)
    return "".join(chars)


def _masked_span(line: str) -> tuple[int, int] | None:
    found = preview_paths._OPENING_PATH.match(_key(line))
    if found is None or "://" in line:
        return None
    start, end = found.span(1)
    return len(_key(line)[:start].decode()), len(_key(line)[:end].decode())  # the lead and path are ASCII


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lead=_LEAD, path=_PATH, place=_PLACE, rest=_REST,
       letters=st.text(st.sampled_from(_LOWER), min_size=1, max_size=8))
def test_lines_masked_alike_are_read_alike(lead: str, path: str, place: str, rest: str, letters: str) -> None:
    line = lead + path + place + rest
    span = _masked_span(line)
    if span is None:
        assert preview_paths.path_masked(_key(line)) is None
        return
    other = _renamed(line, *span, letters)
    assert preview_paths.path_masked(_key(other)) == preview_paths.path_masked(_key(line))
    read = preview_read.read_line(line)
    if read is None or not read.locations:  # not shared: each such line is read itself
        return
    assert preview_read.read_line(other) == read
    assert list(preview_bulk._flags([other])) == list(preview_bulk._flags([line]))
    assert preview_read.fact_locations(other) == preview_read.read_locations(other, read)


@settings(max_examples=300, deadline=None)
@given(keys=st.lists(st.one_of(
    st.builds(lambda lead, path, place, rest: _key(lead + path + place + rest), _LEAD, _PATH, _PLACE, _REST),
    st.sampled_from(REAL_LINES + SHAPE_LINES).map(_key),
    st.binary(max_size=20).map(lambda data: data.replace(b"\n", b" ")),
), max_size=30))
def test_the_search_of_many_lines_masks_what_masking_each_masks(keys: list[bytes]) -> None:
    each = [(key, masked) for key in keys if (masked := preview_paths.path_masked(key)) is not None]
    assert list(preview_paths.masked_lines(keys)) == each


_OPENING = re.compile(r"^(?:[ \t]*-->[ \t]+|[ \t]*)([A-Za-z0-9_.@+~/-]*)(?=\.[A-Za-z0-9_]+[(:]\d)")


def _letters(number: int) -> str:
    """``number`` in the letters a to z, lowest first ("a", "b", …, "ab")."""
    word = ""
    while True:
        number, digit = divmod(number, 26)
        word += _LOWER[digit]
        if not number:
            return word


def _folders_renamed(lines: list[str], copies: int) -> list[str]:
    """``lines`` repeated, each copy's opening paths with other letters (lines of one masked
    shape, each a shape of its own), and other digits."""
    out = []
    for copy in range(copies):
        for line in lines:
            found = _OPENING.match(line)
            if found is not None:
                line = _renamed(line, found.start(1), found.end(1), _letters(copy) + "q")
            out.append(re.sub("[0-9]", lambda digit: str((int(digit[0]) + copy) % 10), line))  # noqa: B023
    return out


FINDINGS = st.lists(
    st.one_of(
        st.builds(lambda lead, path, place, rest: [lead + path + place + rest], _LEAD, _PATH, _PLACE, _REST),
        LINES,
    ),
    min_size=1,
    max_size=30,
).map(lambda blocks: [line for block in blocks for line in block])


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=FINDINGS, copies=st.integers(1, 6), chunk_bytes=st.sampled_from([64, 700, 4096, 1 << 20]),
       max_bytes=st.sampled_from([300, 3000, 50_000]), entries=st.sampled_from([3, 40, 20_000]),
       kept=st.sampled_from([4, 1 << 16]), cleaned=st.booleans())
def test_the_bulk_scan_of_lines_naming_other_files_finds_what_the_line_by_line_scan_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], copies: int, chunk_bytes: int,
    max_bytes: int, entries: int, kept: int, cleaned: bool,
) -> None:
    assert_bulk_reads_as_lines(monkeypatch, _file(tmp_path, _folders_renamed(lines, copies), cleaned),
                               chunk_bytes, max_bytes, entries, kept)


def test_a_type_checker_over_many_folders_reads_one_line_of_each_masked_shape(tmp_path: Path) -> None:
    sample = ["src/app/parse.ts(69,36): error TS2345: Argument of type 'string' is not assignable.",
              "  Type 'number' is not assignable to type 'string'.",
              "src/app/url.ts(30,29): error TS2345: Argument of type 'string' is not assignable."]
    lines = _folders_renamed(sample, 400)
    source = _file(tmp_path, lines, True)
    bulk = preview_bulk.BulkScan(source.raw_bodies(1 << 20), True, source._decoded, 50_000, 2000)
    assert bulk.known.count < 10  # one reading for each of the masked shapes, not one a copy
    assert len(bulk.digest.files) > 400
