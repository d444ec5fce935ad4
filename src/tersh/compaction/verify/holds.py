"""Prove a compact text kept every protected fact of its source, or say what it lost.

Protected facts (SPEC §1, "The safety rule"):

- ``diagnostic``: the message of every line that reports an error, warning, failure, fatal,
  panic, exception, traceback or deprecation, and of every line that carries a location;
- ``location``: every ``path:line[:col]``, ``path(line,col)`` and ``File "path", line N``;
- ``path``: every file path (a word with a ``/`` or a known source extension; URLs excluded);
- ``commit``: every commit id (7–40 hex digits, letters and digits mixed);
- ``message``: every line of a git commit message (``git log`` medium and one-line forms);
- ``match``: every line of search output (grep, rg, ag, ack, ``git grep``).

A rule may reformat: findings grouped under a file header (a line holding just the path,
optionally followed by `` (…)``) with entries that start with ``line[:col]`` (or several
locations sharing one message: ``  7:1 9:4  msg``) count as carrying ``path:line:col``.
For a listing (find, fd, locate, ``git ls-files``), an indented entry under a line ending with
``/`` stands for the listed path header + entry, and only when that equals a source line.
Whitespace differences never matter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from itertools import accumulate, islice, repeat
from typing import NamedTuple

from tersh._startup.gcpause import without_gc
from tersh.command.classify import CONTENT_SEARCH, NAME_SEARCH
from tersh.compaction.ansi import strip_ansi
from tersh.compaction.kit.base import Invocation

#: Programs whose every output line is a match (and ``git grep``).
SEARCH_PROGRAMS = CONTENT_SEARCH
#: Programs that list paths, one a line (and ``git ls-files``): see ``_listing_held_lines``.
LISTING_PROGRAMS = NAME_SEARCH

_SEVERITY = re.compile(
    r"(?<![A-Za-z0-9_])(?:errors?|warn(?:ing|ings)?|fail(?:s|ed|ure|ures)?|fatal|panic(?:ked)?"
    r"|exceptions?|traceback|deprecat(?:ed|ion|ions)|critical|abort(?:ed)?|segmentation fault"
    r"|assert(?:ion)?error)(?![A-Za-z0-9_])",
    re.IGNORECASE,
)
# A line that a test runner marks as passing, or as merely starting a test, reports no error even
# when the test's name says "error".
_PASSING = re.compile(
    r"(?:\bPASSED\b|\bPASS\b|[✓✔√]|\.\.\. ok\b|\bok \d+ |^\s*ok\b|=== (?:RUN|PAUSE|CONT)\b"
    r"|--- PASS\b|\bSKIPPED\b|\bXFAIL\b|\bxfail\b|\.\.\. skipped\b)"
)
# Every _SEVERITY match holds one of these, lower-cased (found with str.find, far faster than the
# case-blind regex); letters that the regex folds onto ASCII but lower() keeps send a text to it.
_SEVERITY_STEMS = (
    "error", "warn", "fail", "fatal", "panic", "exception", "traceback", "deprecat", "critical",
    "abort", "segmentation",
)  # fmt: skip
#: Every _SEVERITY match starts with one of these, lower-cased: the one list of severity words
#: (the rule kit and the preview look for them to find the lines this module reads).
SEVERITY_WORDS = (*_SEVERITY_STEMS, "assert")
_SEVERITY_HEADS = SEVERITY_WORDS
_FOLDED_LETTERS = re.compile("[\u0130\u0131\u017f\u212a]")
_FAILING_MARK = re.compile(r"(?:\bFAILED\b|\bFAIL\b|[✗✕×✖]|\bnot ok\b|\bERROR\b|\.\.\. FAIL|\bpanicked\b)")

_EXT = (
    r"(?:py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|c|h|cc|cpp|cxx|hpp|hh|rs|go|java|kt|kts|scala"
    r"|rb|php|cs|fs|swift|m|mm|sh|bash|zsh|lua|pl|pm|r|R|sql|json|toml|yaml|yml|xml|html|css"
    r"|scss|md|rst|txt|cfg|ini|lock|gradle|vue|svelte|ex|exs|erl|hs|ml|clj|dart|zig|nim|proto"
    r"|tf|cmake|mk|in|dockerfile)"
)
_PATH_CHARS = r"[\w.@+~/-]"
_PATH = re.compile(rf"(?<![\w/.:@-]){_PATH_CHARS}+")
# The words _PATH finds that hold a "/" or a "." (no other word can be a path): the lookahead
# reads the rest of the word, so each word is found whole, from where _PATH starts it.
_PATH_CANDIDATE = re.compile(rf"(?<![\w/.:@-])(?=[\w@+~-]*+[/.]){_PATH_CHARS}++")
# _PATH_CANDIDATE as one group: ``split`` gives the text between words and the words.
_PATH_WORD_SPLIT = re.compile(f"({_PATH_CANDIDATE.pattern})")
_EXT_END = re.compile(rf"\.{_EXT}$")
# Possessive repeats (``++``): the character after a maximal run is never one of the run's, so
# giving characters back could not let the rest match; not trying saves most of the scan's time.
_LOCATION_COLON = re.compile(
    rf"(?<![\w.@+~/-])(?P<path>{_PATH_CHARS}++):(?P<line>\d++)(?::(?P<col>\d++))?(?![\d\w])"
)
_LOCATION_PAREN = re.compile(
    rf"(?<![\w.@+~/-])(?P<path>{_PATH_CHARS}+\.\w+)\((?P<line>\d+)(?:,\s*(?P<col>\d+))?\)"
)
_LOCATION_PYTHON = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)')
# The same patterns for a text of many lines: a match never runs past the end of its line.
_TEXT_LOCATION_PYTHON = re.compile(r'File "(?P<path>[^"\n]+)", line (?P<line>\d+)')
_TEXT_LOCATION_PAREN = re.compile(
    rf"(?<![\w.@+~/-])(?P<path>{_PATH_CHARS}+\.\w+)\((?P<line>\d+)(?:,[^\S\n]*(?P<col>\d+))?\)"
)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_URL_MARK = re.compile("://")
_COMMIT = re.compile(r"(?<![0-9a-zA-Z_])[0-9a-f]{7,40}(?![0-9a-zA-Z_])")
_GIT_COMMIT_HEADER = re.compile(r"^[*|\\/ ]*commit ([0-9a-f]{7,40})\b")
# The columns `git log --graph` draws left of a commit's lines ("| | ", "* | ", "|\\ ").
_GRAPH_COLUMNS = re.compile(r"^(?:[*|\\/] ?)*?(?=    )")
_GIT_ONELINE = re.compile(r"^[*|\\/_ .-]*([0-9a-f]{7,40})(?: \([^)]*\))? (.+)$")
_GROUP_HEADER = re.compile(r"^(?P<path>\S+?)(?::)?(?: \(.*\))?\s*$")
_GROUP_ENTRY = re.compile(r"^\s+(?P<line>\d+)(?::(?P<col>\d+))?\b")
# A grouped entry may list several locations that share one message: "  7:1 8:1 12:3  msg".
_ENTRY_LOCATION = re.compile(r"\s*(?P<line>\d+)(?::(?P<col>\d+))?(?=\s|$)")
_SPACE = re.compile(r"\s+")
# What every colon or parenthesised location holds (cheap to find: a literal comes first).
_COLON_DIGIT = re.compile(r":\d")
# Every ASCII character as "x" when a commit id may hold it, else as a space.
_HEX_MARKS = str.maketrans({chr(c): "x" if chr(c) in "0123456789abcdef" else " " for c in range(128)})
_SEVEN_HEX = "x" * 7
_PAREN_DIGIT = re.compile(r"\(\d")
# What every parenthesised location holds: a word character right before "(" and a digit after.
_PAREN_LOCATION_MARK = re.compile(r"\w\(\d")
# Every character str.splitlines() breaks a line at, besides "\n" ("\r\n" counts once).
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_ASCII_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e"
# How a finding entry of a grouped proposal starts ("  12:4 …").
_PATH_WORD_ONLY = re.compile(rf"{_PATH_CHARS}+")
_PAREN_PATH_ONLY = re.compile(rf"{_PATH_CHARS}+\.\w+")
_ENTRY_HEAD = re.compile(r"[^\S\n]+\d+(?::\d+)?\b")
_LEADING_ENTRY_LOCATIONS = re.compile(r"^(?:\d+(?::\d+)?\s+)+")
_TRIM = " \t:-|>*=#.,;[]()^~"
# Rates and abbreviations that hold a "/" but name no file ("kB/s", "it/s", "N/A", "I/O").
_NOT_PATH = re.compile(r"^(?:[KkMGTP]?i?[Bb]|it|ops|req|[Kk]?bps)/s(?:ec)?$|^(?:N/A|I/O|and/or|w/o)$")

#: How many missing facts to collect before stopping (one is enough to refuse).
MAX_REPORTED = 8

#: Large texts are read this many characters at a time (whole lines), so that the verifier's
#: working copies stay small whatever the size of the output.
CHUNK_CHARS = 1 << 20

# Order of the facts a line yields: search match, locations (three forms), diagnostic, paths,
# commits; git messages come after every other fact.
_RANK = {"match": 0, "python": 1, "paren": 2, "colon": 3, "diagnostic": 4, "path": 5, "commit": 6}
_KINDS = ("match", "location", "diagnostic", "path", "commit", "message")
_LINE_SHIFT = 40
_RANK_SHIFT = 37
_LATE = 1 << 100
_LINE_MASK = (1 << 60) - 1


class Fact(NamedTuple):
    """One thing a compaction must keep: its kind, its text, and the source line number."""

    kind: str
    text: str
    line: int


def normalize(text: str) -> str:
    """Collapse every run of white space to one space and strip the ends."""
    if len(text) < 4096:  # same white space as the regex (str.isspace), faster on a line
        return " ".join(text.split())
    return _SPACE.sub(" ", text).strip()


def _in_option(line: str, index: int) -> bool:
    """Whether position ``index`` of ``line`` lies in a word that starts with ``-`` (an option)."""
    start = max(line.rfind(" ", 0, index), line.rfind("\t", 0, index)) + 1
    return line.startswith("-", start) and start < index


def is_diagnostic(line: str) -> bool:
    """Whether ``line`` reports an error, warning, failure… (a passing test line does not).

    A severity word inside a command-line option (``gcc -Werror -Wfatal-errors -c x.c``) reports
    nothing.
    """
    if not any(not _in_option(line, start) for start in _severity_starts(line)):
        return False
    return _not_passing(line)


def _not_passing(line: str) -> bool:
    """False for a line a test runner marks as passing (or as starting a test), else True."""
    if not _may_pass(line):
        return True
    return not (_PASSING.search(line) and not _FAILING_MARK.search(line))


def _severe_line_starts(chunk: str) -> list[int] | None:
    """Start of every line of ``chunk`` holding a severity word outside an option (the first
    test of ``is_diagnostic``), found from the chunk's head words; None when lower-casing does
    not keep each character in place or a letter folds onto ASCII (see _stem_line_starts).

    No head word overlaps itself, so each is found from the end of the one before.
    """
    lowered = chunk.lower()
    if not chunk.isascii() and (len(lowered) != len(chunk) or _FOLDED_LETTERS.search(chunk)):
        return None
    match, find, rfind = _SEVERITY.match, lowered.find, chunk.rfind
    starts: set[int] = set()
    for head in _SEVERITY_HEADS:
        position = find(head)
        while position >= 0:
            line_start = rfind("\n", 0, position) + 1
            if line_start not in starts and match(chunk, position):
                space = max(rfind(" ", line_start, position), rfind("\t", line_start, position))
                word = space + 1 if space >= 0 else line_start
                if not (chunk.startswith("-", word) and word < position):  # not in an option
                    starts.add(line_start)
            position = find(head, position + len(head))
    return sorted(starts)


def _severity_starts(line: str) -> Iterator[int]:
    """Where each _SEVERITY match of ``line`` starts (not in order).

    On an ASCII line every match starts where its lower-cased form holds one of _SEVERITY_HEADS,
    and no match starts inside another (its letters fail the look-behind), so trying the regex
    at those places only finds what ``finditer`` finds.
    """
    if not line.isascii():
        yield from (match.start() for match in _SEVERITY.finditer(line))
        return
    lowered = line.lower()
    match = _SEVERITY.match
    for head in _SEVERITY_HEADS:
        position = lowered.find(head)
        while position >= 0:
            if match(line, position):
                yield position
            position = lowered.find(head, position + 1)


def _may_pass(line: str) -> bool:
    """False when ``line`` holds none of the literals every _PASSING match holds (cheap test)."""
    return (
        "PASS" in line or "ok" in line or "===" in line or "SKIPPED" in line or "XFAIL" in line
        or "xfail" in line or "skipped" in line or "\u2713" in line or "\u2714" in line
        or "\u221a" in line
    )  # fmt: skip


def _strip_urls(line: str) -> str:
    return _URL.sub(" ", line) if "://" in line else line


def _is_path(word: str) -> bool:
    """A word is a path when it has a letter and a ``/`` inside, or a known file extension."""
    if not any(c.isalpha() for c in word):
        return False
    inner = word.strip("/")
    if _NOT_PATH.match(word) or word.startswith("-"):  # "--flag/--no-flag" is an option
        return False
    return "/" in inner or (bool(inner) and word.endswith("/") and word != "/") or bool(
        _EXT_END.search(word)
    )


def iter_locations(line: str) -> Iterator[tuple[str, str, str]]:
    """Yield ``(path, line, col)`` for every location written on ``line`` (col may be '')."""
    if "://" in line:
        line = _strip_urls(line)
    if 'File "' in line:
        for match in _LOCATION_PYTHON.finditer(line):
            yield _norm_path(match["path"]), match["line"], ""
    if "(" in line:
        for match in _LOCATION_PAREN.finditer(line):
            yield _norm_path(match["path"]), match["line"], match["col"] or ""
    if ":" in line:
        for match in _LOCATION_COLON.finditer(line):
            path = _colon_location_path(match["path"])
            if path is not None:
                yield path, match["line"], match["col"] or ""


@lru_cache(maxsize=1 << 14)
def _colon_location_path(path: str) -> str | None:
    """The path of a ``path:line`` match when it names a file (normalised), else None."""
    if _is_path(path) or ("." in path.strip(".") and any(c.isalpha() for c in path)):
        return _norm_path(path)
    return None


def _norm_path(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _without_locations(line: str) -> str:
    if 'File "' in line:
        line = _LOCATION_PYTHON.sub(" ", line)
    if "(" in line:
        line = _LOCATION_PAREN.sub(" ", line)
    if ":" in line:
        line = _LOCATION_COLON.sub(" ", line)
    return normalize(line).strip(_TRIM)


def iter_paths(line: str) -> Iterator[str]:
    """Yield every file path written on ``line`` (URLs are not paths)."""
    if "/" not in line and "." not in line:
        return
    for word in _PATH_CANDIDATE.findall(_strip_urls(line) if "://" in line else line):
        path = _word_path(word)
        if path is not None:
            yield path


@lru_cache(maxsize=1 << 15)
def _word_path(word: str) -> str | None:
    """The path a word found by _PATH names (normalised), or None when it is not a path."""
    path = word.rstrip(".")
    return _norm_path(path) if _is_path(path) else None


def iter_commits(line: str) -> Iterator[str]:
    """Yield every commit-id-shaped word: 7–40 lowercase hex digits with a letter and a digit."""
    for word in _COMMIT.findall(line):
        if not word.isdigit() and not word.isalpha():  # hex digits: a digit and a letter
            yield word


def _git_messages(lines: list[str]) -> Iterator[Fact]:
    in_header = False
    for number, line in enumerate(lines, 1):
        if _GIT_COMMIT_HEADER.match(line):
            in_header = True
            continue
        body = line.lstrip("*|\\/ ")
        if in_header and not body.strip():
            in_header = False
            continue
        if in_header:
            continue
        message = _GRAPH_COLUMNS.sub("", line, count=1) if line[:1] in "*|\\/" else line
        if message.startswith("    ") and body.strip():
            yield Fact("message", normalize(message), number)
            continue
        oneline = _GIT_ONELINE.match(line)
        if oneline and any(c.isalpha() for c in oneline[1]) and any(c.isdigit() for c in oneline[1]):
            yield Fact("message", normalize(oneline[2]), number)


def _looks_like_git_log(inv: Invocation | None, lines: list[str]) -> bool:
    if inv is not None and inv.program == "git":
        return inv.subcommand in {"log", "show", "reflog", "whatchanged", "cherry", "shortlog"}
    return any(_GIT_COMMIT_HEADER.match(line) for line in lines[:50])


def _searching(inv: Invocation | None) -> bool:
    return inv is not None and (
        inv.program in SEARCH_PROGRAMS or (inv.program == "git" and inv.subcommand == "grep")
    )


def _listing(inv: Invocation | None) -> bool:
    return inv is not None and (
        inv.program in LISTING_PROGRAMS or (inv.program == "git" and inv.subcommand == "ls-files")
    )


def _has_other_breaks(text: str) -> bool:
    """Whether ``text`` holds a line break other than ``\n`` (literal finds on ASCII text)."""
    if text.isascii():
        return any(char in text for char in _ASCII_OTHER_BREAKS)
    return _OTHER_BREAKS.search(text) is not None


def _chunks(text: str) -> Iterator[str]:
    """``text`` in pieces of whole lines, each line break written ``\\n`` (as splitlines reads)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start + CHUNK_CHARS)
        end = size if end < 0 else end + 1
        chunk = text[start:end]
        if _has_other_breaks(chunk):
            chunk = _OTHER_BREAKS.sub("\n", chunk.replace("\r\n", "\n"))
        yield chunk
        start = end


def _key(line: int, rank: int, position: int) -> int:
    """Sort key of a fact first seen on ``line``: by line, then kind, then place on the line."""
    return (line << _LINE_SHIFT) | (rank << _RANK_SHIFT) | position


def _without_urls(chunk: str) -> str:
    return _sparse_sub(_URL, _URL_MARK, chunk) if "://" in chunk else chunk


def _line_starts_of(text: str, positions: Iterable[int]) -> list[int]:
    """The start of the line of each position (sorted, each line once)."""
    starts = {text.rfind("\n", 0, position) + 1 for position in positions}
    return sorted(starts)


def _line_bounds(text: str, start: int) -> tuple[int, int]:
    end = text.find("\n", start)
    return start, len(text) if end < 0 else end


def _severity_line_starts(text: str) -> list[int] | None:
    """Start of every line of ``text`` that may hold a severity word (None: read them all)."""
    return _stem_line_starts(text, _SEVERITY_STEMS)


def _stem_line_starts(text: str, stems: tuple[str, ...]) -> list[int] | None:
    """Start of every line of ``text`` holding one of ``stems`` in any case (None: unsure)."""
    lowered = text.lower()
    if not text.isascii() and (len(lowered) != len(text) or _FOLDED_LETTERS.search(text)):
        return None
    positions: list[int] = []
    for stem in stems:
        find = lowered.find
        position = find(stem)
        while position >= 0:
            positions.append(position)
            position = find(stem, position + len(stem))
    return _line_starts_of(text, positions)


def _sparse_spans(
    text: str, hint: re.Pattern[str], after_word: bool = False
) -> list[tuple[int, int]] | None:
    """The lines of ``text`` where ``hint`` occurs, as ``(start, end)`` spans of adjacent lines.

    With ``after_word``, only the hints right after a word character count. None when ``hint``
    occurs on so many lines that one scan of the whole text is cheaper.
    """
    hits = [match.start() for match in hint.finditer(text)]
    if after_word:
        hits = [hit for hit in hits if hit and (text[hit - 1].isalnum() or text[hit - 1] == "_")]
    if len(hits) * 8 > text.count("\n") + 1:
        return None
    spans: list[tuple[int, int]] = []
    for start in _line_starts_of(text, hits):
        _, end = _line_bounds(text, start)
        if spans and spans[-1][1] + 1 >= start:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _bare_lines(chunk: str) -> list[str]:
    """``_without_locations`` of each line of ``chunk``, read as one text (each form is blanked
    out only on the lines that hold its mark)."""
    if 'File "' in chunk:
        chunk = _TEXT_LOCATION_PYTHON.sub(" ", chunk)
    if "(" in chunk:
        chunk = _sparse_sub(_TEXT_LOCATION_PAREN, _PAREN_LOCATION_MARK, chunk)
    if ":" in chunk:
        chunk = _sparse_sub(_LOCATION_COLON, _COLON_DIGIT, chunk)
    return list(map(str.strip, _normalized(chunk.split("\n")), repeat(_TRIM)))


def _bare_messages(lines: list[str]) -> list[str]:
    """``_without_locations`` of each line (lines without line breaks), read as one text."""
    return _bare_lines("\n".join(lines))


def _sparse_sub(pattern: re.Pattern[str], hint: re.Pattern[str], text: str) -> str:
    """``pattern.sub(" ", text)`` for a pattern whose matches hold ``hint`` and stay on one
    line: only the lines where ``hint`` occurs are read."""
    spans = _sparse_spans(text, hint)
    if spans is None:
        return pattern.sub(" ", text)
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces += (text[last:start], pattern.sub(" ", text[start:end]))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _commit_matches(text: str) -> Iterator[re.Match[str]]:
    """Every _COMMIT match in ``text``, reading only lines with seven hex digits in a row."""
    if not text.isascii():
        yield from _COMMIT.finditer(text)
        return
    marked = text.translate(_HEX_MARKS)  # ASCII to ASCII: a fast copy, then fast finds
    position = marked.find(_SEVEN_HEX)
    while position >= 0:
        start, end = _line_bounds(text, text.rfind("\n", 0, position) + 1)
        yield from _COMMIT.finditer(text, start, end)
        position = marked.find(_SEVEN_HEX, end)


def _scan(
    text: str, pattern: re.Pattern[str], hint: re.Pattern[str], after_word: bool = False
) -> Iterator[re.Match[str]]:
    """Every match of ``pattern`` in ``text``, reading only the lines where ``hint`` occurs."""
    spans = _sparse_spans(text, hint, after_word)
    if spans is None:
        yield from pattern.finditer(text)
        return
    for start, end in spans:
        yield from pattern.finditer(text, start, end)


def _iter_text_locations(
    urlfree: str, paren: bool = True, colon: bool = True
) -> Iterator[tuple[int, int, str, str, str]]:
    """``(rank, start, path, line, col)`` of every location in a chunk without URLs (the
    parenthesised and colon forms only with ``paren`` and ``colon``).

    The three forms come one after the other (a line's Python locations before its others).
    """
    if 'File "' in urlfree:
        for match in _TEXT_LOCATION_PYTHON.finditer(urlfree):
            yield 1, match.start(), _norm_path(match["path"]), match["line"], ""
    if paren and "(" in urlfree:
        for match in _scan(urlfree, _TEXT_LOCATION_PAREN, _PAREN_DIGIT, after_word=True):
            path = _norm_path(match["path"])
            yield 2, match.start(), path, match["line"], match["col"] or ""
    if colon and ":" in urlfree:
        for match in _scan(urlfree, _LOCATION_COLON, _COLON_DIGIT):
            path, row, col = match.groups()
            named = _colon_location_path(path)
            if named is not None:
                yield 3, match.start(), named, row, col or ""


class _Facts:
    """Every protected fact of a text by kind: fact text -> sort key of its first sighting."""

    def __init__(self, source: str, inv: Invocation | None, skip: tuple[set[str], ...] = ()) -> None:
        """Read ``source``, all of it or only its lines not skipped (see ``_blanked_chunks``)."""
        self.by_kind: dict[str, dict[str, int]] = {kind: {} for kind in _KINDS}
        self.read(_blanked_chunks(source, *skip) if skip else _chunks(source), inv)
        if _looks_like_git_log(inv, list(islice(_chunk_lines(source), 50))):
            messages = self.by_kind["message"]
            for fact in _git_messages(source.splitlines()):
                if fact.text and fact.text not in messages:
                    messages[fact.text] = _LATE | _key(fact.line, 0, 0)

    def read(self, chunks: Iterable[str], inv: Invocation | None) -> None:
        """Record the facts of every line of ``chunks`` (whole lines, ``\n`` breaks) but git
        commit messages (each other fact belongs to one line)."""
        searching = _searching(inv)
        first_line = 1
        base = 0
        for chunk in chunks:
            lines = chunk.split("\n")
            if chunk.endswith("\n"):
                lines.pop()
            if searching:
                self._matches(lines, first_line, base)
            urlfree = _without_urls(chunk)
            located, bare = self._locations(urlfree, first_line, base)
            self._diagnostics(chunk, lines, located, first_line, base, bare if urlfree is chunk else None)
            self._paths(urlfree, first_line, base)
            self._commits(chunk, first_line, base)
            first_line += chunk.count("\n")
            base += len(chunk) + 1

    def _matches(self, lines: list[str], first_line: int, base: int) -> None:
        found = self.by_kind["match"]
        for number, line in enumerate(lines, first_line):
            text = normalize(line)
            if text and text not in found:
                found[text] = _key(number, _RANK["match"], base)

    def _locations(self, urlfree: str, first_line: int, base: int) -> tuple[set[int], list[str] | None]:
        """Record every location; return the chunk's line indexes that hold one and, when the
        scans made it cheap, the chunk's lines with their locations blanked out the way
        ``_without_locations`` does it (before white space is collapsed), else None.

        A form found on many lines is read by one split of the chunk (no call per match).
        """
        located: set[int] = set()
        colon_dense = ":" in urlfree and _sparse_spans(urlfree, _COLON_DIGIT) is None
        paren_dense = "(" in urlfree and _sparse_spans(urlfree, _PAREN_DIGIT, after_word=True) is None
        blanked: str | None = None if 'File "' in urlfree else urlfree
        if paren_dense:
            parts = _TEXT_LOCATION_PAREN.split(urlfree)  # text, path, line, col, text, …
            self._split_locations(parts, _RANK["paren"], _norm_path, first_line, base, located)
            if blanked is not None and len(parts) > 1:
                blanked = " ".join(parts[::4])
        if self._scanned_locations(urlfree, first_line, base, located, not paren_dense, not colon_dense):
            blanked = None  # a sparse form found something: its lines are blanked one by one
        if colon_dense:
            parts = _LOCATION_COLON.split(urlfree)
            self._split_locations(parts, _RANK["colon"], _colon_location_path, first_line, base, located)
            if blanked is urlfree:
                blanked = " ".join(parts[::4])
            elif blanked is not None:
                blanked = _LOCATION_COLON.sub(" ", blanked)
        elif blanked is not None and ":" in blanked:
            blanked = _sparse_sub(_LOCATION_COLON, _COLON_DIGIT, blanked)
        return located, None if blanked is None else blanked.split("\n")

    def _scanned_locations(
        self, urlfree: str, first_line: int, base: int, located: set[int], paren: bool, colon: bool
    ) -> bool:
        """Record the locations the per-match scans find (Python form; the others when asked);
        whether they found any."""
        found = self.by_kind["location"]
        index = last = 0
        count, get = urlfree.count, found.get
        any_found = False
        for rank, start, path, row, col in _iter_text_locations(urlfree, paren, colon):
            if start < last:
                index, last = 0, 0
            index += count("\n", last, start)
            last = start
            located.add(index)
            any_found = True
            text = f"{path}:{row}:{col}" if col else f"{path}:{row}"
            key = ((first_line + index) << _LINE_SHIFT) | (rank << _RANK_SHIFT) | (base + start)
            if key < get(text, _LATE):
                found[text] = key
        return any_found

    def _split_locations(
        self, parts: list[str], rank: int, path_of: Callable[[str], str | None], first_line: int,
        base: int, located: set[int],
    ) -> None:
        """Record the locations of a chunk split by their regex (one scan, no call per match but
        ``path_of``, cached). A match's place on its line is its rank in the chunk.
        """
        found = self.by_kind["location"]
        get = found.get
        rank <<= _RANK_SHIFT
        lines_before = accumulate(map(str.count, parts[::4], repeat("\n")))
        paths = map(path_of, parts[1::4])
        matches = zip(lines_before, paths, parts[2::4], parts[3::4], strict=False)  # one more text
        for number, (index, path, row, col) in enumerate(matches):
            if path is None:
                continue
            located.add(index)
            text = f"{path}:{row}:{col}" if col else f"{path}:{row}"
            key = ((first_line + index) << _LINE_SHIFT) | rank | (base + number)
            if key < get(text, _LATE):
                found[text] = key

    def _diagnostics(
        self, chunk: str, lines: list[str], located: set[int], first_line: int, base: int,
        bare: list[str] | None,
    ) -> None:
        candidates = located.copy()
        severe = _severe_line_starts(chunk)
        starts = severe if severe is not None else _severity_line_starts(chunk)
        if starts is None:
            starts = _line_starts_of(chunk, (match.start() for match in _SEVERITY.finditer(chunk)))
        report = _not_passing if severe is not None else is_diagnostic
        index = last = 0
        for start in starts:
            index += chunk.count("\n", last, start)
            last = start
            if index not in candidates and report(lines[index]):
                candidates.add(index)
        if not candidates:
            return
        found = self.by_kind["diagnostic"]
        rank = _RANK["diagnostic"]
        order = sorted(candidates)
        messages: Iterable[str]
        if len(order) < 64:
            messages = (_without_locations(lines[index]) for index in order)
        elif bare is not None:
            messages = map(str.strip, _normalized(bare[index] for index in order), repeat(_TRIM))
        else:  # one scan per location form over all the lines, not three calls per line
            messages = _bare_messages([lines[index] for index in order])
        for index, message in zip(order, messages, strict=True):
            if len(message) >= 3 and message not in found:
                found[message] = _key(first_line + index, rank, base)

    def _paths(self, urlfree: str, first_line: int, base: int) -> None:
        """Record every path; one split of the chunk finds the words and where they stand."""
        if "/" not in urlfree and "." not in urlfree:
            return
        found = self.by_kind["path"]
        parts = _PATH_WORD_SPLIT.split(urlfree)  # text, word, text, word, …, text
        paths = list(map(_word_path, parts[1::2]))
        # each path once, at its first word (a dict keeps the last value given: read backwards)
        first = dict(zip(reversed(paths), range(len(paths) - 1, -1, -1), strict=True))
        first.pop(None, None)
        new = [(number, path) for path, number in first.items() if path not in found]
        if not new:
            return
        new.sort()
        starts = list(accumulate(map(len, parts)))  # a word starts where its text before ends
        rank = _RANK["path"]
        index = last = 0
        for number, path in new:
            start = starts[2 * number]
            index += urlfree.count("\n", last, start)
            last = start
            found[str(path)] = _key(first_line + index, rank, base + start)

    def _commits(self, chunk: str, first_line: int, base: int) -> None:
        found = self.by_kind["commit"]
        rank = _RANK["commit"]
        index = last = 0
        for match in _commit_matches(chunk):
            word = match.group()
            if word in found or word.isdigit() or word.isalpha():
                continue
            start = match.start()
            index += chunk.count("\n", last, start)
            last = start
            found[word] = _key(first_line + index, rank, base + start)

    def ordered(self, kinds: Iterable[str] = _KINDS) -> list[Fact]:
        """The facts of ``kinds`` in the order first seen."""
        by_key = {key: (kind, text) for kind in kinds for text, key in self.by_kind[kind].items()}
        return [Fact(*by_key[key], (key >> _LINE_SHIFT) & _LINE_MASK) for key in sorted(by_key)]


@without_gc
def extract_facts(source: str, inv: Invocation | None = None) -> list[Fact]:
    """Every protected fact of ``source``, deduplicated, in the order first seen.

    Colour codes never hide a fact: the text is read as a terminal shows it.
    """
    return _Facts(strip_ansi(source), inv).ordered()


class _Index:
    """What a proposal contains. Each part is built on first need (most checks end early), and
    every part is a set, so that checking thousands of facts stays linear.

    A fact is kept when it is in one of the parts of its kind (``_PARTS``) or, failing that,
    anywhere in the proposal with white space collapsed (``flat``). The ``paths`` and ``commits``
    parts only hold words of the proposal: they never admit a fact ``flat`` would refuse.
    """

    def __init__(self, proposal: str) -> None:
        self.proposal = strip_ansi(proposal)
        self._parts: dict[str, set[str]] = {}
        self._flat: str | None = None
        #: The line forms worth rebuilding from grouped entries (see ``_read_entry``): only
        #: those the source shows, so that the rebuilt lines cost no memory in vain.
        self.rebuild: frozenset[str] = _ALL_FORMS

    @property
    def flat(self) -> str:
        """The whole proposal, white space collapsed."""
        if self._flat is None:
            self._flat = normalize(self.proposal)
        return self._flat

    def part(self, name: str) -> set[str]:
        """One part of the index (see ``_PARTS``), built on first need."""
        found = self._parts.get(name)
        if found is None:
            if name.startswith("group"):
                names = ("group_lines", "group_locations", "group_held", "group_entries")
                self._parts.update(zip(names, self._groups(), strict=True))
            else:
                self._parts[name] = _PART_BUILDERS[name](self.proposal)
            found = self._parts[name]
        return found

    def _groups(self) -> tuple[set[str], set[str], set[str], set[str]]:
        lines: set[str] = set()
        locations: set[str] = set()
        rebuilt: _Rebuilt = (set(), set())
        header: str | None = None
        for chunk in _chunks(self.proposal):
            header = _read_groups(chunk, header, lines, locations, rebuilt, self.rebuild)
        return lines, locations, *rebuilt

    def has(self, fact: Fact) -> bool:
        """Whether the proposal keeps ``fact``."""
        return self.holds(fact.kind, fact.text)

    def holds(self, kind: str, text: str) -> bool:
        """Whether the proposal keeps the fact of ``kind`` written ``text``."""
        return any(text in self.part(name) for name in _PARTS.get(kind, _LINE_PARTS)) or (
            text in self.flat
        )


def _plain_lines(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _chunks(proposal):
        found.update(_normalized(chunk.split("\n")))
    return found


def _normalized(lines: Iterable[str]) -> Iterator[str]:
    """``normalize`` of each line (that holds no line break), without a call per line."""
    return map(" ".join, map(str.split, lines))


def _bare_line_set(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _chunks(proposal):
        found.update(_bare_lines(chunk))
    return found


def _location_set(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _chunks(proposal):
        for path, row, col in _location_triples(_without_urls(chunk)):
            found.add(f"{path}:{row}")
            if col:
                found.add(f"{path}:{row}:{col}")
    return found


def _location_triples(urlfree: str) -> set[tuple[str, str, str]]:
    """``(path, line, col)`` of every location of a chunk without URLs (col may be '');
    a form found on many lines is read by one split."""
    colon_dense = ":" in urlfree and _sparse_spans(urlfree, _COLON_DIGIT) is None
    paren_dense = "(" in urlfree and _sparse_spans(urlfree, _PAREN_DIGIT, after_word=True) is None
    scanned = _iter_text_locations(urlfree, not paren_dense, not colon_dense)
    found = {(path, row, col) for _, _, path, row, col in scanned}
    forms = (
        (paren_dense, _TEXT_LOCATION_PAREN, _norm_path),
        (colon_dense, _LOCATION_COLON, _colon_location_path),
    )
    for dense, pattern, path_of in forms:
        if dense:
            parts = pattern.split(urlfree)
            triples = set(zip(parts[1::4], parts[2::4], parts[3::4], strict=True))
            for raw, row, col in triples:
                path = path_of(raw)
                if path is not None:
                    found.add((path, row, col or ""))
    return found


def _path_set(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _chunks(proposal):
        urlfree = _without_urls(chunk)
        if "/" in urlfree or "." in urlfree:
            words = set(_PATH_CANDIDATE.findall(urlfree))
            found.update(path for path in map(_word_path, words) if path is not None)
    return found


def _commit_set(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _chunks(proposal):
        found.update(match.group() for match in _commit_matches(chunk))
    return found


def _held_lines(proposal: str) -> set[str]:
    """Every line of the proposal, stripped of spaces and tabs around it."""
    found: set[str] = set()
    for chunk in _chunks(proposal):
        found.update(map(str.strip, chunk.split("\n"), repeat(" \t")))
    return found


def _search_held_lines(proposal: str) -> set[str]:
    """The search lines the proposal's grouped entries stand for, rebuilt exactly.

    Under a header that is a path (``path`` or ``path (N)``), an indented entry ``NUM:text`` is
    the match line ``path:NUM:text``, ``NUM-text`` the context line ``path-NUM-text``, and an
    entry starting with ``:`` or ``-`` (no line numbers) the line ``path`` + entry. Only the
    indentation before the entry goes; the text after the separator is kept byte for byte, so a
    rebuilt line equals its source line or stands for none.
    """
    found: set[str] = set()
    header: str | None = None
    for line in _chunk_lines(proposal):
        if not line[:1].isspace():
            group = _GROUP_HEADER.match(line)
            header = group["path"].rstrip(":") if group and _group_header(line) else None
            continue
        entry = line.lstrip(" \t")
        if header is None or not entry:
            continue
        if entry[0] in ":-":
            found.add((header + entry).strip(" \t"))
            continue
        digits = len(entry) - len(entry.lstrip("0123456789"))
        separator = entry[digits : digits + 1]
        if digits and separator in (":", "-"):
            found.add((header + separator + entry).strip(" \t"))
            if separator == "-":  # ag and ack print context lines as path:NUM-text
                found.add((header + ":" + entry).strip(" \t"))
    return found


def _listing_held_lines(proposal: str) -> set[str]:
    """The listed paths the proposal's grouped entries stand for, rebuilt exactly.

    A line that is not indented and ends with ``/`` heads the indented lines after it: each is
    the path header + entry, the entry's indentation removed and the rest kept byte for byte,
    so a rebuilt line equals its source line or stands for none. Any other line that is not
    indented ends the group.
    """
    found: set[str] = set()
    header = ""
    add = found.add
    for line in _chunk_lines(proposal):
        if line[:1] not in (" ", "\t"):
            header = line if line.endswith("/") else ""
        elif header:
            entry = line.lstrip(" \t")
            if entry:
                add((header + entry).rstrip(" \t"))
    return found


_PART_BUILDERS = {
    "held": _held_lines, "search_held": _search_held_lines, "listing_held": _listing_held_lines,
    "lines": _plain_lines,
    "bare": _bare_line_set, "locations": _location_set, "paths": _path_set, "commits": _commit_set,
}  # fmt: skip
# The parts that may hold a fact of each kind, cheapest first (a fact is kept when any holds it;
# the group parts are built for locations before lines are looked for).
_LINE_PARTS = ("lines", "group_lines", "bare")
_PARTS = {
    "location": ("group_locations", "locations"),
    "path": ("paths", *_LINE_PARTS),
    "commit": ("commits", *_LINE_PARTS),
}


# The lines a grouped entry stands for: a tool's own lines, and entry lines as ``line:col message``
# (white space collapsed), see ``_read_entry``.
_Rebuilt = tuple[set[str], set[str]]


def _read_groups(
    chunk: str,
    header: str | None,
    lines: set[str],
    locations: set[str],
    rebuilt: _Rebuilt,
    wanted: frozenset[str] = frozenset(),
) -> str | None:
    """Read the grouped entries of ``chunk`` under ``header``; the header in force after.

    A line that is not indented (an empty one too) decides the header of the entries after it;
    an indented line is an entry when ``line[:col]`` starts it, else it changes nothing.
    ``rebuilt`` gets the ``path:line[:col]: message`` line of each simple entry (see
    ``_read_entry``).
    """
    rows = chunk.split("\n")
    if chunk.endswith("\n"):
        rows.pop()
    pending: str | None = None  # the last line that is not indented, not yet read as a header
    entry = _ENTRY_HEAD.match
    forms = _rebuilt_forms(header).intersection(wanted)
    for raw in rows:
        if not raw[:1].isspace():
            pending = raw
        elif entry(raw) is not None:
            if pending is not None:
                header, pending = _group_header(pending), None
                forms = _rebuilt_forms(header).intersection(wanted)
            if header is not None:
                _read_entry(raw, header, lines, locations, rebuilt, forms)
    if pending is not None:
        header = _group_header(pending)
    return header


def _read_entry(
    raw: str, header: str, lines: set[str], locations: set[str], rebuilt: _Rebuilt, forms: frozenset[str]
) -> None:
    """Record an entry's locations and message, and in ``rebuilt`` the lines that stand for the
    same findings when such a line yields no fact the entry does not give (a message with no
    location in it that starts with no digit): the tool's own line per finding (``forms``, checked
    against the header by ``_rebuilt_forms``: ``header:line[:col]: message``, ``header(line,col):
    message``), and, white space collapsed, ``line:col message`` (a linter's own grouped entry),
    the message alone and ``--> header:line:col`` (the heading and arrow of ruff's full form).
    """
    end = 0
    match = _ENTRY_LOCATION.match
    places: list[tuple[str, str | None]] = []
    while located := match(raw, end):
        row, col = located.group("line", "col")
        locations.add(f"{header}:{row}")
        if col:
            locations.add(f"{header}:{row}:{col}")
        places.append((row, col))
        end = located.end()
    message = raw[end:]
    flat = " ".join(message.split())
    lines.add(flat.strip(_TRIM))
    # (white space never makes or breaks a location mark, but 'File "' may only show in ``flat``)
    if not places or not flat or flat[0].isdigit() or _holds_location(flat):
        return
    if not forms:
        return
    message = message.strip()
    tool_lines, entries = rebuilt
    if "message" in forms:
        entries.add(flat)  # the message alone (ruff's full form heads a finding with it)
    for row, col in places:
        place = f"{row}:{col}" if col else row
        if col:  # (a bare line number would stay in the line's message: only line:col reads as a place)
            if "entry" in forms:
                entries.add(f"{place} {flat}")
            if "arrow" in forms:  # the arrow under ruff's and rustc's headings
                entries.add(f"--> {header}:{place}")
        if "colon" in forms:
            tool_lines.add(f"{header}:{place}: {message}")
        if "paren" in forms and col:
            tool_lines.add(f"{header}({row},{col}): {message}")


def _holds_location(text: str) -> bool:
    """Whether ``text`` may hold a location of any form (cheap literal tests)."""
    return (
        (":" in text and _COLON_DIGIT.search(text) is not None)
        or ("(" in text and _PAREN_LOCATION_MARK.search(text) is not None)
        or 'File "' in text
    )


@lru_cache(maxsize=1 << 12)
def _rebuilt_forms(header: str | None) -> frozenset[str]:
    """The line forms an entry under ``header`` may stand for: ``entry`` (``line:col message``)
    and ``message`` (the message alone) always; with ``header``, as it is, read back as their
    location's path and only path word, ``colon`` (``header:line:col: …``), ``arrow``
    (``--> header:line:col``) and ``paren`` (``header(line,col): …``)."""
    forms = {"entry", "message"}
    if header is not None and _PATH_WORD_ONLY.fullmatch(header) is not None:
        if _colon_location_path(header) == header:
            forms.update(("colon", "arrow"))
        if _PAREN_PATH_ONLY.fullmatch(header) and _norm_path(header) == header:
            forms.add("paren")
    return frozenset(forms)


# Each rebuilt form, with a mark of it to look for at the head of a source (``_source_forms``).
_FORM_MARKS = (
    ("colon", re.compile(r"^[^\s:]+:\d+(?::\d+)?: ", re.MULTILINE)),
    ("paren", re.compile(r"^[^\s(]+\(\d+,\d+\): ", re.MULTILINE)),
    ("entry", re.compile(r"^[^\S\n]+\d+:\d+\s", re.MULTILINE)),
    ("arrow", re.compile(r"^[^\S\n]*--> ", re.MULTILINE)),
)
_ALL_FORMS = frozenset(("colon", "paren", "entry", "arrow", "message"))


def _source_forms(source: str) -> frozenset[str]:
    """The rebuilt forms the start of ``source`` shows (a guide for speed and memory only; an
    arrow comes under a heading that is the message alone)."""
    head = source[:CHUNK_CHARS]
    found = {name for name, mark in _FORM_MARKS if mark.search(head)}
    return frozenset(found | {"message"} if "arrow" in found else found)


def _group_header(raw: str) -> str | None:
    """The path a line that is not indented heads a group with, or None."""
    group = _GROUP_HEADER.match(raw)
    if group and not raw[:1].isspace() and next(iter_paths(group["path"]), None):
        return _norm_path(group["path"].rstrip(":"))
    return None


@without_gc
def missing_facts(source: str, proposal: str, inv: Invocation | None = None) -> list[Fact]:
    """The protected facts of ``source`` that ``proposal`` lost (at most MAX_REPORTED)."""
    return _missing_in(strip_ansi(source), _Index(proposal), inv)


def _chunk_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` as ``_Facts`` reads them."""
    for chunk in _chunks(text):
        lines = chunk.split("\n")
        if chunk.endswith("\n"):
            lines.pop()
        yield from lines


def _blanked_chunks(
    source: str, held: set[str], rebuilt: set[str] | None = None, entries: set[str] | None = None
) -> Iterator[str]:
    """The chunks of ``source`` with every line in ``held`` or ``rebuilt`` (spaces and tabs around
    it aside), or in ``entries`` once white space is collapsed, made empty: the line numbers
    stay, the facts of those lines go."""
    for chunk in _chunks(source):
        lines = chunk.split("\n")
        stripped = list(map(str.strip, lines, repeat(" \t")))
        flags = list(map(held.__contains__, stripped))
        if rebuilt:
            flags = [flag or line in rebuilt for line, flag in zip(stripped, flags, strict=True)]
        if entries:
            pairs = zip(lines, flags, strict=True)
            flags = [flag or " ".join(line.split()) in entries for line, flag in pairs]
        if any(flags):
            yield "\n".join(["" if flag else line for line, flag in zip(lines, flags, strict=True)])
        else:
            yield chunk


def _missing_in(source: str, index: _Index, inv: Invocation | None) -> list[Fact]:
    """The protected facts of ``source`` (colour codes removed) missing from ``index``.

    A line the proposal holds as it is (spaces and tabs around it aside) keeps every fact it
    yields: each is found the same way in the proposal's line, and a git commit message (which
    depends on the lines around it) is read from the whole source. So those lines are not read;
    nor those a simple grouped entry stands for (``_read_entry``): their location is the entry's,
    their message the entry's, their paths and commit ids the header's and the message's.
    """
    skip: tuple[set[str], ...] = (index.part("held"),)
    if _searching(inv):  # a search's match is its whole line: only an exact rebuild stands for it
        skip = (*skip, index.part("search_held"))
    elif _listing(inv):  # so is a listed path (header + entry, see _listing_held_lines)
        skip = (*skip, index.part("listing_held"))
    else:
        if "group_held" not in index._parts:
            index.rebuild = _source_forms(source)
        skip = (*skip, index.part("group_held"), index.part("group_entries"))
    facts = _Facts(source, inv, skip)
    missing: list[tuple[int, str, str]] = []
    for kind, found in facts.by_kind.items():
        unsure = list(found)
        for name in _PARTS.get(kind, _LINE_PARTS):
            if not unsure:
                break
            part = index.part(name)
            unsure = [text for text in unsure if text not in part]
        lost = 0
        for key, text in sorted((found[text], text) for text in unsure):
            if text not in index.flat:
                missing.append((key, kind, text))
                lost += 1
                if lost >= MAX_REPORTED:
                    break
    missing.sort()
    return [Fact(kind, text, (key >> _LINE_SHIFT) & _LINE_MASK) for key, kind, text in missing[:MAX_REPORTED]]


_SUCCESS_CLAIM = re.compile(
    r"\ball (?:\w+ )?(?:tests? )?(?:passed|succeeded|ok)\b|\bno (?:errors|failures|problems|issues)\b"
    r"|(?<![\d,])0 (?:errors?|failures?|failed)\b|\bno tests (?:ran|collected|found)\b"
    r"|\bsucce(?:ss|ssful|ssfully|eded)\b|\bbuild ok\b",
    re.IGNORECASE,
)
_FAILURE_CLAIM = re.compile(
    r"\b[1-9][\d,]* (?:failed|failures?|errors?)\b|\bFAILED\b|\bfailed\b", re.IGNORECASE
)


# Every claim match holds one of these, lower-cased (see _SEVERITY_STEMS).
_SUCCESS_STEMS = (
    "all ", "no errors", "no failures", "no problems", "no issues", "0 error", "0 failure",
    "0 failed", "no tests ", "succe", "build ok",
)  # fmt: skip
_FAILURE_STEMS = ("fail", "error")


def contradiction(source: str, proposal: str, exit_code: int) -> str | None:
    """A reason when the text a rule wrote itself reads against the exit code, else None."""
    claim, stems = (_SUCCESS_CLAIM, _SUCCESS_STEMS) if exit_code != 0 else (_FAILURE_CLAIM, _FAILURE_STEMS)
    claims: list[str] = []
    for chunk in _chunks(proposal):
        starts = _stem_line_starts(chunk, stems)
        if starts is None:
            starts = _line_starts_of(chunk, (match.start() for match in claim.finditer(chunk)))
        lines = (chunk[slice(*_line_bounds(chunk, start))] for start in starts)
        claims.extend(line for line in lines if claim.search(line))
    if not claims or (exit_code == 0 and _has_severity_line(source)):
        return None
    source_lines = _normalized_lines(source)
    flat: list[str] = []  # the whole source, normalised on first need

    def quoted(line: str) -> bool:
        """Whether ``line`` only re-expresses a tool message (located or grouped) of the source."""
        rest = _LEADING_ENTRY_LOCATIONS.sub("", _without_locations(line))
        if len(rest) < 12:
            return False
        if not flat:
            flat.append(normalize(source))
        return rest in flat[0]

    for line in claims:
        text = normalize(line)
        if text and text not in source_lines and not quoted(line):
            verdict = "success" if exit_code != 0 else "failure"
            return f"reads as {verdict} with exit code {exit_code}: {text[:80]!r}"
    return None


def _normalized_lines(text: str) -> set[str]:
    """``{normalize(line) for line in text.splitlines()}``, built a chunk at a time."""
    lines: set[str] = set()  # may hold "" for a line that is not there: no caller asks for ""
    for chunk in _chunks(text):
        lines.update(_normalized(chunk.split("\n")))
    return lines


def _has_severity_line(text: str) -> bool:
    """Whether some line of ``text``, normalised, holds a severity word."""
    for chunk in _chunks(text):
        starts = _severity_line_starts(chunk)
        if starts is None:
            lines = chunk.split("\n")
        else:
            lines = [chunk[slice(*_line_bounds(chunk, start))] for start in starts]
        if any(_SEVERITY.search(normalize(line)) for line in lines):
            return True
    return False


def refusal(source: str, proposal: str, inv: Invocation | None = None) -> str | None:
    """Why ``proposal`` may not replace ``source`` (None when it is proven safe)."""
    if len(proposal.encode("utf-8", "surrogateescape")) >= len(source.encode("utf-8", "surrogateescape")):
        return "not smaller"
    if inv is not None:
        reason = contradiction(source, proposal, inv.exit_code)
        if reason:
            return reason
    missing = missing_facts(source, proposal, inv)
    if missing:
        shown = "; ".join(f"{f.kind} {f.text[:60]!r} (line {f.line})" for f in missing[:3])
        more = "+" if len(missing) >= MAX_REPORTED else ""
        return f"{len(missing)}{more} protected facts missing: {shown}"
    return None


def describe(facts: Iterable[Fact]) -> dict[str, int]:
    """Count facts by kind (for details and benchmarks)."""
    counts: dict[str, int] = {}
    for fact in facts:
        counts[fact.kind] = counts.get(fact.kind, 0) + 1
    return counts
