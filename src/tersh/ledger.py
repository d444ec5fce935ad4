"""The savings history: one SQLite row per call, and the savings figures computed from it.

Savings follow SPEC §1 exactly: total removed bytes / total measured input bytes, where input is
the complete captured output and only calls with a complete capture ("measured") count — also
those that changed nothing, and a command with no output counts as zero in, zero out.

Recording sits on the hot path of every ``tersh run`` (budget: 5 ms median), so it only stores
sizes. Exact o200k token counts and the "what would the host have shown" figures need the texts
and a tokenizer that takes ~0.2 s to load; they are computed later, by :func:`count_deferred`
(``tersh gain``, ``tersh status --count``): the input text is read back from the call's capture
(already kept privately for 7 days), and the model text — at most the 50 KB preview — waits in
the ``pending_texts`` table of this private (0600) database until it is counted, then is deleted.
A call whose capture expired before it was counted keeps its byte figures and shows as
"uncounted" in token figures.

Arguments are stored only when ``ledger.record_arguments`` is on (they can hold secrets);
otherwise a row holds the program and its class. The executed command (which may name the
resolved RTK path) is never stored.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator

from tersh import fsutil, settings
from tersh.errors import TershError, warn

TYPE_CHECKING = False  # not `from typing import …`: typing and pathlib stay off `tersh run`
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, NamedTuple

    from tersh.result import Result
else:
    from tersh.lean import NamedTuple

LEDGER_FILE = "ledger.db"
BUSY_TIMEOUT_MS = 5000
CAPTURE_ID = re.compile(r"^c[0-9a-f]{12}$")
SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$")
#: Processes skipped when looking for the agent behind ``tersh``: shells and thin wrappers.
WRAPPERS = frozenset(
    {"sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh", "busybox", "env",
     "timeout", "nice", "nohup", "stdbuf", "time", "tersh"}
)

# --- schema: ordered migrations, each applied once and recorded in _tersh_migrations ----------

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = []
migration = MIGRATIONS.append


@migration
def m001_calls(db: sqlite3.Connection) -> None:
    """One row per optimised call."""
    db.execute(
        """CREATE TABLE calls (
            id INTEGER PRIMARY KEY,
            ts REAL NOT NULL,
            session TEXT NOT NULL,
            host TEXT NOT NULL,
            program TEXT NOT NULL,
            klass TEXT NOT NULL,
            arguments TEXT,
            category TEXT,
            rule TEXT,
            measured INTEGER NOT NULL,
            complete INTEGER NOT NULL,
            exit_code INTEGER NOT NULL,
            duration_s REAL NOT NULL,
            input_bytes INTEGER NOT NULL,
            output_bytes INTEGER NOT NULL,
            input_tokens INTEGER,
            output_tokens INTEGER,
            capture_id TEXT
        )"""
    )
    db.execute("CREATE INDEX calls_session ON calls(session, ts)")
    db.execute("CREATE INDEX calls_ts ON calls(ts)")


@migration
def m002_retrievals(db: sqlite3.Connection) -> None:
    """Bytes read back from captures later: they count against the saving."""
    db.execute(
        """CREATE TABLE retrievals (
            id INTEGER PRIMARY KEY,
            ts REAL NOT NULL,
            capture_id TEXT NOT NULL,
            call_id INTEGER REFERENCES calls(id),
            bytes_returned INTEGER NOT NULL
        )"""
    )
    db.execute("CREATE INDEX retrievals_call ON retrievals(call_id)")
    db.execute("CREATE INDEX calls_capture ON calls(capture_id)")


@migration
def m003_deferred_counts(db: sqlite3.Connection) -> None:
    """Token counts and host views computed off the hot path."""
    db.execute("ALTER TABLE calls ADD COLUMN capture_path TEXT")
    db.execute("ALTER TABLE calls ADD COLUMN deferred INTEGER NOT NULL DEFAULT 0")
    db.execute("CREATE INDEX calls_deferred ON calls(deferred) WHERE deferred = 1")
    db.execute(
        "CREATE TABLE pending_texts (call_id INTEGER PRIMARY KEY REFERENCES calls(id), "
        "ts REAL NOT NULL, text TEXT NOT NULL)"
    )
    db.execute(
        """CREATE TABLE host_views (
            call_id INTEGER NOT NULL REFERENCES calls(id),
            host TEXT NOT NULL,
            raw_bytes INTEGER NOT NULL,
            tersh_bytes INTEGER NOT NULL,
            PRIMARY KEY (call_id, host)
        )"""
    )


def migrate(db: sqlite3.Connection, migrations: list[Migration] | None = None) -> list[str]:
    """Apply the missing ``migrations`` (default: all) in order, in one transaction."""
    wanted = MIGRATIONS if migrations is None else migrations
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("CREATE TABLE IF NOT EXISTS _tersh_migrations (name TEXT PRIMARY KEY, ts REAL)")
        done = {row[0] for row in db.execute("SELECT name FROM _tersh_migrations")}
        applied = []
        for step in wanted:
            if step.__name__ not in done:
                step(db)
                db.execute(
                    "INSERT INTO _tersh_migrations VALUES (?, ?)", (step.__name__, time.time())
                )
                applied.append(step.__name__)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return applied


# --- opening the database -------------------------------------------------------------------


def ledger_path() -> Path:
    """The ledger database of the current profile."""
    return settings.profile_dir() / LEDGER_FILE


def connect(path: Path | str | None = None, *, durable: bool = True) -> sqlite3.Connection:
    """Open the ledger (WAL, busy timeout), creating or migrating it first when needed.

    ``durable=False`` (the per-call insert of ``record``) writes without disk syncs, checkpoint
    included: a crash of tersh loses nothing, an OS crash at worst the last rows (their capture
    files are not synced either). Reports and maintenance keep SQLite's WAL default.
    """
    target = os.path.join(settings.profile_root(), LEDGER_FILE) if path is None else path
    if not os.path.exists(target):
        from pathlib import Path

        _create(Path(target))
    db = _open(target, durable=durable)
    try:
        if not _is_current(db):
            migrate(db)
    except BaseException:
        db.close()
        raise
    return db


def _open(path: Path | str, *, durable: bool = True) -> sqlite3.Connection:
    if os.path.islink(path):
        raise TershError(f"refusing to write through symbolic link {path}")
    db = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    db.execute("PRAGMA synchronous = " + ("NORMAL" if durable else "OFF"))
    return db


def _is_current(db: sqlite3.Connection) -> bool:
    try:
        done = {row[0] for row in db.execute("SELECT name FROM _tersh_migrations")}
    except sqlite3.OperationalError:
        return False
    return all(step.__name__ in done for step in MIGRATIONS)


def _create(path: Path) -> None:
    """Build the whole schema in a private temp file, then move it into place under a lock."""
    from pathlib import Path

    from tersh.status import exclusive_lock

    settings.ensure_private_dir(path.parent)
    with exclusive_lock(path.with_name(path.name + ".lock")):
        if path.exists():
            return  # another process created it while we waited
        tmp = fsutil.temp_path(path)
        os.close(fsutil.open_private(tmp))
        try:
            db = sqlite3.connect(tmp, isolation_level=None)
            try:
                migrate(db)
                db.execute("PRAGMA journal_mode = WAL")
            finally:
                db.close()
            fsutil.refuse_symlink(path)
            os.replace(tmp, path)
        finally:
            for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm"), Path(f"{tmp}-journal")):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, taken at once (BEGIN IMMEDIATE); rolled back on any exception."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# --- session ids ----------------------------------------------------------------------------


def session_id() -> str:
    """``$TERSH_SESSION`` when set, else an id of the agent process that runs tersh.

    The agent usually starts each command in a fresh shell, so the nearest ancestor that is not a
    shell or thin wrapper stands for the session; its start time makes the id unique across pid
    reuse. An env value that is not a plain id is replaced by a hash of it.
    """
    given = os.environ.get("TERSH_SESSION", "").strip()
    if given:
        if SESSION_ID.match(given):
            return given
        import hashlib

        return "h" + hashlib.sha256(given.encode("utf-8", "replace")).hexdigest()[:16]
    pid, started = _agent_process()
    return f"p{pid}-{started}" if started else f"p{pid}"


def _agent_process() -> tuple[int, str]:
    pid = os.getppid()
    for _ in range(16):
        info = _proc_stat(pid)
        if info is None:
            return pid, ""
        name, parent, started = info
        if name not in WRAPPERS or parent <= 1:
            return pid, started
        pid = parent
    return pid, ""


def _proc_stat(pid: int) -> tuple[str, int, str] | None:
    """(command name, parent pid, start time in clock ticks) from /proc; None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            raw = handle.read()
    except OSError:
        return None
    name = raw[raw.find("(") + 1 : raw.rfind(")")]
    fields = raw[raw.rfind(")") + 2 :].split()
    try:
        return name, int(fields[1]), fields[19]
    except (IndexError, ValueError):
        return None


@migration
def m004_executed(db: sqlite3.Connection) -> None:
    """The executed form of a rewritten call, as the provider words it (never a resolved path)."""
    db.execute("ALTER TABLE calls ADD COLUMN executed TEXT")


# --- recording (hot path) -------------------------------------------------------------------


def record(result: Result, *, session: str, host: str, program: str, klass: str) -> None:
    """Add one row for ``result`` and publish the session's savings; never raises."""
    try:
        conf, _ = settings.load_or_defaults()
        if not conf.flag("ledger.enabled"):
            return
        with_arguments = conf.flag("ledger.record_arguments")
        arguments = result.requested_command if with_arguments else None
        with contextlib.closing(connect(durable=False)) as db:
            with transaction(db):
                call_id = _insert_call(db, result, session, host, program, klass, arguments)
                _note_executed(db, call_id, result, program, with_arguments)
            figures = totals(db, session=session)
        _publish(session, figures)
    except Exception as exc:  # the ledger must never cost the user their output or exit code
        warn(f"savings not recorded: {type(exc).__name__}: {exc}")


def _insert_call(
    db: sqlite3.Connection,
    result: Result,
    session: str,
    host: str,
    program: str,
    klass: str,
    arguments: str | None,
) -> int:
    empty = result.measured and result.input_bytes == 0 and result.output_bytes == 0
    deferred = 1 if result.measured and not empty else 0
    tokens = 0 if empty else None
    now = time.time()
    cursor = db.execute(
        """INSERT INTO calls (ts, session, host, program, klass, arguments, category, rule,
            measured, complete, exit_code, duration_s, input_bytes, output_bytes, input_tokens,
            output_tokens, capture_id, capture_path, deferred)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (now, session, host, program, klass, arguments, result.category, result.rule,
         int(result.measured), int(result.complete), result.exit_code, result.duration_s,
         result.input_bytes, result.output_bytes, tokens, tokens, result.capture_id,
         _input_capture(result), deferred),
    )
    call_id = int(cursor.lastrowid or 0)
    if deferred:
        db.execute("INSERT INTO pending_texts VALUES (?, ?, ?)", (call_id, now, result.text))
    return call_id


def _note_executed(
    db: sqlite3.Connection, call_id: int, result: Result, program: str, with_arguments: bool
) -> None:
    """Keep the executed form of a rewritten call: whole only when arguments may be recorded.

    Without arguments, only the provider's command word and the program stay (``rtk git``).
    """
    rewrite = result.details.get("rewrite") or {}
    recorded = str(rewrite.get("recorded") or "") if rewrite.get("verdict") == "rewritten" else ""
    if not recorded:
        return
    executed = recorded if with_arguments else f"{recorded.split()[0]} {program}"
    db.execute("UPDATE calls SET executed = ? WHERE id = ?", (executed, call_id))


def _input_capture(result: Result) -> str | None:
    """The capture holding the complete input: the combined stream when there is one."""
    refs = sorted(result.captures, key=lambda ref: ref.stream != "combined")
    return refs[0].path if refs else None


def record_retrieval(capture_id: str, bytes_returned: int) -> None:
    """Count ``bytes_returned`` read back from a capture against its call's saving; never raises."""
    try:
        if not CAPTURE_ID.match(capture_id) or bytes_returned < 0:
            return
        conf, _ = settings.load_or_defaults()
        if not conf.flag("ledger.enabled") or not ledger_path().exists():
            return
        with contextlib.closing(connect()) as db:
            row = db.execute(
                "SELECT id, session FROM calls WHERE capture_id = ? ORDER BY id DESC LIMIT 1",
                (capture_id,),
            ).fetchone()
            with transaction(db):
                db.execute(
                    "INSERT INTO retrievals (ts, capture_id, call_id, bytes_returned) "
                    "VALUES (?, ?, ?, ?)",
                    (time.time(), capture_id, row[0] if row else None, bytes_returned),
                )
            if row is not None:
                _publish(row[1], totals(db, session=row[1]))
    except Exception as exc:
        warn(f"retrieval not recorded: {type(exc).__name__}: {exc}")


def _publish(session: str, figures: Savings) -> None:
    from tersh import status

    status.update("savings", {"session": session, **figures._asdict()})


# --- savings figures ------------------------------------------------------------------------


class Savings(NamedTuple):
    """Savings over a set of calls (one group of a breakdown, or the total)."""

    key: str
    calls: int
    measured_calls: int
    input_bytes: int
    output_bytes: int
    removed_bytes: int
    saving: float | None
    retrieved_bytes: int
    net_saving: float | None
    counted_calls: int
    input_tokens: int
    output_tokens: int
    token_saving: float | None

    @property
    def unmeasured_calls(self) -> int:
        """Calls without a complete capture: excluded from every ratio."""
        return self.calls - self.measured_calls


class HostComparison(NamedTuple):
    """What a host would have shown of the measured calls vs what tersh showed."""

    host: str
    calls: int
    host_bytes: int
    tersh_bytes: int
    retrieved_bytes: int
    saving: float | None


class Filter(NamedTuple):
    """Which calls a report covers."""

    since: float | None = None
    session: str | None = None

    def sql(self, alias: str = "c") -> tuple[str, list[Any]]:
        """A WHERE clause (always valid, ``1`` when empty) and its parameters."""
        clauses: list[str] = ["1"]
        params: list[Any] = []
        if self.since is not None:
            clauses.append(f"{alias}.ts >= ?")
            params.append(self.since)
        if self.session is not None:
            clauses.append(f"{alias}.session = ?")
            params.append(self.session)
        return " AND ".join(clauses), params


#: Breakdown keys: a fixed set of SQL expressions (never built from user input).
GROUPS = {
    "total": "'total'",
    "program": "c.program",
    "category": "COALESCE(c.category, 'none')",
    "day": "date(c.ts, 'unixepoch', 'localtime')",
    "session": "c.session",
}

_AGGREGATE = """
SELECT {key} AS key,
       COUNT(*),
       COALESCE(SUM(c.measured), 0),
       COALESCE(SUM(CASE WHEN c.measured THEN c.input_bytes END), 0),
       COALESCE(SUM(CASE WHEN c.measured THEN c.output_bytes END), 0),
       COALESCE(SUM(CASE WHEN c.measured THEN r.returned END), 0),
       COALESCE(SUM(CASE WHEN c.measured AND c.input_tokens IS NOT NULL
                          AND c.output_tokens IS NOT NULL THEN 1 END), 0),
       COALESCE(SUM(CASE WHEN c.measured AND c.output_tokens IS NOT NULL
                    THEN c.input_tokens END), 0),
       COALESCE(SUM(CASE WHEN c.measured AND c.input_tokens IS NOT NULL
                    THEN c.output_tokens END), 0)
FROM calls c
LEFT JOIN (SELECT call_id, SUM(bytes_returned) AS returned FROM retrievals GROUP BY call_id) r
       ON r.call_id = c.id
WHERE {where}
GROUP BY key
ORDER BY key
"""


def breakdown(db: sqlite3.Connection, by: str, where: Filter | None = None) -> list[Savings]:
    """Savings grouped by ``by`` (a key of GROUPS), sorted by key."""
    clause, params = (where or Filter()).sql()
    query = _AGGREGATE.format(key=GROUPS[by], where=clause)
    return [_savings(row) for row in db.execute(query, params)]


def totals(
    db: sqlite3.Connection, *, since: float | None = None, session: str | None = None
) -> Savings:
    """Savings over every call that matches (all zeros when there is none)."""
    rows = breakdown(db, "total", Filter(since, session))
    return rows[0] if rows else totals_empty()


def totals_empty() -> Savings:
    """The figures of no calls at all."""
    return _savings(("total", 0, 0, 0, 0, 0, 0, 0, 0))


def _savings(row: tuple[Any, ...]) -> Savings:
    key, calls, measured, in_bytes, out_bytes, retrieved, counted, in_tokens, out_tokens = row
    removed = in_bytes - out_bytes
    return Savings(
        key=str(key),
        calls=calls,
        measured_calls=measured,
        input_bytes=in_bytes,
        output_bytes=out_bytes,
        removed_bytes=removed,
        saving=ratio(removed, in_bytes),
        retrieved_bytes=retrieved,
        net_saving=ratio(removed - retrieved, in_bytes),
        counted_calls=counted,
        input_tokens=in_tokens,
        output_tokens=out_tokens,
        token_saving=ratio(in_tokens - out_tokens, in_tokens),
    )


def ratio(part: int, whole: int) -> float | None:
    """``part / whole``, or None when there is nothing to divide by."""
    return part / whole if whole else None


def versus_hosts(db: sqlite3.Connection, where: Filter | None = None) -> list[HostComparison]:
    """Per host: what it would have shown of the counted calls, what tersh showed, the saving.

    tersh's own text is passed through the same host limit (the host bounds it too), and bytes
    retrieved from captures later count against tersh.
    """
    clause, params = (where or Filter()).sql()
    query = f"""
        SELECT h.host, COUNT(*), SUM(h.raw_bytes), SUM(h.tersh_bytes), COALESCE(SUM(r.returned), 0)
        FROM host_views h JOIN calls c ON c.id = h.call_id
        LEFT JOIN (SELECT call_id, SUM(bytes_returned) AS returned FROM retrievals
                   GROUP BY call_id) r ON r.call_id = c.id
        WHERE c.measured AND {clause}
        GROUP BY h.host ORDER BY h.host"""
    return [
        HostComparison(host, calls, raw, shown, back, ratio(raw - shown - back, raw))
        for host, calls, raw, shown, back in db.execute(query, params)
    ]


def recent_sessions(db: sqlite3.Connection, limit: int = 10) -> list[tuple[str, float]]:
    """The last sessions seen, newest first, with their last call time."""
    query = "SELECT session, MAX(ts) AS last FROM calls GROUP BY session ORDER BY last DESC LIMIT ?"
    return [(str(s), float(t)) for s, t in db.execute(query, (limit,))]


# --- deferred counting (off the hot path) ---------------------------------------------------


def count_deferred(db: sqlite3.Connection, limit: int | None = None) -> int:
    """Count tokens and host views for calls recorded without them; return how many were done."""
    from tersh import hostview, tokens

    query = "SELECT id, capture_path FROM calls WHERE deferred = 1 ORDER BY id"
    pending = db.execute(query + (f" LIMIT {int(limit)}" if limit else "")).fetchall()
    for call_id, capture_path in pending:
        row = db.execute("SELECT text FROM pending_texts WHERE call_id = ?", (call_id,)).fetchone()
        source = _read_capture(capture_path)
        shown = row[0] if row else None
        with transaction(db):
            in_tokens = tokens.count(source) if source is not None else None
            out_tokens = tokens.count(shown) if shown is not None else None
            if source is not None and shown is not None:
                for host, view in hostview.HOSTS.items():
                    raw = len(view(source).encode("utf-8"))
                    ours = len(view(shown).encode("utf-8"))
                    db.execute(
                        "INSERT OR REPLACE INTO host_views VALUES (?, ?, ?, ?)",
                        (call_id, host, raw, ours),
                    )
            db.execute(
                "UPDATE calls SET input_tokens = ?, output_tokens = ?, deferred = 0 WHERE id = ?",
                (in_tokens, out_tokens, call_id),
            )
            db.execute("DELETE FROM pending_texts WHERE call_id = ?", (call_id,))
    return len(pending)


def _read_capture(path: str | None) -> str | None:
    """The text of a capture file inside the profile; None when gone or not a plain file."""
    if not path:
        return None
    from pathlib import Path

    candidate = Path(path)
    try:
        inside = candidate.resolve().is_relative_to(settings.profile_dir().resolve())
        if not inside or candidate.is_symlink() or not candidate.is_file():
            return None
        return candidate.read_bytes().decode("utf-8", "replace")
    except (OSError, TershError):
        return None


def deferred_count(db: sqlite3.Connection) -> int:
    """How many calls still wait for their token counts."""
    return int(db.execute("SELECT COUNT(*) FROM calls WHERE deferred = 1").fetchone()[0])
