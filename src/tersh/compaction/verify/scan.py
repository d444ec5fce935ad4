"""Bulk scans of a whole chunk for the lines that can carry a fact, with no call per line.

``is_diagnostic`` and ``iter_locations`` judge one line. A bounded preview of a large output
needs the few lines among millions that report something or name a location; calling them on
every line costs microseconds a line (seconds for ``seq 1 2000000``). These functions find the
candidates with searches over the whole chunk (``str.find`` of the severity words' heads, one
compiled pattern for the location marks), then judge only those lines with the per-line
function, so their answer is the per-line answer (tests/test_verify_scan.py holds them equal).

Lines are what ``chunk.split("\\n")`` gives; a line index counts from 0 within the chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tersh.compaction.verify.holds import (
    _SEVERITY,
    _not_passing,
    _severe_line_starts,
    is_diagnostic,
    iter_locations,
)

# Every location iter_locations finds holds one of these: "path:12", "file.c(12", 'File "'.
# Three patterns that each start with a literal are searched far faster than one alternation.
_LOCATION_MARKS = (re.compile(r":\d"), re.compile(r"\(\d"), re.compile('File "'))


def _line_starts(chunk: str, positions: list[int]) -> list[int]:
    """The start of the line of each position (sorted, each line once)."""
    rfind = chunk.rfind
    return sorted({rfind("\n", 0, position) + 1 for position in positions})


def _judge(chunk: str, starts: list[int], keep: Callable[[str], bool]) -> list[tuple[int, int]]:
    """(index, start) of the lines starting at ``starts`` (sorted) for which ``keep`` holds."""
    found: list[tuple[int, int]] = []
    index = last = 0
    count, find = chunk.count, chunk.find
    for start in starts:
        index += count("\n", last, start)
        last = start
        end = find("\n", start)
        if keep(chunk[start : len(chunk) if end < 0 else end]):
            found.append((index, start))
    return found


def _diagnostic(chunk: str) -> list[tuple[int, int]]:
    severe = _severe_line_starts(chunk)
    if severe is not None:  # these lines hold a severity word outside an option already
        return _judge(chunk, severe, _not_passing)
    starts = _line_starts(chunk, [match.start() for match in _SEVERITY.finditer(chunk)])
    return _judge(chunk, starts, is_diagnostic)


def _has_location(line: str) -> bool:
    return next(iter_locations(line), None) is not None


def _located(chunk: str) -> list[tuple[int, int]]:
    positions = [match.start() for mark in _LOCATION_MARKS for match in mark.finditer(chunk)]
    return _judge(chunk, _line_starts(chunk, positions), _has_location)


def _facts(chunk: str) -> list[tuple[int, int]]:
    return sorted({*_diagnostic(chunk), *_located(chunk)})


def diagnostic_lines(chunk: str) -> list[int]:
    """Indexes of the lines of ``chunk`` for which ``is_diagnostic`` holds, in order."""
    return [index for index, _ in _diagnostic(chunk)]


def located_lines(chunk: str) -> list[int]:
    """Indexes of the lines of ``chunk`` on which ``iter_locations`` finds a location, in order."""
    return [index for index, _ in _located(chunk)]


def fact_lines(chunk: str) -> list[int]:
    """Indexes of the lines of ``chunk`` that are diagnostics or name a location, in order
    (the lines a bounded preview offers between its head and its tail)."""
    return [index for index, _ in _facts(chunk)]


def fact_line_offsets(data: bytes) -> list[int]:
    """Byte offsets of the lines of ``data`` (split at ``b"\\n"``) that, decoded as UTF-8 with
    replacement, are diagnostics or name a location.

    ASCII data is scanned as it is. Other data is decoded with ``surrogateescape`` (each invalid
    byte one character that encodes back to it), and each found line's offset is counted by
    encoding the text between it and the one before.
    """
    if data.isascii():
        return [start for _, start in _facts(data.decode("ascii"))]
    text = data.decode("utf-8", "surrogateescape")
    offsets: list[int] = []
    position = last = 0
    for _, start in _facts(text):
        position += len(text[last:start].encode("utf-8", "surrogateescape"))
        last = start
        offsets.append(position)
    return offsets
