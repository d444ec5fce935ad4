"""Drop chatter lines without losing a protected fact, and say what was dropped.

Shared by the git and package-manager rules. A line is only ever dropped when it carries no
diagnostic, no location and no commit id (``carries_fact``); file paths named only on dropped
lines are listed in the omission note, so the compact text still names every path.
"""

from __future__ import annotations

import re

from tersh.compact import verify

#: Prefix of every line a rule writes itself.
MARK = "[tersh]"

_PADDING = re.compile(r" {2,}")
# A diffstat row: " path/to/file.py    |  12 +++--" (or "| Bin 0 -> 12 bytes").
_STAT_ROW = re.compile(r"^ \S.* \| +(?:\d+ ?[+-]*|Bin .*)$")

#: A proposal must save at least this many UTF-8 bytes (else the note costs what it saves).
MIN_SAVED_BYTES = 64

#: How many characters of the source a quick check looks at (sniffers stay cheap).
SNIFF_CHARS = 4000


def carries_fact(line: str) -> bool:
    """Whether ``line`` holds a diagnostic, a location or a commit id (never droppable)."""
    if verify.is_diagnostic(line):
        return True
    if (":" in line or "(" in line) and next(verify.iter_locations(line), None) is not None:
        return True
    return any(c.isdigit() for c in line) and next(verify.iter_commits(line), None) is not None


def plural(count: int, word: str) -> str:
    """``1 line``, ``1,204 lines`` (a trailing ``y`` becomes ``ies``)."""
    if count == 1:
        return f"1 {word}"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return f"{count:,} {word[:-1]}ies"
    return f"{count:,} {word}s"


class Omissions:
    """Counts of dropped lines per label, and the paths those lines named."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.paths: dict[str, None] = {}
        self.blank = 0
        self.reformatted = ""

    def drop(self, label: str, line: str) -> bool:
        """Record ``line`` as dropped under ``label``; False (keep it) when it carries a fact."""
        if carries_fact(line):
            return False
        self.count(label)
        if "/" in line or "." in line:
            for path in verify.iter_paths(line):
                self.paths[path] = None
        return True

    def count(self, label: str, number: int = 1) -> None:
        """Count ``number`` dropped items under ``label`` (blank lines need no label)."""
        self.counts[label] = self.counts.get(label, 0) + number

    @property
    def total(self) -> int:
        """How many lines were dropped or rewritten in all (blank lines included)."""
        return sum(self.counts.values()) + self.blank + bool(self.reformatted)

    def note(self, kept: str) -> str:
        """One line saying what was dropped, plus the paths ``kept`` does not name itself."""
        parts = [plural(number, label) for label, number in self.counts.items() if number]
        if not parts:
            parts = [self.reformatted or "blank lines"]
        text = f"{MARK} {', '.join(parts)} omitted"
        missing = [path for path in self.paths if path not in kept]
        if missing:
            text += "; they named " + ", ".join(missing)
        return text


def finish(kept_lines: list[str], omissions: Omissions, source: str) -> str | None:
    """The compact text (kept lines + note), or None when it would not be clearly smaller."""
    if not omissions.total:
        return None
    body = "\n".join(kept_lines).strip("\n")
    text = f"{body}\n{omissions.note(body)}\n" if body else omissions.note("") + "\n"
    before, after = _size(source), _size(text)
    if after >= before * 0.95 or before - after < MIN_SAVED_BYTES:
        return None
    return text


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogateescape"))


def squeeze_spaces(line: str) -> str:
    """Collapse runs of spaces inside a line (column padding), keeping its indentation."""
    stripped = line.lstrip(" ")
    indent = line[: len(line) - len(stripped)]
    return indent + _PADDING.sub(" ", stripped).rstrip()


def squeeze_stat(line: str) -> str:
    """A diffstat row without its column padding; any other line unchanged."""
    return squeeze_spaces(line) if _STAT_ROW.match(line) else line
