"""The "Full details" viewer: one bounded page (or a search) of a capture at a time.

It uses the read contract of ``tersh retrieve`` (:mod:`tersh.retrieval.pages`: the same page, byte and
search readers with the same ceilings), so a page never loads a whole capture. Unlike
``retrieve()`` it does not count the read against the session's savings: a person reading a
capture in the browser costs the model no tokens.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from tersh.errors import TershError
from tersh.recording import captures as capture
from tersh.retrieval import pages as retrieval

MODES = ("bytes", "lines")
DEFAULT_LIMITS = {"bytes": 64 * 1024, "lines": 200}


def page(capture_id: str, *, mode: str = "bytes", offset: int = 0, limit: int | None = None,
         stream: str = "combined", query: str | None = None) -> dict[str, Any]:
    """One page of ``capture_id`` as JSON-ready data; TershError for a bad id or argument."""
    capture.check_id(capture_id)
    if mode not in MODES:
        raise TershError(f"mode must be one of {', '.join(MODES)}")
    if stream not in capture.STREAMS:
        raise TershError(f"stream must be one of {', '.join(capture.STREAMS)}")
    size_limit = DEFAULT_LIMITS[mode] if limit is None else limit
    path = retrieval.resolve(capture_id, stream)
    size = path.stat().st_size
    if query:
        found, more = retrieval.search(path, query, _bounded(size_limit, retrieval.MAX_MATCHES))
        result = retrieval.Page(capture_id, stream, "search", 0, size_limit, size, lines=found,
                                more=more, query=query)
    elif mode == "bytes":
        text, following, size = retrieval.read_bytes(
            path, offset, _bounded(size_limit, retrieval.MAX_PAGE_BYTES)
        )
        result = retrieval.Page(capture_id, stream, "bytes", offset, size_limit, size, text=text,
                                next_offset=following)
    else:
        lines, following, total = retrieval.read_lines(
            path, offset, _bounded(size_limit, retrieval.MAX_LIMIT)
        )
        result = retrieval.Page(capture_id, stream, "lines", offset, size_limit, size, lines=lines,
                                next_offset=following, total_lines=total)
    return _json(result)


def _bounded(limit: int, ceiling: int) -> int:
    """``limit`` capped at the reader's ceiling; a limit below 1 is refused."""
    if limit < 1:
        raise TershError("limit must be a positive number")
    return min(limit, ceiling)


def _json(result: retrieval.Page) -> dict[str, Any]:
    data = asdict(result)
    data["lines"] = [{"number": number, "text": text} for number, text in result.lines]
    if result.mode == "bytes":
        data["end_offset"] = result.size if result.next_offset is None else result.next_offset
    return data
