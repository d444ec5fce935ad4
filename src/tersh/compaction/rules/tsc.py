"""Compact TypeScript compiler output (tsc, vue-tsc).

Piped, tsc prints ``path(line,col): error TS2345: message`` with indented elaboration lines;
on a terminal (``--pretty``) it prints ``path:line:col - error TS2345: message``, the quoted
source with ``~~~`` under it, and a ``Found N errors in M files.`` footer with an ``Errors
Files`` table. The rule drops the quoted source and the markers (unless such a line carries a
protected fact) and, with many errors, groups them by file; elaboration lines stay under their
error, the footer and table stay verbatim. Watch-mode banners are kept.
"""

from __future__ import annotations

import re
import sys

from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation

NAME = "tsc"
CATEGORY = "builds"
PROGRAMS = ("tsc", "vue-tsc", "tsgo", "tsserver")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("error TS", "Found ")

_TEXT = r"(?P<text>(?:error|warning|message) TS\d+: .*)$"
_PLAIN = re.compile(r"^(?P<path>[^\s()]+)\((?P<line>\d+),(?P<col>\d+)\): " + _TEXT)
_PRETTY = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+) - " + _TEXT)
# In --pretty output: a quoted source line ("42   code", gutter then one space) or its "~~~".
_QUOTED = re.compile(r"^\s*\d+ |^\s*~[~\s]*$")
_SNIFF = re.compile(r"(?:^\S+\(\d+,\d+\): | - )error TS\d+: |^Found \d+ errors? in \d+ files?\.", re.M)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop quoted source, group errors by file when many; None if nothing is gained."""
    items: list[_diag.Finding | str] = []
    dropped = {"quoted source or marker line": 0}
    run = _diag.FindingRun(items)
    recognised = False

    for line in _diag.lines_of(text):
        match = _PLAIN.match(line) or _PRETTY.match(line)
        if match:
            run.close()
            location = f"{match['line']}:{match['col']}"
            path, message = sys.intern(match["path"]), sys.intern(match["text"])
            run.current, recognised = _diag.make_finding((path, location, message, line, ())), True
            continue
        if not line.strip():
            continue
        if run.current is not None and _PRETTY.match(run.current.source_line) and _QUOTED.match(line):
            if core.carries_fact(line, paths=True) and "~" not in line:
                run.extra.append(line)
            else:
                dropped["quoted source or marker line"] += 1
        elif run.current is not None and line[:1].isspace():
            run.extra.append(line)
        else:
            run.close()
            items.append(line)
    run.close()
    if not recognised:
        return None
    return _diag.render(text, items, dropped)


def sniff(text: str) -> float:
    """Sure on ``error TS1234:`` lines."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.95 if hits >= 2 else 0.7 if hits else 0.0
