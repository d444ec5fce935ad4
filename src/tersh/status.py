"""The status file other processes read: ``state/output-optimizer/status.json`` in the profile.

Several writers share it (the session's savings, the RTK provider's status). Each write takes an
exclusive lock on a sibling lock file, reads the current document, merges its own section into it
and replaces the file atomically, so a savings write never erases an RTK write and a reader never
sees half a file. A missing or corrupt file reads as ``{}``; the next write replaces it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tersh import fsutil, settings

FOLDER = "output-optimizer"
FILE = "status.json"
LOCK_SUFFIX = ".lock"


def status_path() -> Path:
    """Where the status file of the current profile lives."""
    return settings.state_dir() / FOLDER / FILE


@contextlib.contextmanager
def exclusive_lock(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive cross-process lock on ``lock_file`` (created 0600, never a symlink)."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(lock_file, flags, 0o600)
    try:
        _lock(fd)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only

    def _lock(fd: int) -> None:
        import msvcrt

        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                return
            except OSError:
                time.sleep(0.01)

else:

    def _lock(fd: int) -> None:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)


def read() -> dict[str, Any]:
    """The whole status document; ``{}`` when the file is missing, unreadable or corrupt."""
    return _parse(status_path())


def section(name: str) -> dict[str, Any]:
    """One section of the status document (``{}`` when absent or not an object)."""
    value = read().get(name)
    return value if isinstance(value, dict) else {}


def update(section: str, values: dict[str, Any]) -> None:
    """Merge ``values`` into ``section`` of the status file, under the lock, atomically.

    Keys of ``values`` replace the same keys of the section; other keys and other sections are
    kept. ``updated_at`` (Unix time) is set on the section.
    """
    path = status_path()
    settings.ensure_private_dir(settings.state_dir())
    settings.ensure_private_dir(path.parent)
    with exclusive_lock(path.with_name(path.name + LOCK_SUFFIX)):
        document = _parse(path)
        current = document.get(section)
        merged = dict(current) if isinstance(current, dict) else {}
        merged.update(values)
        merged["updated_at"] = time.time()
        document[section] = merged
        data = json.dumps(document, indent=2, sort_keys=True, default=str).encode("utf-8")
        _replace(path, data + b"\n")


def _replace(path: Path, data: bytes) -> None:
    """Atomic replace without fsync: the file is a snapshot rebuilt by the next write, so losing
    it to a power cut costs nothing, while an fsync per command can cost milliseconds."""
    fsutil.refuse_symlink(path)
    tmp = fsutil.temp_path(path)
    fd = fsutil.open_private(tmp)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        fsutil.refuse_symlink(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _parse(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}
