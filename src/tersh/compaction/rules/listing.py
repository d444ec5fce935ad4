"""Compact path listings (find, fd, locate, ``git ls-files``): each folder written once per run.

A listing prints one path per line and repeats the folder of every path, so a long one is
mostly the same prefixes again and again. Here consecutive paths of one folder go under a
header that is the folder as printed, with its trailing ``/``, and each entry is the rest of
the path, byte for byte, after one space::

    ./src/tersh/rules/
     base.py
     verify.py

Header + entry gives the printed line back exactly (the verifier checks just that). Order is
kept: a folder that comes back later gets a second header. A folder with a single path in a row
keeps its line as printed; so do lines that are not plain paths (``find: '/x': Permission
denied``, a line with a tab, a run of spaces, white space at either end, a ``:12`` location, a
line break other than ``\\n``) and root-level names. A line ending in ``/`` (fd prints folders
so) heads the paths under it that follow.

Short listings (FEW_LINES lines or fewer) stay as printed: every path there is worth its
line. Outputs whose options print more than paths (``-ls``, ``-printf``, ``-exec``, ``-print0``,
``fd -l``/``-x``, ``git ls-files -s``) are declined, and so is a text with many lines that are
not plain paths.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify.renderings import listing_entries, listing_group

NAME = "listing"
CATEGORY = "search"
PROGRAMS = ("find", "bfs", "fd", "fdfind", "locate", "plocate", "mlocate", "git ls-files")
#: ``sniff`` never scores above the sniffing threshold: no text makes the sniffer import this.
SNIFF_HINTS: tuple[str, ...] = ()

#: Up to this many lines a listing stays as printed.
FEW_LINES = 100

#: A text with more than this share of lines that are not plain paths is declined.
MAX_ODD_SHARE = 0.1

#: The fewest paths in a row of one folder that get a header (one path keeps its line).
MIN_GROUP = 2

# Options after which the tools print more than one path per line (or NUL-separated paths).
_DECLINED_OPTIONS = {
    "find": frozenset(
        {"-ls", "-fls", "-printf", "-fprintf", "-print0", "-fprint0", "-exec", "-execdir", "-ok", "-okdir"}
    ),
    "fd": frozenset(
        {"-l", "--list-details", "-x", "--exec", "-X", "--exec-batch", "-0", "--print0", "--format"}
    ),
    "locate": frozenset({"-0", "--null", "-c", "--count", "-S", "--statistics"}),
    "git": frozenset(
        {"-s", "--stage", "-t", "-v", "-f", "-u", "--unmerged", "-z", "--debug", "--eol", "--format"}
    ),
}
# A later stage that runs a command per path prints that command's output, not the paths.
_PIPED_TO_COMMAND = lazy(r"\|\s*(?:xargs|parallel|while)\b")
_FAMILY = {"bfs": "find", "fdfind": "fd", "plocate": "locate", "mlocate": "locate"}
# Notices the tools print among the paths ("find: '/x': Permission denied", "[fd error]: …").
_NOTICE = lazy(r"^(?:\[?(?:find|bfs|fd|fdfind|locate|plocate|git|fatal|error|warning)\b[^/]*?[:\]])")
_COLON_DIGIT = lazy(r":\d")
# Every character str.splitlines() breaks a line at, besides "\n".
_OTHER_BREAKS = lazy("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _declined_by_options(inv: Invocation) -> bool:
    """Whether the command prints more than paths (its options, or a pipe into ``xargs``)."""
    family = _FAMILY.get(inv.program, inv.program)
    declined = _DECLINED_OPTIONS.get(family)
    if declined is not None and not declined.isdisjoint(inv.args):
        return True
    return "|" in inv.command and _PIPED_TO_COMMAND.search(inv.command) is not None


def is_odd(line: str, breaks: bool = True) -> bool:
    """Whether ``line`` is not a plain path this rule may split into folder and entry
    (``breaks``: whether the text may hold a line break other than ``\\n``)."""
    return (
        not line
        or line[0] in " \t"
        or line[-1] in " \t"
        or "\t" in line
        or "  " in line
        or (":" in line and (_COLON_DIGIT.search(line) is not None or _NOTICE.match(line) is not None))
        or (breaks and _OTHER_BREAKS.search(line) is not None)
    )


class _Grouper:
    """Reads listing lines one by one and writes the grouped text."""

    def __init__(self, breaks: bool) -> None:
        self.breaks = breaks  # the text holds a line break other than "\n" (such a line stays)
        self.out: list[str] = []
        self.folder = ""  # the folder of the current run ('' when there is none)
        self.run: list[str] = []  # the current run's lines, as printed
        self.heading = ""  # the header in force for what follows (a line ending with "/"), or ''
        self.paths = 0
        self.odd = 0
        self.indented = False  # a listed line starts with white space: it would read as an entry

    def feed(self, lines: list[str]) -> None:
        """Take the lines of one chunk."""
        run = self.run
        breaks = self.breaks
        for line in lines:
            if is_odd(line, breaks):
                self.odd += 1
                if line[:1] in (" ", "\t"):
                    self.indented = True
                self._close("")
                run = self.run
                self.out.append(line)
                self.heading = ""
                continue
            self.paths += 1
            slash = line.rfind("/", 0, len(line) - 1) + 1
            folder = line[:slash]
            if slash and folder == self.folder and line[slash] not in " \t":
                run.append(line)
                continue
            if slash and line[slash] not in " \t":
                self._close(folder)
                run = self.run
                self.folder = folder
                run.append(line)
            else:  # a root-level name, or an entry that would start with white space
                self._close("")
                run = self.run
                self.out.append(line)
                self.heading = line if line.endswith("/") else ""

    def _close(self, following: str) -> None:
        """Write the current run (``following`` is the folder of the next one, or ''): under its
        folder when a header is in force or pays, else as printed. A last path that is the next
        run's folder is written as printed after the others: it heads the next run."""
        run, folder = self.run, self.folder
        if not run:
            return
        last = run.pop() if following and run[-1] == following else ""
        size = len(folder)
        # (one string per run, not per line: a long listing's output costs a few objects)
        if run and folder == self.heading:
            self.out.append(listing_entries([line[size:] for line in run]))
        elif len(run) >= MIN_GROUP:
            self.out.append(listing_group(folder, [line[size:] for line in run]))
            self.heading = folder
        elif run:
            self.out.append("\n".join(run))
            self.heading = run[-1] if run[-1].endswith("/") else ""
        if last:
            self.out.append(last)
            self.heading = last
        self.run = []
        self.folder = ""

    def finish(self) -> list[str]:
        """Close the last run; the lines written."""
        self._close("")
        return self.out

    def note(self) -> str:
        """The one line that says what changed."""
        return f"{core.MARK} {self.paths:,} paths grouped by folder"


def compact(text: str, inv: Invocation) -> str | None:
    """Group a long listing by folder, or None when it is short, not plain paths, or when
    grouping would not pay."""
    if text.count("\n") <= FEW_LINES:
        return None
    if "\x00" in text or _declined_by_options(inv):
        return None
    grouper = _Grouper(_OTHER_BREAKS.search(text) is not None)
    for lines in _diag.newline_chunks(text):
        grouper.feed(lines)
    body = grouper.finish()
    total = grouper.paths + grouper.odd
    if total <= FEW_LINES or grouper.odd > MAX_ODD_SHARE * total or grouper.indented:
        return None
    return core.finish(text, [grouper.note(), *body])


def sniff(text: str) -> float:
    """Never sure: a list of paths with no telling command may be any program's output, and the
    verifier reads grouped paths back only for the listing programs."""
    return 0.0
