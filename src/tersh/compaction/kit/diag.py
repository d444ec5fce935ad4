"""Shared pieces of the build, type-check and lint rules: findings grouped by file, code frames
reduced, chatter dropped only when it carries no protected fact, and the omission note.

Nothing here decides what a tool's output means; each rule module parses its own tool and uses
these helpers to render. Every helper is pure and line-linear (rules must run at ≥ 20 MB/s).
"""

from __future__ import annotations

import sys
from _operator import itemgetter, not_
from itertools import chain, compress, count, filterfalse, repeat

from tersh._startup.lazyre import lazy
from tersh._startup.lean import counted
from tersh.compaction.kit.core import CHUNK_CHARS, MARK, carries_fact, finish, plural
from tersh.compaction.verify import holds as verify
from tersh.compaction.verify.facts import quoted_source
from tersh.compaction.verify.renderings import finding_continuation, finding_entry, group_header

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import NamedTuple, Protocol

    class Reading(Protocol):
        """A rule's reading of a text: in bulk, or line by line (the definition)."""

        def read_bulk(self, text: str) -> None: ...
        def read_lines(self, lines: Iterable[str]) -> None: ...
else:
    from tersh._startup.lean import NamedTuple

#: Up to this many findings, a linter's own lines (``path:line:col: code message``) are kept as
#: they are: they are directly usable and regrouping them saves little.
FEW_FINDINGS = 40

# "path:line[:col]: rest", the line shape of flake8, pylint, go vet, golangci-lint, ruff concise.
LINE_FINDING = lazy(
    r"^(?P<path>[^\s:()\[\]]+?):(?P<line>\d+)(?::(?P<col>\d+))?:? (?P<text>\S.*)$"
)

# Characters LINE_FINDING's path never starts with (nor with white space).
_NOT_PATH_START = frozenset(":()[]")

#: How much of a text a sniffer looks at.
SNIFF_CHARS = 8000

# A source line quoted in a code frame: "  115 |     int x;" (gcc, clang, rustc, ruff).
_NUMBERED_SOURCE = lazy(r"^\s*\d+\s*[|│](?:\s|$)")
# A suggestion line of rustc / ruff: "71 +     return x;", "71 -     return y;".
_NUMBERED_EDIT = lazy(r"^\s*\d+\s*[+~-](?:\s|$)")
# An unnumbered gutter line (carets, underlines and labels): "    |   ^^^^ expected `u32`".
_GUTTER = lazy(r"^\s*[|│]")
_GUTTER_DRAWING = lazy(r"^\s*[|│][\s|│^~_/\\+-]*")
_ELLIPSIS = lazy(r"^\s*\.\.\.\s*$")
_ANY_FRAME = lazy(r"\s*(?:\d+\s*[|│+~-](?:\s|$)|[|│]|\.\.\.\s*$)")
# A word made only of the characters a path may hold (see verify._PATH).
_PATH_WORD = lazy(r"[\w.@+~/-]+")
# Markers only: "  ^~~~~~", "   ------ ^^^^".
_MARKERS_ONLY = lazy(r"^[\s^~_|-]*$")


class Finding(NamedTuple):
    """One finding of a linter: its file, ``line[:col]`` and the rest (code and message)."""

    path: str
    location: str
    text: str
    source_line: str
    extra: tuple[str, ...] = ()


#: ``make_finding((path, location, text, source_line, extra))``: a :class:`Finding` built from
#: its five values without the keyword handling of ``Finding(...)`` (a log holds many).
make_finding = Finding._make
#: A finding as a plain tuple, in :class:`Finding`'s order: what a bulk reading builds (C-level
#: ``zip``), which ``render`` takes as it takes a :class:`Finding`.
FindingLike = tuple[str, str, str, str, tuple[str, ...]]


#: The line breaks other than "\\n" at which ``str.splitlines`` also splits a text: a bulk
#: reading that splits at "\\n" reads a text holding any of them a line at a time.
OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


#: ``is_str(x)``: ``isinstance(x, str)``, callable from C (``filter`` makes no Python call).
is_str = str.__instancecheck__


class FindingRun:
    """The finding being read and the lines that belong to it, closed into ``items`` in order."""

    __slots__ = ("current", "extra", "items")

    def __init__(self, items: list[Finding | str]) -> None:
        self.items = items
        self.current: Finding | None = None
        self.extra: list[str] = []

    def close(self) -> None:
        """Append the current finding (with the lines gathered under it) to ``items``."""
        if self.current is not None:
            finding = self.current
            self.items.append(make_finding((*finding[:4], tuple(self.extra))) if self.extra else finding)
            self.extra.clear()
            self.current = None


def read_text(reading: Reading, text: str) -> None:
    """Give ``text`` to ``reading``: in bulk when its only line break is ``\n`` (its lines are
    what ``split("\n")`` gives), else line by line as :func:`lines_of` splits it."""
    if text and not any(mark in text for mark in OTHER_BREAKS):
        reading.read_bulk(text)
    else:
        reading.read_lines(lines_of(text))


def lines_of(text: str) -> Iterator[str]:
    """The lines of ``text`` exactly as ``str.splitlines`` gives them, a chunk at a time.

    Only about CHUNK_CHARS of lines exist at once; each chunk ends just after a ``\n``, so no
    line (and no ``\r\n`` pair) is ever cut in two.
    """
    return chain.from_iterable(map(str.splitlines, _chunks(text)))


def newline_chunks(text: str) -> Iterator[list[str]]:
    """The lines of ``text`` split at ``\\n`` only (other line breaks stay inside a line), a
    list per chunk of about CHUNK_CHARS."""
    for chunk in _chunks(text):
        lines = chunk.split("\n")
        if chunk.endswith("\n"):
            lines.pop()
        yield lines


def _chunks(text: str) -> Iterator[str]:
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start + CHUNK_CHARS)
        end = size if end < 0 else end + 1
        yield text[start:end]
        start = end


def is_frame_line(line: str) -> bool:
    """Whether ``line`` belongs to a code frame (quoted source, gutter, carets, elision)."""
    return bool(_ANY_FRAME.match(line))


def reduce_frame_line(line: str) -> str | None:
    """A frame line reduced to what it says: None when it is only quoted code or markers.

    Quoted source is dropped (the file is on disk), unless it carries a protected fact; a label
    under the carets is kept without its drawing; suggested edits (``71 + code``) are kept.
    """
    if _NUMBERED_EDIT.match(line):
        return line
    if _NUMBERED_SOURCE.match(line) or _ELLIPSIS.match(line):
        return line if carries_fact(line, paths=True) else None
    label = _GUTTER_DRAWING.sub("", line, count=1).strip()
    if not label:
        return None
    indent = line[: len(line) - len(line.lstrip())]
    return f"{indent}| {label}"


def frame_line_carries_fact(lines: Sequence[str], index: int) -> bool:
    """Whether the frame line ``lines[index]`` holds a protected fact: a source line the frame
    quotes (``verify.facts.quoted_source``) only by a location, path or commit id it names (its
    words "error" or "warning" are the file's text, not a report); any other line as
    ``carries_fact`` says."""
    line = lines[index]
    if not quoted_source(lines, index):
        return carries_fact(line, paths=True)
    return _names_place(line)


#: What ``frame_fact_kind`` says of a line.
BLANK, NO_FACT, FACT, DIAGNOSTIC_ONLY = range(4)


def frame_fact_kind(line: str) -> int:
    """What ``frame_line_carries_fact`` needs to know of a non-blank line beyond the line itself:
    NO_FACT (False wherever it stands), FACT (True wherever it stands), DIAGNOSTIC_ONLY (True
    unless the line is ``quoted_source``); BLANK for a line that ``str.strip`` empties.

    A location, path or commit id is also what ``carries_fact(line, paths=True)`` finds first,
    so the two readings of ``frame_line_carries_fact`` differ only on a line whose one fact is
    its diagnostic."""
    if not line.strip():
        return BLANK
    if not carries_fact(line, paths=True):
        return NO_FACT
    return FACT if _names_place(line) else DIAGNOSTIC_ONLY


def _names_place(line: str) -> bool:
    """Whether ``line`` names a location, a path or a commit id (the facts of quoted code)."""
    return (
        next(verify.iter_locations(line), None) is not None
        or next(verify.iter_paths(line), None) is not None
        or next(verify.iter_commits(line), None) is not None
    )


def is_markers_only(line: str) -> bool:
    """Whether ``line`` holds only caret/underline markers (``   ^~~~``)."""
    return bool(line.strip()) and bool(_MARKERS_ONLY.match(line))


def omission_note(counts: dict[str, int], extra: str = "") -> str:
    """``[tersh] omitted: 33 compile commands, 12 code-frame lines`` (+ ``; extra``)."""
    parts = [plural(n, label) for label, n in counts.items() if n]
    if not parts:
        return f"{MARK} {extra}" if extra else MARK
    text = f"{MARK} omitted: {', '.join(parts)}"
    return f"{text}; {extra}" if extra else text


def render_grouped(findings: Iterable[FindingLike], strict_paths: bool = True) -> list[str]:
    """Findings grouped by file (``path (N)``), identical messages merged onto one entry.

    Each entry starts with every ``line[:col]`` that shares the message, then the message:
    ``  7:1 8:1 43:1 error Unexpected var no-var``; a finding's continuation lines follow it,
    indented (without the finding's own ``path:line:`` prefix, so that they can merge too).
    A finding whose path cannot head a group (the verifier must read the header back as a path
    when ``strict_paths``) keeps its own lines, after the groups.
    """
    found = findings if isinstance(findings, list) else list(findings)
    heads = heading_paths(map(itemgetter(0), found), strict_paths)  # every path checked at once
    # a message without continuation lines is keyed by its text alone, else by (text, lines)
    files: dict[str, dict[str | tuple[str, tuple[str, ...]], list[str]]] = {}
    loose: list[str] = []
    last_path: str | None = None
    messages: dict[str | tuple[str, tuple[str, ...]], list[str]] = {}
    for path, location, text, source_line, found_extra in found:
        if path != last_path:  # a log lists a file's findings together: look its group up once
            if path in heads:
                messages = files.setdefault(path, {})
                last_path = path
            else:
                last_path = None
                loose.append(source_line)
                loose.extend(found_extra)
                continue
        key: str | tuple[str, tuple[str, ...]] = text
        if found_extra:
            own = f"{path}:{location}:"
            key = (text, tuple(line.removeprefix(own).strip() for line in found_extra))
        locations = messages.get(key)
        if locations is None:
            messages[key] = [location]
        else:
            locations.append(location)
    out: list[str] = []
    for path, messages in files.items():
        out.append(group_header(path, sum(map(len, messages.values()))))
        for key, locations in messages.items():
            if isinstance(key, str):
                out.append(finding_entry(locations, key))
            else:
                out.append(finding_entry(locations, key[0]))
                out.extend(map(finding_continuation, key[1]))
    out.extend(loose)
    return out


# A path that ``_heads_group`` (strict) accepts (ASCII only): one word of path characters,
# starting with no dash and ending with no dot, that holds a letter and a ``/`` between two other
# characters, and is none of the words ``verify`` reads as no path (``kB/s``, ``N/A``…: any word
# ending in ``/s`` or ``/sec`` is left to ``_heads_group``).
_HEADING_PATH = lazy(
    r"(?a)(?!-)(?!.*/s(?:ec)?$)(?!(?:N/A|I/O|and/or|w/o)$)(?=.*?[A-Za-z])"
    r"/*[\w.@+~-]+/+[\w.@+~-][\w.@+~/-]*(?<!\.)"
)


def heading_paths(paths: Iterable[str], strict: bool = True) -> set[str]:
    """The ``paths`` that can head a group (see ``render_grouped``): the usual ones found by one
    regex (called at C level), the others checked by ``_heads_group``."""
    distinct = set(paths)
    if not strict:
        return {path for path in distinct if _heads_group(path, False)}
    accepted = set(filter(_HEADING_PATH.fullmatch, distinct))
    return accepted.union(path for path in distinct - accepted if _heads_group(path, True))


def render(
    source: str,
    items: Sequence[FindingLike | str],
    dropped: dict[str, int],
    summary: str = "",
    strict_paths: bool = True,
) -> str | None:
    """The proposal of a line-per-finding tool, or None when it saves too little.

    ``items`` are the kept lines and the findings (:class:`Finding` or plain tuples of its
    five values) in the tool's order. With more than
    FEW_FINDINGS findings they are grouped by file (other lines before the first finding stay
    before the groups, the rest follow them); with fewer, every line stays where it was.
    """
    # the findings and the lines apart, without a Python step per item (items hold nothing else)
    findings: list[FindingLike] = list(filterfalse(is_str, items))  # type: ignore[arg-type]
    grouped = len(findings) > FEW_FINDINGS
    if not grouped and not any(dropped.values()):
        return None
    out: list[str] = []
    if grouped:
        first = next(i for i, item in enumerate(items) if not isinstance(item, str))
        out.extend(items[:first])  # type: ignore[arg-type]  # lines only, before the first finding
        out.extend(render_grouped(findings, strict_paths))
        out.extend(filter(is_str, items[first:]))  # type: ignore[arg-type]
        files = len(set(map(itemgetter(0), findings)))
        summary = "; ".join(
            x for x in (f"{plural(len(findings), 'finding')} in {plural(files, 'file')} "
                        "grouped by file, repeated messages merged", summary) if x
        )
    else:
        for item in items:
            if isinstance(item, str):
                out.append(item)
            else:
                out.append(item[3])  # the finding's own line, then its lines
                out.extend(item[4])
    out.append(omission_note(dropped, summary))
    if grouped and sum(map(len, out)) + len(out) > DIGEST_ABOVE_BYTES:
        digest = code_digest(findings)
        if digest:
            out.append(digest)
    return finish(source, out)


#: Grouped findings longer than this may be cut by the preview (50 KB): the rule codes are
#: then also listed on the last line, which the preview always keeps.
DIGEST_ABOVE_BYTES = 32 * 1024
# A finding's code: a leading ``F401`` / ``C0114:`` / ``SC2086``, else a trailing ``[arg-type]``
# (mypy), ``no-unused-vars`` / ``@typescript-eslint/no-explicit-any`` (eslint) or ``(reportCallIssue)``
# (pyright).
_LEADING_CODE = lazy(r"(?:error |warning |note )?\[?([A-Z]{1,6}-?\d{2,6})\b")
_TRAILING_CODE = lazy(
    r"(?:\[([a-z][a-z0-9-]*)\]|\s((?:@[\w-]+/)?[a-z][\w-]*-[\w/-]+)|\s\((report[A-Z][A-Za-z]*)\))$"
)


def code_digest(findings: Iterable[FindingLike]) -> str:
    """One line with every rule code of ``findings`` and its count, in order of first sight."""
    counts: dict[str, int] = {}
    # a log repeats its messages: each is read once, with how many findings say it
    for text, seen in counted(map(itemgetter(2), findings)).items():
        code = _code_of(text.strip())
        if code:
            counts[code] = counts.get(code, 0) + seen
    if not counts:
        return ""
    return f"{MARK} codes: " + ", ".join(f"{code} ({count:,})" for code, count in counts.items())


def _code_of(text: str) -> str | None:
    match = _LEADING_CODE.match(text)
    code = match.group(1) if match else None
    if code is None:
        trailing = _TRAILING_CODE.search(text)
        code = (trailing.group(1) or trailing.group(2) or trailing.group(3)) if trailing else None
    return code


def line_finding(line: str) -> Finding | None:
    """The finding written on a ``path:line[:col]: text`` line, if it is one."""
    if not line or line[0] in _NOT_PATH_START or line[0].isspace():  # LINE_FINDING cannot match
        return None
    match = LINE_FINDING.match(line)
    if match is None:
        return None
    location = f"{match['line']}:{match['col']}" if match["col"] else match["line"]
    # A log repeats its paths and messages on many lines: each finding shares one copy of them.
    return make_finding((sys.intern(match["path"]), location, sys.intern(match["text"]), line, ()))


# A line after its "\n" (or at the start of a text): a ``path:line[:col]: text`` finding that
# ``line_finding`` reads (groups: the line, its path, ``line[:col]`` and text; possessive repeats
# find the same split as LINE_FINDING, whose path holds no ":"), or another line that is not
# blank (the last group).
_ROW = r"(?:(([^\s:()\[\]]++):(\d++(?::\d++)?):? (\S.*))|([^\S\n]*+\S.*))"
_FIRST_ROW = lazy(_ROW)
_NEXT_ROW = lazy("\n" + _ROW)  # (a literal start: the regex engine looks for each "\n" fast)
#: ``line_rows`` gives (line, path, location, text, "") per finding, ("", "", "", "", line) else.
Row = tuple[str, str, str, str, str]


def line_rows(text: str) -> list[Row]:
    """The lines of ``text`` (whose only line break is ``\\n``) that are not blank, in order, as
    ``Row`` tuples: ``line_finding``'s reading of each, found by one regex over the text."""
    first = _FIRST_ROW.match(text)
    rows: list[Row] = _NEXT_ROW.findall(text, first.end() if first else 0)
    if first is not None:
        rows.insert(0, first.groups(""))  # type: ignore[arg-type]
    return rows


def row_chunks(text: str) -> Iterator[list[Row]]:
    """``line_rows`` of ``text`` a chunk (about CHUNK_CHARS of whole lines) at a time, so that
    only a chunk's rows exist at once."""
    return map(line_rows, _chunks(text))


def row_items(
    rows: list[Row], accepted: Iterable[object], other: Callable[[str], str | None] | None = None
) -> list[FindingLike | str]:
    """The items of ``rows``: the rows ``accepted`` says (one truth value per row) as findings,
    ``(path, location, text, line, ())``, built at C level; every other row's line as it is, or as
    ``other(line)`` says (None: no item)."""
    items: list[FindingLike | str] = []
    done, size = 0, len(rows)
    for index in chain(compress(count(), map(not_, accepted)), (size,)):
        if done < index:
            part = rows[done:index]
            # a log repeats its paths and messages: each finding shares one copy of them
            paths = map(sys.intern, map(itemgetter(1), part))
            texts = map(sys.intern, map(itemgetter(3), part))
            items.extend(zip(paths, map(itemgetter(2), part), texts, map(itemgetter(0), part), repeat(())))
        if index < size:
            line = rows[index][0] or rows[index][4]
            item = line if other is None else other(line)
            if item is not None:
                items.append(item)
        done = index + 1
    return items


def _heads_group(path: str, strict: bool) -> bool:
    if not path or " " in path or "\t" in path or path.endswith(":"):
        return False
    if not strict:
        return True
    if _PATH_WORD.fullmatch(path):  # one word of path characters: the verifier reads it whole
        return ("/" in path or "." in path) and not path.endswith(".") and verify._is_path(path)
    found = list(verify.iter_paths(path))
    return found == [path[2:] if path.startswith("./") else path]


def head(text: str) -> str:
    """The start of ``text`` a sniffer looks at."""
    return text[:SNIFF_CHARS]
