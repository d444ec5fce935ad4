"""Compact ``git blame``: every commit listed once, then the code in runs under their commit.

``1885ed64 (Jesse   2021-05-17 03:05:17 +0200  12) code`` rows become ``12) code`` under a
``1885ed64`` header per run; every commit is listed once on top as ``1885ed64 Jesse
2021-05-17`` (so a bounded preview of a long blame still names every commit). Every commit id,
author, day, line number and code line stays; the repeated author/time/zone columns go. A row
the verifier reads as a diagnostic (``except Exception:``) is kept exactly as git printed it.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import maybe_diagnostic, maybe_location
from tersh.compaction.kit.omit import SNIFF_CHARS, Omissions, iter_lines, maybe_located, maybe_severity

NAME = "git_blame"
CATEGORY = "git"
PROGRAMS = ("git blame", "git annotate")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("(",)
#: A line form the head holds whenever ``sniff`` picks it: ``_ROW`` up to the line number (the
#: first line is such a row; its end is left out, as ``splitlines`` may end it at any separator).
SNIFF_LINE = (r"^\^?[0-9a-f]{7,40}(?: [^(]*?)? +\(.*? +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4} +\d+\)")

_ROW = lazy(
    r"^(?P<id>\^?[0-9a-f]{7,40})(?: (?P<path>[^(]*?))? +\((?P<author>.*?) +"
    r"(?P<day>\d{4}-\d\d-\d\d) \d\d:\d\d:\d\d [+-]\d{4} +(?P<line>\d+)\)(?: (?P<code>.*))?$"
)


def compact(text: str, inv: Invocation) -> str | None:
    """Group rows by commit run; None when a line is not a default-format blame row."""
    kept: list[str] = []
    omissions = Omissions()
    run: tuple[str, ...] = ()
    seen: dict[tuple[str, ...], None] = {}  # every commit, in order of first appearance
    # Whole-text pre-tests: most blames hold no diagnostic word and no location at all.
    severe = maybe_severity(text)
    located = maybe_located(text)
    for line in iter_lines(text):
        row = _ROW.match(line)
        if row is None:
            if line.strip():
                return None  # not the format this rule knows (porcelain, -s, -n …)
            continue
        code = row["code"] or ""
        # Kept exactly as printed when the verifier reads it as a diagnostic or a location.
        if (severe and maybe_diagnostic(line)) or (located and maybe_location(code)):
            kept.append(line)
            run = ()
            continue
        key = (row["id"], row["path"] or "", row["author"].strip(), row["day"])
        if key != run:
            if key not in seen:
                seen[key] = None
            kept.append(f"{key[0]} {key[1]}".rstrip())
            run = key
        kept.append(f"{row['line']}) {code}".rstrip())
    omissions.reformatted = "per-line author, time and zone columns"
    legend = [" ".join(part for part in key if part) for key in seen]
    return omissions.proposal([*legend, *kept], text) if kept else None


def sniff(text: str) -> float:
    """Sure when the first lines are all default-format blame rows."""
    lines = text[:SNIFF_CHARS].splitlines()[:5]
    if lines and all(_ROW.match(line) for line in lines):
        return 0.95
    return 0.0
