"""Full-text search over a session's captures, for the MCP ``search`` tool.

Captures are indexed lazily, when a search first needs them, never while ``tersh run`` records
a call: one SQLite FTS5 row per line of the combined stream (escapes and redraws cleaned, line
structure kept), so a hit's line number is the number ``retrieve`` pages by. The index lives in
``<profile>/search/index.db`` (folder 0700, file 0600). It holds copies of capture text, so rows
of a capture that was evicted are deleted at the next search.

Bounds: a capture above :data:`MAX_INDEX_BYTES` is never indexed, and one search indexes at
most :data:`MAX_INDEX_PER_SEARCH` bytes of new captures (the rest waits for a later search);
captures it does not index are scanned line by line instead, up to :data:`MAX_SCAN_BYTES` per
search, past which a capture is reported as not searched. Without FTS5, or for a query with no
word character, every capture is scanned (case-insensitive substrings, as ``retrieve --query``).
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from tersh import fsutil, settings
from tersh.recording.ledger import transaction

INDEX_FOLDER = "search"
INDEX_FILE = "index.db"
MAX_INDEX_BYTES = 16 * settings.MiB
MAX_SCAN_BYTES = 128 * settings.MiB
MAX_INDEX_PER_SEARCH = 32 * settings.MiB
MAX_CAPTURES = 500
MAX_LIMIT = 200
SNIPPET_CHARS = 300
BUSY_TIMEOUT_S = 10.0
TOO_LARGE = "(too large to scan in one search: use retrieve with its id and a query)"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    capture_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    first_rowid INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    indexed_at REAL NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS lines
    USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
"""
_WORD = re.compile(r"[^\W_]")  # a letter or digit: what FTS5 unicode61 makes tokens of


class Source(NamedTuple):
    """One capture a search may look into."""

    capture_id: str
    command: str
    created: float
    size: int


class Hit(NamedTuple):
    """One matching line: which capture, its 1-based line number, the (bounded) line text."""

    capture_id: str
    command: str
    line: int
    text: str


class Found(NamedTuple):
    """The answer to one search."""

    hits: list[Hit]
    more: int  # further matching lines not returned
    searched: int  # captures looked into
    skipped: list[str]  # captures not searched (too large for this search's scan budget, gone)
    engine: str  # "fts5" or "substring"


# --- which captures belong to the session ----------------------------------------------------


def session_sources(session: str, since: float) -> list[Source]:
    """The session's captures, newest first: its ledger rows, else captures made since ``since``."""
    ids = _ledger_capture_ids(session)
    rows = _capture_rows(ids) if ids else _capture_rows_since(since)
    return sorted(rows, key=lambda source: source.created, reverse=True)[:MAX_CAPTURES]


def _ledger_capture_ids(session: str) -> list[str]:
    from tersh.recording import ledger

    if not ledger.ledger_path().exists():
        return []
    query = (
        "SELECT capture_id FROM calls WHERE session = ? AND capture_id IS NOT NULL "
        "GROUP BY capture_id ORDER BY MAX(ts) DESC LIMIT ?"
    )
    try:
        with contextlib.closing(ledger.connect()) as db:
            rows = db.execute(query, (session, MAX_CAPTURES)).fetchall()
    except sqlite3.Error:
        return []
    return [str(row[0]) for row in rows if ledger.CAPTURE_ID.match(str(row[0]))]


@contextlib.contextmanager
def _capture_index() -> Iterator[sqlite3.Connection | None]:
    from tersh.recording import captures as capture

    if not capture.index_exists():
        yield None
        return
    with capture.open_index() as db:
        yield db


def _capture_rows(ids: Sequence[str]) -> list[Source]:
    marks = ",".join("?" * len(ids))
    query = f"SELECT id, command, created, combined_bytes FROM captures WHERE id IN ({marks})"
    with _capture_index() as db:
        return [] if db is None else _sources(db.execute(query, list(ids)))


def _capture_rows_since(since: float) -> list[Source]:
    query = (
        "SELECT id, command, created, combined_bytes FROM captures WHERE created >= ? "
        "ORDER BY created DESC LIMIT ?"
    )
    with _capture_index() as db:
        return [] if db is None else _sources(db.execute(query, (since, MAX_CAPTURES)))


def _sources(rows: sqlite3.Cursor) -> list[Source]:
    from tersh.recording import captures as capture

    return [
        Source(capture_id, str(command), float(created), int(size))
        for capture_id, command, created, size in rows
        if capture.is_id(capture_id)
    ]


# --- the index --------------------------------------------------------------------------------

_fts5: list[bool] = []


def fts5_available() -> bool:
    """Whether this Python's SQLite has the FTS5 extension (checked once)."""
    if not _fts5:
        try:
            with contextlib.closing(sqlite3.connect(":memory:")) as db:
                db.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
            _fts5.append(True)
        except sqlite3.Error:
            _fts5.append(False)
    return _fts5[0]


def index_path() -> Path:
    """The search index database of the current profile."""
    return settings.profile_dir() / INDEX_FOLDER / INDEX_FILE


def connect() -> sqlite3.Connection:
    """Open (creating if needed) the private search index."""
    path = index_path()
    settings.ensure_private_dir(path.parent)
    fsutil.refuse_symlink(path)
    if not path.exists():
        with contextlib.suppress(FileExistsError):
            os.close(fsutil.open_private(path))  # 0600 before SQLite writes anything into it
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        db.executescript(_SCHEMA)
    except BaseException:
        db.close()
        raise
    return db


def capture_lines(data: bytes) -> list[str]:
    """The lines of a capture as ``retrieve`` numbers them, cleaned of escapes and redraws."""
    from tersh.compaction.clean import clean

    text = data.decode("utf-8", "replace")
    if not text:
        return []
    return clean(text[:-1] if text.endswith("\n") else text).split("\n")


def is_indexed(db: sqlite3.Connection, capture_id: str) -> bool:
    """Whether ``capture_id`` already has its rows in the index."""
    found = db.execute("SELECT 1 FROM docs WHERE capture_id = ?", (capture_id,)).fetchone()
    return found is not None


def index_capture(db: sqlite3.Connection, source: Source, path: Path) -> None:
    """Add one row per line of ``source`` (once: a second call, even concurrent, adds nothing)."""
    data = path.read_bytes()
    lines = capture_lines(data)
    with transaction(db):
        if is_indexed(db, source.capture_id):  # another search indexed it meanwhile
            return
        first = int(db.execute("SELECT COALESCE(MAX(first_rowid + line_count), 1) FROM docs")
                    .fetchone()[0])
        db.executemany(
            "INSERT INTO lines (rowid, text) VALUES (?, ?)",
            ((first + number, line) for number, line in enumerate(lines)),
        )
        db.execute(
            "INSERT INTO docs VALUES (?, 'indexed', ?, ?, ?, ?)",
            (source.capture_id, first, len(lines), len(data), time.time()),
        )


def prune(db: sqlite3.Connection) -> int:
    """Delete the rows of captures that no longer exist; return how many captures were dropped."""
    from tersh.recording import captures as capture

    root = capture.store_dir()
    gone = [
        (capture_id, first, count)
        for capture_id, first, count in db.execute(
            "SELECT capture_id, first_rowid, line_count FROM docs"
        ).fetchall()
        if not (root / str(capture_id) / "combined").is_file()
    ]
    if gone:
        with transaction(db):
            for capture_id, first, count in gone:
                if count:
                    db.execute(
                        "DELETE FROM lines WHERE rowid BETWEEN ? AND ?", (first, first + count - 1)
                    )
                db.execute("DELETE FROM docs WHERE capture_id = ?", (capture_id,))
    return len(gone)


def match_expression(query: str) -> str | None:
    """An FTS5 expression for a free-text query: every word must appear (as a prefix at its end).

    Each whitespace-separated word becomes a quoted phrase, so punctuation inside it
    (``foo.py:12``) means "these tokens in a row" and never FTS5 syntax. None when the query has
    no word character at all (then only a substring scan can answer it).
    """
    words = [word for word in query.replace("\x00", " ").split() if _WORD.search(word)]
    if not words:
        return None
    return " AND ".join('"' + word.replace('"', '""') + '" *' for word in words)


# --- searching --------------------------------------------------------------------------------


def search(query: str, sources: Sequence[Source], limit: int = 20) -> Found:
    """Lines matching ``query`` in ``sources`` (newest capture first, lines in order).

    A line matches when it holds every whitespace-separated word of the query: as token
    prefixes in indexed captures, as substrings (case-insensitive) in scanned ones.
    """
    from tersh.recording import captures as capture

    limit = max(1, min(limit, MAX_LIMIT))
    expression = match_expression(query) if fts5_available() else None
    present: list[tuple[Source, Path]] = []
    skipped: list[str] = []
    for source in sources:
        path = capture.store_dir() / source.capture_id / "combined"
        if path.is_file() and not path.is_symlink():
            present.append((source, path))
        else:
            skipped.append(f"{source.capture_id} (expired)")
    search = _Search(query, expression, limit, skipped)
    if expression is None:
        for source, path in present:
            search.scan(source, path)
        return search.found("substring")
    with contextlib.closing(connect()) as db:
        prune(db)
        for source, path in present:
            search.lookup(db, source, path)
    return search.found("fts5")


class _Search:
    """One search under way: hits so far and what is left of its indexing and scanning budgets."""

    def __init__(self, query: str, expression: str | None, limit: int, skipped: list[str]) -> None:
        # every word (as a substring when scanning); a query without word characters, whole
        self.words = query.split() if match_expression(query) is not None else [query.strip()]
        self.expression = expression
        self.limit = limit
        self.hits: list[Hit] = []
        self.more = 0
        self.searched = 0
        self.skipped = skipped
        self.index_budget = MAX_INDEX_PER_SEARCH
        self.scan_budget = MAX_SCAN_BYTES

    def found(self, engine: str) -> Found:
        """The outcome so far."""
        return Found(self.hits, self.more, self.searched, self.skipped, engine)

    def lookup(self, db: sqlite3.Connection, source: Source, path: Path) -> None:
        """Answer from the index, indexing the capture first when it fits; else scan it."""
        assert self.expression is not None
        try:
            indexed = is_indexed(db, source.capture_id)
            if not indexed and source.size <= min(MAX_INDEX_BYTES, self.index_budget):
                self.index_budget -= source.size
                index_capture(db, source, path)
                indexed = True
        except OSError:
            self.skipped.append(f"{source.capture_id} (unreadable)")
            return
        if not indexed:
            self.scan(source, path)
            return
        found, extra = _indexed_hits(db, source, self.expression, self.room())
        self._add(found, extra)

    def scan(self, source: Source, path: Path) -> None:
        """Read the capture line by line (within this search's scanning budget)."""
        if source.size > self.scan_budget:
            self.skipped.append(f"{source.capture_id} {TOO_LARGE}")
            return
        self.scan_budget -= source.size
        try:
            found, extra = scan_lines(path, self.words, self.room())
        except OSError:
            self.skipped.append(f"{source.capture_id} (unreadable)")
            return
        folded = [word.casefold() for word in self.words]
        self._add([Hit(source.capture_id, source.command, number, snippet(text, folded))
                   for number, text in found], extra)

    def room(self) -> int:
        """How many more hits this search may return."""
        return max(0, self.limit - len(self.hits))

    def _add(self, found: list[Hit], extra: int) -> None:
        self.searched += 1
        self.hits.extend(found)
        self.more += extra


def _indexed_hits(db: sqlite3.Connection, source: Source, expression: str,
                  room: int) -> tuple[list[Hit], int]:
    row = db.execute(
        "SELECT first_rowid, line_count FROM docs WHERE capture_id = ?", (source.capture_id,)
    ).fetchone()
    if row is None or not row[1]:
        return [], 0
    first, count = int(row[0]), int(row[1])
    bounds = (expression, first, first + count - 1)
    where = "lines MATCH ? AND rowid BETWEEN ? AND ?"
    total = int(db.execute(f"SELECT COUNT(*) FROM lines WHERE {where}", bounds).fetchone()[0])
    rows = db.execute(
        f"SELECT rowid, text FROM lines WHERE {where} ORDER BY rowid LIMIT ?", (*bounds, room)
    ).fetchall() if room else []
    words = [word.casefold() for word in expression_words(expression)]
    hits = [
        Hit(source.capture_id, source.command, int(rowid) - first + 1, snippet(str(text), words))
        for rowid, text in rows
    ]
    return hits, total - len(hits)


def expression_words(expression: str) -> list[str]:
    """The words of a :func:`match_expression` result (to centre snippets on them)."""
    return [part.replace('""', '"') for part in re.findall(r'"((?:[^"]|"")*)"', expression)]


def scan_lines(path: Path, words: Sequence[str], room: int) -> tuple[list[tuple[int, str]], int]:
    """Lines of ``path`` holding every one of ``words`` (case-insensitive): up to ``room`` of
    them as ``(line number, text)``, and how many more matched."""
    from tersh.compaction.clean import clean_line

    folded = [word.casefold() for word in words if word]
    raw_needles = [w.encode() for w in folded] if all(w.isascii() for w in folded) else None
    found: list[tuple[int, str]] = []
    more = 0
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if raw_needles is not None and b"\x1b" not in raw:
                lowered = raw.lower()
                if not all(needle in lowered for needle in raw_needles):
                    continue
                text = raw.rstrip(b"\n").decode("utf-8", "replace")
            else:
                text = clean_line(raw.rstrip(b"\n").decode("utf-8", "replace"))
                if not all(word in text.casefold() for word in folded):
                    continue
            if len(found) < room:
                found.append((number, text))
            else:
                more += 1
    return found, more


def snippet(text: str, words: Sequence[str]) -> str:
    """``text`` cleaned and, when long, a window of it around the first of ``words`` found."""
    from tersh.compaction.clean import clean_line

    text = clean_line(text)
    if len(text) <= SNIPPET_CHARS:
        return text
    folded = text.casefold()
    at = min((i for i in (folded.find(word) for word in words if word) if i >= 0), default=0)
    start = max(0, at - SNIPPET_CHARS // 3)
    piece = text[start : start + SNIPPET_CHARS]
    return ("…" if start else "") + piece + ("…" if start + SNIPPET_CHARS < len(text) else "")
