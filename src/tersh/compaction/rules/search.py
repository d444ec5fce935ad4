"""Compact search output (grep, rg, git grep, ag, ack): each path written once per file.

A search prints one line per matched line, ``path:12:text`` (``path:text`` without line numbers,
``path-12-text`` for a context line, ``--`` between hunks), so a long result repeats every path
hundreds of times. Here consecutive lines of one file go under one header, ``path (N)`` with N
the matched lines, each entry the line without its path and the separator after it::

    src/app/core.py (3)
     12:def run(self):
     13-    return 1
     40:def stop(self):

``path:12:text`` comes back as header + ``:`` + entry (``-`` for a ``12-`` context entry; ag
writes ``path:12-text``: header + ``:`` + entry); an entry without a line number keeps its own
separator (`` :text``). Leading white space of the text stays as it was, after the prefix.
Notices (``grep: x: binary file matches``, ``Binary file x matches``, ``x: No such file or
directory``) stay on their own lines, in place. A file with one line, a path that holds white
space or that the verifier would not read back whole as one path (``odd:name.py``, ``C:\\x.c``),
and any line that is not clearly a search line stay as printed. ``--`` between two files is
dropped (the new header shows the change); inside a file it stays.

A short result (FEW_MATCHES matched lines or fewer) stays as the tool wrote it: the agent reads
``path:line:`` there and edits, and the paths cost little. Output that is already grouped
(``rg --heading``), lists of files (``-l``) and counts (``-c``) have nothing to share: declined.
"""

from __future__ import annotations

from itertools import chain

from tersh._startup.lazyre import MULTILINE, lazy
from tersh._startup.lean import lru_cache
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify
from tersh.compaction.verify.renderings import SEARCH_SEPARATOR, group_header, search_entry

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterator

NAME = "search"
CATEGORY = "search"
PROGRAMS = ("grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "git grep")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (
    # a context line, path-12-text (literals only: scripts/gen_rules.py reads them with ast)
    "-0", "-1", "-2", "-3", "-4", "-5", "-6", "-7", "-8", "-9",
    "binary file matches",
    "Binary file ",
)
#: A line of this form (a regex, ``^`` at each line) is in those characters too, whenever
#: ``sniff`` scores above the threshold: a ``path:12:`` match line (a dated log holds the
#: hints, never this). The sniffer tries it before importing this module.
SNIFF_LINE = r"^([^\s:]+):\d+:"

#: Up to this many matched lines the output stays as printed (``path:line:`` is copied as is).
FEW_MATCHES = 60

#: Share of the search lines of a sample that must read as one form (numbered or not).
FORM_SHARE = 0.9

#: How many lines decide which form an output has.
SAMPLE_LINES = 400

#: A path is never longer than this; a line's candidates past it are not tried (a long line
#: full of ``:12:`` shapes costs one scan, not one path check per shape).
MAX_PATH = 1024

# Where a line number may follow the path: ":12:", "-12-", and ag's context form ":12-".
_NUMBER_AFTER = lazy(r"(?=([:-])(\d+)([:-]))")
_DIGITS_THEN_SEP = lazy(r"\d+[:-]")
# Lines the search tools write about files rather than matched text.
_NOTICE = lazy(
    r"^(?:[ezf]?grep|rg|ag|ack|git|fatal|error|warning): "
    r"|^Binary file .* matches$"
    r"|binary file matches"
    r"|: (?:No such file or directory|Permission denied|Is a directory|Input/output error"
    r"|No such device or address|Operation not permitted|Too many levels of symbolic links)"
    r"|\(os error \d+\)$"
)
# Every character str.splitlines() breaks a line at, besides "\n": such a line stays as it is.
_OTHER_BREAKS = lazy("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_WHITE = lazy(r"[\s\x1c-\x1f\x85]")  # white space and the other line breaks
# The characters a path that can head a group is made of (the verifier's path words).
_PATH_RUN = lazy(r"[\w.@+~/-]*")
_DRIVE = lazy(r"^[A-Za-z]:[\\/]")
# Options after which a search prints context lines ("-C2", "-rnA3", "--context=2", "-5").
_CONTEXT_OPTION = lazy(r"^-(?:[a-zA-Z]*[ABC]|\d+$)|^--(?:after-|before-)?context")
_DECLINED_OPTIONS = frozenset({"--heading", "--json", "--files", "--count", "--count-matches"})
_SNIFF_MATCH = lazy(SNIFF_LINE, MULTILINE)
_SNIFF_CONTEXT = lazy(r"^([^\s:]+)-\d+-", MULTILINE)
_SNIFF_NOTICE = lazy(r"^(?:grep: .*: binary file matches|Binary file .* matches)$", MULTILINE)


@lru_cache(maxsize=1 << 12)
def heads_group(path: str) -> bool:
    """Whether ``path`` can head a group: no white space, and the verifier reads it back whole
    as the one path of the header line (so every ``path:line`` stays a location it knows)."""
    if not path or path[-1] in ":-" or _WHITE.search(path):
        return False
    if "/" not in path and "." not in path:
        return False
    normal = path[2:] if path.startswith("./") else path
    return list(verify.iter_paths(path)) == [normal]


class _Grouper:
    """Reads search lines one by one and writes the grouped text."""

    def __init__(self, numbered: bool, context: bool) -> None:
        self.numbered = numbered
        self.context = context  # unnumbered "path-text" lines are context lines
        self.context_pair = ""  # the first context form seen: "--" (grep, rg, git) or ":-" (ag)
        self.out: list[str] = []
        self.path = ""  # the path of the open group ('' when none)
        self.first = ""  # the open group's first line, as printed
        self.entries: list[str] = []
        self.matches_in_group = 0
        self.pending_separator = False
        self.matches = 0
        self.context_lines = 0
        self.dropped_separators = 0
        self.paths: set[str] = set()

    def feed(self, line: str, following: str) -> None:
        """Take one line (``following`` is the next one, '' at the end)."""
        if line == "--":
            if self.path:
                self.pending_separator = True
            else:
                self.out.append(line)
            return
        if self.path and self._continues(line):
            return
        if "\r" in line or _OTHER_BREAKS.search(line) or _NOTICE.search(line):
            self._verbatim(line)
            return
        split = self._split(line, following)
        if split is None:
            self._verbatim(line)
            return
        self._close(dropping=True)
        self.path = line[:split]
        if self._continues(line):
            self.paths.add(self.path)
        else:  # a form this output does not use: the line stays as printed
            self.path = ""
            self._verbatim(line)

    def _continues(self, line: str) -> bool:
        """Add ``line`` to the open group when it is one of its lines."""
        path = self.path
        size = len(path)
        if not line.startswith(path) or len(line) <= size:
            return False
        sep = line[size]
        if sep != ":" and sep != "-":
            return False
        if self.numbered:
            number = _DIGITS_THEN_SEP.match(line, size + 1)
            if number is None:
                return False
            after = line[number.end() - 1]
            if after == ":":
                if sep != ":":
                    return False
                is_match = True
            else:
                pair = sep + after
                if self.context_pair != pair:
                    if self.context_pair:
                        return False
                    self.context_pair = pair
                is_match = False
        else:
            is_match = sep == ":"
            if not is_match and not self.context:
                return False
        if "\r" in line or _OTHER_BREAKS.search(line):
            return False
        if self.pending_separator:
            self.entries.append(SEARCH_SEPARATOR)
            self.pending_separator = False
        if not self.entries:
            self.first = line
        self.entries.append(search_entry(line, size, self.numbered))
        if is_match:
            self.matches_in_group += 1
        return True

    def _split(self, line: str, following: str) -> int | None:
        """Where the path of a line that opens a group ends (None: not a search line)."""
        if self.numbered:
            return numbered_split(line, following)
        return plain_split(line, following, self.context)

    def _verbatim(self, line: str) -> None:
        self._close(dropping=False)
        self.out.append(line)

    def _close(self, dropping: bool) -> None:
        """Write the open group; a ``--`` right before the next file goes when ``dropping``."""
        if self.path:
            self.matches += self.matches_in_group
            separators = self.entries.count(SEARCH_SEPARATOR)
            self.context_lines += len(self.entries) - self.matches_in_group - separators
            if len(self.entries) == 1:
                self.out.append(self.first)
            else:
                self.out.append(group_header(self.path, self.matches_in_group))
                self.out.extend(self.entries)
        if self.pending_separator:
            if dropping:
                self.dropped_separators += 1
            else:
                self.out.append("--")
        self.path, self.first, self.entries = "", "", []
        self.matches_in_group = 0
        self.pending_separator = False

    def finish(self) -> list[str]:
        """Close the last group; the lines written."""
        self._close(dropping=False)
        return self.out

    def note(self) -> str:
        """The one line that says what changed."""
        context = f" (+{core.plural(self.context_lines, 'context line')})" if self.context_lines else ""
        matches = "1 match" if self.matches == 1 else f"{self.matches:,} matches"
        text = (
            f"{core.MARK} paths written once per file: {matches}"
            f"{context} in {core.plural(len(self.paths), 'file')}"
        )
        if self.dropped_separators:
            text += f"; {core.plural(self.dropped_separators, '-- separator')} between files dropped"
        return text


def numbered_split(line: str, following: str) -> int | None:
    """Where the path of ``path:12:text`` (``path-12-text``, ``path:12-text``) ends, or None.

    A path may itself hold ``-12-`` or ``:12:``: the longest candidate that the next line
    repeats before its own line number wins (line numbers differ from line to line, so a
    candidate that runs into the text is not repeated), else the first one written like a
    match (``:12:``), else None.
    """
    confirmed: int | None = None
    first_match: int | None = None
    run = _PATH_RUN.match(line)
    limit = min(run.end() if run else 0, MAX_PATH)  # a longer prefix holds a character no path word has
    for found in _NUMBER_AFTER.finditer(line, 0, limit + 12):
        end = found.start()
        if end > limit:
            break
        sep, after = found.group(1), found.group(3)
        if sep == "-" and after == ":":
            continue
        path = line[:end]
        if not heads_group(path):
            continue
        if (
            following.startswith(path)
            and following[end : end + 1] in (":", "-")
            and _DIGITS_THEN_SEP.match(following, end + 1)
        ):
            confirmed = end
        elif first_match is None and sep == ":" and after == ":":
            first_match = end
    return confirmed if confirmed is not None else first_match


def plain_split(line: str, following: str, context: bool) -> int | None:
    """Where the path of ``path:text`` ends (with ``context``, also of a ``path-text`` line that
    the next line's path confirms), or None."""
    end = line.find(":", 3 if _DRIVE.match(line) else 0, MAX_PATH)
    if end > 0 and heads_group(line[:end]):
        return end
    if context:  # a context line before the file's first match: the next line tells
        ahead = following.find(":", 3 if _DRIVE.match(following) else 0, MAX_PATH)
        if ahead > 0 and line.startswith(following[:ahead] + "-") and heads_group(following[:ahead]):
            return ahead
    return None


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` split at ``\\n`` only, a chunk at a time (no list of all lines)."""
    return chain.from_iterable(_diag.newline_chunks(text))


def _form(text: str, context: bool) -> tuple[bool, bool] | None:
    """``(numbered, context)`` read from the first SAMPLE_LINES lines, or None when neither
    form fits FORM_SHARE of the search lines (notices and ``--`` aside)."""
    sample: list[str] = []
    for line in _lines(text):
        if line != "--" and line.strip() and not _NOTICE.search(line):
            sample.append(line)
            if len(sample) >= SAMPLE_LINES:
                break
    if not sample:
        return None
    pairs = list(zip(sample, [*sample[1:], ""], strict=True))
    if sum(numbered_split(*pair) is not None for pair in pairs) >= FORM_SHARE * len(pairs):
        return True, context
    if sum(plain_split(*pair, context) is not None for pair in pairs) >= FORM_SHARE * len(pairs):
        return False, context
    return None


def _shows_context(inv: Invocation, text: str) -> bool:
    return "\n--\n" in text or any(_CONTEXT_OPTION.match(word) for word in inv.args)


def compact(text: str, inv: Invocation) -> str | None:
    """Group a long search result by file, or None when it is short, already grouped, or not
    clearly search output."""
    if not text or _DECLINED_OPTIONS.intersection(inv.args):
        return None
    form = _form(text, _shows_context(inv, text))
    if form is None:
        return None
    grouper = _Grouper(*form)
    previous: str | None = None
    for line in _lines(text):
        if previous is not None:
            grouper.feed(previous, line)
        previous = line
    if previous is not None:
        grouper.feed(previous, "")
    body = grouper.finish()
    if grouper.matches <= FEW_MATCHES or len(body) == 0:
        return None
    return core.finish(text, [grouper.note(), *body])


def sniff(text: str) -> float:
    """Sure only when the text is unmistakably a search: ``path:12:`` lines beside the same
    paths' ``path-13-`` context lines, or grep's binary-file notices. Plain ``path:12:text``
    lines are also what compilers print: they score low."""
    head = _diag.head(text)
    matched = set(_SNIFF_MATCH.findall(head))
    if len(matched) == 0:
        return 0.0
    if matched.intersection(_SNIFF_CONTEXT.findall(head)) or _SNIFF_NOTICE.search(head):
        return 0.9
    return 0.3
