"""The lines around shape marks, found in-process, are what grep prints for the same pattern."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction import preview, preview_read

GREP = shutil.which("grep")
pytestmark = pytest.mark.skipif(GREP is None, reason="needs the system's grep as the reference")

# Pieces that make or nearly make a _GREP_CONTEXT line, and plain ones.
_PIECES = st.sampled_from(
    [
        "Date:",
        "CommitDate:",
        "Date",
        "===",
        "---",
        "--",
        "==",
        "/",
        " (",
        "(",
        ")",
        "12",
        "1,2",
        ",",
        "0",
        " ",
        "a",
        "x/y",
        "\r",
        "\t",
        "\x1b[31m",
        "é",
        "\x00",
        " (3)",
        " (,1)",
        " (1,)",
        "((2)",
    ]
)
_LINE = st.lists(_PIECES, max_size=12).map("".join)
_TEXT = st.lists(_LINE, max_size=40).map("\n".join)


def _by_grep(path: Path, cleaned: bool) -> list[tuple[int, str]]:
    assert GREP is not None
    output = subprocess.run(
        [GREP, "-n", "-a", "-E", "-A2", "-B1", "--", preview._GREP_CONTEXT, str(path)],
        capture_output=True,
        env={"LC_ALL": "C"},
        check=False,
    ).stdout
    return list(preview._grep_block(output, cleaned)) if output else []  # as grep's pipe is read


def _in_process(data: bytes, cleaned: bool, block: int) -> list[tuple[int, str]]:
    blocks = [data[start : start + block] for start in range(0, len(data), block)]
    return list(preview._Context(cleaned).lines(blocks))


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    text=_TEXT,
    final_newline=st.booleans(),
    cleaned=st.booleans(),
    block=st.integers(1, 64),
    giant=st.integers(4, 40),
)
def test_context_lines_match_grep(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    final_newline: bool,
    cleaned: bool,
    block: int,
    giant: int,
) -> None:
    data = (text + ("\n" if final_newline and text else "")).encode("utf-8")
    path = tmp_path / "out.txt"
    path.write_bytes(data)
    monkeypatch.setattr(preview, "GIANT_LINE", giant)  # lines past it are held by their start
    assert _in_process(data, cleaned, block) == _by_grep(path, cleaned)


def test_context_lines_match_grep_on_long_lines_and_big_files(tmp_path: Path) -> None:
    rows = []
    for n in range(3000):
        rows.append(f"entry {n}" + ("/" if n % 97 == 0 else "") + (" (12)" if n % 89 == 0 else ""))
        if n % 500 == 0:
            rows += ["Date:   Mon", "", "    subject", "=" * 5, "x" * (preview.GIANT_LINE + 10) + " (1,234)"]
    data = ("\n".join(rows) + "\n").encode()
    path = tmp_path / "big.txt"
    path.write_bytes(data)
    expected = _by_grep(path, False)
    assert len(expected) > 100
    assert _in_process(data, False, preview.SCAN_CHUNK) == expected
    assert _in_process(data, False, 1 << 16) == expected


@settings(max_examples=500, deadline=None)
@given(
    raw=st.binary(max_size=40)
    | st.text(alphabet=st.sampled_from("ab\t\r\x1b[0mK\x08\x7f\x00 1G"), max_size=30).map(str.encode),
    cleaned=st.booleans(),
)
def test_a_file_line_reads_as_decoded_and_cleaned(raw: bytes, cleaned: bool) -> None:
    from tersh.compaction.clean import clean_line

    source = preview._File("unused", 0, 0, cleaned)
    text = preview.decode(raw)
    assert source._text(raw) == (clean_line(text) if cleaned else text)


@settings(max_examples=300, deadline=None)
@given(
    text=st.binary(max_size=200).map(lambda data: data.replace(b"x", b"\n")),
    block=st.integers(1, 50),
    picks=st.lists(st.integers(0, 200), max_size=20),
)
def test_line_numbers_of_offsets_count_the_newlines_before_them(
    text: bytes, block: int, picks: list[int]
) -> None:
    offsets = sorted(min(pick, len(text)) for pick in picks)
    numbers = preview._LineNumbers(iter([text[at : at + block] for at in range(0, len(text), block)]))
    assert [numbers.at(offset) for offset in offsets] == [text[:offset].count(b"\n") for offset in offsets]


_SUMMARY_PIECES = st.sampled_from(
    [
        "3 passed",
        "1,204 failed",
        " 2 errors",
        "5 Warnings",
        "1 problem",
        "7 tests",
        "2 skipped",
        "1 issue",
        "4 files reformatted",
        "9 files would be reformatted",
        "Found 3",
        "Ran 12",
        "=== 3 passed in 0.12s ===",
        "=",
        " in 1.5s",
        "found",
        "ran",
        "PASSED",
        "Paſſed",
        "\u212a",
        "\u0130",
        "\u0131",
        "é",
        "١",
        " ",
        "x",
        "2",
    ]
)


# The patterns as first written (one search each, no literal search before them): what the
# faster forms in preview_read must find, line for line.
_PLAIN_SUMMARY = re.compile(
    r"(?<![:.])\b\d[\d,]* (?:passed|failed|errors?|warnings?|problems?|tests?|skipped|issues?|files?"
    r" (?:would be )?(?:reformatted|changed|left unchanged|checked))\b|^(?:Found|Ran) \d"
    r"|^=+ .*\bin \d[\d.]*s\b",
    re.IGNORECASE,
)
_PLAIN_ENTRY_PLACES = re.compile(r"[ \t]+\d+(?::\d+)?(?: \d+(?::\d+)?)*(?= )")
_PLAIN_CODE = re.compile(r"(?<![\w-])[A-Z]{1,4}\d{3,5}(?![\w-])|clippy::\w+")


def _plain_summary_on(line: str) -> bool:
    places = _PLAIN_ENTRY_PLACES.match(line)
    return _PLAIN_SUMMARY.search(line, places.end() if places is not None else 0) is not None


_GROUPED_PLACES = st.sampled_from(["  19 52 59", "  7:1 8:3", "\t4", "  12:5"])


@settings(max_examples=2000, deadline=None)
@given(
    places=st.just("") | _GROUPED_PLACES,
    line=st.lists(_SUMMARY_PIECES, max_size=6).map("".join) | st.text(max_size=40),
)
def test_a_summary_is_found_as_the_plain_pattern_finds_it(places: str, line: str) -> None:
    line = places + line
    assert preview_read.summary_on(line) == _plain_summary_on(line)


_CODE_PIECES = st.sampled_from(
    [
        *("E501", "TS2322", "SC2086", "c0301", "ABCD12345", "ABCDE123", "E12", "E123456"),
        *("clippy::needless_return", "clippy::A123", "no-var", "[attr-defined]", "(reportReturnType)"),
        *("(too-many-lines)", "  complexity", "-", "_", "x", "Y", "1", " ", "  ", "\t", ":", "[", "]"),
        *("(", ")", "é", "\u00a0", "\u2003", "\x1c"),
    ]
)


@settings(max_examples=2000, deadline=None)
@given(line=st.lists(_CODE_PIECES, max_size=12).map("".join) | st.text(max_size=60))
def test_codes_and_end_codes_are_found_as_the_plain_patterns_find_them(line: str) -> None:
    assert [found.span() for found in preview_read._code_pattern(line).finditer(line)] == [
        found.span() for found in _PLAIN_CODE.finditer(line)
    ]
    long_line = "x" * 130 + line  # the end code is searched for within the last characters only
    for text in (line, long_line):
        start = max(0, len(text) - preview_read._END_CODE_REACH)
        plain = preview_read._END_CODE.search(text, start)
        found = preview_read._end_code(text)
        assert (found and found.span()) == (plain and plain.span())


def _tail_before(source: preview._File) -> list[tuple[int, str]]:
    """The tail as it was read before (a buffer grown by copying), the reference."""
    out = []
    with open(source.path, "rb") as handle:
        end = source.size
        if source.size:
            handle.seek(source.size - 1)
            if handle.read(1) == b"\n":
                end = source.size - 1
        buf, buf_start, hi, number = b"", end, 0, source.total - 1
        while number >= 0:
            newline = buf.rfind(b"\n", 0, hi)
            if newline >= 0:
                out.append((number, source._text(buf[newline + 1 : hi])))
                number -= 1
                hi = newline
                continue
            if buf_start == 0 or hi > preview.GIANT_LINE:
                out.append((number, source._text(buf[max(0, hi - preview.GIANT_LINE) : hi])))
                break
            step = min(1 << 16, buf_start)
            buf_start -= step
            handle.seek(buf_start)
            buf = handle.read(step) + buf[:hi]
            hi = len(buf)
    return out


def _head_before(source: preview._File, limit: int) -> list[tuple[int, str]]:
    """The head as it was read before (the rest of a long line skipped by readline)."""
    out = []
    with open(source.path, "rb") as handle:
        for number in range(source.total):
            raw = handle.readline(limit)
            if len(raw) == limit and not raw.endswith(b"\n"):
                while (rest := handle.readline(preview.SCAN_CHUNK)) and not rest.endswith(b"\n"):
                    pass
            out.append((number, source._text(raw.rstrip(b"\n"))))
    return out


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    lengths=st.lists(st.integers(0, 300_000), min_size=1, max_size=6),
    final_newline=st.booleans(),
    giant=st.integers(1, 200_000),
    limit=st.integers(1, 200_000),
)
def test_a_file_reads_from_both_ends_as_before(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lengths: list[int],
    final_newline: bool,
    giant: int,
    limit: int,
) -> None:
    data = b"\n".join(bytes([97 + n % 26]) * length for n, length in enumerate(lengths))
    data += b"\n" if final_newline else b""
    path = tmp_path / "long.txt"
    path.write_bytes(data)
    monkeypatch.setattr(preview, "GIANT_LINE", giant)
    total, size = preview._count_lines(path)
    source = preview._File(path, total, size, True)
    assert list(source.tail()) == _tail_before(source)
    assert list(source.head(limit)) == _head_before(source, limit)


def test_a_grep_that_fails_leaves_the_scan_to_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    refusing = folder / "grep"
    refusing.write_text("#!/bin/sh\necho 'grep: unknown option' >&2\nexit 2\n")
    refusing.chmod(0o755)
    rows = [f"step {n} compiled" for n in range(40_000)]
    rows[20_000] = "src/app.py:12:4: error: the one that matters"
    path = tmp_path / "build.log"
    path.write_text("\n".join(rows) + "\n")
    monkeypatch.setattr(preview, "_grep", lambda: None)
    by_python = preview.bound_file(path, 200, 8000)
    monkeypatch.setattr(preview, "_grep", lambda: str(refusing))
    assert preview.bound_file(path, 200, 8000) == by_python
    assert "the one that matters" in by_python.text


class _GiantEndPlainly:
    """What ``preview._GiantEnd`` holds, every piece joined to the last byte and stripped whole."""

    def __init__(self) -> None:
        self.head = self.last = self.last2 = self.run_first = self.before_run = b""
        self.run = 0

    def feed(self, piece: bytes) -> None:
        if not piece:
            return
        if len(self.head) < 16:
            self.head += piece[: 16 - len(self.head)]
        held = self.last + piece[:-1]
        self.last = piece[-1:]
        kept = held.rstrip(b"0123456789,")
        if not kept:
            if not self.run:
                self.run_first, self.before_run = held[:1], self.last2
            self.run += len(held)
        else:
            self.run = len(held) - len(kept)
            self.run_first = held[len(kept) : len(kept) + 1]
            self.before_run = (self.last2 + kept)[-2:]
        self.last2 = (self.last2 + held)[-2:]


_END_BYTES = st.binary(max_size=8) | st.sampled_from(
    [b" (", b"(", b")", b"/", b"12", b"1,2", b",", b"x", b"Date:"])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.lists(_END_BYTES, max_size=40).map(b"".join), max_size=6),
       padding=st.lists(st.integers(0, 200), min_size=6, max_size=6))
def test_a_giant_line_end_is_read_as_by_joining_every_piece(pieces: list[bytes], padding: list[int]) -> None:
    fast, plain = preview._GiantEnd(), _GiantEndPlainly()
    for piece, pad in zip(pieces, padding, strict=False):
        piece = b"a" * pad + piece  # long pieces too (read by their last bytes)
        fast.feed(piece)
        plain.feed(piece)
        assert vars(plain) == {name: getattr(fast, name) for name in vars(plain)}
    assert fast.matches() == (plain.last == b"/" or plain.head.startswith(preview._CONTEXT_HEADS) or (
        plain.last == b")" and plain.run > 0 and plain.run_first.isdigit() and plain.before_run == b" ("))
