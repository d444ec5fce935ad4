"""What a line of a preview carries, and the index of a preview: the patterns, each shape of
line read once (``LineRead``), the fact lines' counts (``Digest``) and the earliest lines that fit.

``preview`` bounds a text with them; ``preview_bulk`` reads a large file's lines with them, a
shape at a time.
"""

from __future__ import annotations

from tersh._startup.lazyre import IGNORECASE, lazy
from tersh.compaction.verify.facts import (
    _LOCATION_COLON,
    _LOCATION_PAREN,
    _LOCATION_PYTHON,
    _PATH_CANDIDATE,
    SEVERITY_WORDS,
    _colon_location_path,
    _word_path,
    is_diagnostic,
    iter_commits,
    iter_locations,
    iter_paths,
)
from tersh.result import utf8_len as _utf8_len

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from re import Match, Pattern
    from typing import NamedTuple
else:
    from tersh._startup.lean import NamedTuple

MARKER_BYTES = 48  # upper bound of one gap marker line, newline included
#: At most this many distinct files, codes, tests and summaries are counted in the index.
DIGEST_ENTRIES = 20000
# Shape lines: top-level definitions of source code, the file headers of a diff (``diff --git``,
# and ``+++ path`` for a diff of files with no git header: ``ruff format --diff``), the commit
# lines of a git log, identity keys of a JSON document, markdown headings.
_STRUCTURE = lazy(
    r"^(?:(?:async\s+)?def |class |(?:export\s+)?(?:default\s+)?(?:async\s+)?function[\s*]"
    r"|(?:pub(?:\(\w+\))?\s+)?(?:fn|struct|enum|trait|impl|mod) |func |type \w+ (?:struct|interface)"
    r"|(?:public|private|protected)?\s*(?:static\s+)?(?:class|interface|record) "
    r"|diff --git |\+\+\+ \S|commit [0-9a-f]{7,40}\b|\s*\"(?:name|version|id|title|key|path)\": |#{1,6} \S)"
)
# Every line the verifier reads as a diagnostic holds one of its SEVERITY_WORDS (lower-cased),
# or a location mark: a "." or "/" in the path before ":digit", a ".ext(" before a digit, or
# 'File "'.
# Letters that a case-blind regex folds onto ASCII letters but ``lower()`` keeps.
_FOLDED = lazy("[\u0130\u0131\u017f\u212a]")
_LOCATION_MARKS = lazy(r"[./][\w.@+~/-]*:\d|\.\w+\(\d|File \"")

# What the index lists. Codes: rule ids (E501, TS2322, SC2086, C0301, rustc's E0308), and at
# the end of a line mypy's [error-code], pylint's (symbolic-name), clippy's lint, or the rule id
# eslint writes after two spaces (``no-var``, ``complexity``), or pyright's (reportRuleName).
# The rule id's first capital comes first in the pattern (the lookbehind after it), so a search
# skips to capitals; a line naming a clippy lint is read with the lint's form too.
_CODE = lazy(r"[A-Z](?<![\w-][A-Z])[A-Z]{0,3}\d{3,5}(?![\w-])")
_CODE_OR_LINT = lazy(r"(?<![\w-])[A-Z]{1,4}\d{3,5}(?![\w-])|clippy::\w+")
_END_CODE = lazy(  # each form as the tool writes it: brackets and parentheses kept
    r"(?:(\[[a-z][a-z0-9]*(?:-[a-z0-9]+)*\])|(\([a-z]+(?:-[a-z]+)+\))|\s\s((?:@[\w-]+/)?[a-z]+(?:-[a-z]+)*"
    r"(?:/[a-z]+(?:-[a-z]+)*)?)|(\(report[A-Z][A-Za-z]*\)))\s*$"
)
# A line that opens with its rule code (ruff's full format: "F401 [*] `os` imported but unused",
# then an arrow line "  --> a.py:1:8" that locates it): its code is counted in the index.
_CODE_HEAD = lazy(r"([A-Z]{1,4}\d{3,5})(?: \[[*-]\])? \S")
#: How far from its line's end a line's end code may start (Digest.add reads no further back).
_END_CODE_REACH = 120
_CODE_HEAD_MARK = lazy(r"\n[A-Z]{1,4}\d{3,5} ")
_FAILING_WORDS = ("FAIL", "ERROR", "not ok", "\u2717", "\u2715", "\u00d7", "\u2716")
_FAILING_TEST = lazy(
    r"(?:^|\s)(?:FAILED|FAIL|ERROR|[✗✕×✖]|not ok(?: \d+)?(?: -)?|--- FAIL:)\s+(\S+)"
    r"|^\s*(\S+) \.\.\. (?:FAIL|ERROR)\b|^\s*(\S+) FAILED\b"
)
# A summary: a count of what a run found ("3 passed", "12 files would be reformatted"), a line
# that opens with "Found 3" or "Ran 12", or a "=== ... in 1.2s ===" banner. The count's first
# digit comes first in its pattern (the lookbehind after it: no word, ":" or "." before the
# count), so a search skips to digits; tests/test_preview_context.py holds the two patterns
# equal to the one they were written from.
_SUMMARY_COUNT = lazy(
    r"\d(?<![\w:.]\d)[\d,]* (?:passed|failed|errors?|warnings?|problems?|tests?|skipped|issues?|files?"
    r" (?:would be )?(?:reformatted|changed|left unchanged|checked))\b",
    IGNORECASE,
)
_SUMMARY_OPENING = lazy(r"(?:Found|Ran) \d|=+ .*\bin \d[\d.]*s\b", IGNORECASE)


# --- what a line carries --------------------------------------------------------------------


def is_fact_line(line: str) -> bool:
    """Whether the verifier reads a diagnostic or a location on ``line``."""
    return is_diagnostic(line) or next(iter_locations(line), None) is not None


def fact_locations(line: str) -> list[tuple[str, str, str]] | None:
    """The locations on ``line`` when it is a fact line (see :func:`is_fact_line`), else None."""
    locations = list(iter_locations(line))
    return locations if locations or is_diagnostic(line) else None


def carries_fact(line: str) -> bool:
    """Whether ``line`` carries any protected fact (or a summary), so is not filler."""
    return (
        is_fact_line(line)
        or next(iter_paths(line), None) is not None
        or next(iter_commits(line), None) is not None
        or summary_on(line)
        or _STRUCTURE.match(line) is not None
    )


#: Every _SUMMARY_COUNT match holds one of these (lower-cased); every _SUMMARY_OPENING match
#: opens the line with "found ", "ran " or "=".
_SUMMARY_WORDS = (" passed", " failed", " error", " warning", " problem", " test", " skipped", " issue",
                  " file")


def _may_summarize(line: str) -> bool:
    """Whether a summary may be on ``line``: a literal search finds one of _SUMMARY_WORDS or
    an opening (a line whose case folding the search cannot follow always may)."""
    if line.startswith("="):
        return True
    lowered = line.lower()
    if not line.isascii() and (len(lowered) != len(line) or _FOLDED.search(line)):
        return True
    if lowered.startswith(("found ", "ran ")):
        return True
    for word in _SUMMARY_WORDS:  # noqa: SIM110 - a generator costs a third more than the searches
        if word in lowered:
            return True
    return False


# A grouped entry's places ("  19 52 59 error: …", "  7:1 8:3 error …"): numbers, but no counts.
_ENTRY_PLACES = lazy(r"[ \t]+\d+(?::\d+)?(?: \d+(?::\d+)?)*(?= )")


def summary_on(line: str) -> bool:
    """Whether a summary is on ``line`` past the places a grouped entry opens with (an opening
    only where no places are)."""
    if not _may_summarize(line):
        return False
    places = _ENTRY_PLACES.match(line)
    if places is None:
        return _SUMMARY_OPENING.match(line) is not None or _SUMMARY_COUNT.search(line) is not None
    return _SUMMARY_COUNT.search(line, places.end()) is not None


def _code_pattern(line: str) -> Pattern[str]:
    """The pattern of the rule codes on ``line``."""
    return _CODE_OR_LINT if "clippy::" in line else _CODE


def _end_code(line: str) -> Match[str] | None:
    """The end code of ``line`` (_END_CODE within its last _END_CODE_REACH characters): only
    searched for when the line's last non-blank character can end one (``]``, ``)``, or a
    letter with two blanks before it somewhere in reach)."""
    start = max(0, len(line) - _END_CODE_REACH)
    tail = line[start:].rstrip()
    last = tail[-1:]
    if last == "]" or last == ")" or ("a" <= last <= "z" and (
            "  " in tail or "\t" in tail or not (tail.isascii() and tail.isprintable()))):
        return _END_CODE.search(line, start)
    return None


def _candidate_starts(chunk: str) -> list[int] | None:
    """Start of every line of ``chunk`` that may be a fact line (a superset of what
    :func:`is_fact_line` accepts), or None when every line must be read."""
    lowered = chunk.lower()
    if not chunk.isascii() and (len(lowered) != len(chunk) or _FOLDED.search(chunk)):
        return None
    positions: list[int] = []
    find = lowered.find
    for stem in SEVERITY_WORDS:
        position = find(stem)
        while position >= 0:
            positions.append(position)
            position = find(stem, position + len(stem))
    if ":" in chunk or "(" in chunk or "File" in chunk:
        positions.extend(match.start() for match in _LOCATION_MARKS.finditer(chunk))
    positions.extend(match.end() - 1 for match in _CODE_HEAD_MARK.finditer(chunk))
    if _CODE_HEAD.match(chunk):
        positions.append(0)
    rfind = chunk.rfind
    return sorted({rfind("\n", 0, position) + 1 for position in positions})


def candidate_starts(chunk: str) -> list[int]:
    """Start of every line of ``chunk`` (lines end with ``\\n``) that may be a fact line: a
    whole-chunk search finds them, so the other lines are never read one by one."""
    starts = _candidate_starts(chunk)
    if starts is not None:
        return starts
    starts, position = [], 0
    while position < len(chunk):
        starts.append(position)
        end = chunk.find("\n", position)
        position = len(chunk) if end < 0 else end + 1
    return starts


# --- candidate lines read by their shape -----------------------------------------------------

#: Every ASCII digit as "0": no pattern that reads a fact line tells one digit from another (each
#: reads ``\d``, ``\w`` or ``[a-z0-9]``, never a given digit), so lines that differ only in
#: their digits (line numbers, counts, folder numbers) are read alike, at the same places.
_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")
#: At most this many shapes of line are remembered (then the memory starts again).
_READS_KEPT = 1 << 14

Span = tuple[int, int]


class LineRead(NamedTuple):
    """Where the facts of a candidate line are, as places on the line (so that every line of the
    same shape reuses it): what fact_locations and Digest.add read on it."""

    fact: bool
    locations: tuple[tuple[Span, Span, Span], ...]  # path (normalised), line, column ((-1, -1): none)
    paths: tuple[slice, ...]  # what iter_paths finds
    codes: tuple[slice, ...]  # the rule codes Digest.add counts, the end code last
    failing: slice | None
    summary: bool
    head: slice | None  # the code a line that is no fact line opens with


def _path_start(start: int, path: str) -> int:
    return start + 2 if path.startswith("./") else start


#: The reading of a line that carries no fact and opens with no code.
_NO_FACT = LineRead(False, (), (), (), None, False, None)


def read_line(line: str) -> LineRead | None:
    """Where the facts of ``line`` are (None for a line with a URL: its reading depends on the
    text the URLs leave, read as it comes)."""
    if "://" in line:
        return None
    locations: list[tuple[Span, Span, Span]] = []
    if 'File "' in line:
        for found in _LOCATION_PYTHON.finditer(line):
            start, end = found.span("path")
            locations.append(((_path_start(start, found["path"]), end), found.span("line"), (-1, -1)))
    if "(" in line:
        for found in _LOCATION_PAREN.finditer(line):
            start, end = found.span("path")
            col = found.span("col")
            locations.append(((_path_start(start, found["path"]), end), found.span("line"), col))
    if ":" in line:
        for found in _LOCATION_COLON.finditer(line):
            path = found["path"]
            if _colon_location_path(path) is not None:
                start, end = found.span("path")
                locations.append(((_path_start(start, path), end), found.span("line"), found.span("col")))
    if not locations and not is_diagnostic(line):
        head = _CODE_HEAD.match(line)
        return _NO_FACT if head is None else LineRead(False, (), (), (), None, False, slice(*head.span(1)))
    paths: list[slice] = []
    if "/" in line or "." in line:
        for found in _PATH_CANDIDATE.finditer(line):
            word = found[0]
            if _word_path(word) is not None:
                path = word.rstrip(".")
                paths.append(slice(_path_start(found.start(), path), found.start() + len(path)))
    codes = [slice(*found.span()) for found in _code_pattern(line).finditer(line)]
    ending = _end_code(line)
    if ending:
        codes.append(slice(*next(ending.span(group) for group in (1, 2, 3, 4) if ending.group(group))))
    failing = _FAILING_TEST.search(line) if _may_fail(line) else None
    failed = None
    if failing:
        failed = slice(*next(failing.span(g) for g in range(1, 4) if failing.group(g)))
    return LineRead(True, tuple(locations), tuple(paths), tuple(codes), failed,
                    summary_on(line), None)


class LineReader:
    """Reads candidate lines, each shape of line once (see _DIGITS_AS_ZERO)."""

    def __init__(self) -> None:
        self.reads: dict[str, LineRead | None] = {}

    def read(self, line: str) -> LineRead | None:
        """Where the facts of ``line`` are (None: read the line as it comes)."""
        shape = line.translate(_DIGITS_AS_ZERO)
        found = self.reads.get(shape, self)
        if found is self:
            if len(self.reads) >= _READS_KEPT:
                self.reads.clear()
            found = self.reads[shape] = read_line(line)
        return found  # type: ignore[return-value]


def read_locations(line: str, read: LineRead) -> list[tuple[str, str, str]]:
    """The locations of ``line`` (what iter_locations finds) from where they are."""
    return [(line[path[0]:path[1]], line[row[0]:row[1]], line[col[0]:col[1]] if col[0] >= 0 else "")
            for path, row, col in read.locations]


# --- the index ------------------------------------------------------------------------------


def _may_fail(line: str) -> bool:
    """Whether ``line`` holds one of _FAILING_WORDS (every _FAILING_TEST match holds one)."""
    return (
        "FAIL" in line or "ERROR" in line or "not ok" in line or "\u2717" in line
        or "\u2715" in line or "\u00d7" in line or "\u2716" in line
    )  # fmt: skip


class Digest:
    """What the fact lines of a text hold, counted: codes, files, failing tests, summaries."""

    def __init__(self) -> None:
        self.lines = 0
        self.codes: dict[str, int] = {}
        self.files: dict[str, int] = {}  # path -> fact lines that locate something in it
        self.firsts: dict[str, str] = {}  # path -> its first location
        self.failing: dict[str, None] = {}
        self.summaries: dict[str, None] = {}
        self.dropped = 0  # entries past DIGEST_ENTRIES

    def _room(self, table: dict[str, int] | dict[str, None]) -> bool:
        if len(table) < DIGEST_ENTRIES:
            return True
        self.dropped += 1
        return False

    def add(self, line: str, locations: list[tuple[str, str, str]], weight: int = 1) -> None:
        """Count the facts of one fact line (``locations``: what iter_locations finds on it, or
        where a grouped entry's findings are); a grouped entry stands for ``weight`` findings."""
        places = [(path, f"{path}:{row}:{col}" if col else f"{path}:{row}") for path, row, col in locations]
        if "/" in line or "." in line:
            places += [(path, path) for path in iter_paths(line)]
        codes = _code_pattern(line).findall(line)
        end = _end_code(line)
        if end:
            codes.append(next(group for group in end.groups() if group))
        failing = _FAILING_TEST.search(line) if _may_fail(line) else None
        test = next(group for group in failing.groups() if group) if failing else None
        self._count(line, places, codes, test, summary_on(line), weight)

    def add_read(self, line: str, read: LineRead, locations: list[tuple[str, str, str]]) -> None:
        """:meth:`add` for a fact line whose reading is known (see :class:`LineRead`)."""
        places = [(path, f"{path}:{row}:{col}" if col else f"{path}:{row}") for path, row, col in locations]
        places += [(path, path) for path in map(line.__getitem__, read.paths)]
        failing = line[read.failing] if read.failing is not None else None
        self._count(line, places, list(map(line.__getitem__, read.codes)), failing, read.summary, 1)

    def _count(self, line: str, places: list[tuple[str, str]], codes: list[str], failing: str | None,
               summary: bool, weight: int) -> None:
        self.lines += 1
        seen: set[str] = set()
        for path, first in places:
            if path in seen:
                continue
            seen.add(path)
            if path in self.files:
                self.files[path] += weight
                if self.firsts[path] == path:  # named first, located now
                    self.firsts[path] = first
            elif self._room(self.files):
                self.files[path] = weight
                self.firsts[path] = first
        for code in codes:
            if code in self.codes:
                self.codes[code] += weight
            elif self._room(self.codes):
                self.codes[code] = weight
        if failing is not None and failing not in self.failing and self._room(self.failing):
            self.failing[failing] = None
        if summary:
            text = " ".join(line.split())[:200]
            if text not in self.summaries and self._room(self.summaries):
                self.summaries[text] = None

    def count_code(self, code: str) -> None:
        """Count the code a line opens with when the line is no fact line itself."""
        if code in self.codes:
            self.codes[code] += 1
        elif self._room(self.codes):
            self.codes[code] = 1

    def render(self, total_lines: int, max_lines: int, max_bytes: int) -> list[str]:
        """The index as lines, within the bounds given (cut with a note when it does not fit)."""
        sections: list[list[str]] = []
        if self.codes:
            sections.append(_wrapped("codes:", [f"{code} ×{count:,}" for code, count in
                                                 sorted(self.codes.items(), key=_by_count)]))
        if self.failing:
            sections.append(_wrapped("failing:", list(self.failing)))
        if self.summaries:
            sections.append([f"summary: {line}" for line in self.summaries])
        if self.files:
            rows = []
            for path, count in self.files.items():
                first, more = self.firsts[path], count - 1
                rows.append(f"  {first} (+{more:,})" if more else f"  {first}")
            sections.append([f"files ({len(self.files):,}; first location, +more fact lines):", *rows])
        if not sections:
            return []
        head = (f"[tersh] index of the {self.lines:,} fact lines in all {total_lines:,} lines "
                "(the text after it is a cut; the capture holds everything):")
        out = [head]
        used = _utf8_len(head) + 1
        left = 0
        for section in sections:
            for line in section:
                if left:  # the index is cut: the rest is only counted
                    left += 1
                    continue
                cost = _utf8_len(line) + 1
                if len(out) + 2 > max_lines or used + cost + MARKER_BYTES > max_bytes:
                    left += 1
                    continue
                out.append(line)
                used += cost
        if left or self.dropped:
            out.append(f"[tersh] index cut: {left + self.dropped:,} more entries (search the capture)")
        return out


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _wrapped(label: str, items: list[str], width: int = 160) -> list[str]:
    """``label item, item, …`` in lines of about ``width`` characters."""
    lines: list[str] = []
    current = label
    for item in items:
        if len(current) + len(item) + 2 > width and current != label and current.strip():
            lines.append(current.rstrip(","))
            current = " "
        current += f" {item},"
    lines.append(current.rstrip(","))
    return lines


_UNDERLINE = lazy(r"(?:={3,}|-{3,})[^\S\n]*")
_GROUP_HEAD = lazy(r"(?=\S)(?:.*\S)?(?:/| \(\d[\d,]*\))")
class _Earliest:
    """The earliest lines (by number) whose costs fit ``room``, from lines given in any order."""

    def __init__(self, room: int, line_cap: int) -> None:
        self.room, self.line_cap = room, line_cap
        self.found: dict[int, str] = {}
        self.cost = 0

    def add(self, number: int, line: str) -> None:
        """Offer one line (a number already held is not added twice)."""
        if number in self.found:
            return
        self.found[number] = line
        self.cost += min(len(line), self.line_cap) + 1
        if self.cost > 2 * self.room + (1 << 16):
            self.found = dict(self.lines())
            self.cost = sum(min(len(line), self.line_cap) + 1 for line in self.found.values())

    def lines(self) -> list[tuple[int, str]]:
        """The earliest lines, in order, as many as fit the room (the first one always)."""
        kept: list[tuple[int, str]] = []
        used = 0
        for number in sorted(self.found):
            if used > self.room:
                break
            line = self.found[number]
            kept.append((number, line))
            used += min(_utf8_len(line), self.line_cap) + 1
        return kept
