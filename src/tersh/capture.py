"""Private capture store: every byte a command printed, kept outside every workspace.

Layout under ``<profile>/captures`` (folders 0700, files 0600)::

    index.db            SQLite: one row per capture (command, cwd, exit code, sizes, times)
    <id>/combined       both streams in arrival order
    <id>/stdout         the stdout stream alone
    <id>/stderr         the stderr stream alone

A capture is written into a temporary folder and renamed into place when complete, so a reader
never sees half a capture under a real id. Ids are random (``c`` + 12 hex digits) and checked
against that pattern before any path is built from them.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from tersh import settings as settings_mod
from tersh.errors import TershError
from tersh.fsutil import TEMP_PREFIX, open_private
from tersh.result import CaptureRef

if TYPE_CHECKING:
    import sqlite3

ID_PATTERN = re.compile(r"^c[0-9a-f]{12}$")
STREAMS = ("combined", "stdout", "stderr")
STALE_TEMP_SECONDS = 24 * 3600

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
    return settings_mod.profile_dir() / "captures"


def new_id() -> str:
    """A fresh random capture id."""
    return "c" + os.urandom(6).hex()


def check_id(capture_id: str) -> str:
    """Return ``capture_id`` if it is well formed, else raise TershError (no path is built)."""
    if not isinstance(capture_id, str) or not ID_PATTERN.match(capture_id):
        raise TershError(f"malformed capture id {capture_id!r} (expected c + 12 hex digits)")
    return capture_id


@contextlib.contextmanager
def _index(root: Path) -> Iterator[sqlite3.Connection]:
    import sqlite3  # lazy: keeps `tersh run` start-up lean

    db = sqlite3.connect(root / "index.db", timeout=30, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA busy_timeout=30000")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        yield db
    finally:
        db.close()


def _private_index(root: Path) -> None:
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        with contextlib.suppress(OSError):
            os.chmod(root / name, 0o600)


@dataclass
class CaptureWriter:
    """Streams one command's output into a new capture (temp folder until ``finish``)."""

    root: Path
    id: str
    command: str
    cwd: str
    folder: Path = field(init=False)
    fds: dict[str, int] = field(init=False)
    sizes: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.folder = self.root / f"{TEMP_PREFIX}{self.id}"
        os.mkdir(self.folder, 0o700)
        self.fds = {name: open_private(self.folder / name) for name in STREAMS}
        self.sizes = dict.fromkeys(STREAMS, 0)

    def write(self, stream: str, data: bytes) -> None:
        """Append ``data`` from ``stream`` (stdout or stderr) to its file and to combined."""
        _write_all(self.fds[stream], data)
        self.sizes[stream] += len(data)
        _write_all(self.fds["combined"], data)
        self.sizes["combined"] += len(data)

    def write_only(self, stream: str, data: bytes) -> None:
        """Append ``data`` to one stream file alone (recorded output given stream by stream)."""
        _write_all(self.fds[stream], data)
        self.sizes[stream] += len(data)

    def close(self) -> None:
        """Close the files (idempotent)."""
        for fd in self.fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds = {}

    def abandon(self) -> None:
        """Drop an unfinished capture."""
        self.close()
        _rmtree(self.folder, ignore_errors=True)

    def finish(self, exit_code: int | None) -> Capture:
        """Rename the capture into place, index it and return it."""
        self.close()
        final = self.root / self.id
        os.rename(self.folder, final)
        stdout_same = self.sizes["stderr"] == 0
        stderr_same = self.sizes["stdout"] == 0
        with _index(self.root) as db:
            db.execute(
                "INSERT INTO captures (id, created, command, cwd, exit_code, combined_bytes,"
                " stdout_bytes, stderr_bytes, stdout_same, stderr_same) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (self.id, time.time(), self.command, self.cwd, exit_code, self.sizes["combined"],
                 self.sizes["stdout"], self.sizes["stderr"], int(stdout_same), int(stderr_same)),
            )
        _private_index(self.root)
        return Capture(self.id, final, dict(self.sizes), stdout_same, stderr_same)


def _rmtree(path: Path | str, ignore_errors: bool = True) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=ignore_errors)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


@dataclass(frozen=True)
class Capture:
    """A finished capture: its id, folder and stream sizes."""

    id: str
    folder: Path
    sizes: dict[str, int]
    stdout_same: bool = False
    stderr_same: bool = False

    def path(self, stream: str = "combined") -> Path:
        """The file of ``stream``."""
        if stream not in STREAMS:
            raise TershError(f"unknown stream {stream!r} (combined, stdout or stderr)")
        return self.folder / stream

    def refs(self) -> tuple[CaptureRef, ...]:
        """The streams worth listing: a stream identical to combined is not listed again."""
        listed = [CaptureRef(self.id, "combined", str(self.path()), self.sizes["combined"])]
        for stream, same in (("stdout", self.stdout_same), ("stderr", self.stderr_same)):
            if not same and self.sizes[stream]:
                listed.append(CaptureRef(self.id, stream, str(self.path(stream)), self.sizes[stream]))
        return tuple(listed)


def open_store() -> Path:
    """Create (if needed) and return the private capture folder."""
    root = settings_mod.ensure_private_dir(store_dir())
    return root


def start(command: str, cwd: str | None = None) -> CaptureWriter:
    """Begin a new capture for ``command``."""
    root = open_store()
    return CaptureWriter(root, new_id(), command, cwd or os.getcwd())


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
                _write_all(writer.fds[name], data)
                writer.sizes[name] = len(data)
        capture = writer.finish(exit_code)
    except BaseException:
        writer.abandon()
        raise
    if combined is None:
        return capture
    same_out = streams.get("stdout", b"") in (b"", combined)
    same_err = streams.get("stderr", b"") in (b"", combined)
    return Capture(capture.id, capture.folder, capture.sizes, same_out, same_err)


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
    same_out = _same_file(capture, "stdout")
    same_err = _same_file(capture, "stderr")
    return Capture(capture.id, capture.folder, capture.sizes, same_out, same_err)


def _same_file(capture: Capture, stream: str) -> bool:
    """Whether ``stream`` is empty or byte-identical to the combined file (compared in chunks)."""
    size = capture.sizes[stream]
    if size == 0:
        return True
    if size != capture.sizes["combined"]:
        return False
    with open(capture.path(stream), "rb") as one, open(capture.path(), "rb") as other:
        while True:
            left, right = one.read(1 << 20), other.read(1 << 20)
            if left != right:
                return False
            if not left:
                return True


def load(capture_id: str) -> Capture:
    """The finished capture ``capture_id`` (TershError when unknown or expired)."""
    check_id(capture_id)
    root = store_dir()
    folder = root / capture_id
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
    with _index(store_dir()) as db:
        db.execute(
            "UPDATE captures SET pinned_until = MAX(pinned_until, ?) WHERE id = ?", (until, capture_id)
        )


EVICT_STAMP = ".last-eviction"
EVICT_EVERY_SECONDS = 60.0


def evict_if_due(settings: settings_mod.Settings | None = None) -> list[str]:
    """Run :func:`evict` at most once a minute (a stamp file's mtime says when it last ran)."""
    stamp = store_dir() / EVICT_STAMP
    try:
        if time.time() - stamp.stat().st_mtime < EVICT_EVERY_SECONDS:
            return []
    except FileNotFoundError:
        pass
    try:
        fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        os.close(fd)
        os.utime(stamp)
    except OSError:
        return []
    return evict(settings=settings)


def evict(now: float | None = None, *, settings: settings_mod.Settings | None = None) -> list[str]:
    """Remove expired captures, then oldest-first over the size cap; return removed ids.

    A capture younger than the grace period or pinned by a live result is never removed; stale
    temporary folders of crashed writers are cleaned.
    """
    conf = settings or settings_mod.Settings()
    now = time.time() if now is None else now
    root = store_dir()
    if not root.is_dir():
        return []
    _clean_stale_temps(root, now)
    ttl = conf.int("captures.ttl_days") * 86400
    cap = conf.int("captures.total_bytes")
    grace = conf.int("captures.grace_seconds")
    removed: list[str] = []
    with _index(root) as db:
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
                if ID_PATTERN.match(capture_id):
                    _rmtree(root / capture_id, ignore_errors=True)
                db.execute("DELETE FROM captures WHERE id = ?", (capture_id,))
                total -= size
                removed.append(capture_id)
    return removed


def _clean_stale_temps(root: Path, now: float) -> None:
    for entry in os.scandir(root):
        if entry.name.startswith(TEMP_PREFIX):
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime < now - STALE_TEMP_SECONDS:
                    if entry.is_dir(follow_symlinks=False):
                        _rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)


def list_recent(limit: int = 50) -> list[dict[str, object]]:
    """The newest captures' index rows, newest first."""
    root = store_dir()
    if not (root / "index.db").exists():
        return []
    import sqlite3

    with _index(root) as db:
        db.row_factory = sqlite3.Row
        rows = db.execute("SELECT * FROM captures ORDER BY created DESC LIMIT ?", (limit,)).fetchall()
    return [dict(row) for row in rows]
