"""Compact TypeScript compiler output (tsc, vue-tsc).

Piped, tsc prints ``path(line,col): error TS2345: message`` with indented elaboration lines;
on a terminal (``--pretty``) it prints ``path:line:col - error TS2345: message``, the quoted
source with ``~~~`` under it, and a ``Found N errors in M files.`` footer with an ``Errors
Files`` table. The rule drops the quoted source and the markers (unless such a line carries a
protected fact) and, with many errors, groups them by file; elaboration lines stay under their
error, the footer and table stay verbatim. Watch-mode banners are kept.
"""

from __future__ import annotations

import sys

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterable

NAME = "tsc"
CATEGORY = "builds"
PROGRAMS = ("tsc", "vue-tsc", "tsgo", "tsserver")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("error TS", "Found ")

_TEXT = r"(?P<text>(?:error|warning|message) TS\d+: .*)$"
_PLAIN = lazy(r"^(?P<path>[^\s()]+)\((?P<line>\d+),(?P<col>\d+)\): " + _TEXT)
_PRETTY = lazy(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+) - " + _TEXT)
# In --pretty output: a quoted source line ("42   code", gutter then one space) or its "~~~".
_QUOTED = lazy(r"^\s*\d+ |^\s*~[~\s]*$")
#: A line form the head holds whenever ``sniff`` picks it (one or more such lines).
SNIFF_LINE = r"(?:^\S+\(\d+,\d+\): | - )error TS\d+: |^Found \d+ errors? in \d+ files?\."
_SNIFF = lazy(SNIFF_LINE, MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop quoted source, group errors by file when many; None if nothing is gained."""
    items, dropped, recognised = _read(_diag.lines_of(text))
    if not recognised:
        return None
    return _diag.render(text, items, dropped)


def _read(lines: Iterable[str]) -> tuple[list[_diag.FindingLike | str], dict[str, int], bool]:
    """The errors (each with the lines under it) and the kept lines, in order; the dropped
    counts; whether any line was an error. Each error is a plain tuple (see
    ``kit.diag.FindingLike``), built and closed here without a call per line."""
    items: list[_diag.FindingLike | str] = []
    append = items.append
    quoted_dropped = 0
    current: _diag.FindingLike | None = None
    extra: list[str] = []  # the lines under the current error
    pretty: bool | None = None  # whether the current error is in the --pretty form (read once)
    recognised = False
    plain_match, pretty_match, quoted_match = _PLAIN.match, _PRETTY.match, _QUOTED.match
    intern = sys.intern
    for line in lines:
        match = plain_match(line) or pretty_match(line)
        if match:
            if current is not None:
                append((*current[:4], tuple(extra)) if extra else current)
                extra = []
            path, row, col, message = match.groups()  # both forms: (path, line, col, text)
            current, pretty, recognised = (
                (intern(path), f"{row}:{col}", intern(message), line, ()),
                None,
                True,
            )
            continue
        if not line.strip():
            continue
        if current is not None and pretty is None:
            pretty = pretty_match(current[3]) is not None
        if current is not None and pretty and quoted_match(line):
            if core.carries_fact(line, paths=True) and "~" not in line:
                extra.append(line)
            else:
                quoted_dropped += 1
        elif current is not None and line[:1].isspace():
            extra.append(line)
        else:
            if current is not None:
                append((*current[:4], tuple(extra)) if extra else current)
                extra, current = [], None
            append(line)
    if current is not None:
        append((*current[:4], tuple(extra)) if extra else current)
    return items, {"quoted source or marker line": quoted_dropped}, recognised


def sniff(text: str) -> float:
    """Sure on ``error TS1234:`` lines."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.95 if hits >= 2 else 0.7 if hits else 0.0
