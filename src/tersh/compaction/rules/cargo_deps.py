"""Compact cargo's dependency commands (``fetch``, ``install``, ``update``, ``add``, ``remove``).

Dropped: ``Updating crates.io index`` (and git-source fetches), per-crate ``Downloaded x vN``
lines (the ``Downloaded N crates (…) in …`` total stays), per-crate ``Compiling`` lines and
file-lock waits. Kept as written: ``Locking``/``Adding``/``Updating a vX -> vY``/``Removing``,
``Installing``/``Installed``/``Finished``, and every warning, error and note.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.omit import SNIFF_CHARS, Chatter, Omissions, drop_lines

NAME = "cargo_deps"
CATEGORY = "packages"
PROGRAMS = ("cargo fetch", "cargo install", "cargo update", "cargo add", "cargo remove",
            "cargo generate-lockfile", "cargo uninstall")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("Updating crates.io index",)

_CHATTER = Chatter({
    "index update": r"\s+Updating (?:crates\.io index|git repository `[^`]*`|`[^`]*` index)$",
    "download line": r"\s+Downloaded [\w.-]+ v\S+$",
    "compile line": r"\s+Compiling [\w.-]+ v\S+(?: \([^)]*\))?$",
    "lock wait": r"\s+Blocking waiting for file lock on .*$",
})


def compact(text: str, inv: Invocation) -> str | None:
    """Drop index updates and per-crate download/compile lines; None when there are none."""
    omissions = Omissions()
    kept = drop_lines(text, _CHATTER, omissions)
    if not omissions.counts:
        return None
    return omissions.proposal(kept, text)


#: A per-crate ``Downloaded name v1.2.3`` line.
_DOWNLOADED = lazy(r"^\s+Downloaded [\w.-]+ v\d", MULTILINE)


def sniff(text: str) -> float:
    """Sure when cargo's per-crate ``Downloaded`` lines are there."""
    head = text[:SNIFF_CHARS]
    if _DOWNLOADED.search(head) and "Updating crates.io index" in head:
        return 0.9
    return 0.0
