"""The status file other processes read: ``state/output-optimizer/status.json`` in the profile.

Several writers share it (the session's savings, the RTK provider's status). A writer takes an
exclusive lock on a sibling lock file, replaces its own section and writes the file again
atomically (temp file + rename), so a savings write never erases an RTK write and a reader never
sees half a file. The file keeps a fixed layout (see :func:`section_texts`) so that the
per-command savings write needs no JSON parser. A missing or corrupt file reads as ``{}``; the
next write replaces it.
"""

from __future__ import annotations

import os
import sys
import time

from tersh import fsutil, settings

TYPE_CHECKING = False  # typing and pathlib stay off the start-up path of `tersh run`
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
    return _parse(_status_file())


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
    """Merge ``values`` into ``section`` of the status file, under the lock, atomically.

    Keys of ``values`` replace the same keys of the section; other keys and other sections are
    kept. ``updated_at`` (Unix time) is set on the section.
    """
    import json

    _check_section(section)
    with lock():
        current = _parse_text(section_texts().get(section, "{}"))
        merged = dict(current)
        merged.update(values)
        merged["updated_at"] = time.time()
        write_section(section, json.dumps(merged, indent=2, sort_keys=True, default=str))


def write_section(section: str, fragment: str) -> None:
    """Replace ``section`` with ``fragment`` (the JSON text of an object, its keys indented) and
    write the file again; the other sections are kept as they are. The caller holds :func:`lock`.
    """
    _check_section(section)
    if not (fragment.startswith("{") and fragment.endswith("}")):
        raise ValueError("a status section is a JSON object")
    texts = section_texts()
    texts[section] = fragment
    parts = [f'"{name}": {texts[name]}' for name in sorted(texts)]
    _replace(_status_file(), ("{\n" + ",\n".join(parts) + "\n}\n").encode("utf-8"))


def section_texts() -> dict[str, str]:
    """Each section's JSON text as the file holds it (``{}`` when the file is missing or bad).

    The file is written in a fixed layout — one ``"name": {`` line at the left margin per
    section, everything inside indented — so a section is found by lines, without a JSON
    parser. A file in any other shape (an older tersh, a hand edit) is read with ``json`` and
    its sections are written back in the layout by the next write.
    """
    try:
        with open(_status_file(), "rb") as handle:
            text = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    found = _layout_sections(text)
    if found is not None:
        return found
    import json

    document = _parse_text(text)
    return {
        name: json.dumps(value, indent=2, sort_keys=True, default=str)
        for name, value in document.items()
        if name and _SECTION_CHARS.issuperset(name) and isinstance(value, dict)
    }


def _layout_sections(text: str) -> dict[str, str] | None:
    """The sections of a file in tersh's layout; None when ``text`` is not in it."""
    lines = text.split("\n")
    if len(lines) < 3 or lines[0] != "{" or lines[-1] != "" or lines[-2] != "}":
        return None
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[1:-2]:
        if line.startswith('"'):
            name, quote, rest = line[1:].partition('": ')
            if not quote or not name or not _SECTION_CHARS.issuperset(name) or name in sections:
                return None
            current = sections[name] = [rest]
        elif current is None or not line or line[0] not in " }":
            return None
        else:
            current.append(line)
    found = {}
    for name, body in sections.items():
        fragment = "\n".join(body).removesuffix(",")
        if not (fragment.startswith("{") and fragment.endswith("}")):
            return None
        found[name] = fragment
    return found


def json_object(values: dict[str, str | int | float | bool | None]) -> str:
    """``values`` as a JSON object, written without the json module (flat plain values only)."""
    items = []
    for key, value in sorted(values.items()):
        if value is None:
            text = "null"
        elif value is True or value is False:
            text = "true" if value else "false"
        elif isinstance(value, int):
            text = str(value)
        elif isinstance(value, float) and value - value == 0:  # finite
            text = repr(value)
        else:
            text = _json_string(str(value))
        items.append(f"  {_json_string(key)}: {text}")
    return "{\n" + ",\n".join(items) + "\n}"


def flat_values(fragment: str) -> dict[str, str]:
    """The raw value texts of a flat section written by :func:`json_object` (or ``json.dumps``
    with indent), by key; nested or unusual lines are skipped."""
    values = {}
    for line in fragment.split("\n"):
        key, quote, value = line.strip().partition('": ')
        if quote and key.startswith('"'):
            values[key[1:]] = value.removesuffix(",")
    return values


def _json_string(text: str) -> str:
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    import json

    return json.dumps(text)


def _check_section(section: str) -> None:
    if not section or not _SECTION_CHARS.issuperset(section):
        raise ValueError(f"bad status section name {section!r}")


def _replace(path: str, data: bytes) -> None:
    """Atomic replace without fsync: the file is a snapshot rebuilt by the next write, so losing
    it to a power cut costs nothing, while an fsync per command can cost milliseconds."""
    fsutil.replace_file(path, data, sync=False)


def _parse(path: Path | str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return {}
    return _parse_text(raw)


def _parse_text(raw: bytes | str) -> dict[str, Any]:
    import json

    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}
