"""Compact pytest output: drop the session header, passing progress and decoration; keep the rest.

Handles the default (``file.py ..F.  [ 40%]``), quiet (``-q``: bare progress rows), verbose
(``-v``: ``file.py::test PASSED [ 40%]``) and xdist (``[gw0] [ 40%] PASSED file.py::test``)
progress forms. Every section after the progress (FAILURES, ERRORS, warnings summary, short test
summary, captured output of failing tests, coverage) and the final summary's words are kept; a
progress row that shows a failure or an error (``F``/``E``) is kept too. A run that crashed at
collection, was interrupted, or has no footer therefore keeps all its evidence.

Left out: the session header (``platform``, ``plugins``, ``cachedir``… — the paths it names are
listed in the note), rows of passing or skipped tests, the PASSES section of ``-rA``, the ``=``
and ``_`` rules around section titles (the titles stay), the ``_ _ _`` rules between traceback
entries, Python's ``^^^^`` underlines, test source beyond a few lines before the failing line,
runs of traceback lines that repeat an earlier entry word for word (an ``E`` line always stays).
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import MARK, carries_fact, plural
from tersh.compaction.kit.testrun import Output, read_lines

NAME = "pytest"
CATEGORY = "tests"
PROGRAMS = ("pytest", "py.test")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (
    "test session starts",
    "short test summary info",
    " passed",
    " failed",
    " error",
    " skipped",
    " deselected",
    " xfailed",
    " xpassed",
    " warning",
)
#: A line form the head holds whenever ``sniff`` picks it: ``_SESSION_BANNER``, the short summary's
#: header or ``_FOOTER`` (tests/test_sniff_hints.py).
SNIFF_LINE = (
    r"^=+ test session starts =+$|short test summary info|"
    r"^(?:=+ )?(?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)"
    r"(?:, )?)+ in [\d.]+s(?: \([\d:]+\))?(?: =+)?$"
)

_SESSION_START = lazy(r"^=+ test session starts =+$")
_SECTION = lazy(r"^=+ (?P<title>.+?) =+$")
_TRACEBACK_TITLES = ("FAILURES", "ERRORS")
#: Lines of test source kept before the failing (``>``) line of a traceback entry.
SOURCE_CONTEXT = 3
#: Fewer source lines than this are not worth the marker that says they were left out.
MIN_CUT = 3
#: A run of traceback lines repeating an earlier entry is replaced when it is at least this long.
MIN_REPEATED_RUN = 2
_SESSION_BANNER = lazy(r"^=+ test session starts =+$", MULTILINE)
_HEADER_KEPT = lazy(r"^(?:rootdir: |collected |collecting \.\.\. collected |\d+ workers? \[)")
_MARKS = r"[.sxFEXRfp]+"
_PERCENT = r"\s*(?:\[\s*\d+%\])?"
_PROGRESS_IN_FILE = lazy(rf"^(?P<path>[^\s:]+\.py) (?P<marks>{_MARKS}){_PERCENT}$")
_PROGRESS_BARE = lazy(rf"^(?P<marks>{_MARKS}){_PERCENT}$")
# Consecutive progress rows without a failure or an error (no F or E mark), each ending in "\n",
# that ``_Reader.progress`` reads with ``_PROGRESS_IN_FILE`` or ``_PROGRESS_BARE`` (none opens
# with a character ``_Reader.read`` looks at first); such a row holds ".py " only when it names
# its file (a bare row has no "y").
_PASSING_MARKS = r"[.sxXRfp]+"
# (A bare row is tried first: the path's pattern would run along a row of marks looking for ".py";
# no bare row holds a path, so the path, once found, is never given back.)
# (Marks and padding are taken possessively: what follows them is never one of them.)
_PASSING_PROGRESS = lazy(
    rf"(?:(?![ =_>E])(?:{_PASSING_MARKS}+|[^\s:]+\.py {_PASSING_MARKS}+)[^\S\n]*+(?:\[[^\S\n]*\d+%\])?\n)+"
)
# pytest 9's built-in subtests add "SUBPASSED[msg] (i=0)" / "SUBSKIPPED" rows under -v.
_VERBOSE = lazy(
    r"^(?P<path>[^\s:]+\.py)::(?P<rest>.*?) ?(?P<status>PASSED|SKIPPED|XFAIL|SUBPASSED|SUBSKIPPED)"
    r"(?P<tail>(?:\[[^\]]*\])?(?: ?\(.*?\))?\s*(?:\[\s*\d+%\])?)$"
)
# Consecutive -v rows of one file (each ending in "\n") that ``_Reader.progress`` reads with
# ``_VERBOSE`` (none opens with a character ``_Reader.read`` looks at first), in the common
# shapes only: "PASSED", "SKIPPED (reason)", "XFAIL (reason)", then padding and "[ 40%]". The
# greedy rest ends before a row's last status word and ``_VERBOSE``'s lazy one before its
# first: they agree when a row holds one status word, which ``_Reader.passing_rows`` checks.
_ROW_BODY = r"[^\n]*(?: PASSED| SKIPPED(?: \([^\n]*\))?| XFAIL(?: \([^\n]*\))?) *(?:\[ *\d+%\])?\n"
_FILE_ROWS = lazy(rf"(?![ =_>E])([^\s:]+\.py)::{_ROW_BODY}(?:\1::{_ROW_BODY})*")
_ROW_STATUSES = ("PASSED", "SKIPPED", "XFAIL")
# The lines of one file's -v rows at a position, whatever follows each ``path::`` (each ending in
# "\n"): cheap to match (no backtracking into a row). ``_Reader.conforming_rows`` checks with a
# few C-speed scans that every one of them is a row ``_FILE_ROWS`` takes, or falls back to it.
_FILE_LINES = lazy(r"(?![ =_>E])([^\s:]+\.py)::[^\n]*\n(?:\1::[^\n]*\n)*")
# A status word that ends no row of ``_ROW_BODY``'s shape: one not after a space, or one not
# followed (its reason, then) by padding, "[ 40%]" and the end of the line.
# A reason that names no status word: a good status word is then the last one on its line.
_PERCENT_END = r" *(?:\[ *\d+%\])?\n"
_REASON = r"(?: \((?:(?!PASSED|SKIPPED|XFAIL)[^\n])*\))?"
_ODD_STATUS = (
    lazy(rf"PASSED(?:(?<! PASSED)|(?!{_PERCENT_END}))"),
    lazy(rf"SKIPPED(?:(?<! SKIPPED)|(?!{_REASON}{_PERCENT_END}))"),
    lazy(rf"XFAIL(?:(?<! XFAIL)|(?!{_REASON}{_PERCENT_END}))"),
)
# A row's status (its one status word) and all that follows it.
_STATUS_ON = lazy(r" (?:PASSED|SKIPPED|XFAIL)[^\n]*")
# Consecutive lines (each ending in "\n") that ``_Reader.read`` keeps one by one outside headers,
# tracebacks and PASSES: each holds more than white space and is no section line ("="), no
# progress or status row of any shape (no first word ending in ".py", no row of marks, none of
# xdist's or -rA's openings).
_PLAIN_LINES = lazy(
    r"(?:(?!=|\[gw\d|PASSED |scheduling tests via |[^\s:]+\.py[ :]"
    rf"|{_MARKS}[^\S\n]*(?:\[[^\S\n]*\d+%\])?\n)[^\S\n]*+\S.*\n)+"
)
_XDIST_VERBOSE = lazy(
    r"^\[gw\d+\] \[\s*\d+%\] (?P<status>PASSED|SKIPPED|XFAIL) (?P<path>[^\s:]+\.py)::(?P<rest>.*)$"
)
_XDIST_STATUS = lazy(r"^\[gw\d+\] \[\s*\d+%\] [A-Z]+ (?P<id>\S+\.py::.*?)\s*$", MULTILINE)
_NODE_ID = lazy(r"^(?P<path>[^\s:]+\.py)::(?P<rest>.*?)\s*$")
_REPORT_PASSED = lazy(r"^PASSED (?P<path>[^\s:]+\.py)::(?P<rest>.*)$")
_ENTRY_TITLE = lazy(r"^_{3,} (?P<title>.+?) _{3,}$")
_ENTRY_RULE = lazy(r"^(?:_ ){8,}_?\s*$")
_CARETS = lazy(r"^\s+[\^~]+\s*$")
_FOOTER = lazy(
    r"^(?:=+ )?(?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)"
    r"(?:, )?)+ in [\d.]+s(?: \([\d:]+\))?(?: =+)?$",
    MULTILINE,
)


class _Counts:
    """Tests seen on omitted progress rows, by outcome, and the decoration left out."""

    def __init__(self) -> None:
        self.by_outcome: dict[str, int] = {}
        self.source = self.repeated = self.passes = 0
        self.footer = False  # whether pytest's final summary line is there

    def add(self, outcome: str, number: int = 1) -> None:
        if number:
            self.by_outcome[outcome] = self.by_outcome.get(outcome, 0) + number

    def add_marks(self, marks: str) -> None:
        for mark, outcome in _MARK_OUTCOMES.items():
            self.add(outcome, marks.count(mark))

    def add_rows_marks(self, rows: list[str]) -> None:
        """``add_marks`` of each of ``rows`` in turn: outcomes first seen in the same row come
        in ``_MARK_OUTCOMES``'s order."""
        joined = "\n".join(rows)
        firsts = []
        for order, (mark, outcome) in enumerate(_MARK_OUTCOMES.items()):
            number = joined.count(mark)
            if number:
                firsts.append((joined.count("\n", 0, joined.find(mark)), order, outcome, number))
        for _, _, outcome, number in sorted(firsts):
            self.add(outcome, number)

    def describe(self, omitted: int) -> str:
        """What the note says was left out."""
        trimmed = self.source + self.repeated + self.passes
        parts = [plural(omitted - trimmed, "header/progress line")]
        if self.by_outcome and not self.footer:  # the footer has the counts otherwise
            tests = ", ".join(f"{count:,} {outcome}" for outcome, count in self.by_outcome.items())
            parts[0] += f" ({tests})"
        if self.source:
            parts.append(plural(self.source, "traceback source line"))
        if self.repeated:
            parts.append(plural(self.repeated, "traceback line") + " repeating an earlier entry")
        if self.passes:
            parts.append(plural(self.passes, "line") + " of the PASSES section")
        return "omitted: " + ", ".join(parts)


_MARK_OUTCOMES = {".": "passed", "s": "skipped", "x": "xfailed", "X": "xpassed"}
_STATUS_OUTCOMES = {
    "PASSED": "passed", "SKIPPED": "skipped", "XFAIL": "xfailed",
    "SUBPASSED": "subtests passed", "SUBSKIPPED": "subtests skipped",
}  # fmt: skip


class _Reader:
    """Reads pytest's output line by line and sorts each line into kept or omitted."""

    def __init__(self, reported: set[str]) -> None:
        self.out = Output()
        self.counts = _Counts()
        self.reported = reported  # xdist node ids that get a status line of their own
        self.section = ""  # the title of the ``=== … ===`` section being read
        self.in_header = False
        self.source: list[str] = []  # test source echoed in a traceback entry, not yet placed
        self.seen: set[str] = set()  # traceback lines of earlier entries
        self.entry_seen: set[str] = set()  # traceback lines of the current entry
        self.repeats: list[str] = []  # a run of lines repeating an earlier entry
        self.last_kept = True  # whether the last line read was kept

    def feed(self, line: str) -> None:
        """Read one line (a blank line right after a line left out goes too)."""
        if not line.strip() and not self.last_kept:
            return
        before = len(self.out.kept)
        self.read(line)
        self.last_kept = len(self.out.kept) > before

    @property
    def plain(self) -> bool:
        """Whether a -v row read now is one to leave out (not in a header, a traceback, PASSES)."""
        return self.section not in _TRACEBACK_TITLES and not self.in_header and self.section != "PASSES"

    def passing_rows(
        self, text: str, start: int, end: int, path: str, counts: list[int] | None = None
    ) -> None:
        """Read the -v rows of ``path`` that ``_FILE_ROWS`` found in ``text[start:end]`` (each
        row ending in "\\n") at once, as :meth:`feed` would read them one by one; ``counts``:
        their status words (``_ROW_STATUSES``) when known."""
        if counts is None:
            rows = text.count("\n", start, end)
            counts = [text.count(status, start, end) for status in _ROW_STATUSES]
        else:  # one status word a row
            rows = sum(counts)
        if sum(counts) != rows:  # a row holds another status word: read row by row
            for line in text[start : end - 1].split("\n"):
                self.feed(line)
            return
        self.flush_repeats()
        if counts[0] == rows:
            self.counts.add("passed", rows)
        else:  # the outcomes in the order they first appear
            seen = [(status, n) for status, n in zip(_ROW_STATUSES, counts, strict=True) if n]
            for _, status, number in sorted((text.find(s, start, end), s, n) for s, n in seen):
                self.counts.add(_STATUS_OUTCOMES[status], number)
        lines = text[start : end - 1]
        self.out.omit_passing_block(lines, rows, _rests_naming_words(lines, path, rows), path)
        self.last_kept = False

    def passing_progress(self, text: str, start: int, end: int) -> None:
        """Read the progress rows ``_PASSING_PROGRESS`` found in ``text[start:end]`` as
        :meth:`feed` would read them one by one: each row's marks counted, a row naming its
        file left out, a bare row of marks told."""
        self.flush_repeats()
        out, rows = self.out, text[start : end - 1].split("\n")
        # A row names its file when it holds ".py " (a bare row has no "y"): the file, a space,
        # then the marks, padding and "[ 40%]" (which hold no mark). A row's file is noted before
        # the row is left out; rows and marks are apart in Output.
        named = [row for row in rows if ".py " in row]
        if named:
            out.words.update(dict.fromkeys(row[: row.index(" ")] for row in named))
            out.omit_each(named, "")
            out.omit_each_marks([row for row in rows if ".py " not in row])
            self.counts.add_rows_marks([row[row.index(" ") + 1 :] if ".py " in row else row for row in rows])
        else:
            out.omit_each_marks(rows)
            self.counts.add_rows_marks(rows)
        self.last_kept = False

    def plain_lines(self, lines: str) -> None:
        """Keep the lines ``_PLAIN_LINES`` found (``lines``, joined by "\\n") as :meth:`feed`
        would one by one."""
        self.flush_repeats()
        self.out.kept.extend(lines.split("\n"))
        self.last_kept = True

    def read(self, line: str) -> None:
        if self.section in _TRACEBACK_TITLES and self.traceback_line(line):
            return
        self.flush_repeats()
        section = _SECTION.match(line)
        if section:
            self.start_section(line, section["title"])
            return
        if self.in_header:
            self.header_line(line)
            return
        if self.section == "PASSES":
            self.counts.passes += 1
            self.out.omit(line)
            return
        if line and line[0] not in " =_>E" and self.progress(line):
            return
        if not line.strip():
            self.out.keep_blank(line)
            return
        self.out.keep(line)

    def start_section(self, line: str, title: str) -> None:
        self.flush_source(failing_line_next=False)
        self.section = title
        self.seen.update(self.entry_seen)
        self.entry_seen.clear()
        if _SESSION_START.match(line):
            self.in_header = True
            self.out.omit(line)
        elif _FOOTER.match(line):
            self.out.keep(title)  # the summary's words, without the rules
        else:  # the verifier reads a section title without its "=" rules
            self.out.keep(f"== {title} ==")

    def header_line(self, line: str) -> None:
        if not line.strip():
            self.in_header = False
        elif _HEADER_KEPT.match(line):
            self.out.keep(line)
        else:
            self.out.omit(line)

    def progress(self, line: str) -> bool:
        """Leave out a progress row of passing/skipped tests; False if ``line`` is not one."""
        out, counts = self.out, self.counts
        match = _PROGRESS_IN_FILE.match(line) or _PROGRESS_BARE.match(line)
        if match:
            marks = match["marks"]
            if "F" in marks or "E" in marks:
                path = match.groupdict().get("path")
                out.keep(f"{path} {marks}" if path else marks)
            elif "path" in match.groupdict():
                counts.add_marks(marks)
                out.omit_in_file(line, match["path"], "", passing=False)
            else:
                counts.add_marks(marks)
                out.omit_marks(line)
            return True
        match = _VERBOSE.match(line) or _XDIST_VERBOSE.match(line) or _REPORT_PASSED.match(line)
        if match:
            counts.add(_STATUS_OUTCOMES[match.groupdict().get("status") or "PASSED"])
            out.omit_in_file(line, match["path"], match["rest"])
            return True
        if line.startswith("scheduling tests via "):
            out.omit(line)  # xdist's scheduler name
            return True
        match = _NODE_ID.match(line) if self.reported else None
        if match and f"{match['path']}::{match['rest']}" in self.reported:
            out.omit_in_file(line, match["path"], match["rest"])  # xdist: a test being started
            return True
        return False

    def traceback_line(self, line: str) -> bool:
        """Read a line of the FAILURES/ERRORS sections; False when :meth:`feed` must read it."""
        if line.startswith("    ") or (self.source and not line.strip()):
            if _CARETS.match(line):
                self.out.omit_marks(line)
            elif self.repeats and line in self.seen:
                self.repeats.append(line)  # the source line of a repeated frame
            else:
                self.flush_repeats()
                self.source.append(line)
            return True
        self.flush_source(failing_line_next=line.startswith(">"))
        entry = _ENTRY_TITLE.match(line)
        if entry:
            self.flush_repeats()
            self.seen.update(self.entry_seen)
            self.entry_seen.clear()
            self.out.keep(line if carries_fact(line) else f"__ {entry['title']} __")
            return True
        if _ENTRY_RULE.match(line):
            self.out.omit_marks(line)
            return True
        if _CARETS.match(line):
            self.out.omit_marks(line)
            return True
        if line.strip() and self.repeat(line):
            return True
        self.flush_repeats()
        if _SECTION.match(line):
            return False
        if line.strip():
            self.out.keep(line)
        else:
            self.out.keep_blank(line)
        return True

    def repeat(self, line: str) -> bool:
        """Hold ``line`` back when an earlier entry had it (never an ``E`` or ``>`` line)."""
        self.entry_seen.add(line)
        if line.startswith(("E ", ">")) or len(line) < 8 or line not in self.seen:
            return False
        self.repeats.append(line)
        return True

    def flush_repeats(self) -> None:
        run, self.repeats = self.repeats, []
        if len(run) < MIN_REPEATED_RUN:
            self.out.kept.extend(run)
            return
        self.counts.repeated += len(run)
        self.out.kept.append(f"{MARK} {plural(len(run), 'line')} as in an entry above")
        for line in run:
            self.out.omit_copy(line)

    def flush_source(self, failing_line_next: bool) -> None:
        """Keep the test source echoed in a traceback; before a ``>`` line, only its last lines."""
        source, self.source = self.source, []
        lines = [line for line in source if line.strip()]
        if len(lines) >= MIN_REPEATED_RUN and all(line in self.seen for line in lines):
            self.counts.repeated += len(source)
            self.out.kept.append(f"    {MARK} {plural(len(source), 'line')} as in an entry above")
            for line in source:
                self.out.omit_copy(line)
            return
        self.entry_seen.update(lines)
        cut = len(source) - SOURCE_CONTEXT if failing_line_next else 0
        if cut < MIN_CUT:
            self.out.kept.extend(source)
            return
        marker_at = len(self.out.kept)
        dropped = 0
        for line in source[:cut]:
            if self.out.drop_now(line):
                dropped += 1
            else:
                self.out.keep(line)
        if dropped:
            self.out.kept.insert(marker_at, f"    {MARK} {plural(dropped, 'source line')} omitted")
        self.counts.source += dropped
        self.out.kept.extend(source[cut:])

    def finish(self, text: str) -> str | None:
        self.flush_source(failing_line_next=False)
        self.flush_repeats()
        return labelled_paths(self.out.render(self.counts.describe, text))


#: The omission note lists the paths its omitted lines name (the interpreter, the config file…);
#: a bare "in:" read like the list of test files that ran.
PATHS_LABEL = "; paths named in them: "


def labelled_paths(text: str | None) -> str | None:
    """``text`` whose omission note (the first ``[tersh]`` line listing paths) says what they are."""
    if text is None:
        return None
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith(MARK) and "; in: " in line:
            lines[index] = line.replace("; in: ", PATHS_LABEL, 1)
            return "\n".join(lines)
    return text


def compact(text: str, inv: Invocation, bulk: bool = True) -> str | None:
    """Drop header chatter, passing progress and decoration; keep failures, errors and the summary
    (``bulk``: runs of passing rows and of plain lines read at once, the same as line by line)."""
    reported = {match["id"] for match in _XDIST_STATUS.finditer(text)} if "[gw" in text else set()
    reader = _Reader(reported)
    reader.counts.footer = _FOOTER.search(text, max(0, len(text) - 4096)) is not None
    file_rows, file_lines, passing_progress = _FILE_ROWS.match, _FILE_LINES.match, _PASSING_PROGRESS.match
    plain_lines = _PLAIN_LINES.match

    def read_bulk(text: str, position: int) -> int:
        """Read the -v rows of one file, or progress rows that passed, at ``position`` at once
        (outside headers, tracebacks, PASSES)."""
        if not reader.plain:
            return -1
        lines = file_lines(text, position)
        if lines is None:
            progress = passing_progress(text, position)
            if progress is None:
                kept = plain_lines(text, position)
                if kept is None:
                    return -1
                reader.plain_lines(text[position : kept.end() - 1])
                return kept.end()
            reader.passing_progress(text, position, progress.end())
            return progress.end()
        end = lines.end()
        counts = conforming_counts(text, position, end)
        if counts is not None:  # the lines are the rows _FILE_ROWS would match
            reader.passing_rows(text, position, end, lines[1], counts)
            return end
        rows = file_rows(text, position)
        if rows is None:
            return -1
        reader.passing_rows(text, position, rows.end(), rows[1])
        return rows.end()

    if bulk:
        read_lines(text, reader.feed, read_bulk)
    else:
        for line in text.split("\n"):
            reader.feed(line)
    return reader.finish(text)


def conforming_counts(text: str, start: int, end: int) -> list[int] | None:
    """How many of each status word (``_ROW_STATUSES``) the lines ``text[start:end]`` (each
    ``path::…`` and ending in "\\n") hold, when each holds one and ends as a row of
    ``_ROW_BODY``'s shape (then ``_FILE_ROWS`` matches them all); None when that is not sure.

    A status word that is after a space and followed only by a reason naming no status word,
    padding and "[ 40%]" is the last one on its line; when every one is, and there are as many
    as lines, each line holds one.
    """
    rows = text.count("\n", start, end)
    counts = [text.count(status, start, end) for status in _ROW_STATUSES]
    if sum(counts) != rows:
        return None
    for odd, number in zip(_ODD_STATUS, counts, strict=True):
        if number and odd.search(text, start, end) is not None:
            return None
    return counts


def _rests_naming_words(lines: str, path: str, rows: int) -> str:
    """What ``Output`` scans of the -v rows ``lines`` (of ``path``, one status word each) for
    the paths and commits they name: their rests (what follows ``path::``, up to the status), or
    nothing when no rest may name one."""
    bare = lines.replace(f"\n{path}::", "\n")[len(path) + 2 :]
    if "SKIPPED" not in lines and "XFAIL" not in lines:
        return bare  # what follows each rest (" PASSED", spaces, "[ 40%]") names nothing
    return _STATUS_ON.sub("", bare)


def sniff(text: str) -> float:
    """Sure when pytest's session banner or its final summary line is there."""
    if "test session starts" in text and _SESSION_BANNER.search(text):
        return 0.95
    if "short test summary info" in text or _FOOTER.search(text):
        return 0.9
    return 0.0
