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

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from itertools import accumulate

from tersh.compaction.kit.core import MARK, carries_fact, finish
from tersh.compaction.verify import holds as verify
from tersh.settings import MIN_SAVED_TOKENS

# A line with a passing mark is diagnostic only when it also holds a failing mark (case matters).
_FAILING_MARKS = ("FAIL", "ERROR", "not ok", "panicked", "✗", "✕", "×", "✖")
_LOCATION_HINT = re.compile(r'[:(](?<=[\w.@+~/-][:(])\d|File "')

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


def _hits(blob: str, needles: Iterable[str]) -> Iterable[int]:
    """Every offset in ``blob`` where one of ``needles`` starts (str.find runs at C speed)."""
    for needle in needles:
        start = blob.find(needle)
        while start != -1:
            yield start
            start = blob.find(needle, start + 1)


class Output:
    """The lines a rule keeps, the lines it leaves out, and where its omission note goes."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.words: dict[str, None] = {}
        self.omitted_lines = 0  # final once render() has run
        self._dropped: list[str] = []
        self._at: list[int] = []  # where in ``kept`` each dropped line stood
        self._scan: list[str] = []  # the part of each dropped line that may name a path
        self._plain: list[int] = []  # dropped lines without a passing mark
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

    def _rescued(self) -> set[int]:
        """Indexes of dropped lines the verifier protects as a whole."""
        dropped = self._dropped
        blob = "\n".join(dropped)
        starts = list(accumulate(map((1).__add__, map(len, dropped)), initial=0))
        candidates = {bisect_right(starts, at) - 1 for at in _hits(blob, _FAILING_MARKS)}
        candidates.update(bisect_right(starts, m.start()) - 1 for m in _LOCATION_HINT.finditer(blob))
        if self._plain:
            plain = [dropped[i] for i in self._plain]
            plain_starts = list(accumulate(map((1).__add__, map(len, plain)), initial=0))
            lowered = "\n".join(plain).lower()
            candidates.update(
                self._plain[bisect_right(plain_starts, at) - 1]
                for at in _hits(lowered, verify.SEVERITY_WORDS)
            )
        return {index for index in candidates if carries_fact(dropped[index])}

    def _collect_words(self, rescued: set[int]) -> None:
        # Words of rescued lines are found too; the note leaves out whatever the text keeps.
        scan = "\n".join(self._scan)
        for token in path_like_words(scan):
            for word in verify.iter_paths(token):
                self.words[word] = None
        for token in hex_words(scan):
            for word in verify.iter_commits(token):
                self.words[word] = None

    def _assemble(self, rescued: set[int]) -> list[str]:
        if not rescued:
            return list(self.kept)
        back: dict[int, list[str]] = {}
        for index in sorted(rescued):
            back.setdefault(self._at[index], []).append(self._dropped[index])
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
        self._collect_words(rescued)
        self.omitted_lines = len(self._dropped) - len(rescued) + self._marks_lines
        if not self.omitted_lines:
            return None
        dropped_chars = sum(map(len, self._dropped)) - sum(len(self._dropped[i]) for i in rescued)
        saved = dropped_chars / 4 + len(self._dropped) - len(rescued) + self._marks_tokens
        lines = self._assemble(rescued)
        summary = note(describe(self.omitted_lines), self.words, "\n".join(lines))
        # Passing marks are cheap tokens: the estimate, not the byte count, must pay for the
        # report; the share of the minimum saving is checked on bytes by ``finish``.
        if saved - estimated_tokens(summary) < MIN_SAVED_TOKENS:
            return None
        lines.insert(note_at, summary)
        return finish(source, lines)
