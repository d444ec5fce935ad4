"""Bound what the model receives: at most N lines and M bytes, facts before filler.

When the text fits, it is returned whole. When it does not, one streaming pass over the whole
text (a text in memory or a capture file of any size, read in chunks of whole lines) finds the
lines that carry a fact — a diagnostic or a location, as the verifier reads them — and the
lines that give the text its shape (definitions, commit lines, group headers). The preview then
opens with an index of every fact-carrying part of the output (each diagnostic code with its
count, each file with its count and first location, each failing test, each summary line), keeps
the head, the tail and, in between, the fact lines up to the budget. Lines that carry no fact
get only a small share of the bound (``filler_bytes``), so a fact-free flood costs about what a
host's own preview would. Every gap gets one marker saying how many lines it left out; a line
too long for the preview is cut on a UTF-8 character boundary with a marker saying how many
bytes of it are left out.

Only the lines a cheap whole-chunk search marks as candidates (severity words, location marks,
structure patterns) are read one by one, so lines that cannot carry a fact cost no Python call.
A large file is scanned in bulk instead (``preview_bulk``): each shape of line is read once and
its facts taken out of all its lines together. What a line carries and the index itself are in
``preview_read``.
"""

from __future__ import annotations

import os
import sys

from tersh._startup.lazyre import MULTILINE, lazy, lazy_bytes
from tersh.compaction.clean import clean, clean_line
from tersh.compaction.preview_read import (  # noqa: F401 - this module's names too
    _CODE_HEAD,
    _DIGITS_AS_ZERO,
    _GROUP_HEAD,
    _READS_KEPT,
    _STRUCTURE,
    _UNDERLINE,
    DIGEST_ENTRIES,
    MARKER_BYTES,
    Digest,
    LineRead,
    LineReader,
    _candidate_starts,
    _Earliest,
    candidate_starts,
    carries_fact,
    fact_locations,
    is_fact_line,
    read_line,
    read_locations,
)
from tersh.compaction.verify.facts import (
    SEVERITY_WORDS,
    iter_paths,
)
from tersh.result import utf8_len as _utf8_len

# Not `typing`, `pathlib`, `subprocess`, `shutil` nor `tempfile`: each costs milliseconds to
# import, more than bounding a megabyte of output may take (grep is started with posix_spawn).
TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Iterator
    from types import ModuleType
    from typing import BinaryIO, NamedTuple, TypeAlias

    from tersh.compaction.preview_bulk import BulkScan, _Shapes

    FilePath: TypeAlias = str | os.PathLike[str]
else:
    from tersh._startup.lean import NamedTuple

HEAD_SHARE = 0.30
TAIL_SHARE = 0.20
STRUCTURE_SHARE = 0.40
#: Of the filler allowance, the share the head may use (the tail gets the rest).
HEAD_FILLER = 0.40
#: The index may take at most this share of the bounds.
DIGEST_SHARE = 0.50
#: Default bytes of lines that carry no fact (a host's own preview is 2 KB to 8 KB).
FILLER_BYTES = 2048
CUT_MARKER_BYTES = 64  # upper bound of the marker that ends a cut line
MIN_LINE_BYTES = 200
SCAN_CHUNK = 4 << 20
#: A line longer than this is read (and searched) only by its first GIANT_LINE characters.
GIANT_LINE = 4 << 20

_STRUCTURE_LINES = lazy(  # the same, found in a chunk of many lines
    r"^(?:(?:async[^\S\n]+)?def |class |(?:export[^\S\n]+)?(?:default[^\S\n]+)?"
    r"(?:async[^\S\n]+)?function(?:[^\S\n]|\*)|(?:pub(?:\(\w+\))?[^\S\n]+)?(?:fn|struct|enum|trait|impl|mod) "
    r"|func |type \w+ (?:struct|interface)"
    r"|(?:public|private|protected)?[^\S\n]*(?:static[^\S\n]+)?(?:class|interface|record) "
    r"|diff --git |\+\+\+ \S|commit [0-9a-f]{7,40}\b"
    r"|[^\S\n]*\"(?:name|version|id|title|key|path)\": |#{1,6} \S)",
    MULTILINE,
)
# A commit's subject: the first message line after its Date: header and a blank line.
_SUBJECT_LINES = lazy(r"^(?:Date|CommitDate):[^\n]*\n\n(?=    )", MULTILINE)
# A setext heading: a text line underlined by === or ---.
_SETEXT_LINES = lazy(r"^(?=[^\s])[^\n]*\n(?:={3,}|-{3,})[^\S\n]*$", MULTILINE)
# A line that heads grouped entries (findings, matches or paths under their file or folder).
_GROUP_HEAD_LINES = lazy(r"^(?=\S)(?:[^\n]*\S)?(?:/| \(\d[\d,]*\))\n ", MULTILINE)

class Preview(NamedTuple):
    """A bounded text and what it left out (``digest_lines``: how many lines the index takes
    at the start of ``text``)."""

    text: str
    complete: bool
    total_lines: int
    omitted_lines: int
    cut_lines: int
    digest_lines: int = 0


def gap_marker(count: int) -> str:
    """The line that stands for ``count`` omitted lines."""
    return f"[tersh: {count:,} line{'s' if count != 1 else ''} omitted]"


def cut_line(line: str, max_bytes: int) -> tuple[str, bool]:
    """``line`` shortened to at most ``max_bytes`` UTF-8 bytes (marker included) if needed."""
    if len(line) * 4 <= max_bytes:
        return line, False
    if line.isascii():  # a byte a character (a flag of the string): no encoding
        if len(line) <= max_bytes:
            return line, False
        keep = max(0, max_bytes - CUT_MARKER_BYTES)
        return f"{line[:keep]} [tersh: {len(line) - keep:,} more bytes on this line]", True
    encoded = line.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return line, False
    marker_room = CUT_MARKER_BYTES
    keep = max(0, max_bytes - marker_room)
    head = encoded[:keep].decode("utf-8", "ignore")
    left = len(encoded) - _utf8_len(head)
    return f"{head} [tersh: {left:,} more bytes on this line]", True


# Every _STRUCTURE_LINES match holds one of these (a literal search finds the few candidates).
_STRUCTURE_WORDS = (
    "def ", "class ", "function", "fn ", "struct ", "enum ", "trait ", "impl ", "mod ", "func ",
    "type ", "interface ", "record ", "diff --git ", "+++ ", "commit ", "# ", '"name": ', '"version": ',
    '"id": ', '"title": ', '"key": ', '"path": ',
)  # fmt: skip


def _structure_starts(chunk: str) -> list[int]:
    """Start of every shape line of ``chunk`` (see the patterns above)."""
    starts: set[int] = set()
    find, rfind, match = chunk.find, chunk.rfind, _STRUCTURE_LINES.match
    for word in _STRUCTURE_WORDS:
        position = find(word)
        while position >= 0:
            line_start = rfind("\n", 0, position) + 1
            if line_start not in starts and match(chunk, line_start):
                starts.add(line_start)
            end = find("\n", position)
            position = -1 if end < 0 else find(word, end)
    if "Date:" in chunk:
        starts.update(found.end() for found in _SUBJECT_LINES.finditer(chunk))
    _add_marked_lines(chunk, ("\n===", "\n---"), _SETEXT_LINES, starts)
    _add_marked_lines(chunk, ("/\n ", ")\n "), _GROUP_HEAD_LINES, starts)
    return sorted(starts)


def _add_marked_lines(chunk: str, marks: tuple[str, ...], shape: re.Pattern[str],
                      starts: set[int]) -> None:
    """Add to ``starts`` the start of every line holding one of ``marks`` that ``shape`` matches
    from its start (found with ``str.find``, no per-line loop)."""
    for mark in marks:
        position = chunk.find(mark)
        while position >= 0:
            line_start = chunk.rfind("\n", 0, position) + 1
            if shape.match(chunk, line_start):
                starts.add(line_start)
            position = chunk.find(mark, position + 1)


# --- sources: a text in memory, or a file ---------------------------------------------------


class _Text:
    """A text in memory (lines separated by ``\\n``, no final newline)."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.total = body.count("\n") + 1
        self._raw: bytes | None = None

    def raw(self) -> bytes:
        """The body's UTF-8 bytes (what grep reads), encoded once for this text."""
        if self._raw is None:
            self._raw = self.body.encode("utf-8", "surrogatepass")
        return self._raw

    def chunks(self, size: int = SCAN_CHUNK) -> Iterator[tuple[int, str]]:
        """(number of the first line, whole lines each ending with ``\\n``), about ``size``
        characters at a time."""
        body, start, number = self.body, 0, 0
        while start < len(body):
            end = body.find("\n", start + size)
            end = len(body) if end < 0 else end + 1
            chunk = body[start:end] if end < len(body) else body[start:] + "\n"
            yield number, chunk
            number += chunk.count("\n")
            start = end

    def head(self, limit: int = GIANT_LINE) -> Iterator[tuple[int, str]]:
        """Lines from the start, lazily (each by its first ``limit`` characters)."""
        body, start = self.body, 0
        for number in range(self.total):
            end = body.find("\n", start)
            end = len(body) if end < 0 else end
            yield number, body[start : min(end, start + limit)]
            start = end + 1

    def tail(self) -> Iterator[tuple[int, str]]:
        """Lines from the end backwards, lazily."""
        body, end = self.body, len(self.body)
        for number in range(self.total - 1, -1, -1):
            start = body.rfind("\n", 0, end) + 1
            yield number, body[start:end]
            end = start - 1


#: Bytes after which clean_line may change an ASCII line: C0 controls but tab, DEL.
_UNCLEAN_ASCII = bytes([*range(0x09), *range(0x0A, 0x20), 0x7F])


def _is_plain_ascii(raw: bytes) -> bool:
    """Whether ``raw`` (ASCII) holds no byte clean_line acts on (escape, carriage return,
    backspace, other controls): its text is then its clean text."""
    return len(raw.translate(None, _UNCLEAN_ASCII)) == len(raw)


def decode(data: bytes) -> str:
    """Bytes as text: UTF-8, invalid sequences replaced (the capture keeps the exact bytes)."""
    return data.decode("utf-8", "replace")


class _File:
    """A file read in chunks; its lines cleaned (escapes, redraws) when asked."""

    def __init__(self, path: FilePath, total: int | None, size: int, cleaned: bool) -> None:
        """``total``: its number of lines, None to count them when first asked (the bulk scan
        counts them on its way: see :class:`_Scan`)."""
        self.path, self.lines, self.size, self.cleaned = path, total, size, cleaned

    @property
    def total(self) -> int:
        """The number of lines of the file (a final newline does not start a new line)."""
        if self.lines is None:
            self.lines = _count_lines(self.path)[0]
        return self.lines

    def _text(self, raw: bytes) -> str:
        if raw.isascii() and (not self.cleaned or _is_plain_ascii(raw)):
            return raw.decode("ascii")  # what decode and clean_line give for it, in one pass
        text = decode(raw)
        return clean_line(text) if self.cleaned else text

    def chunks(self, size: int = SCAN_CHUNK) -> Iterator[tuple[int, str]]:
        """(number of the first line, whole lines each ending with ``\\n``), read ``size`` bytes
        at a time, a giant line by its first GIANT_LINE bytes."""
        for number, body in self.raw_chunks(size):
            yield number, self._decoded(body)

    def raw_chunks(self, size: int = SCAN_CHUNK) -> Iterator[tuple[int, bytes]]:
        """What :meth:`chunks` yields, as the bytes read (not decoded nor cleaned)."""
        number = 0
        for body in self.raw_bodies(size):
            yield number, body
            number += body.count(b"\n")

    def raw_bodies(self, size: int = SCAN_CHUNK) -> Iterator[bytes]:
        """What :meth:`raw_chunks` yields without the numbers of the lines (whole lines each
        ending with ``\\n``; a giant line by its first GIANT_LINE bytes), each byte copied once."""
        carry = b""
        skipping = False  # the rest of a giant line is not searched
        with open(self.path, "rb") as handle:
            while block := handle.read(size):
                if skipping:
                    newline = block.find(b"\n")
                    if newline < 0:
                        continue
                    block, skipping = block[newline + 1 :], False
                cut = block.rfind(b"\n") + 1
                if cut:
                    yield b"".join((carry, memoryview(block)[:cut])) if carry else block[:cut]
                    carry = block[cut:]
                else:
                    carry += block
                if len(carry) > GIANT_LINE:
                    yield carry[:GIANT_LINE] + b"\n"
                    carry, skipping = b"", True
            if carry:
                yield carry + b"\n"

    def _decoded(self, body: bytes) -> str:
        text = decode(body)
        return clean(text) if self.cleaned else text

    def head(self, limit: int = GIANT_LINE) -> Iterator[tuple[int, str]]:
        """Lines from the start, lazily (each by its first ``limit`` bytes)."""
        with open(self.path, "rb") as handle:
            for number in range(self.total):
                raw = handle.readline(limit)
                if len(raw) == limit and not raw.endswith(b"\n"):
                    _skip_line(handle)
                yield number, self._text(raw.rstrip(b"\n"))

    def tail(self) -> Iterator[tuple[int, str]]:
        """Lines from the end backwards, lazily (a giant line by its last GIANT_LINE bytes)."""
        with open(self.path, "rb") as handle:
            end = self.size
            if self.size:
                handle.seek(self.size - 1)
                if handle.read(1) == b"\n":
                    end = self.size - 1  # the final newline ends the last line
            buf = b""
            buf_start = end  # file offset of buf[0]
            hi = 0  # buf[:hi] is still unread; the current line ends at hi
            later: list[bytes] = []  # the current line's bytes read before buf, last first
            later_bytes = 0
            number = self.total - 1
            while number >= 0:
                newline = buf.rfind(b"\n", 0, hi)
                if newline >= 0:
                    line = buf[newline + 1 : hi]
                    if later:
                        line += b"".join(reversed(later))
                        later, later_bytes = [], 0
                    yield number, self._text(line)
                    number -= 1
                    hi = newline
                    continue
                seen = hi + later_bytes
                if buf_start == 0 or seen > GIANT_LINE:
                    whole = buf[:hi] + b"".join(reversed(later))
                    yield number, self._text(whole[max(0, seen - GIANT_LINE) :])
                    return
                if hi:  # read on before it (each byte copied once: a long line costs no more)
                    later.append(buf[:hi])
                    later_bytes += hi
                step = min(1 << 16, buf_start)
                buf_start -= step
                handle.seek(buf_start)
                buf = handle.read(step)
                hi = len(buf)


def _skip_line(handle: BinaryIO) -> None:
    """Read ``handle`` on past the end of the line it is in (to the end of the file at most)."""
    while block := handle.read(1 << 20):
        newline = block.find(b"\n")
        if newline >= 0:
            handle.seek(newline + 1 - len(block), os.SEEK_CUR)
            return


_Source = _Text | _File


# --- the scan and the selection -------------------------------------------------------------


def _chunk_lines(chunk: str, first: int, starts: list[int]) -> Iterator[tuple[int, str]]:
    """(number, text) of the lines of ``chunk`` that start at ``starts`` (sorted)."""
    index = last = 0
    for start in starts:
        index += chunk.count("\n", last, start)
        last = start
        yield first + index, chunk[start : chunk.find("\n", start)]


def _python_candidates(source: _Source) -> Iterator[tuple[str, int, str]]:
    """("candidate" | "shape", number, text) of the source's lines that may be fact lines and
    of its shape lines, a chunk at a time."""
    for first, chunk in source.chunks():
        for number, line in _chunk_lines(chunk, first, candidate_starts(chunk)):
            yield "candidate", number, line
        for number, line in _chunk_lines(chunk, first, _structure_starts(chunk)):
            yield "shape", number, line


#: From this size on, the system's grep finds the candidate lines (C speed); the same lines
#: are then read as the Python scan reads them.
GREP_MIN_BYTES = 256 << 10
#: From this size on, a file is scanned in bulk, each shape of line read once (see preview_bulk).
BULK_MIN_BYTES = GREP_MIN_BYTES
#: The bulk scan reads a file this many bytes at a time (whole lines): a chunk is held as bytes,
#: its digit-zeroed keys, its text (four bytes a character when one is outside the BMP) and its
#: lines at once, so 2 MB chunks cost tens of MB at the peak.
BULK_CHUNK = 1 << 20


#: How much of a file's start tells whether it is read in bulk (see preview_bulk.DENSE_SHARE)...
BULK_PROBE = 256 << 10
#: ... or only its first BULK_PROBE_SHORT bytes when they hold BULK_PROBE_LINES lines already.
BULK_PROBE_SHORT = 64 << 10
BULK_PROBE_LINES = 4 << 10


#: A file is also read in bulk when grep would print at least this share of the lines of its
#: start: each line grep prints costs the scan far more (read, decoded, numbered, read for its
#: facts one by one) than a line costs the bulk scan.
GREP_DENSE_SHARE = 1 / 32


def _dense(source: _File, known: _Shapes | None = None) -> bool:
    """Whether the file is read in bulk: its start holds many lines that the index reads or
    that may be shape lines, or many lines grep would print (else grep finds the few faster);
    the shapes of its start are learnt into ``known`` (when given) on the way."""
    from tersh.compaction.preview_bulk import worth_reading_in_bulk

    with open(source.path, "rb") as handle:
        start = handle.read(BULK_PROBE)
    if start.count(b"\n", 0, BULK_PROBE_SHORT) >= BULK_PROBE_LINES:
        start = start[:BULK_PROBE_SHORT]
    start = start[: start.rfind(b"\n") + 1]
    if worth_reading_in_bulk(start, known):
        return True
    short = start[:BULK_PROBE_SHORT]  # enough lines to tell, at a quarter of the cost
    return _grep_share(short[: short.rfind(b"\n") + 1]) >= GREP_DENSE_SHARE


def _new_shapes() -> _Shapes:
    """An empty memory of shapes of line (see preview_bulk)."""
    from tersh.compaction.preview_bulk import _Shapes

    return _Shapes()


def _grep_share(start: bytes) -> float:
    """About the share of the lines of ``start`` (whole lines) that the grep of the scan prints:
    the lines that may be fact lines and the shape lines the Python scan finds."""
    lines = start.count(b"\n")
    if not lines:
        return 0.0
    text = decode(start)
    return len(set(candidate_starts(text)).union(_structure_starts(text))) / lines


def bulk_scan(source: _File, max_bytes: int, line_cap: int, chunk_bytes: int = BULK_CHUNK,
              known: _Shapes | None = None) -> BulkScan:
    """The index, earliest fact lines and earliest shape lines of a file, each shape of line
    read once (see preview_bulk; ``known``: the shapes the probe of its start read)."""
    from tersh.compaction.preview_bulk import BulkScan

    return BulkScan(source.raw_bodies(chunk_bytes), source.cleaned, source._decoded, max_bytes, line_cap,
                    known)
# Every candidate of _candidate_starts and every line holding a _STRUCTURE_WORDS word (bytes;
# case-blind under the C locale; any byte of a multi-byte character counts as a word byte).
_GREP_FACTS = (
    "|".join(SEVERITY_WORDS).encode()
    + b"|\xc4\xb0|\xc4\xb1|\xc5\xbf|\xe2\x84\xaa"
    b"|[./][[:alnum:]_.@+~/\x80-\xff-]*:[0-9]|\\.[[:alnum:]_\x80-\xff]+\\([0-9]|File \""
    b"|def |class |function|fn |struct |enum |trait |impl |mod |func |type |interface |record "
    b"|diff --git |\\+\\+\\+ |commit |# |\"(name|version|id|title|key|path)\": |^[A-Z]{1,4}[0-9]{3,5} "
)
# The lines whose neighbours may make a shape line: a Date: header (its subject two lines on),
# a setext underline (its heading one line up), a group header (an indented line after it).
# Found in-process by :class:`_Context` (what ``grep -n -A2 -B1 -E`` prints for this pattern).
_GREP_CONTEXT = b"^(Date|CommitDate):|^(===|---)|(/| \\([0-9][0-9,]*\\))$"


class GrepFailed(Exception):
    """grep ended with an error (an option it does not know, a read error): what it printed
    is not the whole answer."""


def _grep() -> str | None:
    """The path of the system's grep (found on PATH, as a shell would), or None."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", "grep")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _grep_candidates(source: _Source) -> Iterator[tuple[str, int, str]] | None:
    """What :func:`_python_candidates` yields (in another order), grep finding the lines; None
    when grep is not there. A text in memory is written to a private temporary file first
    (grep reads long lines from a pipe far slower than from a file)."""
    grep = _grep()
    if grep is None:
        return None
    return _grep_run(grep, source)


_cleared: list[str] = []  # the last text grep's screen found no candidate line in (by identity)


def note_cleared(text: str) -> None:
    """Remember ``text`` (this very object) as one ``grep -a -E -i _GREP_FACTS`` prints no line
    of (``grepscreen`` found none): its preview then starts no grep."""
    _cleared[:] = [text]


def cleared(text: str) -> bool:
    """Whether ``text`` (this very object) is the last text :func:`note_cleared` was given."""
    return bool(_cleared) and _cleared[0] is text


def _grep_run(grep: str, source: _Source) -> Iterator[tuple[str, int, str]]:
    if isinstance(source, _File):
        yield from _grep_file(grep, source, os.fsencode(source.path))
        return
    if cleared(source.body):  # no grep to start (_grep_file): nothing to write
        yield from _grep_file(grep, source, b"-")
        return
    data = source.raw()
    memfd_create = getattr(os, "memfd_create", None)
    if memfd_create is not None:  # a file in memory, no folder: grep reads it as its stdin
        try:
            fd = memfd_create("tersh-preview")
        except OSError:
            fd = -1
        if fd >= 0:
            try:
                _write_all(fd, data)
                os.lseek(fd, 0, os.SEEK_SET)
                yield from _grep_file(grep, source, b"-", stdin=fd)
            finally:
                os.close(fd)
            return
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="tersh-preview-") as temporary:
        temporary.write(data)
        temporary.flush()
        yield from _grep_file(grep, source, os.fsencode(temporary.name))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _signals() -> ModuleType:
    """The signal numbers: ``_signal`` (loaded at interpreter start-up), else ``signal``."""
    return sys.modules.get("_signal") or __import__("signal")


class _Grep:
    """One grep started with ``posix_spawn`` (``subprocess`` where there is none), its output
    on a pipe."""

    def __init__(self, grep: str, argv: list[bytes], env: dict[str, str], stdin: int = -1) -> None:
        self.pid, self.popen = -1, None
        if not hasattr(os, "posix_spawn"):
            import subprocess

            self.popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL if stdin < 0 else stdin,
                                          stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, env=env)
            assert self.popen.stdout is not None
            self.output = self.popen.stdout
            return
        read_end, write_end = os.pipe()  # both close on exec: the child gets only its stdout
        try:
            reading = ((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0) if stdin < 0
                       else (os.POSIX_SPAWN_DUP2, stdin, 0))
            actions = [reading, (os.POSIX_SPAWN_DUP2, write_end, 1),
                       (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
            self.pid = os.posix_spawn(grep, argv, env, file_actions=actions,
                                      setsigdef=(_signals().SIGPIPE, _signals().SIGXFSZ))
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        self.output = open(read_end, "rb")  # noqa: SIM115 - closed by stop()

    def finish(self) -> int:
        """Reap grep once its output is read to the end: its exit code (negative: a signal)."""
        self.output.close()
        if self.popen is not None:
            return self.popen.wait()
        _, status = os.waitpid(self.pid, 0)
        self.pid = -1
        return os.waitstatus_to_exitcode(status)

    def stop(self) -> None:
        """Kill grep (it may still be reading), close its output, reap it."""
        if self.output.closed:  # reaped already (finish)
            return
        if self.popen is not None:
            self.popen.kill()
            self.output.close()
            self.popen.wait()
            return
        try:  # noqa: SIM105 - contextlib stays off this path
            os.kill(self.pid, _signals().SIGKILL)
        except ProcessLookupError:
            pass
        self.output.close()
        os.waitpid(self.pid, 0)


#: Up to this size, or from this mean line length on, the lines around the shape marks of a file
#: are found in-process (:class:`_Context`): a second grep would cost more to start than the
#: search, or (on lines of megabytes) more than the search in memory; between the two a grep is
#: cheaper. A text in memory is always searched in-process (its one grep reads it as stdin).
CONTEXT_IN_PROCESS_BYTES = 2 << 20
CONTEXT_IN_PROCESS_LINE = 64 << 10


def _grep_file(grep: str, source: _Source, target: bytes, stdin: int = -1
               ) -> Iterator[tuple[str, int, str]]:
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}
    in_process = (not isinstance(source, _File) or source.size <= CONTEXT_IN_PROCESS_BYTES
                  or source.size >= CONTEXT_IN_PROCESS_LINE * source.total)
    # A text the generic compactor's screen just cleared has no line this grep would print.
    facts_known = isinstance(source, _Text) and cleared(source.body)
    searches = [] if facts_known else [([b"-i"], _GREP_FACTS)]
    if not in_process:
        searches.append(([b"-A2", b"-B1"], _GREP_CONTEXT))
    started: list[_Grep] = []
    try:
        for options, pattern in searches:
            argv = [grep.encode(), b"-b", b"-a", b"-E", *options, b"--", pattern, target]
            started.append(_Grep(grep, argv, env, stdin))
    except OSError:
        for process in started:
            process.stop()
        yield from _python_candidates(source)
        return
    cleaned = isinstance(source, _File) and source.cleaned
    try:
        # grep prints byte offsets (-b): counting lines (-n) costs it twice the time on short lines
        around = (_Context(cleaned).lines(_source_blocks(source)) if in_process
                  else _grep_matches(started[-1], cleaned, _LineNumbers(_source_blocks(source))))
        facts = (iter(()) if facts_known
                 else _grep_matches(started[0], cleaned, _LineNumbers(_source_blocks(source))))
        yield from _from_grep(facts, around)
        if any(process.finish() not in (0, 1) for process in list(started)):
            raise GrepFailed("grep failed")  # 0: lines found, 1: none, else an error
    finally:
        for process in started:
            process.stop()


def _grep_output(process: _Grep, cleaned: bool) -> Iterator[tuple[int, str]]:
    """(number, text) of each line grep prints; a break between context groups as (-1, "")."""
    return _grep_lines(process.output, cleaned)


def _grep_lines(raws: Iterable[bytes], cleaned: bool, offsets: _LineNumbers | None = None
                ) -> Iterator[tuple[int, str]]:
    """(number, text) of each line of grep's output (``offsets``: grep ran with ``-b``, the
    numbers are byte offsets of the lines)."""
    for raw in raws:
        if raw == b"--\n":
            yield -1, ""
            continue
        digits = len(raw) - len(raw.lstrip(b"0123456789"))
        if not digits:
            continue
        text = decode(raw[digits + 1 :].rstrip(b"\n")[:GIANT_LINE])
        number = int(raw[:digits])
        yield number - 1 if offsets is None else offsets.at(number), clean_line(text) if cleaned else text


class _LineNumbers:
    """The number of the line at each byte offset of a text, offsets asked in increasing order
    (its newlines counted from where the last one was asked, a block at a time)."""

    def __init__(self, blocks: Iterator[bytes]) -> None:
        self.blocks = blocks
        self.block = b""
        self.start = 0  # the offset of block[0]
        self.cursor = 0  # newlines counted in block[:cursor]
        self.number = 0  # newlines before start + cursor

    def at(self, offset: int) -> int:
        """The number (from 0) of the line that starts at ``offset``."""
        while offset > self.start + len(self.block):
            self.number += self.block.count(b"\n", self.cursor)
            self.start += len(self.block)
            self.cursor = 0
            self.block = next(self.blocks, b"")
            if not self.block:
                return self.number
        position = offset - self.start
        self.number += self.block.count(b"\n", self.cursor, position)
        self.cursor = position
        return self.number


#: grep's output is read this many bytes at a time (each block is held about six times over, as
#: bytes, lines and texts, so it is smaller than SCAN_CHUNK).
GREP_BLOCK = 1 << 20
# The number grep writes before a line (":" after a matching line, "-" after a context line),
# or the "--" line between two groups of context, which stands for no number.
_GREP_NUMBER = lazy_bytes(rb"^(?:(\d+)[:-]|--$)", MULTILINE)


def _grep_matches(process: _Grep, cleaned: bool, offsets: _LineNumbers | None = None
                  ) -> Iterator[tuple[int, str]]:
    """What :func:`_grep_output` yields, grep's output read, decoded and cleaned a block of
    lines at a time (``offsets``: grep ran with ``-b``)."""
    carry = b""
    while data := process.output.read(GREP_BLOCK):
        data = carry + data
        cut = data.rfind(b"\n") + 1
        body, carry = data[:cut], data[cut:]
        if body:
            yield from _grep_block(body, cleaned, offsets)
    if carry:
        yield from _grep_block(carry + b"\n", cleaned, offsets)


def _grep_block(body: bytes, cleaned: bool, offsets: _LineNumbers | None = None
                ) -> Iterator[tuple[int, str]]:
    """(number, text) of whole lines of grep's output: numbers and texts split by one search
    each, the texts decoded and cleaned as one (what _grep_output gives, line by line)."""
    numbers = _GREP_NUMBER.findall(body)
    raws = _GREP_NUMBER.sub(b"", body).split(b"\n")
    raws.pop()
    if len(raws) != len(numbers):  # a line without its number (grep printed no other)
        yield from _grep_lines(body.splitlines(keepends=True), cleaned, offsets)
        return
    if max(map(len, raws)) > GIANT_LINE:
        raws = [raw[:GIANT_LINE] for raw in raws]
    text = decode(b"\n".join(raws))
    lines = (clean(text) if cleaned else text).split("\n")
    if offsets is None:
        found = [int(number) - 1 if number else -1 for number in numbers]
    else:
        at = offsets.at
        found = [at(int(number)) if number else -1 for number in numbers]
    yield from zip(found, lines, strict=True)


# --- the lines around a shape mark, found in-process -------------------------------------------

# What _GREP_CONTEXT matches: a line that starts with one of these, or ends with "/" or with a
# count in parentheses (" (12)", " (1,204)").
_CONTEXT_HEADS = (b"Date:", b"CommitDate:", b"===", b"---")
#: A line that starts with a head, found by its line break (the heads hold no special character).
_CONTEXT_HEAD_LINE = lazy_bytes(b"\n(?:" + b"|".join(_CONTEXT_HEADS) + b")")
_COUNT_DIGITS = b"0123456789,"
_COUNT_RUN = lazy_bytes(rb"[0-9][0-9,]*")


#: How many of its last bytes a piece of a giant line is first read by (see _GiantEnd.feed).
_GIANT_TAIL = 64


class _GiantEnd:
    """Whether a line too long to hold ends as a _GREP_CONTEXT line does, fed piece by piece:
    the last byte, and the run of count characters before it with the two bytes before that."""

    def __init__(self) -> None:
        self.head = b""  # the line's first bytes (a _CONTEXT_HEADS word fits)
        self.last = b""
        self.last2 = b""  # the last two bytes before ``last``
        self.run = 0  # length of the run of _COUNT_DIGITS just before ``last``
        self.run_first = b""
        self.before_run = b""  # the two bytes before that run

    def feed(self, piece: bytes) -> None:
        """Take the next bytes of the line."""
        if not piece:
            return
        if len(self.head) < 16:
            self.head += piece[: 16 - len(self.head)]
        if len(piece) > _GIANT_TAIL:  # the run ends within the piece's last bytes: only they are read
            held = piece[-_GIANT_TAIL:-1]
            kept = held.rstrip(_COUNT_DIGITS)
            if len(kept) >= 2:
                self.last = piece[-1:]
                self.run = len(held) - len(kept)
                self.run_first = held[len(kept) : len(kept) + 1]
                self.before_run, self.last2 = kept[-2:], held[-2:]
                return
        held = self.last + piece[:-1]
        self.last = piece[-1:]
        kept = held.rstrip(_COUNT_DIGITS)
        if not kept:
            if not self.run:
                self.run_first, self.before_run = held[:1], self.last2
            self.run += len(held)
        else:
            self.run = len(held) - len(kept)
            self.run_first = held[len(kept) : len(kept) + 1]
            self.before_run = (self.last2 + kept)[-2:]
        self.last2 = (self.last2 + held)[-2:]

    def matches(self) -> bool:
        """Whether the line fed starts with a _CONTEXT_HEADS word or ends with "/" or " (count)"."""
        if self.last == b"/" or self.head.startswith(_CONTEXT_HEADS):
            return True
        return (self.last == b")" and self.run > 0 and self.run_first.isdigit()
                and self.before_run == b" (")


def _raw_pieces(blocks: Iterable[bytes]) -> Iterator[tuple[bytes, bool | None]]:
    """(whole lines each ending with ``\\n``, None), or for a line longer than GIANT_LINE
    (its first GIANT_LINE bytes, whether it matches _GREP_CONTEXT), from raw blocks of a text."""
    carry: list[bytes] = []  # the start of a line not ended yet (joined once it ends: no copy a block)
    held = 0  # its bytes
    giant: _GiantEnd | None = None
    prefix = b""
    for block in blocks:
        if giant is not None:
            newline = block.find(b"\n")
            if newline < 0:
                giant.feed(block)
                continue
            giant.feed(block[:newline])
            yield prefix, giant.matches()
            block, giant = block[newline + 1 :], None
        cut = block.rfind(b"\n") + 1
        if cut:
            yield (b"".join([*carry, block[:cut]]) if carry else block[:cut]), None
            carry, held = [block[cut:]], len(block) - cut
        else:
            carry.append(block)
            held += len(block)
        if held > GIANT_LINE:
            line = b"".join(carry)
            giant, prefix = _GiantEnd(), line[:GIANT_LINE]
            giant.feed(line)
            carry, held = [], 0
    if giant is not None:
        yield prefix, giant.matches()
    elif held:
        yield b"".join(carry) + b"\n", None


def _ends_with_count(body: bytes, start: int, end: int) -> bool:
    """Whether ``body[start:end]`` (one line, ``)`` last) ends with " (count)"."""
    opening = body.rfind(b"(", start, end)
    return (opening > start and body[opening - 1] == 0x20
            and _COUNT_RUN.fullmatch(body, opening + 1, end - 1) is not None)


def _context_starts(body: bytes) -> list[int]:
    """Start of every line of ``body`` (whole lines) that _GREP_CONTEXT matches, sorted (each
    mark looked for only when a cheaper search for a part of it finds one)."""
    starts: set[int] = set()
    if body.startswith(_CONTEXT_HEADS):
        starts.add(0)
    find, rfind = body.find, body.rfind
    # One search for every head after a line break: the engine skips to each break in C, where
    # a search for each short head (or a test that one is there) costs as much as a whole pass.
    starts.update(match.start() + 1 for match in _CONTEXT_HEAD_LINE.finditer(body))
    if b"/" in body:
        position = find(b"/\n")
        while position >= 0:
            starts.add(rfind(b"\n", 0, position) + 1)
            position = find(b"/\n", position + 2)
    if b")" in body:
        position = find(b")\n")
        while position >= 0:
            start = rfind(b"\n", 0, position) + 1
            if _ends_with_count(body, start, position + 1):
                starts.add(start)
            position = find(b")\n", position + 2)
    return sorted(starts)


class _Context:
    """What ``grep -n -a -E -A2 -B1 _GREP_CONTEXT`` prints, as :func:`_grep_output` reads it:
    (number, text) of each matching line, the line before it and the two after it, and (-1, "")
    between groups that do not touch; found with whole-chunk searches, no per-line call."""

    def __init__(self, cleaned: bool) -> None:
        self.cleaned = cleaned
        self.printed = -1  # the last line number printed (-1: none yet)
        self.after = 0  # lines still to print after the last match
        self.previous: tuple[int, bytes] | None = None  # the last line of the piece before

    def lines(self, blocks: Iterable[bytes]) -> Iterator[tuple[int, str]]:
        """The lines printed for the text given as raw ``blocks``."""
        first = 0
        for piece, giant in _raw_pieces(blocks):
            if giant is None:
                count = piece.count(b"\n")
                yield from self._body(piece, first, count)
                first += count
            else:
                yield from self._giant(piece, first, giant)
                first += 1

    def _line(self, number: int, raw: bytes) -> Iterator[tuple[int, str]]:
        if number <= self.printed:
            return
        if self.printed >= 0 and number > self.printed + 1:
            yield -1, ""
        self.printed = number
        text = decode(raw[:GIANT_LINE])
        yield number, clean_line(text) if self.cleaned else text

    def _giant(self, prefix: bytes, number: int, matched: bool) -> Iterator[tuple[int, str]]:
        if matched:
            if self.previous is not None and self.previous[0] == number - 1:
                yield from self._line(*self.previous)
            self.after = 3
        if self.after:
            yield from self._line(number, prefix)
            self.after -= 1
        self.previous = (number, prefix)

    def _body(self, body: bytes, first: int, count: int) -> Iterator[tuple[int, str]]:
        """The lines printed for ``body``, ``count`` whole lines from line ``first`` on."""
        starts = _context_starts(body)
        if not starts and self.after == 0:
            last = body.rfind(b"\n", 0, len(body) - 1) + 1
            self.previous = (first + count - 1, body[last:-1])
            return
        find = body.find
        wanted: dict[int, int] = {}  # line number -> start (-1: the previous piece's last line)
        start = 0
        for number in range(first, first + min(self.after, count)):
            wanted[number] = start
            start = find(b"\n", start) + 1
        number = first
        counted = 0
        for start in starts:
            number += body.count(b"\n", counted, start)
            counted = start
            if number > first:
                wanted.setdefault(number - 1, body.rfind(b"\n", 0, start - 1) + 1)
            elif self.previous is not None and self.previous[0] == number - 1:
                wanted.setdefault(number - 1, -1)
            line_start = start
            for following in range(number, min(number + 3, first + count)):
                wanted.setdefault(following, line_start)
                line_start = find(b"\n", line_start) + 1
        last_line = first + count - 1
        self.after = max(0, number + 2 - last_line) if starts else max(0, self.after - count)
        for line_number in sorted(wanted):
            start = wanted[line_number]
            if start < 0:
                assert self.previous is not None
                yield from self._line(*self.previous)
            else:
                yield from self._line(line_number, body[start : find(b"\n", start)])
        last = body.rfind(b"\n", 0, len(body) - 1) + 1
        self.previous = (last_line, body[last:-1])


#: The raw bytes of a file are searched and counted this many at a time (a line longer than
#: GIANT_LINE is then held by its start, at most this much past it).
RAW_BLOCK = 1 << 20


def _source_blocks(source: _Source) -> Iterator[bytes]:
    """The raw bytes of a source (what grep reads), a block at a time."""
    if isinstance(source, _Text):
        yield source.raw()
        return
    with open(source.path, "rb") as handle:
        while block := handle.read(RAW_BLOCK):
            yield block


def _from_grep(facts: Iterator[tuple[int, str]], around: Iterator[tuple[int, str]]
               ) -> Iterator[tuple[str, int, str]]:
    """Candidates and shape lines from grep's output (see _GREP_FACTS) and the lines around
    the shape marks (see _GREP_CONTEXT)."""
    for number, line in facts:
        yield "candidate", number, line
        if _STRUCTURE.match(line):
            yield "shape", number, line
    window: dict[int, str] = {}
    for number, line in around:
        if number < 0:
            window.clear()
            continue
        window[number] = line
        window.pop(number - 4, None)
        before, two_before = window.get(number - 1), window.get(number - 2)
        if _UNDERLINE.fullmatch(line) and before and not before[0].isspace():
            yield "shape", number - 1, before
        if before is not None and line[:1] == " " and _GROUP_HEAD.fullmatch(before):
            yield "shape", number - 1, before
        if (line.startswith("    ") and before == "" and two_before is not None
                and two_before.startswith(("Date:", "CommitDate:"))):
            yield "shape", number, line


class _Scan:
    """One pass over a source: the index, and the first fact and shape lines that could fit."""

    def __init__(self, source: _Source, max_bytes: int, line_cap: int, size: int) -> None:
        if isinstance(source, _File) and size >= BULK_MIN_BYTES and _dense(source, known := _new_shapes()):
            bulk = bulk_scan(source, max_bytes, line_cap, BULK_CHUNK, known)
            if source.lines is None:  # the scan read every line: no other pass counts them
                source.lines = bulk.lines
            self.digest = bulk.digest
            self._finish(source, bulk.facts, bulk.shapes, bulk.grouped, None)
            return
        found = _grep_candidates(source) if size >= GREP_MIN_BYTES else None
        try:
            self._scan(source, max_bytes, line_cap, found)
        except GrepFailed:  # a grep that refused its options or failed: the scan in Python
            self._scan(source, max_bytes, line_cap, None)

    def _scan(self, source: _Source, max_bytes: int, line_cap: int,
              found: Iterator[tuple[str, int, str]] | None) -> None:
        self.digest = Digest()
        facts = _Earliest(max_bytes, line_cap)
        shapes = _Earliest(max_bytes, line_cap)
        grouped = False
        # A rule's text (in memory) may group findings by file: its entry lines are counted once
        # it is known under which file they stand.
        entries: dict[int, tuple[str, list[tuple[str, str, str]]]] | None = (
            {} if isinstance(source, _Text) else None)
        # Fact lines come in order, and so do shape lines (in one or two streams): once the lines
        # offered fill the room, no later line of the same stream is among the earliest.
        facts_cost = shapes_cost = 0
        reader = LineReader()
        last_shape = -1
        for kind, number, line in found if found is not None else _python_candidates(source):
            if kind == "candidate":
                read = reader.read(line)
                if read is None:
                    locations = fact_locations(line)
                elif read.fact:
                    locations = read_locations(line, read)
                else:
                    locations = None
                if locations is None:
                    code = _CODE_HEAD.match(line) if read is None else read.head
                    if isinstance(code, slice):
                        self.digest.count_code(line[code])
                    elif code is not None:
                        self.digest.count_code(code[1])
                    continue
                if facts_cost <= max_bytes:
                    facts.add(number, line)
                    facts_cost += min(len(line), line_cap) + 1
                if entries is not None and _GROUP_ENTRY.match(line):
                    entries[number] = (line, locations)
                elif read is not None:
                    self.digest.add_read(line, read, locations)
                else:
                    self.digest.add(line, locations)
            else:
                if number < last_shape:  # the next stream of shape lines
                    shapes_cost = 0
                last_shape = number
                if shapes_cost <= max_bytes:
                    shapes.add(number, line)
                    shapes_cost += min(len(line), line_cap) + 1
                grouped = grouped or (line.endswith(")") and _GROUP_HEAD.fullmatch(line) is not None)
        self._finish(source, facts, shapes, grouped, entries)

    def _finish(self, source: _Source, facts: _Earliest, shapes: _Earliest, grouped: bool,
                entries: dict[int, tuple[str, list[tuple[str, str, str]]]] | None) -> None:
        #: Lines of grouped findings the index counts; they are not offered as fact lines (the
        #: rule that grouped them kept the facts; the preview shows them as it can).
        self.grouped: list[int] = []
        if grouped:  # each entry locates its findings under its group's file
            for number, line, locations in _grouped_entries(source):
                if entries is not None and entries.pop(number, None) is not None:
                    facts.add(number, line)
                self.digest.add(line, locations, len(locations))
                self.grouped.append(number)
        for line, locations in (entries or {}).values():
            self.digest.add(line, locations)
        self.facts = facts.lines()
        self.facts_at = {number for number, _ in self.facts}
        self.shapes = shapes.lines()


# A group of findings as the rules write it: "path (N)", then entries "  12:4 30:1 message"
# (every location of the message under the header's file).
_GROUP_FILE_HEAD = lazy(r"^(?P<path>\S+) \((?P<count>\d[\d,]*)\)$")
# (an entry is indented less than four columns; a line indented more continues the entry before)
_GROUP_ENTRY = lazy(r"^[ \t]{1,3}(?P<places>\d+(?::\d+)?(?:[^\S\n]+\d+(?::\d+)?)*)(?=[^\S\n]|$)")
_GROUP_MARKS = lazy(r"^(?:\S+ \(\d[\d,]*\)$|[^\S\n])", MULTILINE)


#: The bytes of a file :func:`_grouped_entries` reads at a time.
GROUPED_CHUNK = 1 << 20


def _grouped_entries(source: _Source) -> Iterator[tuple[int, str, list[tuple[str, str, str]]]]:
    """(number, text, locations) of every header of a group of findings (``path (N)``, located
    at its first entry) and of every entry under one (each ``line[:col]`` under the header's
    path), as the verifier reads them back (``verify.renderings``)."""
    path: str | None = None
    header: tuple[int, str] | None = None
    expected = 0  # the line a group's next entry must be on (it follows without a gap)
    # Read a megabyte at a time: a chunk is decoded, cleaned and searched at once, several
    # copies of it live together (4 MB chunks of a linter's code frames: 42 MB at the peak).
    for first, chunk in source.chunks(GROUPED_CHUNK):
        for number, line in _chunk_lines(chunk, first, [m.start() for m in _GROUP_MARKS.finditer(chunk)]):
            head = _GROUP_FILE_HEAD.match(line)
            if head is not None:
                path = head["path"] if next(iter_paths(head["path"]), None) else None
                expected, header = number + 1, (number, line)
                continue
            if path is None or number != expected:
                path = None
                continue
            expected = number + 1
            entry = _GROUP_ENTRY.match(line)
            if entry is None:  # a line under an entry (or not yet one)
                continue
            places = [(path, *place.partition(":")[::2]) for place in entry["places"].split()]
            if header is not None:  # the header, located at its first entry
                yield header[0], header[1], places[:1]
                header = None
            yield number, line, places


class _Budget:
    def __init__(self, max_lines: int, max_bytes: int, filler_bytes: int) -> None:
        self.lines = max(1, max_lines)
        self.bytes = max(1, max_bytes)
        self.filler = max(0, filler_bytes)
        self.used_lines = 1  # the one gap marker that stands for everything before selection
        self.used_bytes = MARKER_BYTES
        self.used_filler = 0

    def fits(self, cost: int, gaps: int, share: float = 1.0) -> bool:
        return (
            self.used_lines + 1 + gaps <= self.lines * share
            and self.used_bytes + cost + gaps * MARKER_BYTES <= self.bytes * share
        )

    def take(self, cost: int, gaps: int) -> None:
        self.used_lines += 1 + gaps
        self.used_bytes += cost + gaps * MARKER_BYTES


#: _DIGITS_AS_ZERO for UTF-8 bytes (no byte of a multi-byte character is an ASCII digit).
_DIGIT_BYTES_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")


class _Selection:
    """Chosen lines by number; assembles the text with one marker per gap."""

    def __init__(self, total: int, budget: _Budget, line_cap: int) -> None:
        self.total = total
        self.budget = budget
        self.line_cap = line_cap
        self.chosen: dict[int, str] = {}
        self.cut = 0
        #: A git log: its indented message lines carry facts (commit messages).
        self.messages = False
        #: carries_fact of each shape of line offered (see _DIGITS_AS_ZERO: carries_fact reads
        #: lines that differ only in their digits alike, and the lines of a log, a flood, a
        #: listing mostly do: their time stamps, counters, numbers).
        #: The shape is made of the line's UTF-8 bytes (``bytes.translate`` is several times
        #: faster than ``str.translate``; the bytes of a character other than an ASCII digit
        #: are kept, so two lines have one shape exactly when their _DIGITS_AS_ZERO forms are equal).
        self.carries: dict[bytes, bool] = {}

    def _carries_fact(self, line: str) -> bool:
        shape = line.encode("utf-8", "surrogatepass").translate(_DIGIT_BYTES_AS_ZERO)
        found = self.carries.get(shape)
        if found is None:
            if len(self.carries) >= _READS_KEPT:
                self.carries.clear()
            found = self.carries[shape] = carries_fact(line)
        return found

    def _new_gaps(self, number: int) -> int:
        """How the count of gap markers changes when ``number`` is chosen (-1, 0 or +1)."""
        left_free = number > 0 and (number - 1) not in self.chosen
        right_free = number < self.total - 1 and (number + 1) not in self.chosen
        if left_free and right_free:
            return 1
        if not left_free and not right_free:
            return -1 if (number > 0 or number < self.total - 1) else 0
        return 0

    def offer(self, number: int, line: str, share: float = 1.0, filler: float | None = None) -> bool:
        """Choose the line when it fits ``share`` of the bounds and, when ``filler`` is given
        and the line carries no fact, that share of the filler allowance."""
        if number in self.chosen:
            return True
        budget = self.budget
        is_filler = filler is not None and not (
            (self.messages and line.startswith("    ")) or self._carries_fact(line[: self.line_cap]))
        cap = self.line_cap
        if is_filler:  # a long filler line is cut to the allowance left, when 2 lines' worth
            left = int(budget.filler * (filler or 0.0)) - budget.used_filler
            cap = min(cap, left) if left >= 2 * CUT_MARKER_BYTES else cap
        text, was_cut = cut_line(line, cap)
        cost = _utf8_len(text) + 1
        gaps = self._new_gaps(number)
        if is_filler and budget.used_filler + cost > budget.filler * (filler or 0.0):
            return False
        if not budget.fits(cost, gaps, share):
            return False
        budget.take(cost, gaps)
        if is_filler:
            budget.used_filler += cost
        self.chosen[number] = text
        self.cut += was_cut
        return True

    def render(self, digest: list[str]) -> Preview:
        out: list[str] = list(digest)
        expected = 0
        for number in sorted(self.chosen):
            if number > expected:
                out.append(gap_marker(number - expected))
            out.append(self.chosen[number])
            expected = number + 1
        if expected < self.total:
            out.append(gap_marker(self.total - expected))
        omitted = self.total - len(self.chosen)
        complete = omitted == 0 and self.cut == 0
        return Preview("\n".join(out), complete, self.total, omitted, self.cut, len(digest))


def _line_cap(max_bytes: int) -> int:
    return max(MIN_LINE_BYTES, max_bytes // 8)


#: Up to this many times ``max_lines`` lines, a text is read as a whole (a log, a file): its
#: filler may fill the bounds. Past it, the filler allowance shrinks with the length, down to
#: ``filler_bytes`` for a flood.
WHOLE_TEXT_FACTOR = 4


def filler_allowance(total_lines: int, max_lines: int, max_bytes: int, filler_bytes: int,
                     whole_text: bool = True) -> int:
    """Bytes a cut preview of ``total_lines`` lines gives to lines that carry no fact (with
    ``whole_text`` False, as for a rule's text, where the noise is already gone: only
    ``filler_bytes``)."""
    if not whole_text:
        return filler_bytes
    whole = WHOLE_TEXT_FACTOR * max_lines
    if total_lines <= whole:
        return max(filler_bytes, max_bytes)
    return max(filler_bytes, max_bytes * whole // total_lines)


def _bound(source: _Source, size: int, max_lines: int, max_bytes: int, filler_bytes: int,
           whole_text: bool = True) -> Preview:
    """The preview of a source over the bounds: scan once, select, and index what is left out."""
    line_cap = _line_cap(max_bytes)
    scan = _Scan(source, max_bytes, line_cap, size)  # first: the bulk scan counts a file's lines
    filler_bytes = filler_allowance(source.total, max_lines, max_bytes, filler_bytes, whole_text)
    plain = _select(source, scan, _Budget(max_lines, max_bytes, filler_bytes), line_cap)
    counted = len(scan.facts) + sum(number not in scan.facts_at for number in scan.grouped)
    shown = all(n in plain.chosen for n, _ in scan.facts) and all(n in plain.chosen for n in scan.grouped)
    if counted == scan.digest.lines and shown:
        return plain.render([])  # every fact line is shown: nothing to index
    digest = scan.digest.render(source.total, int(max_lines * DIGEST_SHARE),
                                int(max_bytes * DIGEST_SHARE))
    if not digest:
        return plain.render([])
    budget = _Budget(max_lines, max_bytes, filler_bytes)
    budget.used_lines += len(digest)
    budget.used_bytes += sum(_utf8_len(line) + 1 for line in digest)
    return _select(source, scan, budget, line_cap).render(digest)


def _select(source: _Source, scan: _Scan, budget: _Budget, line_cap: int) -> _Selection:
    """Head, tail, shape lines, fact lines, then more head and tail (filler within its share)."""
    selection = _Selection(source.total, budget, line_cap)
    head, tail = source.head(), source.tail()
    selection.messages = _looks_like_log(source)
    head_end = 0  # first line number not yet offered from the head
    pending_head: tuple[int, str] | None = None
    for number, line in head:
        if not selection.offer(number, line, HEAD_SHARE, HEAD_FILLER):
            pending_head = (number, line)
            break
        head_end = number + 1
    tail_start = selection.total
    pending_tail: tuple[int, str] | None = None
    for number, line in tail:
        if number < head_end:
            break
        if not selection.offer(number, line, HEAD_SHARE + TAIL_SHARE, 1.0):
            pending_tail = (number, line)
            break
        tail_start = number
    # Shape lines may take STRUCTURE_SHARE more of the budget, or all the fact lines leave, so
    # they never crowd out facts; fact lines take all they need.
    facts_need = sum(min(_utf8_len(line), line_cap) + 1 + MARKER_BYTES for number, line in scan.facts
                     if head_end <= number < tail_start)
    share = max(min(1.0, budget.used_bytes / budget.bytes + STRUCTURE_SHARE),
                1.0 - facts_need / budget.bytes)
    for tier, tier_share in ((scan.shapes, share), (scan.facts, 1.0)):
        for number, line in tier:
            if not head_end <= number < tail_start:
                continue
            full = budget.used_bytes + MIN_LINE_BYTES > budget.bytes * tier_share
            if not selection.offer(number, line, tier_share) and full:
                break
    # Fill what is left, filler within its allowance: the tail first, then the head.
    for number, line in _resume(pending_tail, tail):
        if number < head_end or not selection.offer(number, line, 1.0, 1.0):
            pending_tail = (number, line)
            break
        tail_start = number
    else:
        pending_tail = None
    for number, line in _resume(pending_head, head):
        if number >= tail_start or not selection.offer(number, line, 1.0, 1.0):
            break
    return selection


_COMMIT_LINE = lazy(r"^[*|\\/ ]*(?:commit )?[0-9a-f]{7,40}\b")
#: How much of each line the log test reads (a commit id follows at most a graph's columns).
_LOG_LINE_PREFIX = 4096


def _looks_like_log(source: _Source) -> bool:
    """Whether one of the first 50 lines starts with a commit id (a git log, plain or compacted)."""
    for number, line in source.head(_LOG_LINE_PREFIX):
        if number >= 50:
            return False
        if _COMMIT_LINE.match(line) and any(c.isalpha() for c in line[:40]):
            return True
    return False


def _resume(pending: tuple[int, str] | None, rest: Iterator[tuple[int, str]]
            ) -> Iterator[tuple[int, str]]:
    if pending is not None:
        yield pending
    yield from rest


def bound_lines(lines: list[str], max_lines: int, max_bytes: int, *,
                filler_bytes: int = FILLER_BYTES) -> Preview:
    """Bound a text already split into lines (no trailing newline element)."""
    total = len(lines)
    size = sum(_utf8_len(line) for line in lines) + max(0, total - 1)
    if total <= max_lines and size <= max_bytes:
        return Preview("\n".join(lines), True, total, 0, 0)
    return _bound(_Text("\n".join(lines)), size, max_lines, max_bytes, filler_bytes)


def bound_text(text: str, max_lines: int, max_bytes: int, *,
               filler_bytes: int = FILLER_BYTES, whole_text: bool = True) -> Preview:
    """Bound ``text`` (a final newline is not a line of its own)."""
    body = text[:-1] if text.endswith("\n") else text
    if body is not text and cleared(text):
        note_cleared(body)  # its lines are the text's, one empty line less
    if not body:
        return Preview("", True, 0, 0, 0)
    if len(body) <= max_bytes:  # else too long whatever its lines (not counted twice)
        total = body.count("\n") + 1
        if total <= max_lines and _utf8_len(body) <= max_bytes:
            return Preview(body, True, total, 0, 0)
    return _bound(_Text(body), len(body), max_lines, max_bytes, filler_bytes, whole_text)


def _count_lines(path: FilePath) -> tuple[int, int]:
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


def bound_file(path: FilePath, max_lines: int, max_bytes: int, *, clean: bool = True,
               filler_bytes: int = FILLER_BYTES) -> Preview:
    """Bound the text of the file at ``path`` in bounded memory."""
    size = file_size(path)
    if size > max_bytes:  # too large whatever its lines: counted when asked (or by the scan)
        return _bound(_File(path, None, size, clean), size, max_lines, max_bytes, filler_bytes)
    total, size = _count_lines(path)
    if size <= max_bytes and total <= max_lines:
        with open(path, "rb") as handle:
            text = decode(handle.read())
        if clean:
            text = "\n".join(clean_line(line) for line in text.split("\n"))
        return bound_text(text, max_lines, max_bytes, filler_bytes=filler_bytes)
    return _bound(_File(path, total, size, clean), size, max_lines, max_bytes, filler_bytes)


def iter_file_lines(path: FilePath) -> Iterable[str]:
    """Decoded lines of a file without their newlines (for small files)."""
    with open(path, "rb") as handle:
        for raw in handle:
            yield decode(raw.rstrip(b"\n"))


def file_size(path: FilePath) -> int:
    """Size of ``path`` in bytes (0 when missing)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
