"""Compact ``git diff --stat`` style output: the column padding and ``+++--`` bar of every row go
(the row's path and count of changed lines stay).

A patch is data (every hunk line is what the agent edits against), so ``git diff`` with patches
passes unchanged; only the diffstat rows (``path | 12 +++--``) lose their alignment spaces.
"""

from __future__ import annotations

from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import PADDING_BYTES_PER_TOKEN
from tersh.compaction.kit.omit import SNIFF_CHARS, Omissions, squeeze_stat

NAME = "git_diff"
CATEGORY = "git"
PROGRAMS = ("git diff",)
#: ``sniff`` never scores above the sniffing threshold: no text makes the sniffer import this.
SNIFF_HINTS: tuple[str, ...] = ()


def compact(text: str, inv: Invocation) -> str | None:
    """Squeeze diffstat padding; None when the text holds a patch or no diffstat."""
    lines = text.splitlines()
    if any(line.startswith(("diff --git ", "@@ ")) for line in lines):
        return None
    bars = Omissions()
    kept = [squeeze_stat(line, bars) for line in lines]
    if kept == lines:
        return None
    omissions = Omissions()
    omissions.reformatted = "diffstat column padding" + (" and +/- bars" if bars.counts else "")
    return omissions.proposal(kept, text, PADDING_BYTES_PER_TOKEN)


def sniff(text: str) -> float:
    """Diffstat rows are shared with other tools' output: never sure enough to claim a text."""
    head = text[:SNIFF_CHARS]
    return 0.5 if " files changed, " in head or " file changed, " in head else 0.0
