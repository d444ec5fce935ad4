"""The status file other processes read: ``state/output-optimizer/status.json`` in the profile.

Several writers share it (the session's savings, the RTK provider's status). A writer takes an
exclusive lock on a sibling lock file, replaces its own section and writes the file again
atomically (temp file + rename), so a savings write never erases an RTK write and a reader never
sees half a file. The file is read and written with ``_startup.leanjson`` (what ``json`` gives,
without importing ``json`` and ``re`` on the per-command path). A missing or corrupt file reads
as ``{}``; the next write replaces it.
"""

from __future__ import annotations

import os
import sys
import time

from tersh import fsutil, settings
from tersh._startup import leanjson

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType
    from typing import Any

FOLDER = "output-optimizer"
FILE = "status.json"
LOCK_SUFFIX = ".lock"
_SECTION_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_")


def status_path() -> Path:
    """Where the status file of the current profile lives."""
    return settings.state_dir() / FOLDER / FILE


def _status_file() -> str:
    """``status_path()`` as a plain string (no pathlib on the per-command write)."""
    return os.path.join(settings.profile_root(), "state", FOLDER, FILE)


#: How long the per-command writers wait for a lock another process holds before giving their
#: write up (the command has finished; its output must not wait on a stuck process).
RUN_LOCK_TIMEOUT_SECONDS = 2.0


class LockTimeout(OSError):
    """The lock stayed held by another process past the timeout its writer gave."""


class exclusive_lock:
    """Hold an exclusive cross-process lock on ``lock_file`` (created 0600, never a symlink).

    A plain class rather than a ``contextlib`` generator: ``contextlib`` is not imported on the
    start-up path of ``tersh run``.
    """

    def __init__(self, lock_file: Path | str, timeout: float | None = None) -> None:
        self.lock_file = lock_file
        self.timeout = timeout
        self.fd = -1

    def __enter__(self) -> None:
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        self.fd = os.open(self.lock_file, flags, 0o600)
        try:
            _lock(self.fd, self.timeout)
        except BaseException:
            os.close(self.fd)
            raise

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        os.close(self.fd)  # closing the descriptor releases the lock


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only

    def _lock(fd: int, timeout: float | None) -> None:
        import msvcrt

        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                return
            except OSError:
                time.sleep(0.01)

else:

    def _lock(fd: int, timeout: float | None) -> None:
        import fcntl

        if timeout is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(
                        f"a lock file is held by another process for over {timeout:g} s"
                    ) from None
                time.sleep(0.01)


def read() -> dict[str, Any]:
    """The whole status document; ``{}`` when the file is missing, unreadable or corrupt."""
    try:
        with open(_status_file(), "rb") as handle:
            raw = handle.read()
    except OSError:
        return {}
    try:
        document = leanjson.loads(raw)
    except ValueError:  # not JSON, or not UTF-8 (UnicodeDecodeError is a ValueError)
        return {}
    return document if isinstance(document, dict) else {}


def section(name: str) -> dict[str, Any]:
    """One section of the status document (``{}`` when absent or not an object)."""
    value = read().get(name)
    return value if isinstance(value, dict) else {}


def lock(timeout: float | None = None) -> exclusive_lock:
    """The lock every writer of the status file holds (its folders are created if missing);
    LockTimeout after ``timeout`` seconds held by another process (None: wait)."""
    path = _status_file()
    folder = os.path.dirname(path)
    for needed in (os.path.dirname(folder), folder):
        if not _plain_folder(needed):  # missing (or not plain: ensure_private_dir refuses it)
            settings.ensure_private_dir(needed)
    return exclusive_lock(path + LOCK_SUFFIX, timeout)


def _plain_folder(path: str) -> bool:
    """Whether ``path`` is a folder, not a symbolic link (one ``lstat``)."""
    import stat

    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def update(section: str, values: dict[str, Any]) -> None:
    """Merge ``values`` (JSON values) into ``section`` of the status file, under the lock,
    atomically.

    Keys of ``values`` replace the same keys of the section; other keys and other sections are
    kept. ``updated_at`` (Unix time) is set on the section.
    """
    _check_section(section)
    with lock():
        document = _sections()
        document[section] = {**document.get(section, {}), **values, "updated_at": time.time()}
        _write(document)


def write_section(section: str, values: dict[str, Any]) -> None:
    """Replace ``section`` with ``values`` (JSON values) and write the file again; the other
    sections are kept as they are. The caller holds :func:`lock`."""
    _check_section(section)
    document = _sections()
    document[section] = values
    _write(document)


def write_sections(sections: dict[str, dict[str, Any]], current: dict[str, Any] | None = None) -> None:
    """Replace each of ``sections`` (JSON values) and write the file again, once; the other
    sections are kept as they are (``current``: the document as the caller just read it under
    the lock, else read here). The caller holds :func:`lock`."""
    for name in sections:
        _check_section(name)
    _write({**_sections(current), **sections})


def _sections(document: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The sections of the file (or of ``document``, as read) that a write keeps: objects under
    plain-word names."""
    return {
        name: value
        for name, value in (read() if document is None else document).items()
        if name and _SECTION_CHARS.issuperset(name) and isinstance(value, dict)
    }


def _write(document: dict[str, dict[str, Any]]) -> None:
    """Write ``document`` (sections in name order) in place of the file, atomically."""
    text = leanjson.dumps({name: document[name] for name in sorted(document)})
    _replace(_status_file(), (text + "\n").encode("utf-8"))


def _check_section(section: str) -> None:
    if not section or not _SECTION_CHARS.issuperset(section):
        raise ValueError(f"bad status section name {section!r}")


def _replace(path: str, data: bytes) -> None:
    """Atomic replace without fsync: the file is a snapshot rebuilt by the next write, so losing
    it to a power cut costs nothing, while an fsync per command can cost milliseconds."""
    fsutil.replace_file(path, data, sync=False)
