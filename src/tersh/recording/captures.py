"""Private capture store: every byte a command printed, kept outside every workspace.

Layout under ``<profile>/captures`` (folders 0700, files 0600)::

    index.db            SQLite: one row per capture (command, cwd, exit code, sizes, times)
    <id>/combined       both streams in the order the command wrote them (see below)
    <id>/stdout         the stdout stream alone
    <id>/stderr         the stderr stream alone

A command run with its stdout and stderr on one channel (as a terminal shows them: what
``tersh run`` does unless stdout is a document) has a combined file in write order and no
stdout or stderr file, since which stream each byte came from was never known. Recorded
output, and a command run with separate streams, has all three; combined then holds the
streams in the order their reads arrived.

A capture is written into a temporary folder and renamed into place when complete, so a reader
never sees half a capture under a real id. Ids are random (``c`` + 12 hex digits) and checked
before any path is built from them.

Writing a capture sits on the start-up path of every ``tersh run``, so it works on plain string
paths (``pathlib`` is imported only when a caller asks for a ``Path``) and indexes the capture
without syncing the disk: the index row describes capture files that are not synced either, and
an unsynced SQLite write survives any crash of tersh itself (only an OS crash can lose it).
"""

from __future__ import annotations

import os
import time

from tersh import settings as settings_mod
from tersh.errors import TershError, warn
from tersh.fsutil import TEMP_PREFIX, make_private_dirs, open_private, refuse_database_links, write_all
from tersh.recording import redact, spool
from tersh.result import CaptureRef

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import sqlite3
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import BinaryIO

STREAMS = ("combined", "stdout", "stderr")
STALE_TEMP_SECONDS = 24 * 3600
INDEX_FILE = "index.db"
#: A capture's own index row, written into its folder before the folder is renamed into place;
#: the index takes in the folders it does not know yet whenever it is opened (not on `tersh run`).
META_FILE = "meta"
_HEX = frozenset("0123456789abcdef")
_SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS captures (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    command TEXT NOT NULL,
    cwd TEXT NOT NULL,
    exit_code INTEGER,
    combined_bytes INTEGER NOT NULL DEFAULT 0,
    stdout_bytes INTEGER NOT NULL DEFAULT 0,
    stderr_bytes INTEGER NOT NULL DEFAULT 0,
    stdout_same INTEGER NOT NULL DEFAULT 0,
    stderr_same INTEGER NOT NULL DEFAULT 0,
    pinned_until REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS captures_created ON captures(created);
"""


def store_dir() -> Path:
    """The capture folder of the current profile."""
    from pathlib import Path

    return Path(_root())


def _root() -> str:
    return os.path.join(settings_mod.profile_root(), "captures")


def new_id() -> str:
    """A fresh random capture id."""
    return "c" + os.urandom(6).hex()


def is_id(capture_id: object) -> bool:
    """Whether ``capture_id`` is a well-formed capture id (``c`` + 12 lower-case hex digits)."""
    return (
        isinstance(capture_id, str)
        and len(capture_id) == 13
        and capture_id[0] == "c"
        and _HEX.issuperset(capture_id[1:])
    )


def check_id(capture_id: str) -> str:
    """Return ``capture_id`` if it is well formed, else raise TershError (no path is built)."""
    if not is_id(capture_id):
        raise TershError(f"malformed capture id {capture_id!r} (expected c + 12 hex digits)")
    return capture_id


# --- the index -------------------------------------------------------------------------------


class _Index:
    """One connection to ``index.db``; creates the schema only when the file is new or empty.

    ``durable=False`` (the per-command insert, eviction) skips every disk sync, checkpoint
    included; other writers (pins) keep SQLite's WAL default of syncing at checkpoints.
    """

    def __init__(self, root: str, *, durable: bool = True) -> None:
        self.root = root
        self.durable = durable
        self.db: sqlite3.Connection | None = None

    def __enter__(self) -> sqlite3.Connection:
        import sqlite3  # lazy: only once the command has run

        try:
            self.db = self._open()
        except sqlite3.DatabaseError as exc:  # not a database (any more): start a new one
            if isinstance(exc, sqlite3.OperationalError):
                raise  # locked, unreadable, disk full: not the file's fault
            self.db = self._rebuild(exc)
        return self.db

    def _open(self) -> sqlite3.Connection:
        import sqlite3

        path = os.path.join(self.root, INDEX_FILE)
        created = _create_private(path)
        refuse_database_links(path)
        db = sqlite3.connect(path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous=" + ("NORMAL" if self.durable else "OFF"))
            if created or db.execute("PRAGMA user_version").fetchone()[0] < _SCHEMA_VERSION:
                _create_schema(db)
            _index_new_folders(db, self.root)
        except BaseException:
            db.close()
            raise
        return db

    def _rebuild(self, problem: Exception) -> sqlite3.Connection:
        """Set a corrupt index aside and build a new one from the capture folders."""
        path = os.path.join(self.root, INDEX_FILE)
        aside = f"{path}.corrupt-{int(time.time())}"
        os.replace(path, aside)
        for suffix in ("-wal", "-shm"):
            try:
                os.unlink(path + suffix)
            except FileNotFoundError:
                pass
        warn(f"capture index was unusable ({problem}); set aside as {aside} and rebuilt")
        return self._open()

    def __exit__(self, *exc: object) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None


def _index(root: str | os.PathLike[str], *, durable: bool = True) -> AbstractContextManager[
        sqlite3.Connection]:
    """The capture index of ``root`` as a context manager (closed on exit)."""
    return _Index(os.fspath(root), durable=durable)


_ROW_COLUMNS = ("id", "created", "command", "cwd", "exit_code", "combined_bytes", "stdout_bytes",
                "stderr_bytes", "stdout_same", "stderr_same")
_INSERT_ROW = (f"INSERT OR IGNORE INTO captures ({', '.join(_ROW_COLUMNS)})"
               f" VALUES ({', '.join('?' * len(_ROW_COLUMNS))})")


def open_index() -> AbstractContextManager[sqlite3.Connection]:
    """The capture index of the current profile, with every spooled row folded in."""
    return _index(_private_folder(_root()))


def index_exists() -> bool:
    """Whether the current profile has a capture index (a plain file, not a link)."""
    path = os.path.join(_root(), INDEX_FILE)
    return os.path.isfile(path) and not os.path.islink(path)


def _index_new_folders(db: sqlite3.Connection, root: str) -> None:
    """Index the capture folders the index does not know: new captures by the row in their
    ``meta`` file; others (an index rebuilt after corruption, a missing meta) by the folder's
    time and sizes, command unknown, so that eviction still reaches them."""
    known = {row[0] for row in db.execute("SELECT id FROM captures")}
    rows = []
    for entry in os.scandir(root):
        if not is_id(entry.name) or entry.name in known or not entry.is_dir(follow_symlinks=False):
            continue
        meta = next(spool.read(entry.path, [META_FILE]), None)
        if meta is not None and meta[1].get("id") == entry.name:
            rows.append(tuple(meta[1].get(column) for column in _ROW_COLUMNS))
            continue
        sizes = {}
        for stream in STREAMS:
            try:
                sizes[stream] = os.stat(os.path.join(entry.path, stream), follow_symlinks=False).st_size
            except OSError:
                sizes[stream] = 0
        rows.append((entry.name, entry.stat(follow_symlinks=False).st_mtime, "", "", None,
                     sizes["combined"], sizes["stdout"], sizes["stderr"],
                     int(sizes["stderr"] == 0), int(sizes["stdout"] == 0)))
    if rows:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(_INSERT_ROW, rows)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def _create_private(path: str) -> bool:
    """Create ``path`` as an empty 0600 file if it is missing; True when this call created it.

    SQLite gives the -wal and -shm files the database file's mode, so they are private too.
    """
    try:
        os.close(open_private(path))
    except FileExistsError:
        return False
    return True


def _create_schema(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


# --- writing a capture -----------------------------------------------------------------------


class CaptureWriter:
    """Streams one command's output into a new capture (temp folder until ``finish``)."""

    __slots__ = ("command", "cwd", "fds", "folder", "id", "root", "segments", "sizes", "split")

    #: Above this many stream switches, the stream files are written as output arrives.
    MAX_SEGMENTS = 65536

    def __init__(self, root: str | os.PathLike[str], id: str, command: str, cwd: str,
                 merged: bool = False) -> None:
        self.root = os.fspath(root)
        self.id = check_id(id)
        self.command = redact.command_line(command)  # the index and meta never hold a secret
        self.cwd = cwd
        self.folder = os.path.join(self.root, f"{TEMP_PREFIX}{id}")
        os.mkdir(self.folder, 0o700)
        self.fds: dict[str, int] = {}
        try:
            for name in STREAMS[:1] if merged else STREAMS:  # merged: combined alone
                self.fds[name] = open_private(os.path.join(self.folder, name))
        except BaseException:
            self.abandon()
            raise
        self.sizes = dict.fromkeys(STREAMS, 0)
        # While output arrives only the combined file is written, with a run-length map of
        # which stream each byte came from; `finish` derives the stream files from it (a hard
        # link when one stream is empty, the common case), so big outputs are written once.
        self.segments: list[tuple[str, int]] = []
        self.split = False

    def write(self, stream: str, data: bytes) -> None:
        """Append ``data`` from ``stream`` (stdout or stderr) to combined (and its own file);
        ``stream`` "combined": output of both streams in one channel."""
        write_all(self.fds["combined"], data)
        self.sizes["combined"] += len(data)
        if stream == "combined":
            return
        self.sizes[stream] += len(data)
        if self.split:
            write_all(self.fds[stream], data)
            return
        if self.segments and self.segments[-1][0] == stream:
            self.segments[-1] = (stream, self.segments[-1][1] + len(data))
        else:
            self.segments.append((stream, len(data)))
            if len(self.segments) > self.MAX_SEGMENTS:
                self._split_streams()
                self.split = True

    def _split_streams(self) -> None:
        """Copy each segment of the combined file into its stream file."""
        with open(os.path.join(self.folder, "combined"), "rb") as combined:
            for stream, length in self.segments:
                left = length
                while left > 0:
                    chunk = combined.read(min(left, 1 << 20))
                    if not chunk:
                        break
                    write_all(self.fds[stream], chunk)
                    left -= len(chunk)
        self.segments = []

    def _derive_streams(self) -> None:
        """Stream files from the combined file: a hard link when the other stream is empty."""
        if self.split or not self.segments:
            return
        streams = {stream for stream, _ in self.segments}
        if len(streams) == 1:
            only = streams.pop()
            target = os.path.join(self.folder, only)
            os.close(self.fds.pop(only))
            os.unlink(target)
            try:
                os.link(os.path.join(self.folder, "combined"), target)
                return
            except OSError:  # no hard links here: write the copy
                self.fds[only] = open_private(target)
        self._split_streams()

    def write_only(self, stream: str, data: bytes) -> None:
        """Append ``data`` to one stream file alone (recorded output given stream by stream)."""
        write_all(self.fds[stream], data)
        self.sizes[stream] += len(data)

    def close(self) -> None:
        """Close the files (idempotent)."""
        for fd in self.fds.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = {}

    def abandon(self) -> None:
        """Drop an unfinished capture."""
        self.close()
        _rmtree(self.folder)

    def finish(self, exit_code: int | None) -> Capture:
        """Rename the capture into place, index it and return it.

        A capture whose index row cannot be written is still returned (and readable by id);
        the failure is reported on stderr, since the output itself must reach the caller.
        """
        self._derive_streams()
        self.close()
        stdout_same = self.sizes["stderr"] == 0
        stderr_same = self.sizes["stdout"] == 0
        row: spool.Row = {
            "id": self.id, "created": time.time(), "command": self.command, "cwd": self.cwd,
            "exit_code": exit_code, "combined_bytes": self.sizes["combined"],
            "stdout_bytes": self.sizes["stdout"], "stderr_bytes": self.sizes["stderr"],
            "stdout_same": int(stdout_same), "stderr_same": int(stderr_same),
        }
        try:
            fd = open_private(os.path.join(self.folder, META_FILE))
            try:
                write_all(fd, spool.encode(row))
            finally:
                os.close(fd)
        except OSError as exc:  # the folder's sizes and time still index it, command unknown
            warn(f"capture {self.id}: index row not written ({exc.strerror or exc})")
        final = os.path.join(self.root, self.id)
        os.rename(self.folder, final)
        if not os.path.exists(os.path.join(self.root, INDEX_FILE)):
            try:  # the first capture creates the index (later ones are taken in when it opens)
                with _index(self.root, durable=False):
                    pass
            except Exception as exc:  # the capture exists; only its index row is missing
                warn(f"capture {self.id} not indexed ({type(exc).__name__}: {exc})")
        return Capture(self.id, final, dict(self.sizes), stdout_same, stderr_same)


def _rmtree(path: str | os.PathLike[str]) -> None:
    """``shutil.rmtree(path, ignore_errors=True)`` for a capture folder, which holds plain files:
    they are unlinked through the folder's descriptor (a link is removed, never followed; a
    folder that is a link is left alone), and ``shutil`` (milliseconds of imports: ``fnmatch``,
    ``re``, ``bz2``, ``lzma``) is imported only for an unexpected subfolder."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        with os.scandir(fd) as entries:
            names = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
        for name, is_folder in names:
            try:
                if is_folder:
                    import shutil

                    shutil.rmtree(name, ignore_errors=True, dir_fd=fd)
                else:
                    os.unlink(name, dir_fd=fd)
            except OSError:
                pass
    except OSError:
        pass
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        pass


# --- a finished capture ----------------------------------------------------------------------


class Capture:
    """A finished capture: its id, folder and stream sizes (immutable)."""

    __slots__ = ("_folder", "id", "sizes", "stderr_same", "stdout_same")

    id: str
    sizes: dict[str, int]
    stdout_same: bool
    stderr_same: bool
    _folder: str

    def __init__(self, id: str, folder: str | os.PathLike[str], sizes: dict[str, int],
                 stdout_same: bool = False, stderr_same: bool = False) -> None:
        for name, value in (("id", id), ("_folder", os.fspath(folder)), ("sizes", sizes),
                            ("stdout_same", stdout_same), ("stderr_same", stderr_same)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a Capture is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Capture):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # sizes is a dict, as in the dataclass it was

    def __repr__(self) -> str:
        return (f"Capture(id={self.id!r}, folder={self.folder!r}, sizes={self.sizes!r}, "
                f"stdout_same={self.stdout_same!r}, stderr_same={self.stderr_same!r})")

    def _key(self) -> tuple[object, ...]:
        return (self.id, self._folder, self.sizes, self.stdout_same, self.stderr_same)

    @property
    def folder(self) -> Path:
        """The capture's folder."""
        from pathlib import Path

        return Path(self._folder)

    def file(self, stream: str = "combined") -> str:
        """The file of ``stream`` as a plain string path."""
        if stream not in STREAMS:
            raise TershError(f"unknown stream {stream!r} (combined, stdout or stderr)")
        return os.path.join(self._folder, stream)

    def path(self, stream: str = "combined") -> Path:
        """The file of ``stream``."""
        from pathlib import Path

        return Path(self.file(stream))

    def with_same(self, stdout_same: bool, stderr_same: bool) -> Capture:
        """This capture with other "stream identical to combined" flags."""
        return Capture(self.id, self._folder, self.sizes, stdout_same, stderr_same)

    def refs(self) -> tuple[CaptureRef, ...]:
        """The streams worth listing: a stream identical to combined is not listed again."""
        listed = [CaptureRef(self.id, "combined", self.file(), self.sizes["combined"])]
        for stream, same in (("stdout", self.stdout_same), ("stderr", self.stderr_same)):
            if not same and self.sizes[stream]:
                listed.append(CaptureRef(self.id, stream, self.file(stream), self.sizes[stream]))
        return tuple(listed)


# --- the store -------------------------------------------------------------------------------


def _private_folder(path: str) -> str:
    """Create ``path`` (and parents) as 0700 folders; refuse a symlink in its place."""
    import stat

    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        make_private_dirs(path)
        mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        raise TershError(f"refusing to use {path}: it is a symbolic link")
    if not stat.S_ISDIR(mode):
        raise TershError(f"refusing to use {path}: not a plain folder")
    if stat.S_IMODE(mode) != 0o700:
        os.chmod(path, 0o700)
    return path


def open_store() -> Path:
    """Create (if needed) and return the private capture folder."""
    from pathlib import Path

    return Path(_private_folder(_root()))


def start(command: str, cwd: str | None = None, merged: bool = False) -> CaptureWriter:
    """Begin a new capture for ``command`` (``merged``: combined alone, see the docstring)."""
    root = _private_folder(_root())
    return CaptureWriter(root, new_id(), command, cwd or os.getcwd(), merged)


def store_bytes(command: str, streams: dict[str, bytes], exit_code: int | None) -> Capture:
    """Store already-recorded output. ``streams`` has 'combined' and/or 'stdout'/'stderr'."""
    writer = start(command)
    combined = streams.get("combined")
    try:
        if combined is None:
            for name in ("stdout", "stderr"):
                if streams.get(name):
                    writer.write(name, streams[name])
        else:
            for name in STREAMS:
                data = streams.get(name, b"")
                write_all(writer.fds[name], data)
                writer.sizes[name] = len(data)
        capture = writer.finish(exit_code)
    except BaseException:
        writer.abandon()
        raise
    if combined is None:
        return capture
    same_out = streams.get("stdout", b"") in (b"", combined)
    same_err = streams.get("stderr", b"") in (b"", combined)
    return capture.with_same(same_out, same_err)


def store_files(command: str, sources: dict[str, BinaryIO], exit_code: int | None,
                chunk: int = 1 << 20) -> Capture:
    """Store recorded output read from open binary files, in chunks (bounded memory).

    ``sources`` maps 'combined', 'stdout' and/or 'stderr' to readable files. Without a combined
    source, combined is stdout followed by stderr.
    """
    writer = start(command)
    try:
        for name in ("combined", "stdout", "stderr"):
            source = sources.get(name)
            if source is None:
                continue
            while data := source.read(chunk):
                writer.write_only(name, data)
                if "combined" not in sources:
                    writer.write_only("combined", data)
        capture = writer.finish(exit_code)
    except BaseException:
        writer.abandon()
        raise
    return capture.with_same(_same_file(capture, "stdout"), _same_file(capture, "stderr"))


def _same_file(capture: Capture, stream: str) -> bool:
    """Whether ``stream`` is empty or byte-identical to the combined file (compared in chunks)."""
    size = capture.sizes[stream]
    if size == 0:
        return True
    if size != capture.sizes["combined"]:
        return False
    with open(capture.file(stream), "rb") as one, open(capture.file(), "rb") as other:
        while True:
            left, right = one.read(1 << 20), other.read(1 << 20)
            if left != right:
                return False
            if not left:
                return True


def load(capture_id: str) -> Capture:
    """The finished capture ``capture_id`` (TershError when unknown or expired)."""
    check_id(capture_id)
    folder = store_dir() / capture_id
    if not folder.is_dir() or folder.is_symlink():
        raise TershError(f"no capture {capture_id} (unknown, or expired and evicted)")
    sizes = {}
    for stream in STREAMS:
        try:
            sizes[stream] = (folder / stream).stat().st_size
        except FileNotFoundError:
            sizes[stream] = 0
    return Capture(capture_id, folder, sizes, sizes["stderr"] == 0, sizes["stdout"] == 0)


def pin(capture_id: str, seconds: float) -> None:
    """Keep ``capture_id`` from eviction for ``seconds`` more (a live result references it)."""
    check_id(capture_id)
    until = time.time() + seconds
    with _index(_private_folder(_root())) as db:
        db.execute(
            "UPDATE captures SET pinned_until = MAX(pinned_until, ?) WHERE id = ?", (until, capture_id)
        )


EVICT_STAMP = ".last-eviction"
EVICT_EVERY_SECONDS = 60.0


def claim_eviction() -> bool:
    """Whether :func:`evict` is due (a stamp file's mtime says when it last ran: at most once a
    minute); when it is, the stamp is touched first, so one caller of many runs it."""
    stamp = os.path.join(_root(), EVICT_STAMP)
    try:
        if time.time() - os.stat(stamp).st_mtime < EVICT_EVERY_SECONDS:
            return False
    except FileNotFoundError:
        pass
    try:
        fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        os.close(fd)
        os.utime(stamp)
    except OSError:
        return False
    return True


def evict(now: float | None = None, *, settings: settings_mod.Settings | None = None) -> list[str]:
    """Remove expired captures, then oldest-first over the size cap; return removed ids.

    A capture younger than the grace period or pinned by a live result is never removed; stale
    temporary folders of crashed writers are cleaned.
    """
    conf = settings or settings_mod.Settings()
    now = time.time() if now is None else now
    root = _root()
    if not os.path.isdir(root):
        return []
    _clean_stale_temps(root, now)
    ttl = conf.int("captures.ttl_days") * 86400
    cap = conf.int("captures.total_bytes")
    grace = conf.int("captures.grace_seconds")
    removed: list[str] = []
    # Not synced either: a DELETE lost to an OS crash leaves a row whose folder is gone, and the
    # next eviction removes it again (this runs once a minute after a call, detached: tersh.recording.upkeep).
    with _index(root, durable=False) as db:
        rows = db.execute(
            "SELECT id, created, combined_bytes + stdout_bytes * (1 - stdout_same)"
            " + stderr_bytes * (1 - stderr_same), pinned_until FROM captures ORDER BY created"
        ).fetchall()
        total = sum(row[2] for row in rows)
        for capture_id, created, size, pinned_until in rows:
            protected = created > now - grace or pinned_until > now
            if protected:
                continue
            if created < now - ttl or total > cap:
                if is_id(capture_id):
                    _rmtree(os.path.join(root, capture_id))
                db.execute("DELETE FROM captures WHERE id = ?", (capture_id,))
                total -= size
                removed.append(capture_id)
    return removed


def _clean_stale_temps(root: str, now: float) -> None:
    for entry in os.scandir(root):
        if entry.name.startswith(TEMP_PREFIX):
            try:
                if entry.stat(follow_symlinks=False).st_mtime < now - STALE_TEMP_SECONDS:
                    if entry.is_dir(follow_symlinks=False):
                        _rmtree(entry.path)
                    else:
                        os.unlink(entry.path)
            except OSError:
                pass


def list_recent(limit: int = 50) -> list[dict[str, object]]:
    """The newest captures' index rows, newest first."""
    root = _root()
    if not os.path.exists(os.path.join(root, INDEX_FILE)):
        return []
    import sqlite3

    with _index(root) as db:
        db.row_factory = sqlite3.Row
        rows = db.execute("SELECT * FROM captures ORDER BY created DESC LIMIT ?", (limit,)).fetchall()
    listed = [dict(row) for row in rows]
    for row in listed:  # rows written before redaction existed
        row["command"] = redact.command_line(str(row["command"] or ""))
    return listed
