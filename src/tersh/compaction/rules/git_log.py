"""Compact ``git log`` / ``git show`` (medium form): one header line per commit, full messages.

``commit <id> (refs)`` + ``Author:`` + ``Date:`` become ``<id> (refs) <YYYY-MM-DD> <author>``;
every message line is kept as written (indented), blank separators go, patches and ``--stat``
blocks that follow a commit are kept (stat rows lose their padding and ``+++--`` bar, not their
count). The one-line forms are already compact and pass unchanged; a ``--graph`` log keeps its
graph columns on every kept line.
"""

from __future__ import annotations

from _bisect import bisect_right
from itertools import accumulate

from tersh._startup.lazyre import lazy
from tersh._startup.lean import lru_cache
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.omit import SNIFF_CHARS, Omissions, squeeze_stat
from tersh.compaction.verify import holds as verify

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
# A commit's common header, whole, after the "\n" before it: "commit <id>" and what follows
# it (and a "Merge: …" line), "Author: …", "Date: …", the blank line under them.
_HEADER_SPLIT = lazy(
    r"\ncommit (\^?[0-9a-f]{7,64}[^\n]*(?:\nMerge:[^\S\n]+[^\n]*)?)\nAuthor:[^\S\n]+([^\n]*)"
    r"\nDate:[^\S\n]+([^\n]*)\n\n"
)
_MERGE_FIELD = "\nMerge:"
_SPLIT_STRIDE = 4  # the text before a header, then its three groups
# The default date ("Fri May 8 15:01:59 2026 -0300", then any white space) as a whole line
# after its "\n", by parts as ``short_date`` reads it (its month and day are one group).
_DEFAULT_DATE_LINE = lazy(
    r"\n[A-Z][a-z]{2} ([A-Z][a-z]{2} \d{1,2}) \d\d:\d\d:\d\d (\d{4}) [+-]\d{4}[^\S\n]*(?=\n)"
)
# A line, after the "\n" before it, that is neither a message line (indented by four spaces)
# nor empty: the lines after a header are then read line by line.
_ODD_LINE = lazy(r"\n(?!    |\n|\Z)")
# A line that is only white space (or empty), with the "\n" before it, up to its own "\n".
_BLANK_LINE = lazy(r"\n[^\S\n]*+(?=\n)")


def _date_class(byte: int) -> int:
    """A byte's class in a date's shape: ASCII letters "A" or "a", ASCII digits "0", "+" and
    "-" "+", other ASCII bytes as they are, others "x"."""
    for low, high, shape in ((65, 90, "A"), (97, 122, "a"), (48, 57, "0"), (43, 43, "+"), (45, 45, "+")):
        if low <= byte <= high:
            return ord(shape)
    return byte if byte < 128 else ord("x")


_DATE_SHAPE = bytes(map(_date_class, range(256)))
# The shapes of a default date ("Fri May 8 15:01:59 2026 -0300"), with one or two digits of
# day, and its line break: the lines ``_DEFAULT_DATE_LINE`` takes without trailing white space.
_DEFAULT_DATE_SHAPES = (b"Aaa Aaa 0 00:00:00 0000 +0000\n", b"Aaa Aaa 00 00:00:00 0000 +0000\n")


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


# Consecutive message lines (indented by four spaces, not blank), each ending in "\n".
_MESSAGE_RUN = lazy(r"(?:    [^\S\n]*\S[^\n]*\n)+")


def _compact_plain(text: str) -> str | None:
    """``compact`` of a log without ``--graph`` whose only line break is "\\n", as
    ``_compact_lines`` reads it: the common headers are found whole by one split of the text;
    the lines after each up to the next, when all are message lines or empty, are kept (but the
    blank ones) by one substitution per run of such commits; any other stretch of lines is read
    one line at a time (``_read_region``)."""
    end = text.find("\n")
    if not _HEADER.match(text if end < 0 else text[:end]):
        return None
    kept: list[str] = []  # an item may hold several lines (joined by "\n", as kept is at the end)
    omissions = Omissions()
    bars = Omissions()  # only counts the +/- bars dropped from --stat rows
    # the lines up to the "\n" before the second header (the first one, at the start of the
    # text, is read line by line), then per header its groups and the text after it up to the
    # "\n" before the next header, or to the end
    pieces = _HEADER_SPLIT.split(text)
    if len(pieces) == 1:  # one commit, or none of the common shape
        _read_region(text, kept, omissions, bars, in_message=False)
    else:
        _read_region(pieces[0] + "\n", kept, omissions, bars, in_message=False)
        _read_commits(pieces, kept, omissions, bars)
    omissions.reformatted = (
        "blank lines, e-mails, times and diffstat bars" if bars.counts else "blank lines, e-mails and times"
    )
    return omissions.proposal(kept, text)


def _read_commits(pieces: list[str], kept: list[str], omissions: Omissions, bars: Omissions) -> None:
    """Read the headers of a ``_HEADER_SPLIT`` split (``pieces``, emptied) and the lines after
    each, as ``_compact_lines`` reads them."""
    heads = _folded_headers(pieces)
    omissions.blank += len(heads)  # the blank line under each header
    # the lines after header i are regions[i] + "\n", but after the last one: the rest of the text
    regions = pieces[_SPLIT_STRIDE::_SPLIT_STRIDE]
    pieces.clear()  # the groups' strings go now (a large log holds many)
    rest = regions[-1]
    odd = _odd_messages(regions[:-1])
    if rest.endswith("\n"):
        regions[-1] = rest[:-1]
        if _ODD_LINE.search("\n" + regions[-1]) is not None:
            odd.append(len(regions) - 1)
    elif rest:  # the text ends in a line without a break: read line by line
        odd.append(len(regions) - 1)
    else:  # the text ends with the last header: no lines after it
        regions.pop()
    start = 0
    for index in odd:
        _keep_commits(heads[start : index + 1], regions[start:index], kept, omissions)
        region = regions[index] + "\n" if index < len(heads) - 1 or rest.endswith("\n") else rest
        _read_region(region, kept, omissions, bars, in_message=True)
        start = index + 1
    if start < len(heads):
        _keep_commits(heads[start:], regions[start:], kept, omissions)


def _folded_headers(pieces: list[str]) -> list[str]:
    """Each header of a ``_HEADER_SPLIT`` split folded as ``_Commit.lines()`` folds an id,
    author and date (the default date read by parts, as ``short_date`` reads it)."""
    stride = _SPLIT_STRIDE
    month_days = _month_days()
    dates, heads = pieces[3::stride], pieces[1::stride]
    people = list(map(short_person, pieces[2::stride]))
    if _all_default_dates(dates):  # month and day, year: date[4:-20], date[-10:-6]
        folded = [
            f"{head.rstrip()} {date[-10:-6]}-{month_days[date[4:-20]]} {person}"
            for head, date, person in zip(heads, dates, people, strict=True)
        ]
        if "" in people:  # no name: no space after the date
            folded = [
                line if person else line.rstrip(" ") for line, person in zip(folded, people, strict=True)
            ]
    else:
        parts = _DEFAULT_DATE_LINE.findall("\n" + "\n".join(dates) + "\n")
        if len(parts) != len(dates):  # not all in the default form: each one on its own
            parts = [_date_parts(date) for date in dates]
        days = [_day(date, month_day, year) for date, (month_day, year) in zip(dates, parts, strict=True)]
        folded = [
            f"{head} {day} {person}" if day and person else " ".join(filter(None, (head, day, person)))
            for head, day, person in zip(map(str.rstrip, heads), days, people, strict=True)
        ]
    if _MERGE_FIELD in "".join(heads):
        for index, head in enumerate(heads):
            if _MERGE_FIELD in head:
                ident, _, merge = head.partition(_MERGE_FIELD)
                merge = f"(merge of {merge.strip()})" if merge.strip() else ""
                words = (ident.rstrip(), _day(dates[index], *_date_parts(dates[index])), people[index], merge)
                folded[index] = " ".join(word for word in words if word)
    return folded


def _all_default_dates(dates: list[str]) -> bool:
    """Whether each of ``dates`` is a default date (as ``_DEFAULT_DATE_LINE`` reads it) of a
    known month, with ASCII digits and no white space after it (a few scans of their shapes)."""
    shapes = ("\n".join(dates) + "\n").encode("utf-8", "replace").translate(_DATE_SHAPE)
    counts = [shapes.count(shape) for shape in _DEFAULT_DATE_SHAPES]
    # as many as lines, and as long as they: each line is one of them, whole
    if sum(counts) != len(dates) or len(shapes) != sum(
        count * len(shape) for count, shape in zip(counts, _DEFAULT_DATE_SHAPES, strict=True)
    ):
        return False
    # and each names a month: the second word, the only one with a space on both sides
    joined = "\n".join(dates)
    return sum(joined.count(f" {month} ") for month in _MONTHS) == len(dates)


def _day(date: str, month_day: str | None, year: str | None) -> str:
    """The day of a header's ``date`` (``month_day`` and ``year``: its parts, when in the
    default form) as ``short_date`` gives it."""
    month_days = _month_days()
    if month_day in month_days:
        return f"{year}-{month_days[month_day]}"
    return _default_date(date, month_day, year)


def _date_parts(date: str) -> tuple[str | None, str | None]:
    """The month and day, and the year, of ``date`` in the default form; else (None, None)."""
    found = _DEFAULT_DATE_LINE.match(f"\n{date}\n")
    return (found[1], found[2]) if found else (None, None)


def _odd_messages(messages: list[str]) -> list[int]:
    """The indices of ``messages`` (each the lines after a header, but the last "\\n") holding a
    line that is neither indented by four spaces nor empty."""
    joined = "\n" + "\n".join(messages)
    found = [match.start() for match in _ODD_LINE.finditer(joined)]
    if not found:
        return []
    starts = list(accumulate(map((1).__add__, map(len, messages)), initial=0))  # each one's "\n"
    return sorted({bisect_right(starts, at) - 1 for at in found})


def _keep_commits(heads: list[str], messages: list[str], kept: list[str], omissions: Omissions) -> None:
    """Keep the folded ``heads``, each followed by the lines after it (``messages``, the last
    one may be missing: each message lines or empty) but the blank ones, as one item."""
    items: list[str] = [""] * (len(heads) + len(messages))
    items[0::2] = heads
    items[1::2] = messages
    joined = "\n".join(items) + "\n"
    items.clear()
    body, blanks = _BLANK_LINE.subn("", joined)
    del joined
    kept.append(body[:-1])
    omissions.blank += blanks


def _read_region(text: str, kept: list[str], omissions: Omissions, bars: Omissions, in_message: bool) -> None:
    """Read ``text`` (whole lines, the last one may lack its "\\n") as ``_compact_lines`` reads
    its lines in a log without ``--graph``, after a header (``in_message``) or at the start;
    runs of message lines are kept whole."""
    current: _Commit | None = None
    position, size = 0, len(text)
    message_run = _MESSAGE_RUN.match
    while position < size:
        if current is None:
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


@lru_cache(maxsize=1)
def _month_days() -> dict[str, str]:
    """``"May 8"`` -> ``"05-08"``, for every month and every day of one or two ASCII digits."""
    days = [str(day) for day in range(10)] + [f"{day:02d}" for day in range(100)]
    return {f"{month} {day}": f"{number}-{int(day):02d}" for month, number in _MONTHS.items() for day in days}


def _default_date(date: str, month_day: str | None, year: str | None) -> str:
    """What ``_folded_headers`` makes of a ``_HEADER_SPLIT`` date outside ``_month_days``."""
    if month_day is None or year is None:
        return short_date(date)
    month, day = month_day.split(" ")
    return f"{year}-{_MONTHS[month]}-{int(day):02d}" if month in _MONTHS else short_date(date)


def sniff(text: str) -> float:
    """Sure when the text opens with ``commit <id>`` followed by an ``Author:`` line."""
    head = text[:SNIFF_CHARS].lstrip("*| ")
    if _HEADER.match(head.split("\n", 1)[0]) and "\nAuthor: " in head[:400]:
        return 0.95
    return 0.0
