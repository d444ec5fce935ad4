"""The generic compactor: for output no rule was written for, behind the same verifier.

It never rewrites a line the verifier reads a diagnostic or a location on, except to group
consecutive ``path:line[:col]: message`` findings under their file (the grouped form the
verifier reads back). Of the other lines it collapses:

- chatter: log lines at INFO / DEBUG / TRACE level, ``Resolving`` / ``Downloading`` / ``Fetching``
  progress, passing-test lines (``PASSED``, ``ok``, ``✓``) and percentage bars, each kind counted;
- code frames: the source a frame quotes (``  12 │ x``, as the verifier reads it: no diagnostic)
  and its marker lines (``     │ ^^^``), counted; a frame line naming a path, a location or a
  commit id stays where it is;
- runs of lines of one shape (numbers, hex ids, durations and paths masked): the first and the
  last line of the run stay, the lines between are counted.

Whatever a collapsed line names — paths, commit ids — is listed in the note that counts it, so
no fact goes; the verifier checks that, and the exit code, before the text is used.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.compaction.kit.base import Invocation, min_share
from tersh.compaction.verify.facts import (
    iter_commits,
    iter_locations,
    iter_paths,
    may_be_quoted_source,
    quoted_source,
)

NAME = "generic"
CATEGORY = "other"
PROGRAMS: tuple[str, ...] = ()  # chosen by no program: it takes the last turn on any text

#: A run of at least this many lines of one shape is collapsed.
MIN_RUN = 4
#: Past this many lines, an output with no diagnostic or location is left to the preview.
FLOOD_LINES = 8000
#: At most this many distinct values are listed for one collapsed run (the verifier refuses
#: the text when a fact is then missing, so the output stays whole).
MAX_VALUES = 200

# Variable fields: hex ids, numbers with their units, dates and times, paths and URLs.
_MASK = lazy(
    r"\b[a-z][a-z0-9+.-]*://\S+|[\w.@+~-]*/[\w.@+~/-]*|\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{7,40}\b"
    r"|\d+(?:[.,:/-]\d+)*(?:ms|us|µs|ns|s|m|h|%|[kKMGT]i?B)?"
)
_CHATTER = (
    (
        "log lines",
        lazy(
            r"^\s*(?:\S+\s+){0,3}\[?(?:INFO|DEBUG|TRACE|VERBOSE|FINE|FINER|FINEST|info|debug|trace)\]?[\s:]"
        ),
    ),
    (
        "download and resolve lines",
        lazy(
            r"^\s*(?:\[\w+\]\s*)?(?:Resolving|Resolved|Downloading|Downloaded|Download|Fetching|Fetched"
            r"|Progress|Receiving|Counting|Compressing|Unpacking|Extracting|Preparing)\b"
        ),
    ),
    (
        "passing-test lines",
        lazy(r"(?:\bPASSED\b|\bPASS\b|^\s*ok\b|\.\.\. ok\s*$|[✓✔√]|\bSUCCESS\b|--- PASS\b)"),
    ),
    ("progress bars", lazy(r"\d{1,3}(?:\.\d+)?%.*(?:[#=█░▓▒■]{3,}|\|)|(?:[#=█░▓▒■]{3,}).*\d{1,3}%")),
)
# A frame's marker line, with no label: "      │ ^^^^", "  |     ---", "  |".
_FRAME_MARKERS = lazy(r"^\s*[|│][\s|│^~_\-]*$")
_FRAME = "code-frame lines"
_FINDING = lazy(r"^(?P<path>[\w.@+~/-]+\.\w+):(?P<line>\d+)(?::(?P<col>\d+))?:?\s+(?P<message>\S.*)$")


def sniff(text: str) -> float:
    """Never chosen by content: the generic compactor is the fallback, not a tool's rule."""
    return 0.0


def _protected(lines: list[str]) -> list[bool]:
    """Which lines carry a diagnostic or a location (the verifier's first facts)."""
    from tersh.compaction.verify.scan import fact_lines  # bulk scan: no preview import

    flags = [False] * len(lines)
    for index in fact_lines("\n".join(lines)):
        flags[index] = True
    return flags


def _has_fact_line(text: str) -> bool:
    """Whether some line of ``text`` carries a diagnostic or a location (no split into lines)."""
    from tersh.compaction.verify.scan import fact_lines

    return bool(fact_lines(text))


def _values(lines: list[str]) -> list[str]:
    """The distinct paths and commit ids the lines name, in order (read as one text: no path
    or commit id spans a line break)."""
    text = "\n".join(lines)
    found: dict[str, None] = {}
    if "/" in text or "." in text:
        found.update(dict.fromkeys(iter_paths(text)))
    found.update(dict.fromkeys(iter_commits(text)))
    return list(found)


def _note(count: int, what: str, hidden: list[str]) -> str | None:
    values = _values(hidden)
    if len(values) > MAX_VALUES:
        return None
    named = f"; they name: {', '.join(values)}" if values else ""
    return f"[tersh: {count:,} {what} omitted{named}]"


def _grouped(findings: list[str]) -> list[str]:
    """Consecutive ``path:line[:col]: message`` findings grouped under their file, the lines of
    one message merged onto one entry (as the linter rules write them)."""
    from tersh.compaction.kit import diag as _diag  # the linters' renderer, loaded when needed

    found: list[_diag.Finding] = []
    for line in findings:
        match = _FINDING.match(line)
        assert match is not None
        place = f"{match['line']}:{match['col']}" if match["col"] else match["line"]
        found.append(_diag.Finding(match["path"], place, match["message"], line))
    return _diag.render_grouped(found)


def _finding(line: str) -> bool:
    match = _FINDING.match(line) if ":" in line else None
    if match is None or match["message"][:1].isdigit():
        return False
    locations = list(iter_locations(line))  # one location, the one at the start of the line
    return len(locations) == 1 and locations[0][0] == match["path"]


#: A line this long is left to the preview: the shape masks are not run over it.
LONG_LINE = 4096


def compact(text: str, inv: Invocation) -> str | None:
    """Collapse chatter and same-shape runs, group findings by file; None when nothing goes."""
    if text.count("\n") >= FLOOD_LINES and not _has_fact_line(text):
        return None  # a flood with no fact: the preview's filler allowance shows it for less
    lines = text.split("\n")
    if max(map(len, lines)) >= LONG_LINE:
        return None  # masking lines this long backtracks for minutes (16 MB of 10 KB lines)
    if len(lines) < MIN_RUN:
        return None
    protected = _protected(lines)
    frames = _frame_lines(lines, protected)
    masks = _MASK.sub("#", text).split("\n")
    if len(masks) != len(lines):  # a mask never spans lines; if it did, do nothing
        return None
    out: list[str] = []
    chatter: dict[str, list[str]] = {}
    places: dict[str, int] = {}
    omitted = 0
    index = 0
    total = len(lines)
    while index < total:
        line = lines[index]
        if protected[index]:
            end = index
            while end < total and protected[end] and _finding(lines[end]):
                end += 1
            if end - index >= MIN_RUN:
                out.extend(_grouped(lines[index:end]))
                index = end
                continue
            out.append(line)
            index += 1
            continue
        kind = _FRAME if index in frames else _chatter_kind(line)
        if kind is not None:
            if kind not in chatter:
                places[kind] = len(out)  # the note stands where the first such line stood
            chatter.setdefault(kind, []).append(line)
            omitted += 1
            index += 1
            continue
        end = index + 1
        while end < total and not protected[end] and masks[end] == masks[index]:
            end += 1
        if end - index >= 3 and line.strip() and lines[index:end].count(line) == end - index:
            out += [line, f"[tersh: previous line repeated {end - index - 1:,} more times]"]
            omitted += end - index - 1
            index = end
            continue
        members, between = _shape_run(lines, masks, protected, frames, index)
        if len(members) >= MIN_RUN and masks[index].strip():
            hidden = [lines[member] for member in members[1:-1]]
            note = _note(len(hidden), "lines of the same shape", hidden)
            if note is not None:
                for inner in between:  # chatter between the run's lines is counted as chatter
                    inner_kind = _FRAME if inner in frames else _chatter_kind(lines[inner])
                    assert inner_kind is not None
                    places.setdefault(inner_kind, len(out))
                    chatter.setdefault(inner_kind, []).append(lines[inner])
                out += [line, note, lines[members[-1]]]
                omitted += len(hidden) + len(between)
                index = members[-1] + 1
                continue
        out.extend(lines[index:end])
        index = end
    if not omitted and len(out) == total:
        return None
    for kind in sorted(chatter, key=places.__getitem__, reverse=True):
        note = _note(len(chatter[kind]), kind, chatter[kind])
        if note is None:
            return None
        out.insert(places[kind], note)
    result = "\n".join(out)
    return result if len(result) < len(text) * (1 - min_share()) else None


def _shape_run(
    lines: list[str], masks: list[str], protected: list[bool], frames: set[int], index: int
) -> tuple[list[int], list[int]]:
    """The lines of the shape of line ``index`` that follow it with only chatter between (a log
    line under each, as java.util.logging writes them), and the chatter lines between them."""
    members: list[int] = [index]
    between: list[int] = []
    pending: list[int] = []
    shape = masks[index]
    other = index + 1
    while other < len(lines) and not protected[other]:
        if masks[other] == shape:
            members.append(other)
            between += pending
            pending = []
        elif other in frames or _chatter_kind(lines[other]) is not None:
            pending.append(other)
        else:
            break
        other += 1
    return members, between


def _frame_lines(lines: list[str], protected: list[bool]) -> set[int]:
    """Indexes of the code-frame lines that name nothing (no path, location or commit id): the
    quoted code (unprotected where only its words looked like a report) and bare markers."""
    found: set[int] = set()
    for index, line in enumerate(lines):
        if "|" not in line and "│" not in line and not line[:1].isdigit():
            continue
        if _FRAME_MARKERS.match(line):
            found.add(index)
        elif may_be_quoted_source(line) and quoted_source(lines, index) and not _names_something(line):
            found.add(index)
            protected[index] = False
    return found


def _names_something(line: str) -> bool:
    return (
        next(iter_locations(line), None) is not None
        or next(iter_paths(line), None) is not None
        or next(iter_commits(line), None) is not None
    )


def _chatter_kind(line: str) -> str | None:
    if not line.strip():
        return None
    for kind, pattern in _CHATTER:
        if pattern.search(line):
            return kind
    return None
