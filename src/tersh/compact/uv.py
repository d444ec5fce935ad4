"""Compact ``uv add/sync/remove/lock`` and ``uv pip …``: the changes, without the chatter.

Dropped: ``Downloading x (1.2MiB)`` / ``Downloaded x``, ``Building``/``Built`` lines, ``Prepared
N packages``, ``Resolved``/``Audited``/``Checked`` counts. The package changes (`` + a==1``,
`` - b==2``, `` ~ c==3``) are joined per sign on one line; errors, warnings, hints and every
other line are kept as written. ``uv pip list`` loses only its padding and header rule.
"""

from __future__ import annotations

import re

from tersh.compact import pip
from tersh.compact._omit import SNIFF_CHARS, Omissions, finish
from tersh.compact.base import Invocation

NAME = "uv"
CATEGORY = "packages"
SWITCH = "packages"
PROGRAMS = ("uv pip", "uv add", "uv sync", "uv remove", "uv lock", "uv venv", "uv tool")

_CHATTER: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("download line", re.compile(r"^\s*(?:Downloading \S+ \([\d.]+ ?[KMG]i?B\)|Downloaded \S+)$")),
    ("build line", re.compile(r"^\s*(?:Building|Built) \S+ @ \S+$")),
    ("count line", re.compile(
        r"^(?:Resolved|Prepared|Audited|Checked|Using) \d+ packages? in [\d.]+m?s$"
    )),
)
_CHANGE = re.compile(r"^ (?P<sign>[-+~]) (?P<spec>\S+(?: \(from [^)]*\))?)$")


def compact(text: str, inv: Invocation) -> str | None:
    """Drop uv's chatter and join package changes; None when nothing would go."""
    lines = text.splitlines()
    if inv.subcommand == "pip" and "list" in inv.args:
        return pip.compact(text, inv)
    kept: list[str] = []
    omissions = Omissions()
    sign, at = "", -1
    for line in lines:
        change = _CHANGE.match(line)
        if change:
            if change["sign"] != sign or at != len(kept) - 1:
                sign, at = change["sign"], len(kept)
                kept.append(f" {sign} {change['spec']}")
            else:
                kept[at] += f", {change['spec']}"
            continue
        label = next((label for label, pattern in _CHATTER if pattern.match(line)), None)
        if label and omissions.drop(label, line):
            continue
        if not line.strip():
            omissions.blank += 1
            continue
        kept.append(line)
    if not omissions.total:
        return None
    return finish(kept, omissions, text)


def sniff(text: str) -> float:
    """Sure when uv's ``Resolved N packages in`` and a change list are there."""
    head = text[:SNIFF_CHARS]
    if re.search(r"^Resolved \d+ packages? in ", head, re.MULTILINE) and re.search(
        r"^ [-+~] \S+==", head, re.MULTILINE
    ):
        return 0.95
    return 0.0
