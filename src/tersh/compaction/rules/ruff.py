"""Compact ``ruff check`` output: the default "full" format reduced to one line per finding.

ruff's full format prints, per finding, a header (``F401 [*] `os` imported but unused``), an
arrow with the location (``  --> src/a.py:3:8``), a code frame, and help, note and fix-diff
lines. The rule keeps the header and its location (as ``path:line:col: CODE message``, ruff's
concise form) and drops the frame and the fix hints; a dropped line that carries a protected
fact (quoted code naming a path or an exception) stays under its finding. With many findings
they are grouped by file. The older full form (``path:line:col: CODE msg`` + frame), the concise
and grouped forms, the ``--statistics`` table, and the summary lines (``Found 540 errors.``,
``[*] 192 fixable…``, ``All checks passed!``) are understood too.
"""

from __future__ import annotations

from itertools import repeat

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify
from tersh.compaction.verify.facts import quoted_source

NAME = "ruff"
CATEGORY = "linters"
PROGRAMS = ("ruff", "ruff check", "ruff format")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("--> ", "Found ", "[*] ")

_ARROW = lazy(r"^\s*-->\s+(?P<path>.+?):(?P<line>\d+):(?P<col>\d+)\s*$")
_HEADER = lazy(r"^(?:[A-Z]+[0-9]+|[a-z][a-z0-9-]+)(?: \[[*-]\])? \S|^unformatted: ")
# `ruff format --check` (0.9+) prints a diff per file under "unformatted: File would be
# reformatted" and its arrow; a diff line is "  - old" or "N + new".
_FORMAT_DIFF = lazy(r"^\d+ [+-](?: |$)")
_CODE = lazy(r"^(?:[A-Z]+[0-9]+|[a-z][a-z0-9-]+:?|\[[A-Z]+[0-9]+\])(?: \[[*-]\])? ")
# --output-format grouped: a file alone on a line, then "  12:5  F401 [*] message" entries.
_GROUP_FILE = lazy(r"^(?P<path>[^\s:]+\.\w+):$")
_GROUP_ENTRY = lazy(
    r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<text>(?:[A-Z]+[0-9]+|[a-z][a-z0-9-]+)(?: \[[*-]\])? \S.*)$"
)
_FRAME = "code-frame or fix-hint line"
_HUNK_SEPARATOR = lazy(r"^-{20,}\s*$")
_HINT = lazy(r"^(?:help|note|info|hint)(?:\[[\w-]+\])?:")
_STATISTIC = lazy(r"^\s*(?P<count>\d+)\t(?P<code>\S+)\s*\t(?:\[ \] )?(?P<rest>.*)$")
_SUMMARY = lazy(
    r"^(?:Found \d[\d,]* errors?|\[\*\] \d[\d,]* fixable|No fixes available|All checks passed"
    r"|\d[\d,]* files? (?:would be |left |already |re)|warning: |error: )"
)
#: A line form the head holds whenever ``sniff`` picks it (one or more such lines).
SNIFF_LINE = r"^\s+--> \S+:\d+:\d+\s*$|^Found \d+ errors?\.|^\[\*\] \d+ fixable with the `--fix`"
_SNIFF = lazy(SNIFF_LINE, MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """One line per finding (grouped by file when many); None when nothing can go."""
    # the bulk reading splits at "\n" only: a text with other line breaks is read a line at a time
    plain = not any(mark in text for mark in _diag.OTHER_BREAKS)
    lines = _newline_lines(text) if plain else text.splitlines()
    if any(_STATISTIC.match(line) for line in lines[:50]):
        return _statistics(text, lines)
    reading = _Reading(lines)
    if plain and lines:
        reading.read_bulk(text)
    else:
        reading.read_each()
    items = reading.items
    if (
        reading.group is not None
        and sum(isinstance(item, _diag.Finding) for item in items) > _diag.FEW_FINDINGS
    ):
        # regrouped: the tool's own file headings give way to the rule's
        items = [item for item in items if not (isinstance(item, str) and _GROUP_FILE.match(item))]
    return _diag.render(text, items, reading.dropped)


# After a "\n": a line the per-line step must read, found by its first characters (a superset
# of every line that is not in a finding's block (``_in_block``) or may be a ``path:line``
# finding, a ``--output-format grouped`` file or entry): any line but an indented one or one
# starting with a digit, a gutter, a dot or a dash; of those, a word holding a colon, a number
# not followed by a gutter, a dot not opening an elision, a dash not opening a separator.
# ``help:`` and ``note:`` lines are left out unless a colon follows (``help:3: F401 …`` is a
# finding); the block reading reads them as the step would.
# Every other line is a blank, indented, hint, separator, frame or diff line, read by
# ``_Reading.read_block``. A heading and its arrow line are matched whole: the heading can be
# no ``--output-format grouped`` file nor entry (it holds a space and starts with a letter), so
# ``step`` would read the two as one finding.
_STEP_LINE = lazy(
    # the alternatives most lines fail first: an indented line (only a grouped entry is read
    # with ``step``) and one starting with a digit (unless it opens a gutter or holds no colon)
    r"\n(?:[^\S\n]++\d++:\d++[^\S\n]|\d++(?:[^\s:]*+:|(?![^\S\n]*[|│+~-](?:[^\S\n]|$)))"
    # then only a line starting with neither white space nor a digit: a finding's heading
    # (``_HEADER``) and its arrow (``_ARROW``), read from the match (the arrow's path is the line
    # up to its last two ":"-led numbers, as ``_ARROW``'s shortest path is: what follows it
    # holds no other ":"), or another line of the shapes above
    r"|(?=[^\s\d])(?:(?P<heading>(?:(?:[A-Z]++[0-9]++|[a-z][a-z0-9-]++)(?: \[[*-]\])? \S|unformatted: ).*)"
    r"(?P<arrow>\n[^\S\n]*-->[^\S\n]+(?P<path>.+):(?P<line>\d+):(?P<col>\d+)[^\S\n]*$)"
    r"|[^\s\d|│.\-hn]|h(?!elp(?:\[[\w-]+\])?:)|n(?!ote(?:\[[\w-]+\])?:)|[hn][^\s:()\[\]]*:\d"
    r"|[|│.\-][^\s:]*:|\.(?!\.\.[^\S\n]*$)|-(?!-{19,}[^\S\n]*$)))",
    MULTILINE,
)


def _newline_lines(text: str) -> list[str]:
    """``text.splitlines()`` for a text whose only line break is ``\\n``."""
    lines = text.split("\n")
    if text.endswith("\n") or not text:
        lines.pop()
    return lines


#: ``_diag.frame_fact_kind`` as one letter: blank, no fact, fact, diagnostic only.
_KIND_LETTERS = {_diag.BLANK: "b", _diag.NO_FACT: "n", _diag.FACT: "f", _diag.DIAGNOSTIC_ONLY: "d"}


class _Reading:
    """The findings and kept lines of ruff's output, read a line (``step``) or a block at a time."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.items: list[_diag.Finding | str] = []
        self.dropped = {_FRAME: 0}
        self.run = _diag.FindingRun(self.items)
        self.seen: set[str] = set()  # frame lines kept so far, white space collapsed
        self.group: str | None = None  # the file heading the entries of --output-format grouped
        self.kinds: dict[str, str] = {}  # a frame line -> its _KIND_LETTERS

    def read_each(self) -> None:
        """Read every line with ``step`` (the readable definition of the reading)."""
        index = 0
        while index < len(self.lines):
            index = self.step(index)
        self.run.close()

    def read_bulk(self, text: str) -> None:
        """Read the lines ``_STEP_LINE`` finds with ``step``, the lines between them (a
        finding's frame) with ``read_block``: the same items as ``read_each``."""
        size = len(self.lines)
        index = self.step(0)
        line_at, at = 0, 0  # the line that starts at text[at]
        count = text.count
        for match in _STEP_LINE.finditer(text):
            start = match.start() + 1
            line_at += count("\n", at, start)
            at = start
            if line_at < index:  # taken by the step before (a finding's arrow line)
                continue
            if line_at >= size:
                break
            self.read_block(index, line_at)
            if match["arrow"] is None:
                index = self.step(line_at)
                continue
            # a finding's heading and its arrow: what ``step`` reads of them, from the match
            self.run.close()
            location = f"{match['line']}:{match['col']}"
            concise = f"{match['path']}:{location}: {match['heading']}"
            self.run.current = _diag.make_finding((match["path"], location, match["heading"], concise, ()))
            index = line_at + 2
        self.read_block(index, size)
        self.run.close()

    def step(self, index: int) -> int:
        """Read ``lines[index]`` (and the arrow line after a finding's heading); the next index."""
        lines, run = self.lines, self.run
        line = lines[index]
        heading = _GROUP_FILE.match(line)
        if heading:
            run.close()
            self.group = heading["path"]
            self.items.append(line)
            return index + 1
        group = self.group
        entry = _GROUP_ENTRY.match(line) if group is not None else None
        if entry and group is not None:
            run.close()
            run.current = _diag.make_finding(
                (group, f"{entry['line']}:{entry['col']}", entry["text"], line, ())
            )
            return index + 1
        following = lines[index + 1] if index + 1 < len(lines) else ""
        arrow = _ARROW.match(following) if "-->" in following else None
        if arrow and _HEADER.match(line):
            run.close()
            location = f"{arrow['line']}:{arrow['col']}"
            concise = f"{arrow['path']}:{location}: {line}"
            run.current = _diag.make_finding((arrow["path"], location, line, concise, ()))
            return index + 2
        finding = _diag.line_finding(line)
        if finding is not None and _CODE.match(finding.text):
            run.close()
            run.current = finding
        elif run.current is not None and _in_block(line):
            if not line.strip():
                pass
            elif _diag.frame_line_carries_fact(lines, index) and _first_sight(line, self.seen):
                run.extra.append(line)
            else:  # quoted code, markers, hints, or a line kept once already
                self.dropped[_FRAME] += 1
        else:
            run.close()
            if line.strip():
                self.items.append(line)
        return index + 1

    def read_block(self, start: int, end: int) -> None:
        """Read ``lines[start:end]``, lines that ``step`` would read as a block's (``_in_block``)
        and as no finding: under a finding, its fact-carrying lines are kept (once), the others
        counted; under none, every line but blank ones is kept."""
        lines = self.lines
        if self.run.current is None:
            self.items.extend(line for line in lines[start:end] if line.strip())
            return
        block = lines[start:end]
        kinds = self.kinds
        # one letter per line (see _KIND_LETTERS), "?" for a line not read before
        found = "".join(map(kinds.get, block, repeat("?", len(block))))
        if "?" in found:
            for line in block:
                if line not in kinds:
                    kinds[line] = _KIND_LETTERS[_diag.frame_fact_kind(line)]
            found = "".join(map(kinds.__getitem__, block))
        dropped = found.count("n")
        if "f" in found or "d" in found:
            extra, seen = self.run.extra, self.seen
            for offset, kind in enumerate(found):
                if kind == "f" or kind == "d":
                    index = start + offset
                    line = lines[index]
                    if (kind == "f" or not quoted_source(lines, index)) and _first_sight(line, seen):
                        extra.append(line)
                    else:
                        dropped += 1
        self.dropped[_FRAME] += dropped


def _first_sight(line: str, seen: set[str]) -> bool:
    """Whether ``line`` (white space collapsed) is seen for the first time; records it.

    Frames overlap (the context of one finding is the line of the next, a fix diff quotes its
    frame's lines again): a line carrying a fact is kept under the first finding showing it.
    """
    key = " ".join(line.split())
    if key in seen:
        return False
    seen.add(key)
    return True


def _in_block(line: str) -> bool:
    return (
        not line
        or line[:1].isspace()
        or bool(_HINT.match(line) or _HUNK_SEPARATOR.match(line))
        or _diag.is_frame_line(line)
        or bool(_FORMAT_DIFF.match(line))
    )


def _statistics(text: str, lines: list[str]) -> str | None:
    out: list[str] = []
    for line in lines:
        stat = _STATISTIC.match(line)
        if stat is None:
            out.append(line)
        elif verify.is_diagnostic(line):  # its message must stay as printed
            out.append(" ".join(line.split()))
        else:
            out.append(f"{stat['count']} {stat['code']} {stat['rest']}")
    out.append(f"{core.MARK} statistics re-spaced; '[ ]' (no fix available) marks omitted")
    return core.finish(text, out)


def sniff(text: str) -> float:
    """Sure on ruff's arrows (``  --> path:line:col``) or its summary lines."""
    head = _diag.head(text)
    hits = len(_SNIFF.findall(head))
    return 0.95 if hits >= 2 else 0.6 if hits else 0.0
