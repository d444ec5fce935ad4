"""Compact ``git clone/fetch/pull/push``: the object-transfer progress goes, the outcome stays.

Dropped: ``Enumerating/Counting/Compressing/Receiving/Writing objects``, ``Resolving deltas``,
``Total …`` and ``Updating files`` progress (also behind ``remote:``); the refs ``-v`` reports
unchanged (`` = [up to date]      main -> origin/main``, thousands on a repository with many
branches: no fact, see ``verify.facts.unchanged_ref``) are counted. Kept as written: where it
came from and went to, every ref update (``abc..def  main -> origin/main``, ``[new branch]``,
``+ … (forced update)``, ``! [rejected]``, ``- [deleted]``), ``Fast-forward``/merge lines,
hints, errors and every diffstat row (padding squeezed).
"""

from __future__ import annotations

from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.omit import SNIFF_CHARS, Chatter, Omissions, drop_lines, squeeze_stat
from tersh.compaction.verify.facts import UNCHANGED_REF_MARK, unchanged_ref

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
    """Drop transfer progress lines, count unchanged refs; None when there are neither."""
    omissions = Omissions()
    moved = _moved_refs_only(text, omissions)
    kept = [squeeze_stat(line, omissions) for line in drop_lines(moved, _PROGRESS, omissions)]
    if not omissions.counts:
        return None
    return omissions.proposal(kept, text)


#: How an unchanged ref git reports is counted.
UNCHANGED_REF = "up-to-date ref"


def _moved_refs_only(text: str, omissions: Omissions) -> str:
    """``text`` without the refs git reports unchanged, counted in ``omissions``."""
    if UNCHANGED_REF_MARK not in text:
        return text
    lines = text.split("\n")
    kept = [line for line in lines if not line.startswith(UNCHANGED_REF_MARK) or not unchanged_ref(line)]
    omissions.count(UNCHANGED_REF, len(lines) - len(kept))
    return "\n".join(kept)


def sniff(text: str) -> float:
    """Sure when git's object-transfer progress is there."""
    head = text[:SNIFF_CHARS]
    markers = (
        "Receiving objects: ", "Writing objects: ", "Resolving deltas: ", "Counting objects: "
    )
    return 0.9 if sum(marker in head for marker in markers) >= 2 else 0.0
