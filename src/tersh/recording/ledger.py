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
from collections.abc import Callable, Iterator, Mapping
from typing import Literal

from tersh import fsutil, settings
from tersh.errors import TershError, warn
from tersh.recording import spool, tally
from tersh.recording.paths import LEDGER_FILE, SPOOL_SUFFIX, ledger_file, spool_folder
from tersh.recording.tally import Savings as Savings
from tersh.recording.tally import ratio as ratio
from tersh.session import session_id as session_id  # re-exported: reports name the session

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, NamedTuple

    from tersh.recording.spool import Row
else:
    from tersh._startup.lean import NamedTuple

BUSY_TIMEOUT_MS = 5000
CAPTURE_ID = re.compile(r"^c[0-9a-f]{12}$")

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
    target = ledger_file() if path is None else path
    if not os.path.exists(target):
        from pathlib import Path

        _create(Path(target))
    db = _open(target, durable=durable)
    try:
        if not _is_current(db):
            migrate(db)
        fold(db, os.fspath(target) + SPOOL_SUFFIX)
    except BaseException:
        db.close()
        raise
    return db


def _open(path: Path | str, *, durable: bool = True) -> sqlite3.Connection:
    fsutil.refuse_database_links(path)
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

    from tersh.recording.status import exclusive_lock

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


@migration
def m004_executed(db: sqlite3.Connection) -> None:
    """The executed form of a rewritten call, as the provider words it (never a resolved path)."""
    db.execute("ALTER TABLE calls ADD COLUMN executed TEXT")


@migration
def m005_spool_key(db: sqlite3.Connection) -> None:
    """The spool file a call came from: folding a spool twice never adds a call twice."""
    db.execute("ALTER TABLE calls ADD COLUMN spool_key TEXT")
    db.execute("CREATE UNIQUE INDEX calls_spool_key ON calls(spool_key) WHERE spool_key IS NOT NULL")


@migration
def m006_rtk_outcome(db: sqlite3.Connection) -> None:
    """For a call RTK filtered: whether its text was ``accepted``, ``refused`` or ``failed``, and
    its size (RTK's saving is measured against the same complete input)."""
    db.execute("ALTER TABLE calls ADD COLUMN rtk_outcome TEXT")
    db.execute("ALTER TABLE calls ADD COLUMN rtk_bytes INTEGER")


# --- recording ---------------------------------------------------------------------------------

#: The columns of a call row, as ``tersh.recording.calls.call_row`` writes them.
CALL_COLUMNS = (
    "ts", "session", "host", "program", "klass", "arguments", "category", "rule", "measured",
    "complete", "exit_code", "duration_s", "input_bytes", "output_bytes", "input_tokens",
    "output_tokens", "capture_id", "capture_path", "deferred", "executed", "spool_key",
    "rtk_outcome", "rtk_bytes",
)
_INSERT_CALL = (f"INSERT OR IGNORE INTO calls ({', '.join(CALL_COLUMNS)}) "
                f"VALUES ({', '.join('?' * len(CALL_COLUMNS))})")


def add_row(row: Row) -> None:
    """Insert a call row (see ``tersh.recording.calls.call_row``) and publish its session's savings.

    ``tersh.recording.calls.record`` records a call: it spools the row whenever it can, and
    inserts it here when the ledger must take it at once.
    """
    existed = os.path.exists(ledger_file())
    with contextlib.closing(connect(durable=False)) as db:
        with transaction(db):
            _insert_rows(db, [row])
        # a new ledger holds none of the calls the listed sessions' counters count
        publish(db, str(row["session"]), others="keep" if existed else "drop")


def _insert_rows(db: sqlite3.Connection, rows: list[Row]) -> None:
    for row in rows:
        cursor = db.execute(_INSERT_CALL, tuple(row.get(column) for column in CALL_COLUMNS))
        if cursor.rowcount == 1 and row.get("deferred"):
            db.execute("INSERT INTO pending_texts VALUES (?, ?, ?)",
                       (cursor.lastrowid, row["ts"], str(row.get("text") or "")))


def fold(db: sqlite3.Connection, folder: str) -> int:
    """Move the calls spooled by `tersh run` into the ledger, oldest first; how many were read."""
    count = 0
    while names := spool.pending(folder):
        rows = [row for _, row in spool.read(folder, names)
                if isinstance(row.get("session"), str) and isinstance(row.get("spool_key"), str)
                and _storable(row)]
        with transaction(db):
            _insert_rows(db, rows)
        spool.discard(folder, names)
        count += len(rows)
        if len(names) < spool.FOLD_BATCH:
            break
    return count


def _storable(row: spool.Row) -> bool:
    """Whether every integer of ``row`` fits SQLite's 64 bits (a row that does not is dropped:
    kept, it would stop every later fold)."""
    return all(-(2**63) <= value < 2**63 for value in row.values() if isinstance(value, int))


def maintain(conf: settings.Settings) -> None:
    """Fold the spooled calls in, and drop the model texts waiting to be counted whose capture
    has expired (their input is gone, so their tokens can no longer be counted)."""
    if not os.path.exists(ledger_path()):
        return
    horizon = time.time() - conf.int("captures.ttl_days") * 86400
    with contextlib.closing(connect(durable=False)) as db, transaction(db):
        db.execute("DELETE FROM pending_texts WHERE ts < ?", (horizon,))


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
                publish(db, row[1])
    except Exception as exc:
        warn(f"retrieval not recorded: {type(exc).__name__}: {exc}")


def publish(db: sqlite3.Connection, session: str | None = None, *,
            others: Literal["keep", "all", "drop"] = "keep") -> None:
    """Recompute ``session``'s savings from the ledger and publish them (tally + status file);
    ``session`` None: the session the status file shows (nothing when it shows none).

    The other sessions the status file lists keep their counters (a call of one session changes
    no other session's sums); ``others="all"`` recomputes them too, ``others="drop"`` drops them.
    """
    from tersh.recording import status

    try:
        with status.lock(status.RUN_LOCK_TIMEOUT_SECONDS):
            fold(db, spool_folder())  # calls spooled meanwhile count too
            listed = tally.listed_sessions()
            if session is None:
                if not listed:
                    return
                session = listed[0]
            figures = totals(db, session=session)
            if others == "all":
                fresh = {name: totals(db, session=name) for name in listed if name != session}
                tally.publish(session, figures, fresh)
            else:
                tally.publish(session, figures, keep_listed=others != "drop")
    except status.LockTimeout:  # derived figures: the next writer to get the lock publishes them
        return


def republish(db: sqlite3.Connection) -> None:
    """Publish the savings of every session the status file lists again, the shown one first
    (after tokens were counted: their figures changed)."""
    publish(db, others="all")


# --- savings figures ------------------------------------------------------------------------


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
    key, *values = row
    return tally.savings(str(key), *values)


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


class RtkSummary(NamedTuple):
    """The measured calls whose output RTK filtered: RTK's saving, tersh's, and refusals.

    ``rtk_saving`` is what RTK's texts alone would have removed from the complete inputs;
    ``saving`` is what reached the model (RTK's text where accepted, tersh's own compaction
    where it was refused or RTK failed).
    """

    calls: int
    accepted: int
    refused: int
    failed: int
    input_bytes: int
    rtk_bytes: int
    output_bytes: int
    rtk_saving: float | None
    saving: float | None
    refused_share: float | None


def rtk_summary(db: sqlite3.Connection, where: Filter | None = None) -> RtkSummary:
    """The RTK figures of the calls that match ``where`` (zeros when RTK filtered none)."""
    clause, params = (where or Filter()).sql()
    query = f"""
        SELECT COUNT(*),
               COALESCE(SUM(c.rtk_outcome = 'accepted'), 0),
               COALESCE(SUM(c.rtk_outcome = 'refused'), 0),
               COALESCE(SUM(c.rtk_outcome = 'failed'), 0),
               COALESCE(SUM(c.input_bytes), 0),
               COALESCE(SUM(CASE WHEN c.rtk_outcome = 'failed' THEN c.input_bytes
                            ELSE c.rtk_bytes END), 0),
               COALESCE(SUM(c.output_bytes), 0)
        FROM calls c WHERE c.measured AND c.rtk_outcome IS NOT NULL AND {clause}"""
    calls, accepted, refused, failed, in_bytes, rtk_bytes, out_bytes = db.execute(query, params).fetchone()
    judged = accepted + refused
    return RtkSummary(calls, accepted, refused, failed, in_bytes, rtk_bytes, out_bytes,
                      ratio(in_bytes - rtk_bytes, in_bytes), ratio(in_bytes - out_bytes, in_bytes),
                      refused / judged if judged else None)


def recent_sessions(db: sqlite3.Connection, limit: int = 10) -> list[tuple[str, float]]:
    """The last sessions seen, newest first, with their last call time."""
    query = "SELECT session, MAX(ts) AS last FROM calls GROUP BY session ORDER BY last DESC LIMIT ?"
    return [(str(s), float(t)) for s, t in db.execute(query, (limit,))]


# --- deferred counting (off the hot path) ---------------------------------------------------


def count_deferred(db: sqlite3.Connection, limit: int | None = None,
                   budget_s: float | None = None, *,
                   views: Mapping[str, Callable[[str], str]]) -> int:
    """Count tokens and host views for calls recorded without them; return how many were done.

    ``views`` maps each host to what it would show of a text (``tersh.hosts.savings.HOSTS``).

    The model text is always counted exactly. The input (read back from the capture) is counted
    only up to ``tokens.EXACT_INPUT_BYTES``; a larger one keeps its byte figures and no token or
    host-view figures (``tersh gain`` says how many). With ``budget_s``, counting stops once that
    many seconds have gone since the first call was counted (which loads the tokenizer); the
    rest waits for the next report.
    """
    from tersh import tokens

    query = "SELECT id, capture_path FROM calls WHERE deferred = 1 ORDER BY id"
    pending = db.execute(query + (f" LIMIT {int(limit)}" if limit else "")).fetchall()
    started = 0.0
    done = 0
    for call_id, capture_path in pending:
        if done == 1:  # the first call, which loaded the tokenizer, is not timed
            started = time.monotonic()
        elif budget_s is not None and done and time.monotonic() - started > budget_s:
            break
        done += 1
        row = db.execute("SELECT text FROM pending_texts WHERE call_id = ?", (call_id,)).fetchone()
        source = _read_capture(capture_path, tokens.EXACT_INPUT_BYTES)
        shown = row[0] if row else None
        with transaction(db):
            in_tokens = tokens.count_bulk(source) if source is not None else None
            out_tokens = tokens.count_bulk(shown) if shown is not None else None
            if source is not None and shown is not None:
                for host, view in views.items():
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
    if done:
        republish(db)  # the status file's token figures follow
    return done


def _read_capture(path: str | None, max_bytes: int | None = None) -> str | None:
    """The text of a capture file inside the profile; None when gone, not a plain file, or
    larger than ``max_bytes``."""
    if not path:
        return None
    from pathlib import Path

    candidate = Path(path)
    try:
        inside = candidate.resolve().is_relative_to(settings.profile_dir().resolve())
        if not inside or candidate.is_symlink() or not candidate.is_file():
            return None
        if max_bytes is not None and candidate.stat().st_size > max_bytes:
            return None
        return candidate.read_bytes().decode("utf-8", "replace")
    except (OSError, TershError):
        return None


def deferred_count(db: sqlite3.Connection) -> int:
    """How many calls still wait for their token counts."""
    return int(db.execute("SELECT COUNT(*) FROM calls WHERE deferred = 1").fetchone()[0])
