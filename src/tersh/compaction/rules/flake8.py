"""Compact flake8 / pycodestyle / pyflakes output: findings grouped by file with counts.

Every line of these tools is a finding (``path:line:col: CODE message``), so nothing is dropped
but the path repeated on each line: with many findings they are grouped under their file and
identical messages share one entry (``  12:80 40:80 E501 line too long (81 > 79 characters)``).
A few findings stay exactly as printed. Other lines (``--count``, ``--statistics``, a crash) are
kept in place.
"""

from __future__ import annotations

from _operator import itemgetter

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterable

NAME = "flake8"
CATEGORY = "linters"
PROGRAMS = ("flake8", "pycodestyle", "pyflakes", "pep8")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (".py:", ".pyi:")

_CODE = lazy(r"^[A-Z]{1,3}\d{2,4}\b")
#: A line form the head holds whenever ``sniff`` picks it (three or more such lines).
SNIFF_LINE = r"^\S+\.pyi?:\d+:\d+: [A-Z]{1,3}\d{2,4} "
_SNIFF_LINE = lazy(SNIFF_LINE, MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Group flake8 findings by file, or None when there are too few to gain anything."""
    plain = text and not any(mark in text for mark in _diag.OTHER_BREAKS)
    items = _read_bulk(text) if plain else _read_lines(_diag.lines_of(text))
    return _diag.render(text, items, {})


def _read_lines(lines: Iterable[str]) -> list[_diag.FindingLike | str]:
    """The findings (``path:line:col: CODE message``) and the other lines that are not blank."""
    items: list[_diag.FindingLike | str] = []
    for line in lines:
        finding = _diag.line_finding(line)
        if finding is not None and _CODE.match(finding.text):
            items.append(finding)
        elif line.strip():
            items.append(line)
    return items


def _read_bulk(text: str) -> list[_diag.FindingLike | str]:
    """``_read_lines`` of a text whose only line break is ``\\n``, read by one regex."""
    items: list[_diag.FindingLike | str] = []
    for rows in _diag.row_chunks(text):
        items.extend(_diag.row_items(rows, map(_CODE.match, map(itemgetter(3), rows))))
    return items


def sniff(text: str) -> float:
    """Sure when most lines are ``file.py:line:col: E501 message``."""
    head = _diag.head(text)
    hits = len(_SNIFF_LINE.findall(head))
    lines = head.count("\n") + 1
    if hits >= 3 and hits >= 0.8 * lines:
        return 0.9
    return 0.5 if hits else 0.0
