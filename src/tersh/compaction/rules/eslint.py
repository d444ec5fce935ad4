"""Compact eslint output: within each file, findings that share a message share one entry.

eslint's default "stylish" format already groups findings under their file
(``  7:1  error  Unexpected var, use let or const instead  no-var``); with many findings the same
message repeats on every line. The rule lists every ``line:col`` of a message on one entry, under
the file header with its count, and keeps the summary (``✖ 1750 problems (…)``) verbatim. The
``unix``/``compact`` formats (``path:line:col: message [Error/rule]``) are grouped by file.
"""

from __future__ import annotations

import sys
from _operator import itemgetter
from itertools import chain

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify  # loaded with kit.diag already

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

NAME = "eslint"
CATEGORY = "linters"
PROGRAMS = ("eslint", "eslint_d", "next lint")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("problem",)

_ENTRY = lazy(r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<text>(?:error|warning)\s.*)$")
_FILE = lazy(r"^(?:/|[A-Za-z]:\\|\.{0,2}/|\w)\S*(?: \S+)*$")
_UNIX = lazy(r"\[(?:Error|Warning)(?:/[^\]]+)?\]$")
_SUMMARY = lazy(r"^[✖✕×]? ?\d[\d,]* problems? \(", MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Merge repeated messages per file; None with few findings (nothing to gain)."""
    reading = _Reading()
    _diag.read_text(reading, text)
    findings = len(reading.items) - sum(map(_diag.is_str, reading.items))
    if not reading.seen_eslint or findings <= _diag.FEW_FINDINGS:
        return None
    return _diag.render(text, reading.items, {})


# A stylish entry ("  7:1  error  Unexpected var  no-var") after its "\n": (line:col, message
# as printed).
_RUN_ENTRY = lazy(r"\n[^\S\n]+(\d+:\d+)[^\S\n]+((?:error|warning)[^\S\n].*)")


class _Reading:
    """eslint's findings and the lines kept between them, read a line (``step``) or a file's
    block of entries at a time (``read_bulk``)."""

    def __init__(self) -> None:
        self.items: list[_diag.FindingLike | str] = []
        self.current: str | None = None  # the file whose entries follow
        self.seen_eslint = False
        self.messages: dict[str, str] = {}  # a message as printed -> as kept (a log repeats its messages)

    def read_lines(self, lines: Iterable[str]) -> None:
        """Read every line with ``step`` (the readable definition of the reading)."""
        for line in lines:
            self.step(line)

    def read_bulk(self, text: str) -> None:
        """The same items as ``read_lines`` on a text whose only line break is ``\\n``, read a
        block (the lines between two empty lines: a file and its entries) at a time: its first
        line with ``step`` (or, a file's name, taken as ``step`` would), the others with one regex
        when they are all entries of that file; the findings of such blocks in a row are built
        together (``_add_entries``)."""
        step = self.step
        files: list[str] = []  # the files of the blocks whose findings are not built yet
        runs: list[list[tuple[str, str]]] = []  # and their entries
        for number, block in enumerate(_blocks(text, len(text) - text.endswith("\n"))):
            if number:
                self.current = None  # what ``step("")`` does
            cut = block.find("\n")
            head = block if cut < 0 else block[:cut]
            if _names_file(head):  # what ``step`` does with it, the current file being None
                self.current = head.strip()
            else:
                self._add_entries(files, runs)
                step(head)
            if cut < 0:
                continue
            rest = block[cut:]
            current = self.current
            entries: list[tuple[str, str]] = _RUN_ENTRY.findall(rest) if current is not None else []
            if current is None or len(entries) != rest.count("\n"):
                self._add_entries(files, runs)
                for line in rest[1:].split("\n"):
                    step(line)
                continue
            files.append(current)
            runs.append(entries)
        self._add_entries(files, runs)

    def _add_entries(self, files: list[str], runs: list[list[tuple[str, str]]]) -> None:
        """The findings of the stylish entries ``runs`` of ``files`` (one run per file, in
        order), a list comprehension per file (cheaper than ``zip`` and a C-level ``str.format``
        per finding); empties both lists."""
        if not files:
            return
        messages = self.messages
        for message in set(map(itemgetter(1), chain.from_iterable(runs))).difference(messages):
            messages[message] = _kept_message(message)
        kept = messages.__getitem__
        extend = self.items.extend
        for file, run in zip(files, runs, strict=True):
            extend(
                [
                    (file, place, (text := kept(printed)), f"{file}:{place} {text}", ())
                    for place, printed in run
                ]
            )
        files.clear()
        runs.clear()
        self.seen_eslint = True

    def step(self, line: str) -> None:
        """Read one line."""
        current = self.current
        entry = _ENTRY.match(line) if current is not None else None
        if entry and current is not None:
            line_no, col, printed = entry.groups()
            text_part = self.messages.get(printed)
            if text_part is None:
                text_part = self.messages[printed] = _kept_message(printed)
            location = f"{line_no}:{col}"
            self.items.append(
                _diag.make_finding((current, location, text_part, f"{current}:{location} {text_part}", ()))
            )
            self.seen_eslint = True
            return
        finding = _diag.line_finding(line) if _UNIX.search(line) else None
        if finding is not None:
            self.items.append(finding)
            self.seen_eslint = True
            return
        if not line.strip():
            self.current = None
            return
        if current is None and not line[:1].isspace() and _FILE.match(line) and _is_file(line):
            self.current = line.strip()
            return
        self.seen_eslint = self.seen_eslint or bool(_SUMMARY.match(line.strip()))
        self.items.append(line)


def _blocks(text: str, size: int) -> Iterator[str]:
    """``text[:size].split("\\n\\n")``, one part at a time (no copy of the whole text)."""
    start = 0
    while True:
        end = text.find("\n\n", start, size)
        if end < 0:
            yield text[start:size]
            return
        yield text[start:end]
        start = end + 2


def _kept_message(printed: str) -> str:
    """A message as the rule keeps it: eslint's column gaps (two spaces or more) closed to one
    space, but the gap before the rule id at the end, which stays two spaces (so the rule id
    reads apart from the message, as the preview's index reads it)."""
    parts = [part.strip() for part in printed.split("  ") if part.strip()]
    if len(parts) < 3:
        return sys.intern(" ".join(parts))
    return sys.intern(f"{' '.join(parts[:-1])}  {parts[-1]}")


def _names_file(line: str) -> bool:
    """Whether ``step`` takes ``line`` as the name of the file whose entries follow, when no
    file is current (no ``unix`` finding, not blank, a path alone)."""
    if _UNIX.search(line) and _diag.line_finding(line) is not None:
        return False
    return bool(line.strip()) and not line[:1].isspace() and bool(_FILE.match(line)) and _is_file(line)


def _is_file(line: str) -> bool:
    """Whether the first path the verifier reads on ``line`` is the whole line (stripped)."""
    stripped = line.strip()
    return next(verify.iter_paths(stripped), None) == stripped


def sniff(text: str) -> float:
    """Sure on eslint's ``✖ N problems (X errors, Y warnings)`` summary."""
    head = text[-_diag.SNIFF_CHARS :]
    if _SUMMARY.search(head) and "warning" in head:
        return 0.95
    return 0.0
