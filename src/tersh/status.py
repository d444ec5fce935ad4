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

from tersh import fsutil, settings

TYPE_CHECKING = False  # typing and pathlib stay off the start-up path of `tersh run`
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import Any

FOLDER = "output-optimizer"
FILE = "status.json"
LOCK_SUFFIX = ".lock"


def status_path() -> Path:
    """Where the status file of the current profile lives."""
    return settings.state_dir() / FOLDER / FILE


def _status_file() -> str:
    """``status_path()`` as a plain string (no pathlib on the per-command write)."""
    return os.path.join(settings.profile_root(), "state", FOLDER, FILE)


@contextlib.contextmanager
def exclusive_lock(lock_file: Path | str) -> Iterator[None]:
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
    return _parse(_status_file())


def section(name: str) -> dict[str, Any]:
    """One section of the status document (``{}`` when absent or not an object)."""
    value = read().get(name)
    return value if isinstance(value, dict) else {}


def update(section: str, values: dict[str, Any]) -> None:
    """Merge ``values`` into ``section`` of the status file, under the lock, atomically.

    Keys of ``values`` replace the same keys of the section; other keys and other sections are
    kept. ``updated_at`` (Unix time) is set on the section.
    """
    path = _status_file()
    folder = os.path.dirname(path)
    settings.ensure_private_dir(os.path.dirname(folder))
    settings.ensure_private_dir(folder)
    with exclusive_lock(path + LOCK_SUFFIX):
        document = _parse(path)
        current = document.get(section)
        merged = dict(current) if isinstance(current, dict) else {}
        merged.update(values)
        merged["updated_at"] = time.time()
        document[section] = merged
        data = json.dumps(document, indent=2, sort_keys=True, default=str).encode("utf-8")
        _replace(path, data + b"\n")


def _replace(path: str, data: bytes) -> None:
    """Atomic replace without fsync: the file is a snapshot rebuilt by the next write, so losing
    it to a power cut costs nothing, while an fsync per command can cost milliseconds."""
    fsutil.refuse_symlink(path)
    tmp = fsutil.temp_name(path)
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


def _parse(path: Path | str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return {}
    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}
