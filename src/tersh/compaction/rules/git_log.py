"""Compact ``git log`` / ``git show`` (medium form): one header line per commit, full messages.

``commit <id> (refs)`` + ``Author:`` + ``Date:`` become ``<id> (refs) <YYYY-MM-DD> <author>``;
every message line is kept as written (indented), blank separators go, patches and ``--stat``
blocks that follow a commit are kept (stat rows lose their padding and ``+++--`` bar, not their
count). The one-line forms are already compact and pass unchanged; a ``--graph`` log keeps its
graph columns on every kept line.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache

from tersh._startup.lazyre import lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.omit import SNIFF_CHARS, Omissions, squeeze_stat
from tersh.compaction.verify import holds as verify

TYPE_CHECKING = False  # no typing import at run time
if TYPE_CHECKING:
    import re

NAME = "git_log"
CATEGORY = "git"
PROGRAMS = ("git log", "git show", "git whatchanged")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("\nAuthor: ",)

_GRAPH = lazy(r"^[*|\\/ _.-]*")
_HEADER = lazy(r"^commit (?P<id>\^?[0-9a-f]{7,64})(?P<rest>.*)$")
_FIELD = lazy(r"^(?P<key>Author|Date|AuthorDate|Commit|CommitDate|Merge):\s+(?P<value>.*)$")
_PERSON = lazy(r"^(?P<name>.*?)\s*<(?P<email>[^<>]*)>$")
_MONTHS = {
    m: f"{n:02d}"
    for n, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}
# The default date format: "Fri May 8 15:01:59 2026 -0300".
_DEFAULT_DATE = lazy(
    r"^[A-Z][a-z]{2} (?P<mon>[A-Z][a-z]{2}) (?P<day>\d{1,2}) \d\d:\d\d:\d\d (?P<year>\d{4})"
    r" [+-]\d{4}$"
)
_ISO_DATE = lazy(r"^(?P<date>\d{4}-\d\d-\d\d)[ T]\d\d:\d\d:\d\d")


def short_date(value: str) -> str:
    """``Fri May 8 15:01:59 2026 -0300`` -> ``2026-05-08`` (other forms: ISO day or as is)."""
    value = value.strip()
    match = _DEFAULT_DATE.match(value)
    if match and match["mon"] in _MONTHS:
        return f"{match['year']}-{_MONTHS[match['mon']]}-{int(match['day']):02d}"
    iso = _ISO_DATE.match(value)
    return iso["date"] if iso else value


@lru_cache(maxsize=4096)
def short_person(value: str) -> str:
    """``Name <mail>`` -> ``Name`` (the mail stays when it reads as a path to the verifier)."""
    match = _PERSON.match(value.strip())
    if not match or not match["name"]:
        return value.strip()
    if next(verify.iter_paths(match["email"]), None) is not None:
        return value.strip()
    return match["name"]


class _Commit:
    """The header of one commit being folded into a single line."""

    def __init__(self, prefix: str, ident: str, rest: str) -> None:
        self.prefix = prefix
        self.ident = ident + rest.rstrip()
        self.author = ""
        self.date = ""
        self.committer = ""
        self.commit_date = ""
        self.merge = ""
        self.graph_lines: list[str] = []

    def take(self, key: str, value: str) -> None:
        if key == "Author":
            self.author = short_person(value)
        elif key in {"Date", "AuthorDate"}:
            self.date = short_date(value)
        elif key == "Commit":
            self.committer = short_person(value)
        elif key == "CommitDate":
            self.commit_date = short_date(value)
        else:
            self.merge = value.strip()

    def lines(self) -> list[str]:
        """The folded header line, then any graph drawing that stood beside the fields."""
        words = [self.ident, self.date, self.author]
        if self.merge:
            words.append(f"(merge of {self.merge})")
        if self.committer and self.committer != self.author:
            words.append(f"(committed by {self.committer} {self.commit_date})".replace(" )", ")"))
        elif self.commit_date and self.commit_date != self.date:
            words.append(f"(committed {self.commit_date})")
        return [self.prefix + " ".join(word for word in words if word), *self.graph_lines]


def _split_graph(line: str, graph: bool) -> tuple[str, str]:
    if not graph:
        return "", line
    prefix = _GRAPH.match(line)
    cut = prefix.end() if prefix else 0
    return line[:cut], line[cut:]


# Line breaks other than "\n" that ``str.splitlines`` also splits at.
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
# The common header, whole: "commit <id>", "Author: …", "Date: …", the blank line after them.
_HEADER_BLOCK = lazy(
    r"commit (\^?[0-9a-f]{7,64})([^\n]*)\nAuthor:[^\S\n]+([^\n]*)\nDate:[^\S\n]+([^\n]*)\n\n"
)
# Consecutive message lines (indented by four spaces, not blank), each ending in "\n".
_MESSAGE_RUN = lazy(r"(?:    [^\S\n]*\S[^\n]*\n)+")
# A commit's header block, then the lines of its message (each indented by four spaces and
# ending in "\n"), then the blank line after it, if there.
# The date in the default format is read by parts (as ``short_date`` reads it; its month and day
# are one group), any other whole.
_COMMIT_BLOCK = lazy(
    r"commit (\^?[0-9a-f]{7,64})([^\n]*)\nAuthor:[^\S\n]+([^\n]*)\nDate:[^\S\n]+"
    r"([A-Z][a-z]{2} ([A-Z][a-z]{2} \d{1,2}) \d\d:\d\d:\d\d (\d{4}) [+-]\d{4}|[^\n]*)[^\S\n]*\n\n"
    r"((?:    [^\n]*\n)*)(\n?)"
)
# A message line that is only white space (a separator) with the "\n" before it, up to its own
# "\n" (literal-led: found at C speed in "\n" + a commit's message lines).
_BLANK_MESSAGE_LINE = lazy(r"\n    [^\S\n]*(?=\n)")


def compact(text: str, inv: Invocation) -> str | None:
    """Fold every commit header to one line and drop blank separators; None for other forms."""
    if text[:1] == "c" and not any(brk in text for brk in _OTHER_BREAKS):
        return _compact_plain(text)
    return _compact_lines(text)


def _compact_lines(text: str) -> str | None:
    """``compact``, one line at a time (any log, any line breaks)."""
    lines = text.splitlines()
    if not lines:
        return None
    first_prefix, first_body = _split_graph(lines[0], True)
    graph = "*" in first_prefix
    if not _HEADER.match(first_body if graph else lines[0]):
        return None
    kept: list[str] = []
    omissions = Omissions()
    bars = Omissions()  # only counts the +/- bars dropped from --stat rows
    current: _Commit | None = None
    in_message = False
    for line in lines:
        prefix, body = _split_graph(line, graph)
        header = _HEADER.match(body)
        if header:
            if current is not None:  # a commit with no message (or a cut log): keep its id
                kept.extend(current.lines())
            current = _Commit(prefix, header["id"], header["rest"])
            continue
        field = _FIELD.match(body) if current is not None else None
        if field and current is not None:
            current.take(field["key"], field["value"])
            if graph and set(prefix) - {"|", " "}:
                current.graph_lines.append(prefix.rstrip())  # a fork drawn beside a field
            continue
        if current is not None:
            kept.extend(current.lines())
            current, in_message = None, True
        # Inside a message, white-space-only lines are separators; in a patch, " " is context.
        blank = not body.strip() if in_message else not body
        if blank and (not graph or set(prefix) <= {"|", " "}):
            omissions.blank += 1
            continue
        in_message = in_message and body.startswith("    ")
        kept.append(line if graph else squeeze_stat(line, bars))
    if current is not None:
        kept.extend(current.lines())
    omissions.reformatted = (
        "blank lines, e-mails, times and diffstat bars" if bars.counts else "blank lines, e-mails and times"
    )
    return omissions.proposal(kept, text)


def _compact_plain(text: str) -> str | None:
    """``compact`` of a log without ``--graph`` whose only line break is "\\n": the common
    header and runs of message lines are read whole, every other line as ``compact`` reads it."""
    first = text.split("\n", 1)[0]
    if not _HEADER.match(first):
        return None
    kept: list[str] = []  # an item may hold several lines (joined by "\n", as kept is at the end)
    omissions = Omissions()
    bars = Omissions()  # only counts the +/- bars dropped from --stat rows
    current: _Commit | None = None
    in_message = False
    position, size = 0, len(text)
    commit_block, message_run = _COMMIT_BLOCK.match, _MESSAGE_RUN.match
    blank_lines: list[int] | None = None
    while position < size:
        if current is None:
            block = commit_block(text, position) if text.startswith("commit ", position) else None
            if block is not None:
                if blank_lines is None:  # where a message may be cut: found once, at C speed
                    blank_lines = [found.start() for found in _BLANK_MESSAGE_LINE.finditer(text)]
                position = _read_commits(text, block, kept, omissions, blank_lines)
                in_message = True
                continue
            if text.startswith("\n", position):  # an empty line: blank in a message or a patch
                omissions.blank += 1
                position += 1
                continue
            run = message_run(text, position) if in_message else None
            if run is not None:
                kept.append(text[position : run.end() - 1])
                position = run.end()
                continue
        end = text.find("\n", position)
        end = size if end < 0 else end
        line = text[position:end]
        position = end + 1
        header = _HEADER.match(line)
        if header:
            if current is not None:  # a commit with no message (or a cut log): keep its id
                kept.extend(current.lines())
            current = _Commit("", header["id"], header["rest"])
            continue
        field = _FIELD.match(line) if current is not None else None
        if field and current is not None:
            current.take(field["key"], field["value"])
            continue
        if current is not None:
            kept.extend(current.lines())
            current, in_message = None, True
        # Inside a message, white-space-only lines are separators; in a patch, " " is context.
        if (not line.strip()) if in_message else (not line):
            omissions.blank += 1
            continue
        in_message = in_message and line.startswith("    ")
        kept.append(squeeze_stat(line, bars))
    if current is not None:
        kept.extend(current.lines())
    omissions.reformatted = (
        "blank lines, e-mails, times and diffstat bars" if bars.counts else "blank lines, e-mails and times"
    )
    return omissions.proposal(kept, text)


@lru_cache(maxsize=1)
def _month_days() -> dict[str, str]:
    """``"May 8"`` -> ``"05-08"``, for every month and every day of one or two ASCII digits."""
    days = [str(day) for day in range(10)] + [f"{day:02d}" for day in range(100)]
    return {f"{month} {day}": f"{number}-{int(day):02d}" for month, number in _MONTHS.items() for day in days}


def _default_date(date: str, month_day: str | None, year: str | None) -> str:
    """What ``_read_commits`` makes of a ``_COMMIT_BLOCK`` date outside ``_month_days``."""
    if month_day is None or year is None:
        return short_date(date)
    month, day = month_day.split(" ")
    return f"{year}-{_MONTHS[month]}-{int(day):02d}" if month in _MONTHS else short_date(date)


def _read_commits(
    text: str, block: re.Match[str], kept: list[str], omissions: Omissions, blank_lines: list[int]
) -> int:
    """Read the commit ``block`` (a ``_COMMIT_BLOCK`` match) and those right after it as
    ``_compact_plain`` reads their lines (each header folded as ``_Commit.lines()`` folds an id,
    author and date; each run of message lines that are not blank kept as one item); where the
    last one ends. ``blank_lines``: where ``_BLANK_MESSAGE_LINE`` matches in ``text`` (in "\\n" +
    a message it matches where it matches in ``text`` from the "\\n" before the message: a
    match spans one line, and the lines around a message are not indented)."""
    match, split_message, month_days = _COMMIT_BLOCK.match, _BLANK_MESSAGE_LINE.split, _month_days()
    blanks = 0
    found: re.Match[str] | None = block
    while found is not None:
        ident, rest, author, date, month_day, year, message, blank = found.groups()
        # the default date ("Fri May 8 15:01:59 2026 -0300") read by parts, as short_date reads it
        if month_day in month_days:
            date = f"{year}-{month_days[month_day]}"
        else:
            date = _default_date(date, month_day, year)
        person = short_person(author)
        head = ident + rest.rstrip() if rest else ident
        if date and person:
            kept.append(f"{head} {date} {person}")
        else:
            kept.append(" ".join(filter(None, (head, date, person))))
        blanks += 1 + len(blank)  # the blank line under the header, the one after the message
        if message:
            # "\n" + message, cut at its blank lines: each run of other lines after its "\n",
            # the last one also before its own
            start, end = found.span(7)
            cut = bisect_left(blank_lines, start - 1)
            no_blank_line = cut == len(blank_lines) or blank_lines[cut] >= end - 1
            runs = [message] if no_blank_line else split_message("\n" + message)
            if len(runs) == 1:
                kept.append(message[:-1])
            else:
                blanks += len(runs) - 1
                last = runs.pop()[1:-1]
                kept.extend(run[1:] for run in runs if run)
                if last:
                    kept.append(last)
        position = found.end()
        found = match(text, position)
    omissions.blank += blanks
    return position


def sniff(text: str) -> float:
    """Sure when the text opens with ``commit <id>`` followed by an ``Author:`` line."""
    head = text[:SNIFF_CHARS].lstrip("*| ")
    if _HEADER.match(head.split("\n", 1)[0]) and "\nAuthor: " in head[:400]:
        return 0.95
    return 0.0
