"""The bounded recovery cache for compressed tool outputs (ids ``o`` + 12 hex digits).

Each entry is the original output, byte for byte, in ``<id>.txt`` with a small ``<id>.json``
beside it (tool, size, creation time), in a 0700 folder under the profile; files are 0600 and
written atomically, never through a symbolic link. The id is derived from the content, so the
same output cached twice is one entry (its lifetime is renewed).

Limits come from settings: ``cache.entry_bytes`` per entry, ``cache.total_bytes`` in all,
``cache.ttl_hours`` of life. Every mutation runs under the owner-aware lock of
:mod:`tersh.recording.tool_lock`. An entry lives for its whole lifetime because a result the agent has
seen points at it: only expired entries are ever removed, so when the cache is full of live
entries a new output is refused (the caller then leaves that output uncompressed). A mutation
that fails half-way removes what it wrote, and temp files left by crashed writers are cleaned.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from tersh.errors import TershError
from tersh.fsutil import atomic_write, clean_stale_temps

ENTRY_ID = re.compile(r"o[0-9a-f]{12}")
LOCK_NAME = ".lock"
#: Temp files older than this are leftovers of a crashed writer.
STALE_TEMP_SECONDS = 60.0
#: Longest line of a search snippet (the match stays in view).
SNIPPET_CHARS = 200

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class CacheFull(TershError):
    """No room for a new entry without evicting a live one."""


class Match(NamedTuple):
    """One search hit: 1-based line and column, character offset in the entry, the line."""

    line: int
    column: int
    offset: int
    snippet: str


class Page(NamedTuple):
    """A bounded slice of an entry's lines."""

    text: str
    offset: int
    lines: int
    total_lines: int
    next_offset: int | None


def cache_dir() -> Path:
    """Where entries live: ``<profile>/cache/tools``."""
    from tersh.settings import profile_dir

    return profile_dir() / "cache" / "tools"


def entry_id_for(data: bytes) -> str:
    """The id of an entry holding ``data``."""
    return "o" + hashlib.sha256(data).hexdigest()[:12]


def validate_id(entry_id: str) -> str:
    """``entry_id`` if it is well formed; TershError before any path is built otherwise."""
    if not isinstance(entry_id, str) or not ENTRY_ID.fullmatch(entry_id):
        raise TershError(f"malformed tool-output id {entry_id!r} (expected o + 12 hex digits)")
    return entry_id


class Cache:
    """One cache folder with its limits."""

    def __init__(
        self,
        root: Path,
        entry_bytes: int,
        total_bytes: int,
        ttl_seconds: float,
        lock_timeout: float = 1.0,
    ) -> None:
        self.root = root
        self.entry_bytes = entry_bytes
        self.total_bytes = total_bytes
        self.ttl_seconds = ttl_seconds
        self.lock_timeout = lock_timeout

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], root: Path | None = None) -> Cache:
        """A cache with the limits of ``settings`` (in the profile unless ``root`` is given)."""
        return cls(
            root if root is not None else cache_dir(),
            int(settings["cache.entry_bytes"]),
            int(settings["cache.total_bytes"]),
            float(settings["cache.ttl_hours"]) * 3600.0,
        )

    def _data(self, entry_id: str) -> Path:
        return self.root / f"{entry_id}.txt"

    def _meta(self, entry_id: str) -> Path:
        return self.root / f"{entry_id}.json"

    def put(self, data: bytes, tool: str) -> str:
        """Store ``data`` and return its id; CacheFull or TershError when it cannot."""
        if len(data) > self.entry_bytes:
            raise CacheFull(f"{len(data):,} bytes exceed the {self.entry_bytes:,}-byte entry cap")
        from tersh.recording import tool_lock as lock
        from tersh.settings import ensure_private_dir

        ensure_private_dir(self.root)
        entry_id = entry_id_for(data)
        with lock.hold(self.root / LOCK_NAME, self.lock_timeout):
            clean_stale_temps(self.root, STALE_TEMP_SECONDS)
            live = self._evict_expired()
            if entry_id in live:
                self._renew(entry_id)
                return entry_id
            used = sum(live.values())
            if used + len(data) > self.total_bytes:
                raise CacheFull(f"cache full: {used:,} of {self.total_bytes:,} bytes are live")
            self._write(entry_id, data, tool)
        return entry_id

    def _write(self, entry_id: str, data: bytes, tool: str) -> None:
        """Write the entry's two files; on any failure remove both (the mutation rolls back)."""
        meta = {"id": entry_id, "tool": tool, "bytes": len(data), "created": time.time()}
        written: list[Path] = []
        try:
            atomic_write(self._data(entry_id), data)
            written.append(self._data(entry_id))
            atomic_write(self._meta(entry_id), json.dumps(meta).encode("utf-8"))
        except BaseException:
            for path in written:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            raise

    def _renew(self, entry_id: str) -> None:
        now = time.time()
        for path in (self._data(entry_id), self._meta(entry_id)):
            with contextlib.suppress(OSError):
                os.utime(path, (now, now), follow_symlinks=False)

    def _evict_expired(self) -> dict[str, int]:
        """Remove expired entries (and orphans); return live id -> size."""
        live: dict[str, int] = {}
        cutoff = time.time() - self.ttl_seconds
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return live
        metas = {e.name[:-5] for e in entries if e.name.endswith(".json")}
        for entry in entries:
            name, _, suffix = entry.name.partition(".")
            if suffix != "txt" or not ENTRY_ID.fullmatch(name):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if entry.is_symlink() or info.st_mtime < cutoff or name not in metas:
                self._remove(name)
                continue
            live[name] = info.st_size
        for name in metas - set(live):
            if ENTRY_ID.fullmatch(name):
                with contextlib.suppress(OSError):
                    os.unlink(self._meta(name))
        return live

    def _remove(self, entry_id: str) -> None:
        for path in (self._data(entry_id), self._meta(entry_id)):
            with contextlib.suppress(OSError):
                os.unlink(path)

    def future_path(self, entry_id: str) -> Path:
        """Where entry ``entry_id`` is (or will be, once stored): for reports written first."""
        return self._data(validate_id(entry_id))

    def path(self, entry_id: str) -> Path:
        """The data file of a live entry; TershError for malformed, unknown or expired ids."""
        path = self._data(validate_id(entry_id))
        try:
            info = os.lstat(path)
        except OSError:
            raise TershError(f"unknown tool-output id {entry_id}") from None
        if not path.is_file() or path.is_symlink():
            raise TershError(f"unknown tool-output id {entry_id}")
        if info.st_mtime < time.time() - self.ttl_seconds:
            raise TershError(f"tool output {entry_id} has expired")
        return path

    def read_text(self, entry_id: str) -> str:
        """The entry's text (never through a symbolic link)."""
        fd = os.open(self.path(entry_id), os.O_RDONLY | _NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            return handle.read().decode("utf-8", "replace")

    def search(self, entry_id: str, query: str, limit: int = 20) -> list[Match]:
        """Case-insensitive substring matches with their positions (at most ``limit``)."""
        if not query:
            raise TershError("an empty query matches everything; give some text")
        pattern = re.compile(re.escape(query), re.IGNORECASE)
        matches: list[Match] = []
        offset = 0
        for number, line in enumerate(self.read_text(entry_id).split("\n"), start=1):
            for found in pattern.finditer(line):
                matches.append(
                    Match(number, found.start() + 1, offset + found.start(), _snippet(line, found))
                )
                if len(matches) >= max(1, limit):
                    return matches
            offset += len(line) + 1
        return matches

    def page(self, entry_id: str, offset: int = 0, limit: int = 200) -> Page:
        """Lines ``offset`` (0-based) to ``offset + limit`` of the entry, bounded to 2,000."""
        lines = self.read_text(entry_id).split("\n")
        start = max(0, offset)
        count = max(1, min(limit, 2000))
        chunk = lines[start : start + count]
        end = start + len(chunk)
        return Page("\n".join(chunk), start, len(chunk), len(lines), end if end < len(lines) else None)


def _snippet(line: str, found: re.Match[str]) -> str:
    if len(line) <= SNIPPET_CHARS:
        return line
    from tersh.compaction import textcut

    room = max(0, SNIPPET_CHARS - (found.end() - found.start())) // 2
    start = textcut.boundary_at_or_before(line, max(0, found.start() - room))
    end = textcut.boundary_at_or_after(line, min(len(line), found.end() + room))
    return f"{'…' if start else ''}{line[start:end]}{'…' if end < len(line) else ''}"


def default() -> Cache:
    """The profile's cache with the current settings (defaults when settings are unreadable)."""
    from tersh.settings import load_or_defaults

    return Cache.from_settings(load_or_defaults()[0])


def entry_path(entry_id: str) -> Path:
    """The file holding tool output ``entry_id``; TershError if malformed, unknown or expired."""
    return default().path(entry_id)


def search(entry_id: str, query: str, limit: int = 20) -> list[Match]:
    """Case-insensitive substring search in tool output ``entry_id``, with positions."""
    return default().search(entry_id, query, limit)
