"""Compact ``uv add/sync/remove/lock`` and ``uv pip …``: the changes, without the chatter.

Dropped: ``Downloading x (1.2MiB)`` / ``Downloaded x``, ``Building``/``Built`` lines, ``Prepared
N packages``, ``Resolved``/``Audited``/``Checked`` counts. The package changes (`` + a==1``,
`` - b==2``, `` ~ c==3``) are joined per sign on one line; errors, warnings, hints and every
other line are kept as written. ``uv pip list`` loses only its padding and header rule.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.omit import SNIFF_CHARS, Chatter, Omissions, drop_lines
from tersh.compaction.rules import pip

NAME = "uv"
CATEGORY = "packages"
PROGRAMS = ("uv pip", "uv add", "uv sync", "uv remove", "uv lock", "uv venv", "uv tool")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("Resolved ",)

_CHATTER = Chatter({
    "download line": r"\s*(?:Downloading \S+ \([\d.]+ ?[KMG]i?B\)|Downloaded \S+)$",
    "build line": r"\s*(?:Building|Built) \S+ @ \S+$",
    "count line": r"(?:Resolved|Prepared|Audited|Checked|Using) \d+ packages? in [\d.]+m?s$",
})
_CHANGE = lazy(r"^ (?P<sign>[-+~]) (?P<spec>\S+(?: \(from [^)]*\))?)$")


def compact(text: str, inv: Invocation) -> str | None:
    """Drop uv's chatter and join package changes; None when nothing would go."""
    if inv.subcommand == "pip" and "list" in inv.args:
        return pip.compact(text, inv)
    omissions = Omissions()
    kept: list[str] = []
    sign, at = "", -1
    for line in drop_lines(text, _CHATTER, omissions):
        change = _CHANGE.match(line) if line[:1] == " " else None
        if change is None:
            kept.append(line)
        elif change["sign"] != sign or at != len(kept) - 1:
            sign, at = change["sign"], len(kept)
            kept.append(f" {sign} {change['spec']}")
        else:
            kept[at] += f", {change['spec']}"
    if not omissions.total:
        return None
    return omissions.proposal(kept, text)


#: uv's ``Resolved N packages in`` line and one line of its change list (`` + name==1.0``).
_RESOLVED = lazy(r"^Resolved \d+ packages? in ", MULTILINE)
_PINNED_CHANGE = lazy(r"^ [-+~] \S+==", MULTILINE)


def sniff(text: str) -> float:
    """Sure when uv's ``Resolved N packages in`` and a change list are there."""
    head = text[:SNIFF_CHARS]
    if _RESOLVED.search(head) and _PINNED_CHANGE.search(head):
        return 0.95
    return 0.0
