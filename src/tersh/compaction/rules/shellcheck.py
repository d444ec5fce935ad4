"""Compact shellcheck output: one entry per comment, quoted code and suggested rewrites dropped.

shellcheck's default ("tty") format prints, per source line with comments, ``In FILE line N:``,
the source line, one caret line per comment (``   ^--^ SC2086 (info): Double quote to…``) and
often ``Did you mean:`` with a rewritten line. The rule keeps every comment with its line and
column (the caret's position) and drops the quoted and rewritten code, unless such a line
carries a protected fact. With many comments they are grouped by file and comments that share a
message share one entry (``  40:6 940:10 SC2250 (style): Prefer putting braces…``). The
``For more information`` links stay. The ``gcc`` / ``tty``-less formats are grouped like flake8.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from typing import NamedTuple
else:
    from tersh._startup.lean import NamedTuple

NAME = "shellcheck"
CATEGORY = "linters"
PROGRAMS = ("shellcheck",)
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (" line ", "SC")

_BLOCK = lazy(r"^In (?P<path>.+) line (?P<line>\d+):\s*$")
_CARET = lazy(r"^(?P<pad>\s*)\^\S*\s+(?P<text>SC\d{4}(?: \(\w+\))?: .*)$")
_MORE_INFO = lazy(r"^For more information:\s*$")
_SUGGESTION = lazy(r"^Did you mean:\s*$")
_GCC = lazy(r"\[SC\d{4}\]\s*$")
#: A line form the head holds whenever ``sniff`` picks it (two or more such lines).
SNIFF_LINE = r"^In \S+ line \d+:$|\bSC\d{4} \((?:error|warning|info|style)\):"
_SNIFF = lazy(SNIFF_LINE, MULTILINE)


class _Block(NamedTuple):
    header: str
    findings: list[_diag.Finding]
    kept: list[str]


def compact(text: str, inv: Invocation) -> str | None:
    """One entry per comment; None when the text is not shellcheck's or saves too little."""
    items: list[_diag.Finding | str] = []
    blocks: list[_Block] = []
    dropped = {"quoted or rewritten code line": 0}
    block: _Block | None = None
    code: str | None = None
    for line in _diag.lines_of(text):
        start = _BLOCK.match(line)
        if start:
            block = _Block(line, [], [])
            blocks.append(block)
            code = None
            continue
        if _MORE_INFO.match(line):
            block = None
        caret = _CARET.match(line) if block is not None else None
        if block is not None and caret:
            items.append(_caret_finding(block.header, code, caret))
            block.findings.append(items[-1])  # type: ignore[arg-type]
            continue
        if (
            block is not None
            and line.strip()
            and not _SUGGESTION.match(line)
            and (code is None or block.findings)
        ):
            if code is None and not block.findings:
                code = line
            if core.carries_fact(line, paths=True):
                block.kept.append(line)
            else:
                dropped["quoted or rewritten code line"] += 1
            continue
        if block is not None and _SUGGESTION.match(line):
            continue
        if not line.strip():
            continue
        block = None
        finding = _diag.line_finding(line) if _GCC.search(line) else None
        items.append(finding if finding is not None else line)
    if not blocks and not any(isinstance(item, _diag.Finding) for item in items):
        return None
    findings = sum(isinstance(item, _diag.Finding) for item in items)
    _attach_kept(items, blocks)
    if findings > _diag.FEW_FINDINGS:
        return _diag.render(text, _errors_kept_whole(items), dropped, strict_paths=False)
    return _few(text, items, blocks, dropped)


_ERROR_LEVEL = lazy(r"^SC\d{4} \(error\):|^(?:\d+:)*\s*error:")


def _errors_kept_whole(items: list[_diag.Finding | str]) -> list[_diag.Finding | str]:
    """Error-level comments out of the groups, each as shellcheck wrote its location.

    A grouped entry drops the file from the line (``In FILE line N:`` or ``FILE:N:C: error:``),
    and an error's exact location is what a reader looks for first; there are few of them.
    """
    out: list[_diag.Finding | str] = []
    for item in items:
        if not isinstance(item, _diag.Finding) or not _ERROR_LEVEL.match(item.text.lstrip()):
            out.append(item)
        elif item.source_line.startswith(item.path + ":"):
            out.extend((item.source_line, *item.extra))
        else:
            out.extend((f"In {item.path} line {item.location.split(':')[0]}:", item.source_line, *item.extra))
    return out


def _caret_finding(header: str, code: str | None, caret: re.Match[str]) -> _diag.Finding:
    start = _BLOCK.match(header)
    assert start is not None
    column = len(caret["pad"]) + 1
    # Columns are only exact when no tab precedes the caret in the quoted line.
    exact = code is not None and "\t" not in code[: column - 1]
    location = f"{start['line']}:{column}" if exact else start["line"]
    return _diag.Finding(start["path"], location, caret["text"], line_text(location, caret["text"]))


def line_text(location: str, text: str) -> str:
    """One comment as an indented entry: ``  40:6 SC2250 (style): message``."""
    return f"  {location} {text}"


def _attach_kept(items: list[_diag.Finding | str], blocks: list[_Block]) -> None:
    wanted = {id(b.findings[0]): tuple(b.kept) for b in blocks if b.kept and b.findings}
    if not wanted:
        return
    for index, item in enumerate(items):
        kept = wanted.get(id(item))
        if kept is not None and isinstance(item, _diag.Finding):
            items[index] = item._replace(extra=kept)


def _few(
    text: str, items: list[_diag.Finding | str], blocks: list[_Block], dropped: dict[str, int]
) -> str | None:
    """Few comments: keep each ``In FILE line N:`` header above its comments."""
    headers = {id(block.findings[0]): block.header for block in blocks if block.findings}
    firsts = {block.findings[0].source_line: block.header for block in blocks if block.findings}
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
            continue
        header = headers.get(id(item)) or firsts.get(item.source_line)
        if header is not None:
            out.append(header)
        out.append(item.source_line)
        out.extend(item.extra)
    out.append(_diag.omission_note(dropped))
    return core.finish(text, out)


def sniff(text: str) -> float:
    """Sure on ``In FILE line N:`` blocks with ``SC1234 (level):`` comments."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.95 if hits >= 2 else 0.5 if hits else 0.0
