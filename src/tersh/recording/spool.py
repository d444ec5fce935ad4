"""Rows written on the per-command path as small files, folded into a SQLite table later.

``tersh run`` runs before every command of an agent, and importing ``sqlite3`` alone costs more
than the rest of its bookkeeping. So the hot path writes each new row (a capture's index row, a
ledger call) as one private file in a spool folder beside its database, and whoever opens that
database next — a report, a retrieval, the once-a-minute eviction — folds the spooled rows in,
in the order they were written, and deletes their files.

A row file is written under a temporary name and renamed, so a reader never sees half a row. Its
name is the write time in nanoseconds (16 hex digits), a dash and 8 random hex digits, so a sorted
listing is the order of writing. Its content is the Python literal of a dict of plain values
(str, int, float, bool, None), read back with ``ast.literal_eval``, which evaluates literals
only. Folding is idempotent when the table has a unique key for the row (the caller inserts with
``OR IGNORE``): a crash between the commit and the deletion only makes the next fold skip rows.
"""

from __future__ import annotations

import errno
import os
import time

from tersh.errors import TershError, warn
from tersh.fsutil import TEMP_PREFIX, write_all

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterator

    Row = dict[str, str | int | float | bool | None]

_NAME_LENGTH = 16 + 1 + 8
_HEX = frozenset("0123456789abcdef")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
#: Writing relative to an open folder needs ``dir_fd`` (POSIX); elsewhere plain paths are used.
_RELATIVE = hasattr(os, "O_DIRECTORY") and os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd
#: A spool never holds more rows than this in one fold (the rest waits for the next fold).
FOLD_BATCH = 5000


def put(folder: str, row: Row) -> str:
    """Write ``row`` as a new file of the spool ``folder`` (created 0700 if missing); its name.

    The folder is opened without following a symbolic link, and the file is created (0600,
    exclusively) and renamed relative to that open folder, so no link can redirect the write.
    """
    name = f"{time.time_ns():016x}-{os.urandom(4).hex()}"
    temp = f"{TEMP_PREFIX}{name}"
    data = encode(row)
    if not _RELATIVE:  # pragma: no cover - Windows: the profile folder is the user's own
        _put_by_path(folder, name, data)
        return name
    folder_fd = _open_folder(folder)
    try:
        fd = os.open(temp, _FILE_FLAGS, 0o600, dir_fd=folder_fd)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
        try:
            os.rename(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        except BaseException:
            os.unlink(temp, dir_fd=folder_fd)
            raise
    finally:
        os.close(folder_fd)
    return name


def encode(row: Row) -> bytes:
    """The bytes of a row file (the Python literal of ``row``; :func:`read` reads them back).

    Also the format of a capture's ``meta`` row, which the capture store writes into the
    capture's own private folder before renaming that folder into place.
    """
    return repr(row).encode("utf-8", "surrogatepass")


def _put_by_path(folder: str, name: str, data: bytes) -> None:  # pragma: no cover
    from tersh.fsutil import replace_file

    if os.path.islink(folder):
        raise TershError(f"refusing to write into {folder}: not a plain folder")
    if not os.path.isdir(folder):
        _make_folder(folder)
    replace_file(os.path.join(folder, name), data, sync=False)


def _open_folder(folder: str) -> int:
    """A descriptor of ``folder`` (created 0700 if missing); never through a symbolic link."""
    try:
        try:
            return os.open(folder, _FOLDER_FLAGS)
        except FileNotFoundError:
            _make_folder(folder)
            return os.open(folder, _FOLDER_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise TershError(f"refusing to write into {folder}: not a plain folder") from exc
        raise


def is_row_name(name: str) -> bool:
    """Whether ``name`` is a spooled row's file name (never a temp file, never a path)."""
    return (
        len(name) == _NAME_LENGTH
        and name[16] == "-"
        and _HEX.issuperset(name[:16])
        and _HEX.issuperset(name[17:])
    )


def pending(folder: str, limit: int = FOLD_BATCH) -> list[str]:
    """The names of the rows waiting in ``folder``, oldest first (at most ``limit``)."""
    try:
        names = sorted(name for name in os.listdir(folder) if is_row_name(name))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return names[:limit]


def read(folder: str, names: list[str]) -> Iterator[tuple[str, Row]]:
    """Each of ``names`` still present with its row; unreadable rows are reported and dropped."""
    import ast

    for name in names:
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", "surrogatepass")
        except FileNotFoundError:
            continue  # folded and removed by another process meanwhile
        except (OSError, UnicodeDecodeError) as exc:
            warn(f"spooled row {name} unreadable ({exc}); dropped")
            _unlink(path)
            continue
        try:
            row = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            warn(f"spooled row {name} corrupt ({type(exc).__name__}); dropped")
            _unlink(path)
            continue
        if isinstance(row, dict):
            yield name, row


def discard(folder: str, names: list[str]) -> None:
    """Remove the files of rows that were folded (missing ones are fine)."""
    for name in names:
        _unlink(os.path.join(folder, name))


def _make_folder(folder: str) -> None:
    from tersh import settings

    settings.ensure_private_dir(folder)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
