"""Compact eslint output: within each file, findings that share a message share one entry.

eslint's default "stylish" format already groups findings under their file
(``  7:1  error  Unexpected var, use let or const instead  no-var``); with many findings the same
message repeats on every line. The rule lists every ``line:col`` of a message on one entry, under
the file header with its count, and keeps the summary (``✖ 1750 problems (…)``) verbatim. The
``unix``/``compact`` formats (``path:line:col: message [Error/rule]``) are grouped by file.
"""

from __future__ import annotations

import re
import sys

from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation

NAME = "eslint"
CATEGORY = "linters"
PROGRAMS = ("eslint", "eslint_d", "next lint")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("problem",)

_ENTRY = re.compile(r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<text>(?:error|warning)\s.*)$")
_FILE = re.compile(r"^(?:/|[A-Za-z]:\\|\.{0,2}/|\w)\S*(?: \S+)*$")
_UNIX = re.compile(r"\[(?:Error|Warning)(?:/[^\]]+)?\]$")
_SUMMARY = re.compile(r"^[✖✕×]? ?\d[\d,]* problems? \(", re.MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Merge repeated messages per file; None with few findings (nothing to gain)."""
    items: list[_diag.Finding | str] = []
    current: str | None = None
    seen_eslint = False
    messages: dict[str, str] = {}  # a message as printed -> as kept (a log repeats its messages)
    entry_match, make_finding = _ENTRY.match, _diag.make_finding
    for line in _diag.lines_of(text):
        entry = entry_match(line) if current is not None else None
        if entry and current is not None:
            line_no, col, printed = entry.groups()
            text_part = messages.get(printed)
            if text_part is None:
                text_part = messages[printed] = sys.intern(" ".join(printed.split("  ")).strip())
            location = f"{line_no}:{col}"
            items.append(
                make_finding((current, location, text_part, f"{current}:{location} {text_part}", ()))
            )
            seen_eslint = True
            continue
        finding = _diag.line_finding(line) if _UNIX.search(line) else None
        if finding is not None:
            items.append(finding)
            seen_eslint = True
            continue
        if not line.strip():
            current = None
            continue
        if current is None and not line[:1].isspace() and _FILE.match(line) and _is_file(line):
            current = line.strip()
            continue
        seen_eslint = seen_eslint or bool(_SUMMARY.match(line.strip()))
        items.append(line)
    findings = sum(isinstance(item, _diag.Finding) for item in items)
    if not seen_eslint or findings <= _diag.FEW_FINDINGS:
        return None
    return _diag.render(text, items, {})


def _is_file(line: str) -> bool:
    return next(iter(_paths(line)), None) == line.strip()


def _paths(line: str) -> list[str]:
    from tersh.compaction.verify import holds as verify

    return list(verify.iter_paths(line.strip()))


def sniff(text: str) -> float:
    """Sure on eslint's ``✖ N problems (X errors, Y warnings)`` summary."""
    head = text[-_diag.SNIFF_CHARS :]
    if _SUMMARY.search(head) and "warning" in head:
        return 0.95
    return 0.0
