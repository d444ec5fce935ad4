"""Cut text only where a reader sees a boundary: between grapheme clusters, never inside one.

Python strings hold code points, so no cut can split a UTF-8 sequence; what remains is not to
split a user-perceived character (an emoji with modifiers or joiners, a flag, a letter with
combining marks, a Hangul syllable in jamo). The ``regex`` module's ``\\X`` implements the
current Unicode extended grapheme cluster rules (UAX #29); it is imported only when a cut is
actually made inside a line, so small outputs never pay for it.
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def _cluster_pattern() -> Any:
    import regex  # lazy: ~15 ms to import, needed only for in-line cuts

    return regex.compile(r"\X")


def _certain_boundary(text: str, index: int) -> bool:
    """True when ``index`` is a cluster boundary whatever surrounds it.

    A break always follows a line feed, and two ASCII characters other than CR LF never join.
    """
    if index <= 0 or index >= len(text):
        return True
    before, after = text[index - 1], text[index]
    if before == "\n":
        return True
    return before < "\x80" and after < "\x80" and not (before == "\r" and after == "\n")


def _anchor(text: str, index: int) -> int:
    """A certain boundary at or before ``index`` (the start of the text at worst)."""
    for candidate in range(index, -1, -1):
        if _certain_boundary(text, candidate):
            return candidate
    return 0


def boundary_at_or_before(text: str, index: int) -> int:
    """The largest grapheme boundary ``<= index`` (a safe end for ``text[:cut]``)."""
    index = max(0, min(index, len(text)))
    if _certain_boundary(text, index):
        return index
    start = _anchor(text, index)
    last = start
    for match in _cluster_pattern().finditer(text, start):
        if match.end() > index:
            break
        last = match.end()
    return last


def boundary_at_or_after(text: str, index: int) -> int:
    """The smallest grapheme boundary ``>= index`` (a safe start for ``text[cut:]``)."""
    index = max(0, min(index, len(text)))
    if _certain_boundary(text, index):
        return index
    start = _anchor(text, index)
    for match in _cluster_pattern().finditer(text, start):
        if match.end() >= index:
            return int(match.end())
    return len(text)


def head(text: str, limit: int) -> str:
    """The longest prefix of ``text`` with at most ``limit`` characters, ending on a boundary."""
    if len(text) <= limit:
        return text
    return text[: boundary_at_or_before(text, limit)]


def tail(text: str, limit: int) -> str:
    """The longest suffix of ``text`` with at most ``limit`` characters, starting on a boundary."""
    if len(text) <= limit:
        return text
    return text[boundary_at_or_after(text, len(text) - max(0, limit)) :]
