"""Shared pieces of the test-runner rules: dropping passing lines without dropping a fact.

A test-runner rule walks the output line by line, keeps what matters and hands every line it would
like to leave out (a passing test, a progress row, header chatter) to :class:`Output`. Nothing is
decided per line: when the rule renders, all left-out lines are checked at once (a few C-speed
scans over one joined text, then the verifier's own functions on the few candidate lines). A line
the verifier protects as a whole (a diagnostic, a location) is put back where it was; the paths
and commit-shaped words the other lines name are listed in the omission note, so the set of files
stays visible ("in: tests/a.py tests/b.py").
"""

from __future__ import annotations

from _bisect import bisect_right
from itertools import accumulate, chain

from tersh._startup.lazyre import lazy
from tersh.compaction.kit.core import MARK, carries_fact, finish
from tersh.compaction.verify import holds as verify
from tersh.settings import MIN_SAVED_TOKENS

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from re import Pattern

# A line with a passing mark is diagnostic only when it also holds a failing mark (case matters).
_FAILING_MARKS = ("FAIL", "ERROR", "not ok", "panicked", "✗", "✕", "×", "✖")
# Where a location may start: ":" or "(" after a path character, then a digit; or 'File "'.
# Literal-led patterns scan a large text many times faster than one that opens with a class (the
# character before is checked on the few matches); their matches cannot overlap, so together
# they find the same places.
_LOCATION_HINTS = (lazy(r":\d"), lazy(r"\(\d"))
_PATH_CHAR = lazy(r"[\w.@+~/-]")

# Byte "shapes" of a text, with the same offsets: white space becomes a space, so a word is what
# lies between two spaces. In _HEX_SHAPE lower-case hex digits become "h" (seven in a row may be a
# commit id); in _PATH_SHAPE "/" and "." stay and ASCII letters become "a" ("/" or ".a" may be a
# path: a word without "/" is a path only when it ends in ".ext").
_WHITE = " \t\n\r\x0b\x0c"
_HEX_SHAPE = bytes(
    32 if chr(b) in _WHITE else ord("h") if chr(b) in "0123456789abcdef" else ord("x")
    for b in range(256)
)
_PATH_SHAPE = bytes(
    32 if chr(b) in _WHITE
    else b if chr(b) in "/."
    else ord("a") if b < 128 and chr(b).isalpha()
    else ord("x")
    for b in range(256)
)


def estimated_tokens(line: str) -> float:
    """A rough o200k token count for a line of prose or code (about four characters a token)."""
    return len(line) / 4 + 1


def estimated_mark_tokens(line: str) -> float:
    """A rough token count for a row of progress marks (long runs of one mark are cheap)."""
    return len(line) / 16 + 4


def note(what: str, words: Iterable[str] = (), kept_text: str = "") -> str:
    """One omission line: ``[tersh] <what>``, plus the protected words not already kept."""
    missing = [word for word in words if word not in kept_text]
    if not missing:
        return f"{MARK} {what}"
    return f"{MARK} {what}; in: {' '.join(missing)}"


def _words_at(data: bytes, shape: bytes, needle: bytes, found: dict[bytes, None]) -> None:
    """Add to ``found`` every word of ``data`` whose ``shape`` holds ``needle``."""
    at = shape.find(needle)
    while at != -1:
        start = shape.rfind(b" ", 0, at) + 1
        end = shape.find(b" ", at)
        if end == -1:
            end = len(shape)
        found[data[start:end]] = None
        at = shape.find(needle, end)


def path_like_words(blob: str) -> list[str]:
    """Every distinct white-space-delimited word of ``blob`` with a ``/`` or a ``.letter``."""
    data = blob.encode("utf-8", "replace")
    shape = data.translate(_PATH_SHAPE)
    found: dict[bytes, None] = {}
    _words_at(data, shape, b"/", found)
    _words_at(data, shape, b".a", found)
    return [word.decode("utf-8", "replace") for word in found]


def hex_words(blob: str) -> list[str]:
    """Every distinct white-space-delimited word of ``blob`` with seven lower-case hex digits."""
    data = blob.encode("utf-8", "replace")
    found: dict[bytes, None] = {}
    _words_at(data, data.translate(_HEX_SHAPE), b"hhhhhhh", found)
    return [word.decode("utf-8", "replace") for word in found]


class _Words:
    """The words :func:`path_like_words` and :func:`hex_words` would find in the texts read so
    far (joined by "\\n"), in their order: read a piece at a time."""

    def __init__(self) -> None:
        self.slash: dict[bytes, None] = {}
        self.dot: dict[bytes, None] = {}
        self.hex: dict[bytes, None] = {}

    def read(self, blob: str) -> None:
        """Add the words of ``blob`` (read after the texts before it)."""
        data = blob.encode("utf-8", "replace")
        shape = data.translate(_PATH_SHAPE)
        _words_at(data, shape, b"/", self.slash)
        _words_at(data, shape, b".a", self.dot)
        _words_at(data, data.translate(_HEX_SHAPE), b"hhhhhhh", self.hex)

    def paths(self) -> list[str]:
        """What ``path_like_words`` gives for all the texts read."""
        words = [*self.slash, *(word for word in self.dot if word not in self.slash)]
        return [word.decode("utf-8", "replace") for word in words]

    def commits(self) -> list[str]:
        """What ``hex_words`` gives for all the texts read."""
        return [word.decode("utf-8", "replace") for word in self.hex]


def _hits(blob: str, needles: Iterable[str]) -> Iterable[int]:
    """Every offset in ``blob`` where one of ``needles`` starts (str.find runs at C speed)."""
    for needle in needles:
        start = blob.find(needle)
        while start != -1:
            yield start
            start = blob.find(needle, start + 1)


def _location_hits(blob: str) -> Iterable[int]:
    """Every offset in ``blob`` where a location hint (``_LOCATION_HINTS``) starts."""
    path_char = _PATH_CHAR.match
    for pattern in _LOCATION_HINTS:
        for match in pattern.finditer(blob):
            at = match.start()
            if at and path_char(blob, at - 1):
                yield at
    yield from _hits(blob, ('File "',))


def any_line_matches(text: str, needle: str, pattern: Pattern[str]) -> bool:
    """``pattern.search(text) is not None`` for a pattern of lines (``^`` of MULTILINE) whose
    every match holds ``needle`` on its last line and begins at that line's start or, through
    white space, at the start of a white-space-only line above it: only the few lines holding
    ``needle`` (found by str.find) are tried."""
    at = text.find(needle)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        while True:
            if pattern.match(text, start):
                return True
            above = text.rfind("\n", 0, start - 1) + 1 if start else -1
            if above < 0 or text[above : start - 1].strip():
                break
            start = above
        end = text.find("\n", at)
        if end < 0:
            return False
        at = text.find(needle, end)
    return False


def read_lines(text: str, feed: Callable[[str], None], bulk: Callable[[str, int], int]) -> None:
    """Give ``feed`` the lines of ``text.split("\\n")`` one at a time, except the runs of lines
    ``bulk`` reads at once: at the start of each line, ``bulk(text, position)`` returns where the
    lines it read end (just after their last "\\n", past ``position``), or -1 when it read none.

    A rule's bulk reader must leave the rule as feeding those lines one by one would.
    """
    position, find = 0, text.find
    while True:
        after = bulk(text, position)
        if after >= 0:
            position = after
            continue
        end = find("\n", position)
        if end < 0:
            feed(text[position:])
            return
        feed(text[position:end])
        position = end + 1


def _suspect_hits(blob: str) -> Iterable[int]:
    """Where in ``blob`` a line with a passing mark may carry a fact: a failing mark, a location."""
    return chain(_hits(blob, _FAILING_MARKS), _location_hits(blob))


def _line_starts_hit(texts: list[str], hits: Callable[[str], Iterable[int]]) -> set[tuple[int, int]]:
    """Where in ``texts`` (each of one or more lines) ``hits`` finds an offset, all read joined by
    "\\n": (index of the text, where in it the line holding the offset starts)."""
    blob = "\n".join(texts)
    starts = list(accumulate(map((1).__add__, map(len, texts)), initial=0))
    found = set()
    for at in hits(blob):
        index = bisect_right(starts, at) - 1
        line = blob.rfind("\n", starts[index], at)
        found.add((index, 0 if line < 0 else line + 1 - starts[index]))
    return found


def _lines_hit(lines: list[str], hits: Callable[[str], Iterable[int]]) -> set[int]:
    """The indices of the ``lines`` in which ``hits`` finds an offset (all read joined by "\\n")."""
    blob = "\n".join(lines)
    starts = list(accumulate(map((1).__add__, map(len, lines)), initial=0))
    return {bisect_right(starts, at) - 1 for at in hits(blob)}


def _plain_starts_protected(text: str, passing: Callable[[str], bool]) -> list[int]:
    """Where in ``text`` (lines joined by "\\n") the lines start that hold a severity word (read
    lower-cased), carry no passing mark (``passing``) and carry a fact."""
    lowered = text.lower()
    if len(lowered) == len(text):  # each character lower-cased to one: the offsets agree
        starts = {text.rfind("\n", 0, at) + 1 for at in _hits(lowered, verify.SEVERITY_WORDS)}
    else:
        starts, start = set(), 0
        for line in text.split("\n"):
            if any(word in line.lower() for word in verify.SEVERITY_WORDS):
                starts.add(start)
            start += len(line) + 1
    found = []
    for start in sorted(starts):
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if not passing(line) and carries_fact(line):
            found.append(start)
    return found


class Output:
    """The lines a rule keeps, the lines it leaves out, and where its omission note goes."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.words: dict[str, None] = {}
        self.omitted_lines = 0  # final once render() has run
        # Each dropped entry is one line, or (``omit_passing_block``) consecutive lines joined
        # by "\n": joined, the entries give the same text as the dropped lines one by one.
        self._dropped: list[str] = []
        self._at: list[int] = []  # where in ``kept`` each dropped entry stood
        self._scan: list[str] = []  # the part of each dropped entry that may name a path
        self._plain: list[int] = []  # dropped lines without a passing mark
        self._blocks: dict[int, int] = {}  # entry index -> lines in it, for entries of many lines
        # entry index -> lines in it, for entries of many lines scanned with the single lines
        self._packets: dict[int, int] = {}
        # packet entry index -> which of its lines carry a passing mark, for packets that also
        # hold lines without one (``omit_lines``)
        self._mixed: dict[int, Callable[[str], bool]] = {}
        # what a block's lines hold (found when it is left out, while it is fresh in the cache):
        # the offsets of the lines that may carry a fact, the words its scan names
        self._block_suspects: dict[int, list[int]] = {}
        self._block_words: dict[int, _Words] = {}
        self._marks_lines = 0
        self._marks_at: int | None = None
        self._marks_tokens = 0.0

    def keep(self, line: str) -> None:
        """Keep ``line`` as it is."""
        self.kept.append(line)

    def keep_blank(self, line: str) -> None:
        """Keep a blank ``line`` unless the text kept so far already ends with one."""
        if self.kept and self.kept[-1].strip():
            self.kept.append(line)

    def omit(self, line: str, scan: str | None = None, passing: bool = False) -> None:
        """Leave ``line`` out (it comes back if the verifier protects it).

        ``scan`` is the part that may name paths (default: the whole line); ``passing`` says the
        line carries a passing mark the verifier knows (``PASSED``, ``✓``, ``... ok``…).
        """
        if not passing:
            self._plain.append(len(self._dropped))
        self._at.append(len(self.kept))
        self._dropped.append(line)
        self._scan.append(line if scan is None else scan)

    def omit_run(self, lines: list[str]) -> None:
        """Leave out consecutive lines that each carry a passing mark the verifier knows."""
        self._at.extend([len(self.kept)] * len(lines))
        self._dropped.extend(lines)
        self._scan.extend(lines)

    def omit_each(self, lines: list[str], scan: str | None = None) -> None:
        """Leave out each of ``lines`` without a passing mark, as :meth:`omit` would one by one
        (``scan``: the part of every one that may name paths, default: the whole line)."""
        start, at = len(self._dropped), len(self.kept)
        self._plain.extend(range(start, start + len(lines)))
        self._at.extend([at] * len(lines))
        self._dropped.extend(lines)
        self._scan.extend(lines if scan is None else [scan] * len(lines))

    def omit_each_marks(self, lines: list[str]) -> None:
        """Leave out rows of progress marks, as :meth:`omit_marks` would one by one."""
        if not lines:
            return
        if self._marks_at is None:
            self._marks_at = len(self.kept)
        self._marks_lines += len(lines)
        # each row's estimate is a multiple of 1/16: the sum is exact in any order
        self._marks_tokens += sum(map(len, lines)) / 16 + 4 * len(lines)

    def omit_passing_lines(self, lines: str, count: int) -> None:
        """Leave out ``count`` consecutive lines (``lines``, joined by "\\n") that each carry a
        passing mark the verifier knows, as :meth:`omit_run` would one by one (one entry,
        scanned with the single lines when the rule renders: for a few lines at a time)."""
        if count == 1:
            self.omit(lines, passing=True)
            return
        self._packets[len(self._dropped)] = count
        self._at.append(len(self.kept))
        self._dropped.append(lines)
        self._scan.append(lines)

    def omit_lines(self, lines: str, count: int, passing: Callable[[str], bool]) -> None:
        """Leave out ``count`` consecutive lines (``lines``, joined by "\\n"), each as :meth:`omit`
        would one by one (the whole line scanned): ``passing(line)`` says whether a line carries
        a passing mark the verifier knows (asked only of the few lines that name a severity)."""
        if count == 1:
            self.omit(lines, passing=passing(lines))
            return
        self._mixed[len(self._dropped)] = passing
        self.omit_passing_lines(lines, count)

    def omit_passing_block(self, lines: str, count: int, scan: str, path: str = "") -> None:
        """Leave out ``count`` consecutive lines (``lines``, joined by "\\n") that each carry a
        passing mark the verifier knows and name the known file ``path``, as :meth:`omit_in_file`
        would one by one; ``scan`` holds what of them may name other paths (lines without such
        a word may be left out of it)."""
        if path:
            self.words[path] = None
        entry = len(self._dropped)
        self._blocks[entry] = count
        self._block_suspects[entry] = sorted(
            {lines.rfind("\n", 0, at) + 1 for at in (*_hits(lines, _FAILING_MARKS), *_location_hits(lines))}
        )
        if scan:
            found = self._block_words[entry] = _Words()
            found.read(scan)
        self._at.append(len(self.kept))
        self._dropped.append(lines)
        self._scan.append("")

    def omit_in_file(self, line: str, path: str, rest: str, passing: bool = True) -> None:
        """Leave out ``line``: the known file ``path``, then ``rest`` (only ``rest`` is scanned)."""
        if path:
            self.words[path] = None
        self.omit(line, rest, passing)

    def omit_marks(self, line: str) -> None:
        """Leave out a row of progress marks the caller knows names nothing (``....s..``)."""
        if self._marks_at is None:
            self._marks_at = len(self.kept)
        self._marks_lines += 1
        self._marks_tokens += estimated_mark_tokens(line)

    def omit_copy(self, line: str) -> None:
        """Leave out a line the kept text repeats further on (not re-checked here: the gate does)."""
        if self._marks_at is None:
            self._marks_at = len(self.kept)
        self._marks_lines += 1
        self._marks_tokens += estimated_tokens(line)

    def drop_now(self, line: str) -> bool:
        """Leave ``line`` out at once and return True, or False when it must be kept."""
        if carries_fact(line):
            return False
        self.omit(line)
        return True

    def _line_at(self, entry: int, offset: int) -> str:
        """The dropped line that starts ``offset`` characters into entry ``entry``."""
        text = self._dropped[entry]
        if entry not in self._blocks and entry not in self._packets:
            return text
        end = text.find("\n", offset)
        return text[offset:] if end < 0 else text[offset:end]

    def _rescued(self) -> set[tuple[int, int]]:
        """The dropped lines the verifier protects as a whole, as (entry, offset in the entry)."""
        dropped, packets = self._dropped, self._packets
        blocks = {**self._blocks, **packets} if packets else self._blocks
        suspects = {(entry, at) for entry, offsets in self._block_suspects.items() for at in offsets}
        rescued = {key for key in suspects if carries_fact(self._line_at(*key))}
        if packets:
            rescued.update(self._rescued_in_packets())
        singles = [index for index in range(len(dropped)) if index not in blocks] if blocks else None
        lines = dropped if singles is None else [dropped[index] for index in singles]
        # What a line's scans find depends on that line alone: each distinct line is read once,
        # and every entry holding a protected one comes back.
        distinct = list(dict.fromkeys(lines))
        hit = _lines_hit(distinct, lambda blob: chain(_hits(blob, _FAILING_MARKS), _location_hits(blob)))
        protected = {line for line in map(distinct.__getitem__, hit) if carries_fact(line)}
        if protected:
            entries = range(len(dropped)) if singles is None else singles
            rescued.update((at, 0) for at, line in zip(entries, lines, strict=True) if line in protected)
        if self._plain:
            plain = list(dict.fromkeys(map(dropped.__getitem__, self._plain)))
            lowered = [line.lower() for line in plain]
            hit = _lines_hit(lowered, lambda blob: _hits(blob, verify.SEVERITY_WORDS))
            protected = {line for line in map(plain.__getitem__, hit) if carries_fact(line)}
            if protected:
                rescued.update((entry, 0) for entry in self._plain if dropped[entry] in protected)
        return rescued

    def _rescued_in_packets(self) -> set[tuple[int, int]]:
        """The lines of ``omit_passing_lines`` entries the verifier protects (as in ``_rescued``)."""
        entries = list(self._packets)
        texts = [self._dropped[entry] for entry in entries]
        distinct = list(dict.fromkeys(texts))
        hits = _line_starts_hit(distinct, _suspect_hits)
        protected: dict[str, list[int]] = {}
        for index, start in sorted(hits):
            text = distinct[index]
            end = text.find("\n", start)
            if carries_fact(text[start:] if end < 0 else text[start:end]):
                protected.setdefault(text, []).append(start)
        found = {
            (entry, start)
            for entry, text in zip(entries, texts, strict=True)
            if text in protected
            for start in protected[text]
        }
        if self._mixed:
            found.update(self._rescued_plain_in_packets())
        return found

    def _rescued_plain_in_packets(self) -> set[tuple[int, int]]:
        """The lines without a passing mark in ``omit_lines`` entries that the verifier protects
        and only a severity word points to (as the single lines of ``self._plain`` in ``_rescued``)."""
        protected: dict[tuple[str, Callable[[str], bool]], list[int]] = {}
        for entry, passing in self._mixed.items():
            key = (self._dropped[entry], passing)
            if key not in protected:
                protected[key] = _plain_starts_protected(*key)
        return {(entry, start) for entry, passing in self._mixed.items()
                for start in protected[self._dropped[entry], passing]}  # fmt: skip

    def _collect_words(self) -> None:
        # Words of rescued lines are found too; the note leaves out whatever the text keeps.
        found = _Words()
        start = 0
        for entry in sorted(self._block_words):
            if entry > start:
                found.read("\n".join(dict.fromkeys(self._scan[start:entry])))  # a line's words once
            block = self._block_words[entry]
            for mine, theirs in ((found.slash, block.slash), (found.dot, block.dot), (found.hex, block.hex)):
                mine.update(theirs)
            start = entry + 1
        if start < len(self._scan):
            found.read("\n".join(dict.fromkeys(self._scan[start:])))
        for token in found.paths():
            for word in verify.iter_paths(token):
                self.words[word] = None
        for token in found.commits():
            for word in verify.iter_commits(token):
                self.words[word] = None

    def _assemble(self, rescued: set[tuple[int, int]]) -> list[str]:
        if not rescued:
            return list(self.kept)
        back: dict[int, list[str]] = {}
        for entry, offset in sorted(rescued):
            back.setdefault(self._at[entry], []).append(self._line_at(entry, offset))
        lines: list[str] = []
        for position, line in enumerate(self.kept):
            lines.extend(back.get(position, ()))
            lines.append(line)
        lines.extend(back.get(len(self.kept), ()))
        return lines

    def render(self, describe: Callable[[int], str], source: str, at_top: bool = False) -> str | None:
        """The compact text, with ``[tersh] describe(omitted line count)`` at the first omission
        (or first of all, ``at_top``).

        None when nothing was left out or the saving would not pay for the capture report.
        """
        starts = [self._at[0]] if self._at else []
        if self._marks_at is not None:
            starts.append(self._marks_at)
        if not starts:
            return None
        note_at = 0 if at_top else min(starts)
        rescued = self._rescued() if self._dropped else set()
        self._collect_words()
        # a block of n lines is one entry holding n - 1 "\n"
        inner_breaks = sum(self._blocks.values()) - len(self._blocks)
        inner_breaks += sum(self._packets.values()) - len(self._packets)
        dropped_lines = len(self._dropped) + inner_breaks
        self.omitted_lines = dropped_lines - len(rescued) + self._marks_lines
        if not self.omitted_lines:
            return None
        dropped_chars = (sum(map(len, self._dropped)) - inner_breaks
                         - sum(len(self._line_at(*key)) for key in rescued))  # fmt: skip
        saved = dropped_chars / 4 + dropped_lines - len(rescued) + self._marks_tokens
        lines = self._assemble(rescued)
        summary = note(describe(self.omitted_lines), self.words, "\n".join(lines))
        # Passing marks are cheap tokens: the estimate, not the byte count, must pay for the
        # report; the share of the minimum saving is checked on bytes by ``finish``.
        if saved - estimated_tokens(summary) < MIN_SAVED_TOKENS:
            return None
        lines.insert(note_at, summary)
        return finish(source, lines)
