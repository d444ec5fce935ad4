"""Private, atomic, symlink-refusing file writes shared by captures, caches and state files."""

from __future__ import annotations

import os

from tersh.errors import TershError

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

TEMP_PREFIX = ".tmp-"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def open_private(path: str | os.PathLike[str]) -> int:
    """Create ``path`` as a new 0600 file and return its descriptor; never follows a symlink."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, 0o600)


def open_own_file(path: str) -> int | None:
    """``path`` opened for reading when it is this user's own file and no one else may write or
    read it (never through a symbolic link), else None: how a kept cache is read."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        stat = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    if stat.st_uid != os.geteuid() or stat.st_mode & 0o077:
        os.close(fd)
        return None
    return fd


def read_marshalled(path: str, key: bytes) -> object | None:
    """What :func:`write_marshalled` kept in ``path`` under ``key``, or None: no such file, not
    this user's own private file (:func:`open_own_file`), another key, or damaged."""
    import marshal

    fd = open_own_file(path)
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            if handle.read(len(key)) != key:
                return None
            found: object = marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return found


def write_marshalled(path: str, key: bytes, value: Any) -> None:
    """Keep ``value`` (``marshal``) under ``key`` in ``path`` with :func:`keep_file`; never fails."""
    import marshal

    try:
        data = key + marshal.dumps(value)
    except ValueError:  # a value marshal does not write
        return
    keep_file(path, data)


def keep_file(path: str, data: bytes) -> None:
    """Write a cache file: its folder made private, the file replaced atomically, never through
    a link; never fails (a cache that cannot be kept is made again when needed)."""
    try:
        make_private_dirs(os.path.dirname(path))
        replace_file(path, data, sync=False)
    except (OSError, TershError):
        pass


def temp_path(final: Path) -> Path:
    """A fresh temporary name beside ``final`` (same folder, so rename is atomic)."""
    return final.with_name(f"{TEMP_PREFIX}{final.name}.{os.urandom(6).hex()}")


def temp_name(final: str) -> str:
    """:func:`temp_path` for a plain string path (no pathlib)."""
    folder, name = os.path.split(final)
    return os.path.join(folder, f"{TEMP_PREFIX}{name}.{os.urandom(6).hex()}")


def refuse_symlink(path: str | os.PathLike[str]) -> None:
    """Raise TershError when ``path`` exists as a symbolic link."""
    if os.path.islink(path):
        raise TershError(f"refusing to write through symbolic link {path}")


def make_private_dirs(path: str | os.PathLike[str]) -> None:
    """Create ``path`` and each missing parent as a 0700 folder (``os.makedirs`` would give the
    parents the umask's mode); folders that exist already are left as they are."""
    missing = []
    folder = os.path.abspath(os.fspath(path))
    while not os.path.lexists(folder):
        missing.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for created in reversed(missing):
        try:
            os.mkdir(created, 0o700)
        except FileExistsError:
            continue
        os.chmod(created, 0o700)  # whatever the umask took away


def refuse_database_links(path: str | os.PathLike[str]) -> None:
    """Raise TershError when an SQLite database ``path`` or one of its side files (-wal, -shm,
    -journal) is a symbolic link: SQLite would follow it and write into its target."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        refuse_symlink(os.fspath(path) + suffix)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def replace_file(path: str, data: bytes, *, sync: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically: a private temp file beside it, then a rename;
    never through a symlink. ``sync=False`` skips the fsync (for snapshots rebuilt anyway)."""
    refuse_symlink(path)
    tmp = temp_name(path)
    fd = open_private(tmp)
    try:
        try:
            write_all(fd, data)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        refuse_symlink(path)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a private temp file and rename; never through a symlink."""
    replace_file(os.fspath(path), data)


def clean_stale_temps(folder: Path, older_than_seconds: float) -> int:
    """Remove temp files left by crashed writers in ``folder``; return how many were removed."""
    import time

    removed = 0
    cutoff = time.time() - older_than_seconds
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.startswith(TEMP_PREFIX):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed
