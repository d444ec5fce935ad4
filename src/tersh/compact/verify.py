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
Whitespace differences never matter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from tersh.compact.base import Invocation
from tersh.compact.clean import strip_ansi

SEARCH_PROGRAMS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep"})

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
_FAILING_MARK = re.compile(r"(?:\bFAILED\b|\bFAIL\b|[✗✕×✖]|\bnot ok\b|\bERROR\b|\.\.\. FAIL|\bpanicked\b)")

_EXT = (
    r"(?:py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|c|h|cc|cpp|cxx|hpp|hh|rs|go|java|kt|kts|scala"
    r"|rb|php|cs|fs|swift|m|mm|sh|bash|zsh|lua|pl|pm|r|R|sql|json|toml|yaml|yml|xml|html|css"
    r"|scss|md|rst|txt|cfg|ini|lock|gradle|vue|svelte|ex|exs|erl|hs|ml|clj|dart|zig|nim|proto"
    r"|tf|cmake|mk|in|dockerfile)"
)
_PATH_CHARS = r"[\w.@+~/-]"
_PATH = re.compile(rf"(?<![\w/.:@-]){_PATH_CHARS}+")
_EXT_END = re.compile(rf"\.{_EXT}$")
_LOCATION_COLON = re.compile(
    rf"(?<![\w.@+~/-])(?P<path>{_PATH_CHARS}+):(?P<line>\d+)(?::(?P<col>\d+))?(?![\d\w])"
)
_LOCATION_PAREN = re.compile(
    rf"(?<![\w.@+~/-])(?P<path>{_PATH_CHARS}+\.\w+)\((?P<line>\d+)(?:,\s*(?P<col>\d+))?\)"
)
_LOCATION_PYTHON = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)')
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
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
_LEADING_ENTRY_LOCATIONS = re.compile(r"^(?:\d+(?::\d+)?\s+)+")
_TRIM = " \t:-|>*=#.,;[]()^~"
# Rates and abbreviations that hold a "/" but name no file ("kB/s", "it/s", "N/A", "I/O").
_NOT_PATH = re.compile(r"^(?:[KkMGTP]?i?[Bb]|it|ops|req|[Kk]?bps)/s(?:ec)?$|^(?:N/A|I/O|and/or|w/o)$")

#: How many missing facts to collect before stopping (one is enough to refuse).
MAX_REPORTED = 8


class Fact(NamedTuple):
    """One thing a compaction must keep: its kind, its text, and the source line number."""

    kind: str
    text: str
    line: int


def normalize(text: str) -> str:
    """Collapse every run of white space to one space and strip the ends."""
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
    if not any(not _in_option(line, match.start()) for match in _SEVERITY.finditer(line)):
        return False
    return not (_PASSING.search(line) and not _FAILING_MARK.search(line))


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
            path = match["path"]
            if _is_path(path) or ("." in path.strip(".") and any(c.isalpha() for c in path)):
                yield _norm_path(path), match["line"], match["col"] or ""


def _norm_path(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _without_locations(line: str) -> str:
    for pattern in (_LOCATION_PYTHON, _LOCATION_PAREN, _LOCATION_COLON):
        line = pattern.sub(" ", line)
    return normalize(line).strip(_TRIM)


def iter_paths(line: str) -> Iterator[str]:
    """Yield every file path written on ``line`` (URLs are not paths)."""
    if "/" not in line and "." not in line:
        return
    for match in _PATH.finditer(_strip_urls(line) if "://" in line else line):
        path = match.group(0).rstrip(".")
        if _is_path(path):
            yield _norm_path(path)


def iter_commits(line: str) -> Iterator[str]:
    """Yield every commit-id-shaped word: 7–40 lowercase hex digits with a letter and a digit."""
    for match in _COMMIT.finditer(line):
        word = match.group(0)
        if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):
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


def extract_facts(source: str, inv: Invocation | None = None) -> list[Fact]:
    """Every protected fact of ``source``, deduplicated, in the order first seen.

    Colour codes never hide a fact: the text is read as a terminal shows it.
    """
    lines = strip_ansi(source).splitlines()
    facts: dict[tuple[str, str], Fact] = {}

    def add(kind: str, text: str, number: int) -> None:
        if text and (kind, text) not in facts:
            facts[(kind, text)] = Fact(kind, text, number)

    searching = inv is not None and (
        inv.program in SEARCH_PROGRAMS or (inv.program == "git" and inv.subcommand == "grep")
    )
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if searching:
            add("match", normalize(line), number)
        located = False
        for path, row, col in iter_locations(line):
            located = True
            add("location", f"{path}:{row}:{col}" if col else f"{path}:{row}", number)
        if located or is_diagnostic(line):
            message = _without_locations(line)
            if len(message) >= 3:
                add("diagnostic", message, number)
        for path in iter_paths(line):
            add("path", path, number)
        for commit in iter_commits(line):
            add("commit", commit, number)
    if _looks_like_git_log(inv, lines):
        for fact in _git_messages(lines):
            add(fact.kind, fact.text, fact.line)
    return list(facts.values())


class _Index:
    """What a proposal contains, built once so that checking thousands of facts stays linear."""

    def __init__(self, proposal: str) -> None:
        proposal = strip_ansi(proposal)
        self.flat = normalize(proposal)
        self.lines: set[str] = set()
        self.locations: set[str] = set()
        header: str | None = None
        for raw in proposal.splitlines():
            line = normalize(raw)
            self.lines.add(line)
            self.lines.add(_without_locations(raw))
            for path, row, col in iter_locations(raw):
                self.locations.add(f"{path}:{row}")
                if col:
                    self.locations.add(f"{path}:{row}:{col}")
            entry = _GROUP_ENTRY.match(raw)
            if entry and header is not None:
                end = 0
                while located := _ENTRY_LOCATION.match(raw, end):
                    self.locations.add(f"{header}:{located['line']}")
                    if located["col"]:
                        self.locations.add(f"{header}:{located['line']}:{located['col']}")
                    end = located.end()
                self.lines.add(normalize(raw[end:]).strip(_TRIM))
                continue
            group = _GROUP_HEADER.match(raw)
            if group and not raw[:1].isspace() and next(iter_paths(group["path"]), None):
                header = _norm_path(group["path"].rstrip(":"))
            elif not raw[:1].isspace():
                header = None

    def has(self, fact: Fact) -> bool:
        if fact.kind == "location":
            return fact.text in self.locations or fact.text in self.flat
        if fact.text in self.lines:
            return True
        return fact.text in self.flat


def missing_facts(source: str, proposal: str, inv: Invocation | None = None) -> list[Fact]:
    """The protected facts of ``source`` that ``proposal`` lost (at most MAX_REPORTED)."""
    index = _Index(proposal)
    missing: list[Fact] = []
    for fact in extract_facts(source, inv):
        if not index.has(fact):
            missing.append(fact)
            if len(missing) >= MAX_REPORTED:
                break
    return missing


_SUCCESS_CLAIM = re.compile(
    r"\ball (?:\w+ )?(?:tests? )?(?:passed|succeeded|ok)\b|\bno (?:errors|failures|problems|issues)\b"
    r"|(?<![\d,])0 (?:errors?|failures?|failed)\b|\bno tests (?:ran|collected|found)\b"
    r"|\bsucce(?:ss|ssful|ssfully|eded)\b|\bbuild ok\b",
    re.IGNORECASE,
)
_FAILURE_CLAIM = re.compile(
    r"\b[1-9][\d,]* (?:failed|failures?|errors?)\b|\bFAILED\b|\bfailed\b", re.IGNORECASE
)


def contradiction(source: str, proposal: str, exit_code: int) -> str | None:
    """A reason when the text a rule wrote itself reads against the exit code, else None."""
    source_lines = {normalize(line) for line in source.splitlines()}
    authored = [
        line for line in proposal.splitlines() if normalize(line) and normalize(line) not in source_lines
    ]
    flat: list[str] = []  # the whole source, normalised on first need

    def quoted(line: str) -> bool:
        """Whether ``line`` only re-expresses a tool message (located or grouped) of the source."""
        rest = _LEADING_ENTRY_LOCATIONS.sub("", _without_locations(line))
        if len(rest) < 12:
            return False
        if not flat:
            flat.append(normalize(source))
        return rest in flat[0]

    if exit_code != 0:
        for line in authored:
            if _SUCCESS_CLAIM.search(line) and not quoted(line):
                return f"reads as success with exit code {exit_code}: {normalize(line)[:80]!r}"
    elif not any(_SEVERITY.search(line) for line in source_lines):
        for line in authored:
            if _FAILURE_CLAIM.search(line) and not quoted(line):
                return f"reads as failure with exit code 0: {normalize(line)[:80]!r}"
    return None


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
