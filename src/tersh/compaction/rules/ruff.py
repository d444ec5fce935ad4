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

import re

from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify

NAME = "ruff"
CATEGORY = "linters"
PROGRAMS = ("ruff", "ruff check", "ruff format")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("--> ", "Found ", "[*] ")

_ARROW = re.compile(r"^\s*-->\s+(?P<path>.+?):(?P<line>\d+):(?P<col>\d+)\s*$")
_HEADER = re.compile(r"^(?:[A-Z]+[0-9]+|[a-z][a-z0-9-]+)(?: \[[*-]\])? \S|^unformatted: ")
# `ruff format --check` (0.9+) prints a diff per file under "unformatted: File would be
# reformatted" and its arrow; a diff line is "  - old" or "N + new".
_FORMAT_DIFF = re.compile(r"^\d+ [+-](?: |$)")
_CODE = re.compile(r"^(?:[A-Z]+[0-9]+|[a-z][a-z0-9-]+:?|\[[A-Z]+[0-9]+\])(?: \[[*-]\])? ")
# --output-format grouped: a file alone on a line, then "  12:5  F401 [*] message" entries.
_GROUP_FILE = re.compile(r"^(?P<path>[^\s:]+\.\w+):$")
_GROUP_ENTRY = re.compile(
    r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<text>(?:[A-Z]+[0-9]+|[a-z][a-z0-9-]+)(?: \[[*-]\])? \S.*)$"
)
_FRAME = "code-frame or fix-hint line"
_HUNK_SEPARATOR = re.compile(r"^-{20,}\s*$")
_HINT = re.compile(r"^(?:help|note|info|hint)(?:\[[\w-]+\])?:")
_STATISTIC = re.compile(r"^\s*(?P<count>\d+)\t(?P<code>\S+)\s*\t(?:\[ \] )?(?P<rest>.*)$")
_SUMMARY = re.compile(
    r"^(?:Found \d[\d,]* errors?|\[\*\] \d[\d,]* fixable|No fixes available|All checks passed"
    r"|\d[\d,]* files? (?:would be |left |already |re)|warning: |error: )"
)
_SNIFF = re.compile(
    r"^\s+--> \S+:\d+:\d+\s*$|^Found \d+ errors?\.|^\[\*\] \d+ fixable with the `--fix`",
    re.MULTILINE,
)


def compact(text: str, inv: Invocation) -> str | None:
    """One line per finding (grouped by file when many); None when nothing can go."""
    lines = text.splitlines()
    if any(_STATISTIC.match(line) for line in lines[:50]):
        return _statistics(text, lines)
    items: list[_diag.Finding | str] = []
    dropped = {_FRAME: 0}
    run = _diag.FindingRun(items)
    seen: set[str] = set()  # frame lines kept so far, white space collapsed

    index = 0
    group: str | None = None  # the file heading the entries of --output-format grouped
    while index < len(lines):
        line = lines[index]
        heading = _GROUP_FILE.match(line)
        if heading:
            run.close()
            group = heading["path"]
            items.append(line)
            index += 1
            continue
        entry = _GROUP_ENTRY.match(line) if group is not None else None
        if entry and group is not None:
            run.close()
            run.current = _diag.make_finding(
                (group, f"{entry['line']}:{entry['col']}", entry["text"], line, ())
            )
            index += 1
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        arrow = _ARROW.match(following) if "-->" in following else None
        if arrow and _HEADER.match(line):
            run.close()
            location = f"{arrow['line']}:{arrow['col']}"
            concise = f"{arrow['path']}:{location}: {line}"
            run.current = _diag.make_finding((arrow["path"], location, line, concise, ()))
            index += 2
            continue
        finding = _diag.line_finding(line)
        if finding is not None and _CODE.match(finding.text):
            run.close()
            run.current = finding
        elif run.current is not None and _in_block(line):
            if not line.strip():
                pass
            elif _diag.frame_line_carries_fact(lines, index) and _first_sight(line, seen):
                run.extra.append(line)
            else:  # quoted code, markers, hints, or a line kept once already
                dropped[_FRAME] += 1
        else:
            run.close()
            if line.strip():
                items.append(line)
        index += 1
    run.close()
    if group is not None and sum(isinstance(item, _diag.Finding) for item in items) > _diag.FEW_FINDINGS:
        # regrouped: the tool's own file headings give way to the rule's
        items = [item for item in items if not (isinstance(item, str) and _GROUP_FILE.match(item))]
    return _diag.render(text, items, dropped)


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
