"""Per-tool shrinking strategies: minimal reads, tail and middle cuts, compact JSON.

Each strategy takes the (ANSI-free) text and a character budget for the body and returns a
:class:`Shrunk` record: the new body, whether anything was left out (so a recovery pointer is
needed), and short notes saying what was dropped. Cuts fall on line ends where possible and on
grapheme boundaries always (:mod:`tersh.compaction.textcut`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from tersh.compaction import textcut
from tersh.tools import comments


class Shrunk(NamedTuple):
    """A strategy's proposal for the body of the payload."""

    text: str
    lossy: bool
    notes: tuple[str, ...]


#: Share of a middle cut's budget given to the head (the rest goes to the tail).
HEAD_RATIO = 0.6

#: Host line-number prefixes: OpenCode ``12: ``, older OpenCode ``00012| ``, ``cat -n`` /
#: Claude Code ``     12\t`` or ``     12→``.
_LINE_PREFIX = re.compile(r"\s*\d+(?:: |:$|\| |\|$|\t|→)")
_PATH_TAG = re.compile(r"<path>([^<\n]+)</path>")
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[ \t\r\n]+')
_GREP_PATH = re.compile(r"^(\S[^:\n]*?):(?:\d+[:\-]|$)")


def _count(number: int, word: str) -> str:
    return f"{number:,} {word}{'' if number == 1 else 's'}"


def _marker(lines: int, chars: int) -> str:
    return f"[… tersh: {_count(lines, 'line')} ({chars:,} chars) omitted here …]"


def middle(text: str, budget: int, gap: tuple[int, int] = (0, 0)) -> Shrunk:
    """Keep the head and the tail, drop the middle; cut on line ends when they are near.

    The lines of the middle that a shell-output compaction protects (error, warning, failure,
    traceback, ``path:line`` location) are kept first, in their order, as long as they fit;
    head and tail fill what is left. Every run of left-out lines gets a marker counting it.
    ``gap`` (lines, chars) is text already taken out of ``text`` where the cut falls; it is
    added to the counts of the first marker.
    """
    if len(text) <= budget:
        return Shrunk(text, False, ())
    probe = _marker(text.count("\n") + 1 + gap[0], len(text) + gap[1])
    room = max(0, budget - len(probe) - 2)
    head_end = _line_cut_before(text, int(room * HEAD_RATIO))
    tail_start = _line_cut_after(text, len(text) - (room - head_end), head_end)
    kept = _protected_lines(text, head_end, tail_start, room, len(probe) + 2)
    if kept:
        return _middle_keeping(text, budget, gap, kept)
    dropped = text[head_end:tail_start]
    lines = dropped.count("\n") + (0 if dropped.endswith("\n") else 1) + gap[0]
    head_part, tail_part = text[:head_end], text[tail_start:]
    before = "" if not head_part or head_part.endswith("\n") else "\n"
    after = "\n" if tail_part else ""
    body = f"{head_part}{before}{_marker(lines, len(dropped) + gap[1])}{after}{tail_part}"
    return Shrunk(body, True, (f"{_count(lines, 'line')} omitted in the middle",))


#: Share of a middle cut's room the protected lines may take (head and tail keep the rest).
PROTECTED_SHARE = 0.7


def is_protected(line: str) -> bool:
    """Whether a shell-output compaction would keep ``line`` (a diagnostic or a location)."""
    from tersh.compaction.verify.facts import is_diagnostic, iter_locations

    return is_diagnostic(line) or next(iter_locations(line), None) is not None


def _protected_lines(text: str, start: int, end: int, room: int, marker: int) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of protected lines between ``start`` and ``end`` that fit in a
    share of ``room``, each paying for one more gap marker (in order; none when none fit)."""
    spans: list[tuple[int, int]] = []
    allowance = int(room * PROTECTED_SHARE)
    position = start
    while position < end:
        stop = text.find("\n", position, end)
        line_end = end if stop < 0 else stop + 1
        line = text[position:line_end]
        if line.strip() and is_protected(line):
            cost = len(line) + marker
            if cost <= allowance:
                spans.append((position, line_end))
                allowance -= cost
        position = line_end
    return spans


def _middle_keeping(
    text: str, budget: int, gap: tuple[int, int], kept: list[tuple[int, int]]
) -> Shrunk:
    """A middle cut around ``kept`` protected lines: head and tail share what is left."""
    probe = len(_marker(text.count("\n") + 1 + gap[0], len(text) + gap[1])) + 2
    used = sum(end - begin + probe for begin, end in kept)
    room = max(0, budget - probe - used)
    first, last = kept[0][0], kept[-1][1]
    head_end = min(_line_cut_before(text, int(room * HEAD_RATIO)), first)
    tail_start = max(_line_cut_after(text, len(text) - (room - head_end), last), last)
    pieces = [text[:head_end]]
    omitted = 0
    cursor = head_end
    extra = gap
    for begin, end in [*kept, (tail_start, len(text))]:
        dropped = text[cursor:begin]
        if dropped:
            lines = dropped.count("\n") + (0 if dropped.endswith("\n") else 1) + extra[0]
            omitted += lines
            if pieces[-1] and not pieces[-1].endswith("\n"):
                pieces.append("\n")
            pieces.append(_marker(lines, len(dropped) + extra[1]) + "\n")
            extra = (0, 0)
        pieces.append(text[begin:end])
        cursor = end
    notes = (
        f"{_count(omitted, 'line')} omitted in the middle",
        f"{_count(len(kept), 'error, warning or location line')} kept from it",
    )
    return Shrunk("".join(pieces), True, notes)


def _line_cut_before(text: str, index: int) -> int:
    """A cut at or before ``index``: just after a newline if one is in the last half."""
    index = max(0, min(index, len(text)))
    newline = text.rfind("\n", 0, index)
    if newline >= 0 and newline + 1 >= index // 2:
        return newline + 1
    return textcut.boundary_at_or_before(text, index)


def _line_cut_after(text: str, index: int, floor: int) -> int:
    """A cut at or after ``index`` (never before ``floor``): just after a newline if near."""
    index = max(floor, min(index, len(text)))
    window_end = index + (len(text) - index) // 2
    newline = text.find("\n", index, window_end + 1)
    if newline >= 0:
        return newline + 1
    return textcut.boundary_at_or_after(text, index)


def tail(text: str, budget: int, unit: str = "line") -> Shrunk | None:
    """Keep whole lines from the top, drop the rest with counts; None if no line fits."""
    if len(text) <= budget:
        return Shrunk(text, False, ())
    cut = text.rfind("\n", 0, budget + 1)
    if cut <= 0:
        return None
    kept, dropped = text[: cut + 1], text[cut + 1 :]
    rows = [row for row in dropped.split("\n") if row.strip()]
    files = {m.group(1) for row in rows if (m := _GREP_PATH.match(row))}
    detail = f" in {_count(len(files), 'file')}" if unit == "line" and files else ""
    note = f"{_count(len(rows), unit)}{detail} omitted at the end"
    footer = f"[… tersh: {note} …]"
    return Shrunk(f"{kept}{footer}", True, (note,))


def json_document(text: str) -> Any | None:
    """The parsed JSON value when ``text`` is exactly one JSON object or array, else None."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        return None


def minify_json(text: str) -> str:
    """``text`` without whitespace outside strings: byte-exact otherwise (numbers, escapes)."""
    return _JSON_TOKEN.sub(lambda m: m.group() if m.group()[0] == '"' else "", text.strip())


def compact_json(text: str, budget: int, value: Any) -> Shrunk:
    """Minify; if still too long, shorten long arrays, objects and strings (valid JSON)."""
    minified = minify_json(text)
    if len(minified) <= budget:
        return Shrunk(minified, False, ("JSON whitespace removed, nothing omitted",))
    for items, chars in ((50, 2000), (20, 500), (10, 200), (5, 120), (3, 80), (1, 60)):
        counter = _Omitted()
        shortened = json.dumps(
            _shorten(value, items, chars, counter), ensure_ascii=False, separators=(",", ":")
        )
        if len(shortened) <= budget:
            return Shrunk(shortened, True, counter.notes())
    cut = middle(minified, budget)
    return Shrunk(cut.text, True, ("JSON whitespace removed", *cut.notes))


class _Omitted:
    """Counts what :func:`_shorten` left out."""

    def __init__(self) -> None:
        self.items = 0
        self.keys = 0
        self.strings = 0

    def notes(self) -> tuple[str, ...]:
        parts = []
        if self.items:
            parts.append(f"{_count(self.items, 'array item')} omitted")
        if self.keys:
            parts.append(f"{_count(self.keys, 'object key')} omitted")
        if self.strings:
            parts.append(f"{_count(self.strings, 'long string')} shortened")
        return ("JSON shortened: " + ", ".join(parts),) if parts else ("JSON minified",)


def _shorten(value: Any, items: int, chars: int, counter: _Omitted) -> Any:
    if isinstance(value, list):
        kept = [_shorten(item, items, chars, counter) for item in value[:items]]
        if len(value) > items:
            counter.items += len(value) - items
            kept.append(f"… tersh: {len(value) - items:,} more items")
        return kept
    if isinstance(value, dict):
        pairs = list(value.items())
        out = {key: _shorten(item, items, chars, counter) for key, item in pairs[: items * 4]}
        if len(pairs) > items * 4:
            counter.keys += len(pairs) - items * 4
            out["… tersh"] = f"{len(pairs) - items * 4:,} more keys"
        return out
    if isinstance(value, str) and len(value) > chars:
        counter.strings += 1
        return f"{textcut.head(value, chars)}… (tersh: +{len(value) - chars:,} chars)"
    return value


def source_path(text: str, metadata: Mapping[str, Any]) -> str:
    """The path of the file a read tool returned (host metadata first, then a ``<path>`` tag)."""
    for scope in (metadata, *(metadata.get(k) for k in ("args", "input", "tool_input"))):
        if not isinstance(scope, Mapping):
            continue
        for key in ("filePath", "file_path", "filepath", "path", "file"):
            value = scope.get(key)
            if isinstance(value, str) and value:
                return value
            if isinstance(value, Mapping) and isinstance(value.get("filePath"), str):
                return str(value["filePath"])
    match = _PATH_TAG.search(text, 0, 4096)
    return match.group(1) if match else ""


def minimal(text: str, path: str) -> Shrunk:
    """Drop full-line comments (by file type) and repeated blank lines; keep ``N:`` prefixes."""
    style = comments.style_for(path) if path else None
    if style is None:
        return Shrunk(text, False, ())
    lines = text.split("\n")
    prefixes = [_LINE_PREFIX.match(line) for line in lines]
    numbered = sum(1 for p in prefixes if p) >= max(1, len(lines) // 2)
    code_rows = [i for i, p in enumerate(prefixes) if p] if numbered else list(range(len(lines)))
    code = [lines[i][prefixes[i].end() :] if numbered else lines[i] for i in code_rows]  # type: ignore[union-attr]
    drop = set()
    flags = comments.comment_lines(code, style)
    dropped_comments = 0
    previous_blank = False
    for row, body, is_comment in zip(code_rows, code, flags, strict=True):
        if is_comment:
            drop.add(row)
            dropped_comments += 1
            continue
        blank = not body.strip()
        if blank and previous_blank:
            drop.add(row)
        previous_blank = blank
    if not drop:
        return Shrunk(text, False, ())
    kept = "\n".join(line for i, line in enumerate(lines) if i not in drop)
    notes = [f"{_count(dropped_comments, 'comment line')} removed"] if dropped_comments else []
    blanks = len(drop) - dropped_comments
    if blanks:
        notes.append(f"{_count(blanks, 'repeated blank line')} removed")
    return Shrunk(kept, True, tuple(notes))


def blank_comments(text: str, path: str) -> Shrunk:
    """Full-line comments (by file type) emptied in place: every other line keeps its number.

    For hosts that number a read themselves (Claude Code numbers the text it is handed from
    the read's first line): nothing is removed, so no line moves.
    """
    style = comments.style_for(path) if path else None
    if style is None:
        return Shrunk(text, False, ())
    lines = text.split("\n")
    flags = comments.comment_lines(lines, style)
    emptied = sum(1 for flag, line in zip(flags, lines, strict=True) if flag and line)
    if not emptied:
        return Shrunk(text, False, ())
    kept = "\n".join("" if flag else line for flag, line in zip(flags, lines, strict=True))
    return Shrunk(kept, True, (f"{_count(emptied, 'comment line')} shown empty",))


#: A read longer than this many budgets is stripped only where its head and tail can survive.
WINDOW_BUDGETS = 3


def minimal_then_middle(text: str, path: str, budget: int) -> Shrunk:
    """Minimal read cut to ``budget`` in the middle; large reads only strip the two ends.

    Stripping comments from the part the middle cut drops anyway is wasted work on a 1 MiB
    read, so only a head window (exact) and a tail window are stripped. The tail window is
    stripped only when the text before it closes every string and block comment it opens
    (cheap counts); otherwise it is kept as it is.
    """
    window = WINDOW_BUDGETS * budget
    style = comments.style_for(path) if path else None
    if style is None or len(text) <= 3 * window:
        whole = minimal(text, path)
        if len(whole.text) <= budget:
            return whole
        cut = middle(whole.text, budget)
        return Shrunk(cut.text, True, whole.notes + cut.notes)
    head_end = text.rfind("\n", 0, window) + 1
    tail_start = text.find("\n", len(text) - window) + 1
    head = minimal(text[:head_end], path)
    tail_text = text[tail_start:]
    tail = minimal(tail_text, path) if _closed(text[:tail_start], style) else Shrunk(tail_text, False, ())
    gap = text[head_end:tail_start]
    joined = head.text.rstrip("\n") + "\n" + tail.text
    room = budget - 120
    if len(head.text) < room * HEAD_RATIO + 200 or len(tail.text) < room * (1 - HEAD_RATIO) + 200:
        return minimal_then_middle(text, "", budget)  # comment-dense ends: plain middle cut
    cut = middle(joined, budget, (gap.count("\n"), len(gap)))
    return Shrunk(cut.text, True, _merge_notes(head.notes, tail.notes) + cut.notes)


def _closed(prefix: str, style: comments.Style) -> bool:
    """True when ``prefix`` leaves no string or block comment open (by counting markers)."""
    if style.verbatim in ("yaml", "heredoc"):
        return False
    if style.verbatim == "python" and (prefix.count('"""') % 2 or prefix.count("\'\'\'") % 2):
        return False
    if style.verbatim == "backtick" and prefix.count("`") % 2:
        return False
    return all(prefix.count(opener) <= prefix.count(closer) for opener, closer in style.blocks)


def _merge_notes(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    totals: dict[str, int] = {}
    for note in (*first, *second):
        number, _, rest = note.partition(" ")
        totals[rest] = totals.get(rest, 0) + int(number.replace(",", ""))
    notes = []
    for rest, total in totals.items():
        word = rest.split(" removed")[0]
        singular = word[:-1] if word.endswith("s") else word
        notes.append(f"{_count(total, singular)} removed")
    return tuple(notes)


#: Tool name (lower case) -> strategy name. Unknown, plugin and MCP tools use "middle".
TOOL_STRATEGIES: dict[str, str] = {
    **dict.fromkeys(("read", "read_file", "readfile", "view", "cat", "notebookread"), "minimal"),
    **dict.fromkeys(("grep", "search", "rg", "ripgrep", "search_file_content"), "tail"),
    **dict.fromkeys(("glob", "list", "ls", "list_directory", "find", "find_files"), "tail"),
    **dict.fromkeys(("task", "agent", "subagent"), "middle"),
    **dict.fromkeys(("webfetch", "web_fetch", "fetch", "websearch", "web_search"), "middle"),
}

#: Shell tools: their output is the pipeline's job (`tersh run`), never cut here.
SHELL_TOOLS = frozenset(
    {"bash", "shell", "run_shell_command", "local_shell", "exec", "exec_command", "terminal"}
)

#: Unit for the tail strategy's counts.
TAIL_UNITS = {"glob": "path", "list": "path", "ls": "path", "list_directory": "path",
              "find": "path", "find_files": "path"}


def strategy_for(tool: str) -> str:
    """The strategy name for ``tool``: minimal, tail, middle, or "skip" for shell tools."""
    name = tool.strip().lower()
    if name in SHELL_TOOLS:
        return "skip"
    return TOOL_STRATEGIES.get(name, "middle")

