"""A cross-process lock that knows its owner and only ever gives way when the owner is gone.

The lock is an advisory ``flock`` on a private lock file: the kernel releases it the moment its
process dies, so a crashed owner can never block later writers, and a live owner is never
broken. While held, the file records the owner (pid, a random token, host, start time), so a
waiter that gives up can say who holds the lock, and the next owner can tell that it replaced
a record left by a crashed process (a stale lock). Systems without ``fcntl`` get no lock, and
the cache that needs it stays unused (outputs pass uncompressed).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tersh.errors import TershError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class LockBusy(TershError):
    """The lock is held by a live owner and the wait ran out."""

    def __init__(self, path: Path, owner: dict[str, Any] | None) -> None:
        who = f"pid {owner.get('pid')}" if owner else "another process"
        super().__init__(f"{path} is held by {who}")
        self.owner = owner


class Held:
    """What the current owner knows: its own record and the stale record it replaced."""

    def __init__(self, owner: dict[str, Any], replaced: dict[str, Any] | None) -> None:
        self.owner = owner
        self.replaced = replaced


def read_owner(path: Path) -> dict[str, Any] | None:
    """The owner record in the lock file, or None when free, missing or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        return None
    try:
        raw = os.read(fd, 4096)
    finally:
        os.close(fd)
    try:
        record = json.loads(raw.decode("utf-8")) if raw.strip() else None
    except (UnicodeDecodeError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _open_lock_file(path: Path) -> int:
    if path.is_symlink():
        raise TershError(f"refusing to lock through symbolic link {path}")
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600)
    except OSError as exc:
        raise TershError(f"cannot open lock {path}: {exc.strerror}") from exc


@contextlib.contextmanager
def hold(path: Path, timeout: float = 1.0, poll: float = 0.01) -> Iterator[Held]:
    """Hold the lock at ``path`` for the ``with`` block; raise LockBusy after ``timeout`` s."""
    try:
        import fcntl
    except ImportError as exc:  # pragma: no cover - Windows
        raise TershError("no file locking on this system") from exc
    fd = _open_lock_file(path)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockBusy(path, read_owner(path)) from None
                time.sleep(poll)
        replaced = read_owner(path)  # a record left behind means its owner died holding it
        owner = {
            "pid": os.getpid(),
            "token": secrets.token_hex(8),
            "host": os.uname().nodename if hasattr(os, "uname") else "",
            "since": time.time(),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(owner).encode("utf-8"), 0)
        try:
            yield Held(owner, replaced)
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
