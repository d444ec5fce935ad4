"""What a text carries: the protected facts of an output, defined plainly, one line at a time.

Protected facts (SPEC §1, "The safety rule"):

- ``diagnostic``: the message of every line that reports an error, warning, failure, fatal,
  panic, exception, traceback or deprecation, and of every line that carries a location; a
  source line quoted in a code frame (``quoted_source``) reports nothing: it is the file's text;
- ``location``: every ``path:line[:col]``, ``path(line,col)`` and ``File "path", line N``;
- ``path``: every file path (a word with a ``/`` or a known source extension; URLs excluded);
- ``commit``: every commit id (7–40 hex digits, letters and digits mixed);
- ``message``: every line of a git commit message (``git log`` medium and one-line forms);
- ``match``: every line of search output (grep, rg, ag, ack, ``git grep``).

A ref git reports unchanged in a transfer (``git fetch -v``, ``git pull -v``, ``git push -v``
print `` = [up to date]      main       -> origin/main`` for each) yields no fact: the refs that
moved, were created, forced or rejected, and the errors, are the outcome; thousands of unchanged
ones are one count (``unchanged_ref``).

A line that names a place with no path on it (a grouped entry's ``  3:10  msg``, sqlfluff's
``L:  12 | P:   4 | …``, prose's ``… at line 12, column 4.``: ``place_line``) carries that place
as its whole text only: a proposal keeps it by holding the line (white space collapsed), or
restating it in a form of ``renderings``; ``holds`` checks these lines beside the facts.

``plain_facts`` is the readable definition of them all: it reads each line with the per-line
functions below. The bulk scanner (``scan.extract_facts``) finds the same facts in the same
order a chunk at a time; the property tests (tests/compact/test_verify_equivalence.py) hold the
two equal. Whether a proposal keeps the facts is ``holds``; the forms a compaction may use to
restate them are ``renderings``.
"""

from __future__ import annotations

from tersh._startup.lazyre import IGNORECASE, MULTILINE, lazy
from tersh._startup.lean import lru_cache
from tersh.command.classify import CONTENT_SEARCH, NAME_SEARCH
from tersh.compaction.kit.base import Invocation
from tersh.compaction.linestarts import LineStarts

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import NamedTuple
else:
    from tersh._startup.lean import NamedTuple

#: Programs whose every output line is a match (and ``git grep``).
SEARCH_PROGRAMS = CONTENT_SEARCH
#: Programs that list paths, one a line (and ``git ls-files``): see ``_listing_held_lines``.
LISTING_PROGRAMS = NAME_SEARCH

_SEVERITY = lazy(
    r"(?<![A-Za-z0-9_])(?:errors?|warn(?:ing|ings)?|fail(?:s|ed|ure|ures)?|fatal|panic(?:ked)?"
    r"|exceptions?|traceback|deprecat(?:ed|ion|ions)|critical|abort(?:ed)?|segmentation fault"
    r"|assert(?:ion)?error)(?![A-Za-z0-9_])",
    IGNORECASE,
)
# A line that a test runner marks as passing, or as merely starting a test, reports no error even
# when the test's name says "error".
_PASSING = lazy(
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
_FAILING_MARK = lazy(r"(?:\bFAILED\b|\bFAIL\b|[✗✕×✖]|\bnot ok\b|\bERROR\b|\.\.\. FAIL|\bpanicked\b)")

_EXT = (
    r"(?:py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|c|h|cc|cpp|cxx|hpp|hh|rs|go|java|kt|kts|scala"
    r"|rb|php|cs|fs|swift|m|mm|sh|bash|zsh|lua|pl|pm|r|R|sql|json|toml|yaml|yml|xml|html|css"
    r"|scss|md|rst|txt|cfg|ini|lock|gradle|vue|svelte|ex|exs|erl|hs|ml|clj|dart|zig|nim|proto"
    r"|tf|cmake|mk|in|dockerfile)"
)
_PATH_CHARS = r"[\w.@+~/-]"
_PATH = lazy(rf"(?<![\w/.:@-]){_PATH_CHARS}+")
# The words _PATH finds that hold a "/" or a "." (no other word can be a path): the lookahead
# reads the rest of the word, so each word is found whole, from where _PATH starts it.
_PATH_CANDIDATE = lazy(rf"(?<![\w/.:@-])(?=[\w@+~-]*+[/.]){_PATH_CHARS}++")
_EXT_END = lazy(rf"\.{_EXT}$")
# Possessive repeats (``++``): the character after a maximal run is never one of the run's, so
# giving characters back could not let the rest match; not trying saves most of the scan's time.
_LOCATION_COLON = lazy(
    rf"(?<![\w.@+~/-])(?P<path>{_PATH_CHARS}++):(?P<line>\d++)(?::(?P<col>\d++))?(?![\d\w])"
)
_LOCATION_PAREN = lazy(
    rf"(?<![\w.@+~/-])(?P<path>{_PATH_CHARS}+\.\w+)\((?P<line>\d+)(?:,\s*(?P<col>\d+))?\)"
)
_LOCATION_PYTHON = lazy(r'File "(?P<path>[^"]+)", line (?P<line>\d+)')
_URL = lazy(r"\b[a-z][a-z0-9+.-]*://\S+", IGNORECASE)
_COMMIT = lazy(r"(?<![0-9a-zA-Z_])[0-9a-f]{7,40}(?![0-9a-zA-Z_])")
_GIT_COMMIT_HEADER = lazy(r"^[*|\\/ ]*commit ([0-9a-f]{7,40})\b")
# The columns `git log --graph` draws left of a commit's lines ("| | ", "* | ", "|\\ ").
_GRAPH_COLUMNS = lazy(r"^(?:[*|\\/] ?)*?(?=    )")
_GIT_ONELINE = lazy(r"^[*|\\/_ .-]*([0-9a-f]{7,40})(?: \([^)]*\))? (.+)$")
_SPACE = lazy(r"\s+")
_TRIM = " \t:-|>*=#.,;[]()^~"
# Rates and abbreviations that hold a "/" but name no file ("kB/s", "it/s", "N/A", "I/O").
_NOT_PATH = lazy(r"^(?:[KkMGTP]?i?[Bb]|it|ops|req|[Kk]?bps)/s(?:ec)?$|^(?:N/A|I/O|and/or|w/o)$")
# Code quoted in a code frame: a source line "  12 |     raise ValueError('error')" (ruff, rustc,
# gcc), "> 3 │ x", a fix diff's "  4 4 │ x", "  4   │ - x", "      4 │ + x" (biome, babel's code
# frame), a suggested edit "15 +     x", "   -     y" (ruff, rustc); tsc's "12 x" over its markers
# ("   ~~~~"). A frame's other lines: its gutter ("   |   ^^^ label", "  4 4 │") and elisions.
_FRAME_SOURCE = lazy(r"^\s*>?\s*(?:\d+\s+)?\d+\s*[|│](?:\s|$)|^\s*\d+\s*[+~-](?:\s|$)|^\s+-(?:\s|$)")
_FRAME_GUTTER = lazy(r"^\s*[|│]|^\s*\d+\s+\d+\s*[|│]")
_FRAME_ELISION = lazy(r"^\s*\.\.\.\s*$")
_TSC_SOURCE = lazy(r"^(\d+) ")
_TSC_MARKERS = lazy(r"^(\s*)~[\s~]*$")
#: How many lines of a frame ``quoted_source`` reads on each side of a line for its gutter.
FRAME_REACH = 32
# A ref git reports unchanged in a transfer: " = [up to date]      main       -> origin/main".
_UNCHANGED_REF = lazy(r"^ = \[up to date\][ \t]+\S+[ \t]+->[ \t]+\S+[ \t]*$")
_UNCHANGED_REF_LINES = lazy(_UNCHANGED_REF.pattern, MULTILINE)
#: What every line ``unchanged_ref`` accepts starts with (a cheap test of a whole text).
UNCHANGED_REF_MARK = " = [up to date]"
_KINDS = ("match", "location", "diagnostic", "path", "commit", "message")


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
    if line.isascii() and not _holds_severity_head(line.lower()):
        return False  # (what _severity_starts would find: nothing)
    if not any(not _in_option(line, start) for start in _severity_starts(line)):
        return False
    return _not_passing(line)


def _holds_severity_head(lowered: str) -> bool:
    """Whether the lower-cased form of an ASCII line holds one of _SEVERITY_HEADS."""
    for head in _SEVERITY_HEADS:  # noqa: SIM110 - a generator costs a third more than the searches
        if head in lowered:
            return True
    return False


def _not_passing(line: str) -> bool:
    """False for a line a test runner marks as passing (or as starting a test), else True."""
    if not _may_pass(line):
        return True
    return not (_PASSING.search(line) and not _FAILING_MARK.search(line))


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


#: The literals of ``_may_pass``, one of which every _PASSING match holds.
PASSING_MARKS = ("PASS", "ok", "===", "SKIPPED", "XFAIL", "xfail", "skipped", "\u2713", "\u2714", "\u221a")


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
    return "/" in inner or (bool(inner) and word.endswith("/") and word != "/") or bool(_EXT_END.search(word))


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


def unchanged_ref(line: str) -> bool:
    """Whether ``line`` is git's report of a ref a transfer left as it was (`` = [up to date]
    main -> origin/main``): it yields no fact (the transfer changed nothing there)."""
    return line.startswith(UNCHANGED_REF_MARK) and _UNCHANGED_REF.match(line) is not None


def blank_unchanged_refs(chunk: str) -> str:
    """``chunk`` (lines broken by ``\\n`` only) with every ``unchanged_ref`` line made empty, by
    one scan: the line numbers stay, the lines' facts go (what ``plain_facts`` skips)."""
    return _UNCHANGED_REF_LINES.sub("", chunk) if UNCHANGED_REF_MARK in chunk else chunk


def may_be_quoted_source(line: str) -> bool:
    """Whether ``line`` has the shape of code quoted in a code frame (``12 | x``, ``12 x``)."""
    return _FRAME_SOURCE.match(line) is not None or _TSC_SOURCE.match(line) is not None


def in_frame_shape(line: str) -> bool:
    """Whether ``line`` may be part of a code frame (quoted code, gutter, elision, tsc's
    markers): whether another line is ``quoted_source`` may depend on it."""
    return (
        may_be_quoted_source(line) or _FRAME_GUTTER.match(line) is not None
        or _FRAME_ELISION.match(line) is not None or _TSC_MARKERS.match(line) is not None
    )  # fmt: skip


def quoted_source(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` is code quoted in a code frame, the file's text or an edit the
    tool suggests: numbered (``12 | x``, ``> 12 │ x``, ``12 + x``) or an unnumbered edit
    (``   - x``), with a gutter line (``   |``, ``   | ^^^``) at most FRAME_REACH lines above or
    below it and only such lines or elisions (``...``) between; or numbered as tsc numbers it
    (``12 x``) right above its markers (``   ~~~``, indented past the number).

    A numbered line without a gutter near it (a table: `` 1 | error | disk full``) is not one.
    """
    line = lines[index]
    if _FRAME_SOURCE.match(line) is not None:
        for step in (-1, 1):
            other = index + step
            for _ in range(FRAME_REACH):
                if not 0 <= other < len(lines):
                    break
                near = lines[other]
                if _FRAME_GUTTER.match(near):
                    return True
                if not (_FRAME_SOURCE.match(near) or _FRAME_ELISION.match(near)):
                    break
                other += step
    number = _TSC_SOURCE.match(line)
    if number is None or index + 1 >= len(lines):
        return False
    markers = _TSC_MARKERS.match(lines[index + 1])
    return markers is not None and len(markers[1]) > len(number[1])


# A place named with no path: "  3:10  msg", sqlfluff's "L:  12 | P:   4 | …" and prose's
# "line 12, column 4" / "line 12, col 4" (MULTILINE: one scan finds the lines of a whole text).
_PLACE_ENTRY_BODY = r"[ \t]+\d+:\d+(?=[ \t]|$)|L:[ \t]*\d+[ \t]*\|[ \t]*P:[ \t]*\d+"
_PLACE_ENTRY = lazy(f"^(?:{_PLACE_ENTRY_BODY})", MULTILINE)
# The same over a whole text, tried at its line starts only.
_PLACE_ENTRY_LINES = LineStarts(_PLACE_ENTRY_BODY)
_PLACE_PROSE = lazy(r"(?<![\w-])line \d+, col(?:umn)? \d+(?!\w)")
#: What every line ``_PLACE_PROSE`` finds something on holds.
PLACE_PROSE_MARK = ", col"


def place_line(line: str) -> bool:
    """Whether ``line`` names a place by line (and column) with no path on it: a grouped entry
    (``  3:10  ✖ msg``), sqlfluff's ``L:  12 | P:   4 | LT02 | msg``, or prose's ``line 12, column
    4`` (``line 12, col 4``)."""
    return _PLACE_ENTRY.match(line) is not None or (
        PLACE_PROSE_MARK in line and _PLACE_PROSE.search(line) is not None
    )


def place_lines(text: str) -> list[int]:
    """The indexes of the lines of ``text`` (split at ``\\n``) that ``place_line`` accepts, in
    order, by one scan of ``text`` for each form."""
    starts = list(_PLACE_ENTRY_LINES.starts(text))
    if PLACE_PROSE_MARK in text:
        starts += [match.start() for match in _PLACE_PROSE.finditer(text)]
        starts.sort()
    found: list[int] = []
    index = last = 0
    for start in starts:
        index += text.count("\n", last, start)
        last = start
        if not found or found[-1] != index:
            found.append(index)
    return found


def line_facts(line: str, quoted: bool = False) -> list[tuple[str, str]]:
    """``(kind, text)`` of every fact one line yields, in order: its locations (Python form,
    then parenthesised, then colon), its diagnostic message (the line without its locations, when
    the line reports something or holds a location, and at least 3 characters; never for a
    ``quoted`` source line of a code frame), its paths, its commit ids. Search matches and git
    commit messages are not facts of one line alone."""
    found: list[tuple[str, str]] = []
    located = False
    for path, row, col in iter_locations(line):
        located = True
        found.append(("location", f"{path}:{row}:{col}" if col else f"{path}:{row}"))
    if not quoted and (located or is_diagnostic(line)):
        message = _without_locations(line)
        if len(message) >= 3:
            found.append(("diagnostic", message))
    found += [("path", path) for path in iter_paths(line)]
    found += [("commit", commit) for commit in iter_commits(line)]
    return found


def plain_facts(source: str, inv: Invocation | None = None) -> list[Fact]:
    """Every protected fact of ``source`` (colour codes already removed), deduplicated, each at
    the line it is first seen, in order of that line, then of ``line_facts``.

    The lines are ``source.splitlines()``. For a search (``inv`` runs grep, rg, ag, ack, ``git
    grep``) each line's whole text, white space collapsed, is a ``match`` fact that comes first
    on its line. A source line quoted in a code frame (see ``quoted_source``) yields no
    diagnostic; a ref git reports unchanged (``unchanged_ref``) yields no fact but in a search.
    For a git log (``inv`` runs ``git log`` and the like, or, without ``inv``, a ``commit <id>``
    header in the first 50 lines) every line of a commit message is a ``message`` fact; messages
    come after every other fact.
    """
    lines = source.splitlines()
    facts: dict[tuple[str, str], Fact] = {}
    searching = _searching(inv)
    for number, line in enumerate(lines, 1):
        if not line.strip() or (not searching and unchanged_ref(line)):
            continue
        found = [("match", normalize(line))] if searching else []
        quoted = may_be_quoted_source(line) and quoted_source(lines, number - 1)
        for kind, text in found + line_facts(line, quoted):
            facts.setdefault((kind, text), Fact(kind, text, number))
    if _looks_like_git_log(inv, lines[:50]):
        for fact in _git_messages(lines):
            if fact.text:
                facts.setdefault((fact.kind, fact.text), fact)
    return list(facts.values())
