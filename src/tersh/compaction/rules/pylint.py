"""Compact pylint output: module banners and rulers dropped, findings grouped by file.

pylint prints ``************* Module pkg.mod`` before the findings of each module (each finding
already names its file), ``path:line:col: C0114: message (symbol)`` per finding (parseable:
``path:line: [C0114(symbol), obj] message``), and a score block under a ruler. Banners and
rulers go; the score line and any crash report stay verbatim.
"""

from __future__ import annotations

from _operator import itemgetter

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterable

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
    reading = _Reading()
    _diag.read_text(reading, text)
    if not reading.seen_pylint:
        return None
    return _diag.render(text, reading.items, reading.dropped)


class _Reading:
    """pylint's findings and kept lines, with what was dropped and whether it was pylint's."""

    def __init__(self) -> None:
        self.items: list[_diag.FindingLike | str] = []
        self.dropped = {"module banner": 0, "ruler": 0}
        self.seen_pylint = False

    def read_lines(self, lines: Iterable[str]) -> None:
        """Read each line in turn (the readable definition of the reading)."""
        for line in lines:
            finding = None if _BANNER.match(line) or _RULER.match(line) else _diag.line_finding(line)
            if finding is not None and _MESSAGE_ID.match(finding.text):
                self.items.append(finding)
                self.seen_pylint = True
                continue
            item = self.other(line) if line.strip() else None
            if item is not None:
                self.items.append(item)

    def read_bulk(self, text: str) -> None:
        """``read_lines`` of a text whose only line break is ``\\n``, read by one regex."""
        for rows in _diag.row_chunks(text):
            accepted = list(map(bool, map(_MESSAGE_ID.match, map(itemgetter(3), rows))))
            self.items.extend(_diag.row_items(rows, accepted, self.other))
            self.seen_pylint = self.seen_pylint or any(accepted)

    def other(self, line: str) -> str | None:
        """A line that is not blank and no finding: None for a banner or a ruler (counted),
        else the line."""
        if _BANNER.match(line) and not core.carries_fact(line, paths=True):
            self.dropped["module banner"] += 1
            self.seen_pylint = True
            return None
        if _RULER.match(line):
            self.dropped["ruler"] += 1
            return None
        self.seen_pylint = self.seen_pylint or line.startswith("Your code has been rated")
        return line


def sniff(text: str) -> float:
    """Sure on pylint's module banners or its score line."""
    return 0.95 if _SNIFF.search(_diag.head(text)) else 0.0
