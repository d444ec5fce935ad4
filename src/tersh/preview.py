"""Bound what the model receives: at most N lines and M bytes, diagnostics before filler.

When the text fits, it is returned whole. When it does not, the preview keeps the head, the tail
and, in between, the lines that carry diagnostics (error / warning / failure / traceback /
``path:line``) up to the budget, then fills what is left with more head and tail. Every gap gets
one marker saying how many lines it left out; a line too long for the preview is cut on a UTF-8
character boundary with a marker saying how many bytes of it are left out. Files are read
lazily (head forwards, tail backwards, the middle scanned in chunks), so a gigabyte capture is
previewed in bounded memory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from tersh.rules.clean import clean_line
from tersh.rules.verify import is_diagnostic, iter_locations

HEAD_SHARE = 0.30
TAIL_SHARE = 0.20
STRUCTURE_SHARE = 0.40
TAIL_FILL = 0.70
MARKER_BYTES = 48  # upper bound of one gap marker line, newline included
MIN_LINE_BYTES = 200
SCAN_CHUNK = 8 << 20
# Prefilter for diagnostic lines, run over lower-cased bytes (fast, case-sensitive): severity
# words, and locations written after a file extension (``x.py:12``, ``a.ts(3,4)``).
_DIAG_BYTES = re.compile(
    rb"error|warn|fail|fatal|panic|exception|traceback|deprecat|abort|segmentation"
    rb"|\.[a-z0-9]{1,10}[:(]\d|, line \d"
)
# Second tier: lines that give a long text its shape — top-level definitions of source code,
# the file headers of a diff, the commit lines of a git log, identity keys of a JSON document.
_STRUCTURE = re.compile(
    r"^(?:(?:async\s+)?def |class |(?:export\s+)?(?:default\s+)?(?:async\s+)?function[\s*]"
    r"|(?:pub(?:\(\w+\))?\s+)?(?:fn|struct|enum|trait|impl|mod) |func |type \w+ (?:struct|interface)"
    r"|(?:public|private|protected)?\s*(?:static\s+)?(?:class|interface|record) "
    r"|diff --git |commit [0-9a-f]{7,40}\b|\s*\"(?:name|version|id|title|key|path)\": |#{1,6} \S)"
)
# A line that heads grouped entries (findings, matches or paths under their file or folder).
_GROUP_HEAD = re.compile(r"\S(?:.*\S)?(?:/| \(\d[\d,]*\))")
_LOG_DATE = ("Date:", "CommitDate:")
_SETEXT = re.compile(r"^(?:={3,}|-{3,})\s*$")
_STRUCTURE_BYTES = re.compile(  # matched on "\n" + chunk: a literal first byte scans fast
    rb"\n(?:async def |def |class |export |function|pub |fn |struct |enum |trait |impl |mod |func "
    rb"|type |public |private |protected |static |interface |record |diff --git |commit |#{1,6} \S"
    rb"|\s*\"(?:name|version|id|title|key|path)\": )"
)


class Preview(NamedTuple):
    """A bounded text and what it left out."""

    text: str
    complete: bool
    total_lines: int
    omitted_lines: int
    cut_lines: int


def gap_marker(count: int) -> str:
    """The line that stands for ``count`` omitted lines."""
    return f"[tersh: {count:,} line{'s' if count != 1 else ''} omitted]"


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def cut_line(line: str, max_bytes: int) -> tuple[str, bool]:
    """``line`` shortened to at most ``max_bytes`` UTF-8 bytes (marker included) if needed."""
    encoded = line.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return line, False
    marker_room = 64
    keep = max(0, max_bytes - marker_room)
    head = encoded[:keep].decode("utf-8", "ignore")
    left = len(encoded) - _utf8_len(head)
    return f"{head} [tersh: {left:,} more bytes on this line]", True


class _Budget:
    def __init__(self, max_lines: int, max_bytes: int) -> None:
        self.lines = max(1, max_lines)
        self.bytes = max(1, max_bytes)
        self.used_lines = 1  # the one gap marker that stands for everything before selection
        self.used_bytes = MARKER_BYTES

    def fits(self, cost: int, gaps: int, share: float = 1.0) -> bool:
        return (
            self.used_lines + 1 + gaps <= self.lines * share
            and self.used_bytes + cost + gaps * MARKER_BYTES <= self.bytes * share
        )

    def take(self, cost: int, gaps: int) -> None:
        self.used_lines += 1 + gaps
        self.used_bytes += cost + gaps * MARKER_BYTES


def _is_diagnostic(line: str) -> bool:
    return is_diagnostic(line) or next(iter_locations(line), None) is not None


def _is_structure(line: str) -> bool:
    return bool(_STRUCTURE.match(line))


#: The middle of a long text is offered tier by tier: structure (capped), then diagnostics.
TIERS = ((_STRUCTURE_BYTES, _is_structure), (_DIAG_BYTES, _is_diagnostic))


def _in_memory_tier(lines: Sequence[str], index: int, tier: int) -> bool:
    line = lines[index]
    if TIERS[tier][1](line):
        return True
    if tier != 0 or not line:
        return False
    following = lines[index + 1] if index + 1 < len(lines) else ""
    if line[0].isspace():  # a commit's subject: the first message line after its Date: header
        return (line.startswith("    ") and index >= 2 and not lines[index - 1]
                and lines[index - 2].startswith(_LOG_DATE))
    # A setext heading (a text line underlined by === or ---), or the header of grouped entries.
    return bool(_SETEXT.match(following)) if following[:1] != " " else bool(_GROUP_HEAD.fullmatch(line))


class _Selection:
    """Chosen lines by number; assembles the text with one marker per gap."""

    def __init__(self, total: int, budget: _Budget, line_cap: int) -> None:
        self.total = total
        self.budget = budget
        self.line_cap = line_cap
        self.chosen: dict[int, str] = {}
        self.cut = 0

    def _new_gaps(self, number: int) -> int:
        """How the count of gap markers changes when ``number`` is chosen (-1, 0 or +1)."""
        left_free = number > 0 and (number - 1) not in self.chosen
        right_free = number < self.total - 1 and (number + 1) not in self.chosen
        if left_free and right_free:
            return 1
        if not left_free and not right_free:
            return -1 if (number > 0 or number < self.total - 1) else 0
        return 0

    def offer(self, number: int, line: str, share: float = 1.0) -> bool:
        if number in self.chosen:
            return True
        text, was_cut = cut_line(line, self.line_cap)
        cost = _utf8_len(text) + 1
        gaps = self._new_gaps(number)
        if not self.budget.fits(cost, gaps, share):
            return False
        self.budget.take(cost, gaps)
        self.chosen[number] = text
        self.cut += was_cut
        return True

    def render(self) -> Preview:
        out: list[str] = []
        expected = 0
        for number in sorted(self.chosen):
            if number > expected:
                out.append(gap_marker(number - expected))
            out.append(self.chosen[number])
            expected = number + 1
        if expected < self.total:
            out.append(gap_marker(self.total - expected))
        omitted = self.total - len(self.chosen)
        return Preview("\n".join(out), omitted == 0 and self.cut == 0, self.total, omitted, self.cut)


def _line_cap(max_bytes: int) -> int:
    return max(MIN_LINE_BYTES, max_bytes // 8)


def bound_lines(lines: Sequence[str], max_lines: int, max_bytes: int) -> Preview:
    """Bound a text already split into lines (no trailing newline element)."""
    total = len(lines)
    size = sum(_utf8_len(line) for line in lines) + max(0, total - 1)
    if total <= max_lines and size <= max_bytes:
        return Preview("\n".join(lines), True, total, 0, 0)
    selection = _Selection(total, _Budget(max_lines, max_bytes), _line_cap(max_bytes))
    _choose(
        selection,
        head=enumerate(lines),
        tail=((i, lines[i]) for i in range(total - 1, -1, -1)),
        middle=lambda lo, hi, tier: (
            (i, lines[i]) for i in range(lo, hi) if _in_memory_tier(lines, i, tier)
        ),
    )
    return selection.render()


def bound_text(text: str, max_lines: int, max_bytes: int) -> Preview:
    """Bound ``text`` (a final newline is not a line of its own)."""
    body = text[:-1] if text.endswith("\n") else text
    return bound_lines(body.split("\n") if body else [], max_lines, max_bytes)


def _choose(selection: _Selection, head: Iterator[tuple[int, str]],
            tail: Iterator[tuple[int, str]],
            middle: Callable[[int, int, int], Iterator[tuple[int, str]]]) -> None:
    """Head share, tail share, then diagnostics in between, then fill with head and tail."""
    head_end = 0  # first line number not yet offered from the head
    pending_head: tuple[int, str] | None = None
    for number, line in head:
        if not selection.offer(number, line, HEAD_SHARE):
            pending_head = (number, line)
            break
        head_end = number + 1
    tail_start = selection.total
    pending_tail: tuple[int, str] | None = None
    for number, line in tail:
        if number < head_end:
            break
        if not selection.offer(number, line, HEAD_SHARE + TAIL_SHARE):
            pending_tail = (number, line)
            break
        tail_start = number
    budget = selection.budget
    for tier in range(len(TIERS)):
        # Structure (tier 0) may take at most STRUCTURE_SHARE more of the budget, so it never
        # crowds out diagnostics; diagnostics (tier 1) take all they need.
        share = 1.0 if tier == 1 else min(1.0, budget.used_bytes / budget.bytes + STRUCTURE_SHARE)
        for number, line in middle(head_end, tail_start, tier):
            full = budget.used_bytes + MIN_LINE_BYTES > budget.bytes * share
            if not selection.offer(number, line, share) and full:
                break
    # Fill what is left: most of it from the tail (summaries, newest log lines), then the head.
    remaining = 1.0 - budget.used_bytes / budget.bytes
    tail_share = budget.used_bytes / budget.bytes + remaining * TAIL_FILL
    for number, line in _resume(pending_tail, tail):
        if number < head_end or not selection.offer(number, line, tail_share):
            pending_tail = (number, line)
            break
        tail_start = number
    else:
        pending_tail = None
    for number, line in _resume(pending_head, head):
        if number >= tail_start or not selection.offer(number, line):
            break
    for number, line in _resume(pending_tail, tail):
        if number < head_end or not selection.offer(number, line):
            break


def _resume(pending: tuple[int, str] | None, rest: Iterator[tuple[int, str]]
            ) -> Iterator[tuple[int, str]]:
    if pending is not None:
        yield pending
    yield from rest


# --- files ---------------------------------------------------------------------------------


def decode(data: bytes) -> str:
    """Bytes as text: UTF-8, invalid sequences replaced (the capture keeps the exact bytes)."""
    return data.decode("utf-8", "replace")


def _count_lines(path: Path) -> tuple[int, int]:
    """(line count, size) of a file: a final newline does not start a new line."""
    count = 0
    size = 0
    last = b"\n"
    with open(path, "rb") as handle:
        while chunk := handle.read(SCAN_CHUNK):
            count += chunk.count(b"\n")
            size += len(chunk)
            last = chunk[-1:]
    if size and last != b"\n":
        count += 1
    return count, size


def _head_lines(path: Path, clean: bool) -> Iterator[tuple[int, str, int]]:
    """(number, text, end offset) from the start of the file, lazily."""
    offset = 0
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle):
            offset += len(raw)
            text = decode(raw.rstrip(b"\n"))
            yield number, clean_line(text) if clean else text, offset


def _tail_lines(path: Path, total: int, size: int, clean: bool) -> Iterator[tuple[int, str, int]]:
    """(number, text, start offset) from the end of the file backwards, lazily."""
    giant = 16 << 20
    with open(path, "rb") as handle:
        end = size
        if size:
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                end = size - 1  # the final newline ends the last line; it starts no new one
        buf = b""
        buf_start = end  # file offset of buf[0]
        hi = 0  # buf[:hi] is still unread; the current line ends at hi
        number = total - 1
        while number >= 0:
            newline = buf.rfind(b"\n", 0, hi)
            if newline >= 0:
                raw = buf[newline + 1 : hi]
                yield number, _text(raw, clean), buf_start + newline + 1
                number -= 1
                hi = newline
                continue
            if buf_start == 0 or hi > giant:
                yield number, _text(buf[max(0, hi - giant) : hi], clean), buf_start
                return
            step = min(1 << 16, buf_start)
            buf_start -= step
            handle.seek(buf_start)
            buf = handle.read(step) + buf[:hi]
            hi = len(buf)


def _text(raw: bytes, clean: bool) -> str:
    text = decode(raw)
    return clean_line(text) if clean else text


def _scan_middle(path: Path, start: int, end: int, first_number: int, clean: bool,
                 tier: int = 0) -> Iterator[tuple[int, str]]:
    """Diagnostic lines between byte offsets ``start`` and ``end`` (line numbers from first_number)."""
    with open(path, "rb") as handle:
        handle.seek(start)
        number = first_number
        carry = b""
        position = start
        while position < end:
            chunk = handle.read(min(SCAN_CHUNK, end - position))
            if not chunk:
                break
            position += len(chunk)
            block = carry + chunk
            cut = block.rfind(b"\n") + 1 if position < end else len(block)
            body, carry = block[:cut], block[cut:]
            if len(carry) > SCAN_CHUNK:  # one enormous line: scan it, do not grow forever
                body, carry = block, b""
            cursor = seen_upto = seen_lines = 0
            prefilter, accept = TIERS[tier]
            structure = prefilter is _STRUCTURE_BYTES
            haystack = b"\n" + body if structure else body.lower()
            shift = 1 if structure else 0  # offsets in haystack are one byte ahead of body
            for match in prefilter.finditer(haystack):
                match_start = max(0, match.start() + 1 - shift) if structure else match.start()
                if match_start < cursor:
                    continue
                line_start = body.rfind(b"\n", 0, match_start) + 1
                line_end = body.find(b"\n", max(match_start, match.end() - shift))
                line_end = len(body) if line_end < 0 else line_end
                seen_lines += body.count(b"\n", seen_upto, line_start)
                seen_upto = line_start
                line_number = number + seen_lines
                raw = body[line_start : min(line_end, line_start + (1 << 20))]
                text = clean_line(decode(raw)) if clean else decode(raw)
                if accept(text):
                    yield line_number, text
                cursor = line_end + 1
            number += body.count(b"\n")


#: Above this many bytes, the middle of a file is searched by the system's grep (C speed).
GREP_THRESHOLD = 16 << 20
_GREP_PATTERNS = (
    (["-E"], r"^(async def |def |class |export |function|pub |fn |struct |enum |trait |impl |mod "
     r"|func |type |public |private |protected |static |interface |record |diff --git |commit |#{1,6} "
     r"|[[:space:]]*\"(name|version|id|title|key|path)\": )"),
    (["-i", "-E"], r"error|warn|fail|fatal|panic|exception|traceback|deprecat|abort|segmentation"
     r"|\.[a-z0-9]{1,10}[:(][0-9]|, line [0-9]"),
)


def _grep() -> str | None:
    import shutil

    return shutil.which("grep")


def _grep_middle(path: Path, start: int, end: int, first_number: int, clean: bool,
                 tier: int = 0) -> Iterator[tuple[int, str]]:
    """Like :func:`_scan_middle`, with grep finding the candidates (numbers from the file start).

    Falls back to the Python scan when grep fails to start. Lines are numbered by grep, so the
    region is given by line numbers: ``first_number`` on, until the caller stops reading.
    """
    import subprocess

    options, pattern = _GREP_PATTERNS[tier]
    argv = [_grep() or "grep", "-n", "-a", *options, "--", pattern, str(path)]
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}
    try:
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    except OSError:
        yield from _scan_middle(path, start, end, first_number, clean, tier)
        return
    accept = TIERS[tier][1]
    assert process.stdout is not None
    try:
        for raw in process.stdout:
            colon = raw.find(b":")
            if colon <= 0:
                continue
            number = int(raw[:colon]) - 1
            if number < first_number:
                continue
            body = raw[colon + 1 :].rstrip(b"\n")[: 1 << 20]
            text = clean_line(decode(body)) if clean else decode(body)
            if accept(text):
                yield number, text
    finally:
        process.kill()
        process.stdout.close()
        process.wait()


def bound_file(path: Path, max_lines: int, max_bytes: int, *, clean: bool = True) -> Preview:
    """Bound the text of the file at ``path`` in bounded memory."""
    total, size = _count_lines(path)
    if size <= max_bytes and total <= max_lines:
        text = decode(path.read_bytes())
        if clean:
            text = "\n".join(clean_line(line) for line in text.split("\n"))
        return bound_text(text, max_lines, max_bytes)
    selection = _Selection(total, _Budget(max_lines, max_bytes), _line_cap(max_bytes))
    head_ends: dict[int, int] = {}
    tail_starts: dict[int, int] = {}
    head_iter = _head_lines(path, clean)
    tail_iter = _tail_lines(path, total, size, clean)

    def head() -> Iterator[tuple[int, str]]:
        for number, line, end in head_iter:
            head_ends[number] = end
            yield number, line

    def tail() -> Iterator[tuple[int, str]]:
        for number, line, start in tail_iter:
            tail_starts[number] = start
            yield number, line

    def middle(lo: int, hi: int, tier: int) -> Iterator[tuple[int, str]]:
        start = head_ends.get(lo - 1, 0) if lo > 0 else 0
        end = tail_starts.get(hi, size)
        scan = _scan_middle
        if end - start > GREP_THRESHOLD and _grep() is not None:
            scan = _grep_middle
        for number, line in scan(path, start, end, lo, clean, tier):
            if number >= hi:
                break
            yield number, line

    _choose(selection, head(), tail(), middle)
    return selection.render()


def iter_file_lines(path: Path) -> Iterable[str]:
    """Decoded lines of a file without their newlines (for small files)."""
    with open(path, "rb") as handle:
        for raw in handle:
            yield decode(raw.rstrip(b"\n"))


def file_size(path: Path) -> int:
    """Size of ``path`` in bytes (0 when missing)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
