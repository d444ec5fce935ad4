"""The FTS5 index over a session's captures: line numbers, query safety, bounds, pruning."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.compaction.clean import clean_line
from tersh.execution import pipeline
from tersh.recording import captures as capture
from tersh.retrieval import pages as retrieval
from tersh.retrieval import search_index
from tersh.retrieval.search_index import Source


def make_capture(data: bytes, command: str = "some-command") -> Source:
    """Store ``data`` as a real capture (through the pipeline) and describe it as a source."""
    result = pipeline.compact(command, 0, combined=data)
    assert result.capture_id is not None
    return Source(result.capture_id, command, time.time(), len(data))


def indexed_ids() -> list[str]:
    with contextlib.closing(search_index.connect()) as db:
        return [row[0] for row in db.execute("SELECT capture_id FROM docs ORDER BY capture_id")]


def line_rows() -> int:
    with contextlib.closing(search_index.connect()) as db:
        return int(db.execute("SELECT COUNT(*) FROM lines").fetchone()[0])


LOG = b"".join(b"INFO step %d done\n" % n for n in range(1, 400)) + (
    b"\x1b[31mERROR\x1b[0m src/app.py:42: frobnicated the widget\n"
    b"WARN disk almost full\n"
)


# --- pure pieces --------------------------------------------------------------------------------

lines_text = st.lists(
    st.text(alphabet=st.sampled_from([*"ab é\r\t\x1b[0m;", "\x00", "✓"]), max_size=12),
    max_size=12,
)


@given(lines_text, st.booleans())
@settings(max_examples=150, deadline=None)
def test_capture_lines_are_numbered_as_retrieve_numbers_them(
        lines: list[str], final_newline: bool) -> None:
    data = "\n".join(lines).encode() + (b"\n" if final_newline and lines else b"")
    path = Path(capture.store_dir().parent / "probe.txt")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    numbered, _, total = retrieval.read_lines(path, 0, 2000)
    ours = search_index.capture_lines(data)
    assert len(ours) == total == len(numbered)
    for (_, text), clean in zip(numbered, ours, strict=True):
        assert clean == clean_line(text)


@given(st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_any_query_gives_valid_fts5_or_none(query: str) -> None:
    expression = search_index.match_expression(query)
    if expression is None:
        assert not any(ch.isalnum() for ch in query)
        return
    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        db.execute("CREATE VIRTUAL TABLE lines USING fts5(text)")
        db.execute("INSERT INTO lines VALUES (?)", (query,))
        rows = db.execute("SELECT rowid FROM lines WHERE lines MATCH ?", (expression,)).fetchall()
    assert rows == [(1,)]  # a line holding the query's text always matches it


def test_snippet_is_bounded_and_centred_on_the_word() -> None:
    text = "x" * 1000 + " needle " + "y" * 1000
    piece = search_index.snippet(text, ["needle"])
    assert "needle" in piece and len(piece) <= search_index.SNIPPET_CHARS + 2
    assert piece.startswith("…") and piece.endswith("…")


# --- searching real captures --------------------------------------------------------------------


def test_indexed_search_finds_exact_line_numbers_and_clean_text() -> None:
    source = make_capture(LOG)
    found = search_index.search("frobnicated widget", [source])
    assert found.engine == "fts5" and found.searched == 1
    assert [(hit.capture_id, hit.line) for hit in found.hits] == [(source.capture_id, 400)]
    assert found.hits[0].text == "ERROR src/app.py:42: frobnicated the widget"
    page = retrieval.retrieve(source.capture_id, offset=399, limit=1)
    assert page.lines[0][0] == 400 and "frobnicated" in page.lines[0][1]
    assert indexed_ids() == [source.capture_id]


def test_words_match_anywhere_in_the_line_and_as_prefixes() -> None:
    source = make_capture(LOG)
    assert [h.line for h in search_index.search("widget frobni", [source]).hits] == [400]
    assert [h.line for h in search_index.search("app.py:42", [source]).hits] == [400]
    assert search_index.search("widget missing", [source]).hits == []


def test_limit_and_more_count_every_match() -> None:
    source = make_capture(LOG)
    found = search_index.search("step", [source], limit=5)
    assert [hit.line for hit in found.hits] == [1, 2, 3, 4, 5]
    assert found.more == 399 - 5


def test_newest_capture_first_across_sources() -> None:
    old = make_capture(b"alpha shared\n")
    new = make_capture(b"beta\nshared gamma\n")
    found = search_index.search("shared", [new, old])
    where = [(h.capture_id, h.line) for h in found.hits]
    assert where == [(new.capture_id, 2), (old.capture_id, 1)]


@pytest.mark.parametrize("mode", ["too_large", "no_fts5"])
def test_scanned_captures_answer_like_indexed_ones(
        mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = make_capture(LOG)
    expected = [(h.line, h.text) for h in search_index.search("frobnicated widget", [source]).hits]
    shutil.rmtree(search_index.index_path().parent)
    if mode == "too_large":
        monkeypatch.setattr(search_index, "MAX_INDEX_BYTES", 100)
    else:
        monkeypatch.setattr(search_index, "_fts5", [False])
    found = search_index.search("frobnicated widget", [source])
    assert [(h.line, h.text) for h in found.hits] == expected
    assert found.engine == ("fts5" if mode == "too_large" else "substring")
    if mode == "too_large":
        assert indexed_ids() == []


def test_a_query_without_words_is_a_substring_scan() -> None:
    source = make_capture(b"a :: b\nplain\n::\n")
    found = search_index.search("::", [source])
    assert found.engine == "substring" and [h.line for h in found.hits] == [1, 3]


def test_one_search_indexes_a_bounded_amount(monkeypatch: pytest.MonkeyPatch) -> None:
    first = make_capture(LOG)
    second = make_capture(LOG.replace(b"widget", b"gadget"))
    monkeypatch.setattr(search_index, "MAX_INDEX_PER_SEARCH", len(LOG) + 10)
    found = search_index.search("frobnicated", [first, second])
    assert len(found.hits) == 2 and found.searched == 2  # the second was scanned
    assert indexed_ids() == [first.capture_id]
    search_index.search("frobnicated", [first, second])
    assert sorted(indexed_ids()) == sorted([first.capture_id, second.capture_id])


def test_scan_budget_reports_captures_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    source = make_capture(LOG)
    monkeypatch.setattr(search_index, "MAX_INDEX_BYTES", 100)
    monkeypatch.setattr(search_index, "MAX_SCAN_BYTES", 100)
    found = search_index.search("frobnicated", [source])
    assert found.hits == [] and found.searched == 0
    assert found.skipped == [f"{source.capture_id} {search_index.TOO_LARGE}"]


def test_rows_of_evicted_captures_are_pruned() -> None:
    gone = make_capture(LOG)
    kept = make_capture(b"frobnicated too\n")
    search_index.search("frobnicated", [gone, kept])
    rows_before = line_rows()
    shutil.rmtree(capture.store_dir() / gone.capture_id)
    found = search_index.search("frobnicated", [gone, kept])
    assert found.skipped == [f"{gone.capture_id} (expired)"]
    assert [h.capture_id for h in found.hits] == [kept.capture_id]
    assert indexed_ids() == [kept.capture_id]
    assert line_rows() == rows_before - LOG.count(b"\n")


def test_concurrent_searches_index_a_capture_once() -> None:
    source = make_capture(LOG)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            search_index.search("widget", [source])
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert indexed_ids() == [source.capture_id]
    assert line_rows() == LOG.count(b"\n")


def test_index_files_are_private() -> None:
    search_index.search("x", [make_capture(b"x\n")])
    folder = search_index.index_path().parent
    assert folder.stat().st_mode & 0o777 == 0o700
    assert search_index.index_path().stat().st_mode & 0o777 == 0o600


def test_index_refuses_a_symlinked_database(tmp_path: Path) -> None:
    folder = search_index.index_path().parent
    folder.mkdir(parents=True, mode=0o700)
    target = tmp_path / "elsewhere.db"
    target.write_bytes(b"")
    search_index.index_path().symlink_to(target)
    with pytest.raises(Exception, match="symbolic link"):
        search_index.search("x", [make_capture(b"x\n")])
    assert target.read_bytes() == b""


# --- which captures are the session's -----------------------------------------------------------


def test_session_sources_follow_the_ledger_else_the_start_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERSH_SESSION", "session-one")
    ours = [make_capture(b"one\n", "cmd one"), make_capture(b"two\n", "cmd two")]
    monkeypatch.setenv("TERSH_SESSION", "session-two")
    theirs = make_capture(b"three\n", "cmd three")
    listed = search_index.session_sources("session-one", since=time.time() + 3600)
    assert [s.capture_id for s in listed] == [ours[1].capture_id, ours[0].capture_id]
    assert [s.command for s in listed] == ["cmd two", "cmd one"]
    assert {s.capture_id for s in search_index.session_sources("unknown", since=0)} == {
        *(s.capture_id for s in ours), theirs.capture_id}
    assert search_index.session_sources("unknown", since=time.time() + 3600) == []
