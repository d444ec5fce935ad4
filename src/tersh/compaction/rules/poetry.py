"""Compact ``poetry install/add/update/lock/remove``: package operations on one line each kind.

Dropped: per-package progress (``: Pending...``, ``: Downloading... 61%``, ``: Installing...``)
and ``Resolving dependencies...``. Consecutive finished operations of one kind are joined
(``- Installing: certifi (2024.8.30), idna (3.10)``). Failures (``: Failed``), errors, notes,
``Package operations:`` and every other line are kept as written.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.omit import SNIFF_CHARS, Omissions

NAME = "poetry"
CATEGORY = "packages"
PROGRAMS = ("poetry install", "poetry add", "poetry update", "poetry lock", "poetry remove",
            "poetry sync")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("Package operations: ",)

_OPERATION = lazy(
    r"^\s+[-•] (?P<verb>Installing|Updating|Downgrading|Removing) (?P<what>\S+ \([^)]*\))"
    r"(?::\s*(?P<state>.*))?$"
)
_PROGRESS_STATES = lazy(
    r"^(?:Pending|Downloading|Installing|Preparing|Removing|Updating)\.\.\.(?: \d+%)?$"
)
_RESOLVING = lazy(
    r"^(?:Resolving dependencies\.\.\.(?: \([\d.]+s\))?|Updating dependencies)$"
)


class _Joined:
    """Consecutive finished operations of one verb, written as one line."""

    def __init__(self, verb: str, at: int) -> None:
        self.verb = verb
        self.at = at
        self.names: list[str] = []

    def line(self) -> str:
        return f"  - {self.verb}: {', '.join(self.names)}"


def compact(text: str, inv: Invocation) -> str | None:
    """Drop progress states and join finished operations; None when there is nothing to drop."""
    kept: list[str] = []
    omissions = Omissions()
    group: _Joined | None = None
    for line in text.splitlines():
        operation = _OPERATION.match(line)
        state = operation["state"] if operation else None
        if operation and state and _PROGRESS_STATES.match(state):
            omissions.count("progress line")
            continue
        if operation and state is None:
            if group is None or group.verb != operation["verb"]:
                group = _Joined(operation["verb"], len(kept))
                kept.append("")
            group.names.append(operation["what"])
            kept[group.at] = group.line()
            continue
        group = None
        if _RESOLVING.match(line.strip()) and omissions.drop("resolver line", line):
            continue
        if not line.strip():
            omissions.blank += 1
            continue
        kept.append(line)
    if not omissions.counts:
        return None
    return omissions.proposal(kept, text)


def sniff(text: str) -> float:
    """Sure when poetry's ``Package operations:`` summary is there."""
    head = text[:SNIFF_CHARS]
    return 0.95 if "Package operations: " in head and " installs, " in head else 0.0
