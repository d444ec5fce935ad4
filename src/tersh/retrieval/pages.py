"""Read a capture back: bounded pages by line or byte offset, and case-insensitive search.

The same read contract serves the CLI (``tersh retrieve``), the library, the MCP ``retrieve``
tool and the settings page's viewer. Nothing ever loads a whole large capture: pages and searches
stream through the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tersh.errors import TershError

MAX_LIMIT = 2000
MAX_PAGE_BYTES = 256 * 1024
MAX_MATCHES = 200
SNIPPET_CHARS = 400
_CHUNK = 4 << 20


@dataclass(frozen=True)
class Page:
    """One bounded read of a capture.

    For a line page, ``lines`` holds ``(line_number, text)`` (1-based) starting after ``offset``
    lines; for a byte page, ``text`` holds the bytes from ``offset`` decoded (cut on character
    boundaries). ``more`` counts what remains after the page: lines for a line or byte page (a
    line the byte page cut counts as one), further matches for a search.
    """

    id: str
    stream: str
    mode: str  # "lines", "bytes" or "search"
    offset: int
    limit: int
    size: int
    lines: list[tuple[int, str]] = field(default_factory=list)
    text: str = ""
    next_offset: int | None = None
    total_lines: int | None = None
    more: int = 0
    query: str | None = None

    def render(self) -> str:
        """Plain text for a terminal or a model."""
        if not self.size:
            return f"[tersh: {self._what()} is empty (0 bytes)]"
        if self.mode == "bytes":
            if self.offset >= self.size:
                return f"[tersh: offset {self.offset} is past the end ({self.size:,} bytes)]"
            tail = (f"\n[tersh: {self.more:,} more lines; next: --offset {self.next_offset} --bytes]"
                    if self.next_offset else "")
            return self.text + tail
        if self.mode == "lines" and not self.lines and self.total_lines is not None:
            plural = "" if self.total_lines == 1 else "s"
            return f"[tersh: offset {self.offset} is past the end ({self.total_lines:,} line{plural})]"
        body = "\n".join(self._numbered(number, text) for number, text in self.lines)
        if self.mode == "search":
            if not self.lines:
                return f"[tersh: no line of {self.id} {self.stream} contains {self.query!r}]"
            more = f"\n[tersh: {self.more:,} more matching lines]" if self.more else ""
            return body + more
        if self.next_offset is not None:
            left = f"{self.total_lines - self.next_offset:,} more lines; " if self.total_lines else ""
            body += f"\n[tersh: {left}next: --offset {self.next_offset}]"
        return body

    def _what(self) -> str:
        """The stream named for a note: ``the stderr of c…`` or ``the output of c…``."""
        stream = "output" if self.stream == "combined" else self.stream
        return f"the {stream} of {self.id}"

    def _numbered(self, number: int, text: str) -> str:
        """``N: text``, except a tool output's line that carries its own number already (an
        OpenCode read's ``298: …``): a second number in front of it reads as a wrong one."""
        if self.id.startswith("o") and _OWN_NUMBER.match(text):
            return text
        return f"{number}: {text}"


#: A line that starts with a line number of its own (OpenCode's read tool: ``N: text``).
_OWN_NUMBER = re.compile(r"\d+: ")


def resolve(entry_id: str, stream: str = "combined") -> Path:
    """The file behind a capture id (``c…``) or a tool-output cache id (``o…``)."""
    if entry_id.startswith("o"):
        from tersh.recording import tool_cache

        return Path(tool_cache.entry_path(entry_id))
    from tersh.recording import captures as capture

    path = capture.load(entry_id).path(stream)
    if stream != "combined" and not path.exists():  # see the layout in recording/captures.py
        raise TershError(
            f"capture {entry_id} has no separate {stream}: the command ran with stdout and "
            "stderr on one channel (as in a terminal), so only --stream combined exists, in the "
            "order the command wrote it"
        )
    return path


def _clamp(limit: int, ceiling: int) -> int:
    if limit <= 0:
        raise TershError("--limit must be a positive number")
    return min(limit, ceiling)


def read_lines(path: Path, offset: int, limit: int) -> tuple[list[tuple[int, str]], int | None, int]:
    """Lines ``offset+1 … offset+limit`` (1-based numbers), the next offset, the total count."""
    if offset < 0:
        raise TershError("--offset cannot be negative")
    lines: list[tuple[int, str]] = []
    used = 0
    number = 0
    with open(path, "rb") as handle:
        for raw in handle:
            number += 1
            if number <= offset:
                continue
            if len(lines) >= limit or used >= MAX_PAGE_BYTES:
                # count the rest without decoding
                rest = 1 + sum(1 for _ in handle)
                return lines, number - 1, number - 1 + rest
            text = raw.rstrip(b"\n").decode("utf-8", "replace")
            if len(text) > SNIPPET_CHARS * 20:
                text = text[: SNIPPET_CHARS * 20] + f" [tersh: line cut at {SNIPPET_CHARS * 20} chars]"
            lines.append((number, text))
            used += len(raw)
    return lines, None, number


def read_bytes(path: Path, offset: int, limit: int) -> tuple[str, int | None, int]:
    """Bytes ``offset … offset+limit`` decoded on character boundaries; the next offset; size."""
    if offset < 0:
        raise TershError("--offset cannot be negative")
    size = path.stat().st_size
    with open(path, "rb") as handle:
        handle.seek(offset)
        data = handle.read(limit + 3)
    end = min(limit, len(data))
    cut = end
    while end - cut < 3 and 0 < cut < len(data) and (data[cut] & 0xC0) == 0x80:
        cut -= 1  # do not end inside a character (one starts at most 3 bytes back)
    if cut == 0 or (cut < len(data) and (data[cut] & 0xC0) == 0x80):
        cut = end  # no boundary close by (binary data, or a limit below one character): still advance
    text = data[:cut].decode("utf-8", "replace")
    following = offset + cut
    return text, (following if following < size else None), size


def lines_after(path: Path, position: int) -> int:
    """How many lines hold bytes from ``position`` on (a line cut at ``position`` counts)."""
    count = 0
    last = b"\n"
    with open(path, "rb") as handle:
        handle.seek(position)
        while chunk := handle.read(_CHUNK):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def search(path: Path, query: str, limit: int) -> tuple[list[tuple[int, str]], int]:
    """Lines containing ``query`` (case-insensitive) with their numbers; and how many more."""
    if not query:
        raise TershError("--query needs some text")
    needle = query.casefold()
    found: list[tuple[int, str]] = []
    more = 0
    ascii_needle = needle.encode("ascii") if needle.isascii() else None
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if ascii_needle is not None:
                if ascii_needle not in raw.lower():
                    continue
                text = raw.rstrip(b"\n").decode("utf-8", "replace")
            else:
                text = raw.rstrip(b"\n").decode("utf-8", "replace")
                if needle not in text.casefold():
                    continue
            if len(found) >= limit:
                more += 1
                continue
            found.append((number, _snippet(text, needle)))
    return found, more


def _snippet(text: str, needle: str) -> str:
    if len(text) <= SNIPPET_CHARS:
        return text
    at = max(0, text.casefold().find(needle))
    start = max(0, at - SNIPPET_CHARS // 2)
    piece = text[start : start + SNIPPET_CHARS]
    return ("…" if start else "") + piece + ("…" if start + SNIPPET_CHARS < len(text) else "")


def retrieve(entry_id: str, *, offset: int = 0, limit: int = 200, query: str | None = None,
             stream: str = "combined", by_bytes: bool = False) -> Page:
    """Read one bounded page (or search) of a capture or tool-output cache entry."""
    path = resolve(entry_id, stream)
    size = path.stat().st_size
    if query is not None:
        found, more = search(path, query, _clamp(limit, MAX_MATCHES))
        page = Page(entry_id, stream, "search", offset, limit, size, lines=found, more=more,
                    query=query)
    elif by_bytes:
        text, following, size = read_bytes(path, offset, _clamp(limit, MAX_PAGE_BYTES))
        more = lines_after(path, following) if following is not None else 0
        page = Page(entry_id, stream, "bytes", offset, limit, size, text=text, next_offset=following,
                    more=more)
    else:
        lines, following, total = read_lines(path, offset, _clamp(limit, MAX_LIMIT))
        more = total - following if following is not None else 0
        page = Page(entry_id, stream, "lines", offset, limit, size, lines=lines,
                    next_offset=following, total_lines=total, more=more)
    _note_retrieval(entry_id, page)
    return page


def _note_retrieval(entry_id: str, page: Page) -> None:
    returned = len(page.render().encode("utf-8", "replace"))
    try:
        from tersh.recording import captures as capture
        from tersh.recording import ledger

        ledger.record_retrieval(entry_id, returned)
        if entry_id.startswith("c"):
            capture.pin(entry_id, 3600)
    except Exception:  # the history is best effort; reading never fails because of it
        pass
