"""Compact ``git status`` (long form): every path with its state, branch and tracking; no hints.

Entries become git's short codes under short section names (``staged:``, ``not staged:``,
``untracked:``, ``unmerged:``, ``ignored:``); the ``(use "git add <file>..." …)`` hints go. Every
other line (branch, ahead/behind, rebase or merge state, the closing sentence) is kept as written.
The short form (``-s``, ``--porcelain``) is already compact and passes unchanged.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Callable

    from tersh.compaction.kit.base import Invocation
    from tersh.compaction.kit.omit import Omissions

# The kit (and with it the verifier and ``re``) is imported by ``compact`` once a text may be
# shortened: ``git status`` of a clean tree (the commonest) is declined without it.

NAME = "git_status"
CATEGORY = "git"
PROGRAMS = ("git status",)
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("On branch ", "HEAD detached ", "Not currently on any branch")
#: ``kit.omit.SNIFF_CHARS`` (tests/test_sniff_hints.py holds the two equal), not imported from there.
SNIFF_CHARS = 4000

SECTIONS = {
    "Changes to be committed:": "staged:",
    "Changes not staged for commit:": "not staged:",
    "Untracked files:": "untracked:",
    "Unmerged paths:": "unmerged:",
    "Ignored files:": "ignored:",
}
STATE_CODES = {
    "modified": "M",
    "deleted": "D",
    "new file": "A",
    "renamed": "R",
    "copied": "C",
    "typechange": "T",
    "both modified": "UU",
    "both added": "AA",
    "both deleted": "DD",
    "added by us": "AU",
    "added by them": "UA",
    "deleted by us": "DU",
    "deleted by them": "UD",
}
_HINT = lazy(r"^ {2}\(.*\)\s*$")
# "no changes added to commit (use "git add" and/or "git commit -a")"
_TRAILING_HINT = lazy(r"^(?P<text>\S.*?) \((?:use|fix|create|commit) .*\)$")
_ENTRY = lazy(r"^\t(?:(?P<state>[a-z][a-z ]*[a-z]):\s+)?(?P<path>\S.*)$")


def _entry(line: str, severe: bool, maybe_diagnostic: Callable[[str], bool]) -> str | None:
    """``\\tmodified:   a.py`` -> ``  M a.py``; None when the line is not an entry.

    ``severe`` says whether the text holds any diagnostic word at all (else no check per line);
    ``maybe_diagnostic`` is ``kit.core.maybe_diagnostic`` (imported by :func:`compact`).
    """
    if len(line) < 2 or line[1].isspace():
        return None
    state, colon, rest = line[1:].partition(":  ")
    code = STATE_CODES.get(state) if colon else None
    if code is None:
        match = _ENTRY.match(line)
        if match is None or match["state"] is None:
            return f"  {line[1:].rstrip()}"
        state, rest = match["state"], match["path"]
    if code is None or (severe and maybe_diagnostic(line)):
        return f"  {state}: {rest.strip()}"  # the verifier holds such lines to their own words
    return f"  {code} {rest.strip()}"


def _compact_line(
    line: str, omissions: Omissions, severe: bool, maybe_diagnostic: Callable[[str], bool]
) -> str | None:
    """The line to keep for ``line`` (None: dropped)."""
    if line[:1] == "\t":  # most lines are entries
        entry = _entry(line, severe, maybe_diagnostic)
        if entry is not None:
            return entry
    if line in SECTIONS:
        return SECTIONS[line]
    if _HINT.match(line) and omissions.drop("hint line", line):
        return None
    if not line.strip():
        omissions.blank += 1
        return None
    trailing = _TRAILING_HINT.match(line)
    if trailing and not maybe_diagnostic(line):
        omissions.count("hint line")
        return trailing["text"]
    return line


def compact(text: str, inv: Invocation) -> str | None:
    """Short codes under short section names, without git's hints; None for other shapes."""
    if not any(f"{section}\n" in text for section in SECTIONS) and "\nnothing " not in text:
        return None
    if "(" not in text:
        return None  # no hint line, no trailing hint: nothing would be omitted
    from tersh.compaction.kit.core import maybe_diagnostic
    from tersh.compaction.kit.omit import Omissions, iter_lines, maybe_severity

    kept: list[str] = []
    omissions = Omissions()
    in_diff = False
    severe = maybe_severity(text)
    for line in iter_lines(text):
        # `git status -v`: the diff after the status is data, kept whole.
        in_diff = in_diff or line.startswith("diff --git ")
        new = line if in_diff else _compact_line(line, omissions, severe, maybe_diagnostic)
        if new is not None:
            kept.append(new)
    if not omissions.counts:
        return None
    return omissions.proposal(kept, text)


def sniff(text: str) -> float:
    """Sure when the text opens like ``git status`` and has one of its sections."""
    head = text[:SNIFF_CHARS]
    opens = head.startswith(("On branch ", "HEAD detached ", "Not currently on any branch"))
    if opens and any(marker in head for marker in (*SECTIONS, "nothing to commit")):
        return 0.95
    return 0.0
