"""Compact ``git blame``: one header per run of lines from the same commit, then the code.

``1885ed64 (Jesse   2021-05-17 03:05:17 +0200  12) code`` becomes a header
``1885ed64 Jesse 2021-05-17`` over ``12) code`` rows (later runs of the same commit: the id
only). Every commit id, author, day, line number
and code line stays; the repeated author/time/zone columns go. A row whose code the verifier
reads as a diagnostic (``except Exception:``) is kept exactly as git printed it.
"""

from __future__ import annotations

import re

from tersh.compact import verify
from tersh.compact._omit import SNIFF_CHARS, Omissions, finish
from tersh.compact.base import Invocation

NAME = "git_blame"
CATEGORY = "git"
SWITCH = "git"
PROGRAMS = ("git blame", "git annotate")

_ROW = re.compile(
    r"^(?P<id>\^?[0-9a-f]{7,40})(?: (?P<path>[^(]*?))? +\((?P<author>.*?) +"
    r"(?P<day>\d{4}-\d\d-\d\d) \d\d:\d\d:\d\d [+-]\d{4} +(?P<line>\d+)\)(?: (?P<code>.*))?$"
)


def _keeps_own_words(line: str) -> bool:
    if verify.is_diagnostic(line):
        return True
    return ":" in line and next(verify.iter_locations(line), None) is not None


def compact(text: str, inv: Invocation) -> str | None:
    """Group rows by commit run; None when a line is not a default-format blame row."""
    kept: list[str] = []
    omissions = Omissions()
    run: tuple[str, ...] = ()
    seen: set[tuple[str, ...]] = set()
    for line in text.splitlines():
        row = _ROW.match(line)
        if row is None:
            if line.strip():
                return None  # not the format this rule knows (porcelain, -s, -n …)
            continue
        if _keeps_own_words(line):
            kept.append(line)
            run = ()
            continue
        key = (row["id"], row["path"] or "", row["author"].strip(), row["day"])
        if key != run:
            # A commit's author and day are written at its first run only.
            kept.append(" ".join(part for part in key if part) if key not in seen else key[0])
            seen.add(key)
            run = key
        kept.append(f"{row['line']}) {row['code'] or ''}".rstrip())
    omissions.reformatted = "repeated author, time and zone columns"
    return finish(kept, omissions, text) if kept else None


def sniff(text: str) -> float:
    """Sure when the first lines are all default-format blame rows."""
    lines = text[:SNIFF_CHARS].splitlines()[:5]
    if lines and all(_ROW.match(line) for line in lines):
        return 0.95
    return 0.0
