"""Compact Go diagnostics: golangci-lint, staticcheck, ``go vet`` and ``go build``.

All print ``path:line:col: message`` (golangci-lint adds ``(linter)``, and by default quotes the
source line with a caret under it). The rule drops the quoted source and carets (unless the
source carries a protected fact) and ``go: downloading …`` chatter (module paths listed in the
note), keeps package headers (``# example.com/pkg``), ``level=…`` log lines and the summary
(``3 issues:`` with its per-linter counts), and groups findings by file when there are many.
"""

from __future__ import annotations

import sys

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterable

NAME = "golangci"
CATEGORY = "linters"
PROGRAMS = ("golangci-lint", "staticcheck", "go vet", "go build", "go install", "revive", "errcheck")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (".go:", " issue")

_CARET = lazy(r"^\s*\^\s*$")
_CHATTER = lazy(r"^go: (?:downloading|finding|extracting) ")
#: A line form the head holds whenever ``sniff`` picks it (one or more such lines).
SNIFF_LINE = r"^\S+\.go:\d+:\d+: .+\(\w[\w-]*\)$|^\d+ issues?:$"
_SNIFF = lazy(SNIFF_LINE, MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop quoted source and download chatter; None when nothing is gained."""
    reading = _Reading()
    _diag.read_text(reading, text)
    reading.run.close()
    items, dropped, paths, recognised = reading.items, reading.dropped, reading.paths, reading.recognised
    if not recognised and not dropped["download line"]:
        return None
    missing: list[str] = []
    if paths:
        kept = "\n".join(item if isinstance(item, str) else item.source_line for item in items)
        missing = [path for path in paths if path not in kept]
    summary = f"paths named by omitted lines: {' '.join(missing)}" if missing else ""
    return _diag.render(text, items, dropped, summary)


class _Reading:
    """The findings (each with the lines under it) and kept lines, read a line at a time
    (``step``) or a finding with its quoted source at a time (``read_bulk``)."""

    def __init__(self) -> None:
        self.items: list[_diag.Finding | str] = []
        self.dropped = {"quoted source or caret line": 0, "download line": 0}
        self.paths: dict[str, None] = {}
        self.run = _diag.FindingRun(self.items)
        self.recognised = False

    def step(self, line: str) -> None:
        """Read one line (the readable definition of the reading)."""
        run = self.run
        finding = _diag.line_finding(line) if ".go:" in line else None
        if finding is not None:
            run.close()
            run.current, self.recognised = finding, True
        elif line.startswith("go: ") and _CHATTER.match(line):
            self.dropped["download line"] += 1
            self.paths.update(dict.fromkeys(verify.iter_paths(line)))
        elif run.current is not None and (line.startswith("\t") or _CARET.match(line)):
            self.under(line)
        elif line.strip():
            run.close()
            self.items.append(line)

    def under(self, line: str) -> None:
        """Read a quoted source or caret line under the current finding."""
        if core.carries_fact(line, paths=True) and not _CARET.match(line):
            self.run.extra.append(line)
        else:
            self.dropped["quoted source or caret line"] += 1

    def read_lines(self, lines: Iterable[str]) -> None:
        """Read the lines one by one (the definition :meth:`read_bulk` is held equal to)."""
        for line in lines:
            self.step(line)

    def read_bulk(self, text: str) -> None:
        """What ``step`` reads of each line of a text whose only line break is ``\\n``: one
        regex finds each finding with the lines under it (tab-led, caret and blank lines), and
        each other line that is not blank (read with ``step``)."""
        first = _FIRST_RUN.match(text)
        rows = _NEXT_RUN.findall(text, first.end() if first else 0)
        if first is not None:
            rows.insert(0, first.groups(""))
        run, make, under, intern = self.run, _diag.make_finding, self.under, sys.intern
        step = self.step
        for line, path, location, message, below, other, after in rows:
            if other:
                step(other)
                if after:  # under the finding a download line left open, or read alone
                    for quoted in after[1:].split("\n"):
                        step(quoted)
                continue
            run.close()
            run.current, self.recognised = make((intern(path), location, intern(message), line, ())), True
            if below:
                for quoted in below[1:].split("\n"):
                    if quoted.startswith("\t") or _CARET.match(quoted):
                        under(quoted)


# A line after its "\n" (or at the start of a text): a finding ``step`` reads (``line_finding``
# on a line holding ".go:": its line, path, ``line[:col]``, text) with the lines under it that
# ``step`` reads under it or skips (tab-led, caret-only and blank lines), or another line that
# is not blank with the same kind of lines after it (each read by ``step``: a download line
# leaves the finding before it open, so they may be under it).
_UNDER = r"((?:\n(?:\t.*|[^\S\n]*(?:\^[^\S\n]*)?(?=\n|\Z)))*)"
_RUN = (
    r"(?:(?=[^\n]*\.go:)(([^\s:()\[\]]++):(\d++(?::\d++)?):? (\S.*))"
    + _UNDER + r"|([^\S\n]*+\S.*)" + _UNDER + ")"
)
_FIRST_RUN = lazy(_RUN)
_NEXT_RUN = lazy("\n" + _RUN)


def sniff(text: str) -> float:
    """Sure on golangci-lint's ``file.go:1:2: message (linter)`` lines and ``N issues:``."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.9 if hits >= 2 else 0.5 if hits else 0.0
