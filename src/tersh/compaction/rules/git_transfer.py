"""Compact ``git clone/fetch/pull/push``: the object-transfer progress goes, the outcome stays.

Dropped: ``Enumerating/Counting/Compressing/Receiving/Writing objects``, ``Resolving deltas``,
``Total …`` and ``Updating files`` progress (also behind ``remote:``). Kept as written: where it
came from and went to, every ref update (``abc..def  main -> origin/main``, ``[new branch]``,
``! [rejected]``), ``Fast-forward``/merge lines, hints, errors and every diffstat row (padding
squeezed).
"""

from __future__ import annotations

from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.omit import SNIFF_CHARS, Chatter, Omissions, drop_lines, squeeze_stat

NAME = "git_transfer"
CATEGORY = "git"
PROGRAMS = ("git clone", "git fetch", "git pull", "git push")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("objects: ", "Resolving deltas: ")

_PROGRESS = Chatter({
    "progress line": (
        r"(?:remote: +)?(?:Enumerating objects|Counting objects|Compressing objects"
        r"|Receiving objects|Resolving deltas|Writing objects|Delta compression using"
        r"|Total \d+ \(delta|Unpacking objects|Updating files|Checking out files"
        r"|Filtering content|Checking connectivity|Finding sources|Checking objects"
        r"|Indexing objects)\b"
    ),
})


def compact(text: str, inv: Invocation) -> str | None:
    """Drop transfer progress lines; None when there are none."""
    omissions = Omissions()
    kept = [squeeze_stat(line, omissions) for line in drop_lines(text, _PROGRESS, omissions)]
    if not omissions.counts:
        return None
    return omissions.proposal(kept, text)


def sniff(text: str) -> float:
    """Sure when git's object-transfer progress is there."""
    head = text[:SNIFF_CHARS]
    markers = (
        "Receiving objects: ", "Writing objects: ", "Resolving deltas: ", "Counting objects: "
    )
    return 0.9 if sum(marker in head for marker in markers) >= 2 else 0.0
