"""The bulk scan of a large file (each shape of line read once) finds what the per-line scan finds.

``preview_bulk.BulkScan`` is held equal to ``preview._Scan`` reading the lines one at a time
(the Python search offering the candidate lines): the index with its entries in order, their
counts, the first location of each file, what was left out, the earliest fact lines and shape
lines, and whether grouped findings are read. Chunks are made small so that shapes, Date
headers, underlines and group headers fall across their edges; tables are made small so that
the index fills up within a chunk (read line by line then).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction import preview, preview_bulk, preview_read

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLES = [
    "eslint/eslint-unix-many.txt",
    "pylint/pylint-parseable-idna.txt",
    "mypy/mypy-pretty-many.txt",
    "pytest/mixed-failures-v.out",
    "ruff/ruff-full-frames-pytest.txt",
    "generic/npm-pack-dry-run/combined",
]
REAL_LINES = [
    line for name in SAMPLES for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines()
]
SHAPE_LINES = [
    "commit 4d6dbeea3ab16f651082abeb44ec06a56082a49a", "Date:   Tue Apr 28 13:44:29 2026 -0300", "",
    "    Details of the change", "Title", "=====", "-----", "src/pkg/ (3)", "src/app.py (2)",
    "  12:4 30:1 unused import", "   7:1  error  Unexpected var  no-var", " entry", "def main():",
    "## Heading (12)", "E501 [*] Line too long", "F401 `os` imported but unused",
    "see https://example.com/a/b.py:12 error", "\x1b[31merror\x1b[0m: src/x.rs:3:4", "a\rsrc/b.py:1: fail",
    "tests/test_a.py::test_b FAILED", "FAIL: test_c (pkg.tests.T)", "== 3 failed, 2 passed in 0.52s ==",
    "Found 12 errors.", "naïve café.py:3: warning ×", "x" * 300 + " src/long.py:9:1 error  some-rule",
    '  File "/srv/app/main.py", line 42, in run', "lib/x.py:\u0663: note", "E\u0661\u0662\u0663 [*] code",
    "Traceback (most recent call last):", "thread 'main' panicked at src/main.rs:2:5:",
]  # fmt: skip
# Lines that make shape lines of their neighbours: a commit's subject, a setext heading, groups.
BLOCKS = [
    ["commit 2d9d87bd745c2c754d674fc54f24beb0fbf51ff2", "Author: A <a@b.org>",
     "Date:   Wed Apr 29 15:17:55 2026 -0300", "", "    Small correction in luaP_opmodes", ""],
    ["Title", "====="], ["Notes (3)", "---"], ["src/app.py (2)", "  12:4 30:1 unused import", "  40:2 x"],
    ["lib/", " a.py", " b.py"], ["pkg/mod.py (1,204)", " 3:1 E501 line too long"],
]  # fmt: skip
ANY_LINE = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n"), max_size=60)
def _one(line: str) -> list[str]:
    return [line]


def _flat(blocks: list[list[str]]) -> list[str]:
    return [line for block in blocks for line in block]


LINES = st.lists(
    st.one_of(
        st.sampled_from(REAL_LINES).map(_one),
        st.sampled_from(SHAPE_LINES).map(_one),
        st.sampled_from(BLOCKS),
        ANY_LINE.map(_one),
        st.text(st.sampled_from("aZ09 :./()[]-_\"'FILEoknt×✗=\x1b\r"), max_size=40).map(_one),
    ),
    min_size=1,
    max_size=60,
).map(_flat)


def _varied(lines: list[str], copies: int) -> list[str]:
    """``lines`` repeated, each copy's digits changed (lines of the same shapes, other numbers)."""
    def shifted(copy: int) -> Callable[[re.Match[str]], str]:
        return lambda digit: str((int(digit[0]) + copy) % 10)

    return [re.sub("[0-9]", shifted(copy), line) for copy in range(copies) for line in lines]


def _state(scan: preview._Scan) -> dict[str, object]:
    digest = {name: list(value.items()) if isinstance(value, dict) else value
              for name, value in vars(scan.digest).items()}
    return {"digest": digest, "facts": scan.facts, "shapes": scan.shapes, "grouped": scan.grouped}


def _by_lines(source: preview._File, max_bytes: int, line_cap: int) -> preview._Scan:
    scan = preview._Scan.__new__(preview._Scan)
    scan._scan(source, max_bytes, line_cap, None)
    return scan


def _in_bulk(source: preview._File, max_bytes: int, line_cap: int, chunk_bytes: int) -> preview._Scan:
    bulk = preview.bulk_scan(source, max_bytes, line_cap, chunk_bytes)
    assert bulk.lines == preview._count_lines(source.path)[0]  # the lines it counts on its way
    scan = preview._Scan.__new__(preview._Scan)
    scan.digest = bulk.digest
    scan._finish(source, bulk.facts, bulk.shapes, bulk.grouped, None)
    return scan


def _file(tmp_path: Path, lines: list[str], cleaned: bool) -> preview._File:
    path = tmp_path / "out.txt"
    path.write_bytes("".join(f"{line}\n" for line in lines).encode("utf-8", "surrogatepass"))
    total, size = preview._count_lines(path)
    return preview._File(path, total, size, cleaned)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=LINES, copies=st.integers(1, 4), chunk_bytes=st.sampled_from([64, 700, 4096, 1 << 20]),
       max_bytes=st.sampled_from([300, 3000, 50_000]), entries=st.sampled_from([3, 40, 20_000]),
       kept=st.sampled_from([4, 1 << 16]), cleaned=st.booleans(), most=st.sampled_from([1, 3, 64]))
def test_the_bulk_scan_finds_what_the_line_by_line_scan_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], copies: int, chunk_bytes: int,
    max_bytes: int, entries: int, kept: int, cleaned: bool, most: int,
) -> None:
    monkeypatch.setattr(preview_bulk, "LINE_BY_LINE_MOST", most)  # the halves counted apart
    assert_bulk_reads_as_lines(monkeypatch, _file(tmp_path, _varied(lines, copies), cleaned),
                               chunk_bytes, max_bytes, entries, kept)


def assert_bulk_reads_as_lines(monkeypatch: pytest.MonkeyPatch, source: preview._File,
                               chunk_bytes: int, max_bytes: int, entries: int, kept: int) -> None:
    """The bulk scan of ``source`` (``entries`` digest entries, ``kept`` shapes remembered)
    leaves the state the line-by-line scan leaves."""
    monkeypatch.setattr(preview_read, "DIGEST_ENTRIES", entries)
    monkeypatch.setattr(preview_bulk, "DIGEST_ENTRIES", entries)
    monkeypatch.setattr(preview_bulk, "SHAPES_KEPT", kept)
    line_cap = preview._line_cap(max_bytes)
    expected = _state(_by_lines(source, max_bytes, line_cap))
    assert _state(_in_bulk(source, max_bytes, line_cap, chunk_bytes)) == expected


@pytest.mark.parametrize("name", SAMPLES)
def test_the_bulk_scan_reads_real_outputs_as_the_line_by_line_scan(tmp_path: Path, name: str) -> None:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    source = _file(tmp_path, _varied(lines, 12), True)
    for max_bytes in (2000, 50_000):
        line_cap = preview._line_cap(max_bytes)
        expected = _state(_by_lines(source, max_bytes, line_cap))
        for chunk_bytes in (5000, 1 << 20):
            assert _state(_in_bulk(source, max_bytes, line_cap, chunk_bytes)) == expected


@pytest.mark.parametrize("dense", [True, False])
def test_a_large_file_dense_with_facts_is_scanned_in_bulk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dense: bool
) -> None:
    lines = [f"src/mod{n % 50}.py:{n}:4: error: E{n % 7}01 bad" if dense or n % 1000 == 0
             else f"step {n} compiled" for n in range(40_000)]
    lines[20_001] = "src/app.py:12:4: error: the one that matters"
    source = _file(tmp_path, lines, True)
    assert source.size >= preview.BULK_MIN_BYTES
    scanned: list[int] = []
    real = preview.bulk_scan

    def counted(*args: object) -> preview_bulk.BulkScan:
        scanned.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(preview, "bulk_scan", counted)
    shown = preview.bound_file(source.path, 200, 8000)
    assert bool(scanned) == dense
    assert "src/app.py" in shown.text
    line_cap = preview._line_cap(8000)
    assert _state(preview._Scan(source, 8000, line_cap, source.size)) == _state(
        _by_lines(source, 8000, line_cap))


@pytest.mark.parametrize("chunk_bytes", [64, 1 << 20])
def test_the_bulk_scan_reads_each_sample_line_as_the_line_by_line_scan(
    tmp_path: Path, chunk_bytes: int
) -> None:
    lines = _varied(SHAPE_LINES + _flat(BLOCKS), 3)
    for cleaned in (True, False):
        source = _file(tmp_path, lines, cleaned)
        for max_bytes in (300, 50_000):
            line_cap = preview._line_cap(max_bytes)
            expected = _state(_by_lines(source, max_bytes, line_cap))
            assert _state(_in_bulk(source, max_bytes, line_cap, chunk_bytes)) == expected


def _bodies_read_plainly(path: Path, size: int) -> list[bytes]:
    """The chunks of whole lines of a file, each block joined to the carry and cut (a giant line
    by its first GIANT_LINE bytes): what ``_File.raw_bodies`` yields, the straightforward way."""
    bodies: list[bytes] = []
    carry, skipping = b"", False
    with open(path, "rb") as handle:
        while block := handle.read(size):
            if skipping:
                newline = block.find(b"\n")
                if newline < 0:
                    continue
                block, skipping = block[newline + 1 :], False
            block = carry + block
            cut = block.rfind(b"\n") + 1
            if cut:
                bodies.append(block[:cut])
            carry = block[cut:]
            if len(carry) > preview.GIANT_LINE:
                bodies.append(carry[: preview.GIANT_LINE] + b"\n")
                carry, skipping = b"", True
    return [*bodies, carry + b"\n"] if carry else bodies


@pytest.mark.parametrize("final_newline", [True, False])
def test_the_bulk_scan_reads_and_counts_giant_lines_by_their_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, final_newline: bool
) -> None:
    monkeypatch.setattr(preview, "GIANT_LINE", 100)  # a line past it is read by its start
    lines = ["src/a.py:1:2: error: short", "x" * 60 + " src/b.py:3:4 error", "y" * 400 + " src/c.py:5 fail",
             "src/d.py:6:7: warning: after", "z" * 1000, "E501 [*] tail", "w" * 250]
    path = tmp_path / "out.txt"
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")
    total, size = preview._count_lines(path)
    for chunk_bytes in (16, 64, 150, 333, 1 << 20):
        source = preview._File(path, total, size, True)
        assert list(source.raw_bodies(chunk_bytes)) == _bodies_read_plainly(path, chunk_bytes)
        bulk = preview.bulk_scan(source, 3000, preview._line_cap(3000), chunk_bytes)
        assert bulk.lines == total == len(lines)


def test_a_file_over_the_bounds_has_its_lines_counted_by_the_bulk_scan(tmp_path: Path) -> None:
    lines = [f"src/mod{n % 50}.py:{n}:4: error: E{n % 7}01 bad" for n in range(20_000)]
    path = tmp_path / "out.txt"
    path.write_text("\n".join(lines), encoding="utf-8")  # no final newline
    shown = preview.bound_file(path, 200, 8000)
    assert shown.total_lines == preview._count_lines(path)[0] == 20_000


_KEY = st.binary(max_size=50).map(lambda raw: raw.replace(b"\n", b" ").translate(preview_bulk._ZERO))
_WORDY_KEY = st.lists(
    st.sampled_from([b"ERROR", b"Warn", b"fail", b"File \"", b":0", b"(0", b"0 ", b"x", b" ", b"\xc3\xa9",
                     b"panic", b"abort", b"Assert", b"/", b"."]),
    max_size=8,
).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(keys=st.lists(st.one_of(_KEY, _WORDY_KEY, st.sampled_from([line.encode() for line in SHAPE_LINES])),
                     max_size=40))
def test_the_candidate_shapes_are_those_holding_a_mark_or_a_severity_word(keys: list[bytes]) -> None:
    expected = [index for index, key in enumerate(keys)
                if not key.isascii() or any(mark in key.lower() for mark in preview_bulk._SHAPE_MARKS)
                or any(stem in key.lower() for stem in preview_bulk._STEMS)]
    assert preview_bulk._candidates(keys) == expected


def _carries(line: str) -> bool:
    """Whether ``line`` is a fact line or opens with a code (what a candidate may be)."""
    return preview_read.is_fact_line(line) or preview_read._CODE_HEAD.match(line) is not None


def _missed(lines: list[str]) -> list[str]:
    """The lines of ``lines`` that carry a fact or open with a code but are no candidate."""
    keys = [line.encode("utf-8", "surrogatepass").translate(preview_bulk._ZERO) for line in lines]
    candidates = set(preview_bulk._candidates(keys))
    return [line for index, line in enumerate(lines) if _carries(line) and index not in candidates]


# Lines a candidate holds no severity word but "error" of, or three digits and a space of.
CARRYING = ["AssertionError: 1 != 2", "E   assertionerror", "x.ASSERTERROR y", "E501 [*] too long",
            "ABCD12345 [-] fix", "W0612 unused", 'File "/srv/a.py", line 12, in f']


def test_every_sample_line_that_carries_a_fact_is_a_candidate() -> None:
    assert all(map(_carries, CARRYING))
    assert _missed(REAL_LINES + SHAPE_LINES + CARRYING) == []


@settings(max_examples=300, deadline=None)
@given(lines=LINES)
def test_every_line_that_carries_a_fact_or_opens_with_a_code_is_a_candidate(lines: list[str]) -> None:
    assert _missed(lines) == []


@settings(max_examples=200, deadline=None)
@given(lines=LINES, copies=st.integers(1, 3))
def test_the_bulk_probe_weighs_each_shape_by_its_lines(lines: list[str], copies: int) -> None:
    start = "".join(line + "\n" for line in _varied(lines, copies)).encode("utf-8", "surrogatepass")
    keys = start.translate(preview_bulk._ZERO).split(b"\n")[:-1]
    known = preview_bulk._Shapes()
    known.numbers(keys)
    hits = sum(bool(shape.selected) + shape.marked for shape in known.shapes(keys))
    assert preview_bulk.worth_reading_in_bulk(start) == (hits >= preview_bulk.DENSE_SHARE * len(keys))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.text(st.sampled_from("ab 09:é\t"), max_size=12), min_size=1, max_size=40),
       data=st.data())
def test_the_lines_cut_out_of_a_chunk_are_its_split_lines(
    monkeypatch: pytest.MonkeyPatch, lines: list[str], data: st.DataObject
) -> None:
    monkeypatch.setattr(preview_bulk, "SPARSE_SHARE", 1.0)  # always cut out
    chunk = "".join(line + "\n" for line in lines)
    raw = chunk.encode("utf-8")
    keys = raw.translate(preview_bulk._ZERO).split(b"\n")[:-1]
    indexes = sorted(data.draw(st.sets(st.integers(0, len(lines) - 1), min_size=1)))
    found = preview_bulk._lines_at(chunk, raw, keys, indexes)
    assert [found[index] for index in indexes] == [lines[index] for index in indexes]
