"""Compact pylint output: module banners and rulers dropped, findings grouped by file.

pylint prints ``************* Module pkg.mod`` before the findings of each module (each finding
already names its file), ``path:line:col: C0114: message (symbol)`` per finding (parseable:
``path:line: [C0114(symbol), obj] message``), and a score block under a ruler. Banners and
rulers go; the score line and any crash report stay verbatim.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation

NAME = "pylint"
CATEGORY = "linters"
PROGRAMS = ("pylint",)
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("************* Module ", "Your code has been rated at ")

_BANNER = lazy(r"^\*{5,} Module \S+\s*$")
_RULER = lazy(r"^-{10,}\s*$")
# "C0114: message (symbol)"; --output-format=parseable: "[C0114(symbol), obj] message".
_MESSAGE_ID = lazy(r"^(?:[CRWEFI]\d{4}: |\[[CRWEFI]\d{4}\()")
_SNIFF = lazy(r"^\*{13} Module |^Your code has been rated at ", MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop banners and rulers, group findings when there are many; None if nothing to gain."""
    items: list[_diag.Finding | str] = []
    dropped = {"module banner": 0, "ruler": 0}
    seen_pylint = False
    for line in _diag.lines_of(text):
        if _BANNER.match(line) and not core.carries_fact(line, paths=True):
            dropped["module banner"] += 1
            seen_pylint = True
            continue
        if _RULER.match(line):
            dropped["ruler"] += 1
            continue
        finding = _diag.line_finding(line)
        if finding is not None and _MESSAGE_ID.match(finding.text):
            items.append(finding)
            seen_pylint = True
        elif line.strip():
            seen_pylint = seen_pylint or line.startswith("Your code has been rated")
            items.append(line)
    if not seen_pylint:
        return None
    return _diag.render(text, items, dropped)


def sniff(text: str) -> float:
    """Sure on pylint's module banners or its score line."""
    return 0.95 if _SNIFF.search(_diag.head(text)) else 0.0
