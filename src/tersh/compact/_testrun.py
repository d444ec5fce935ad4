"""Shared pieces of the test-runner rules: dropping passing lines without dropping a fact.

A test-runner rule walks the output line by line and hands every line it would like to leave out
(a passing test, a progress line, header chatter) to an :class:`Omissions`. The ledger refuses a
line the verifier protects as a whole (a diagnostic, a location): the rule must keep such a line.
Other lines are dropped, but the paths and commit-shaped words they name are remembered and listed
in the omission note, so the set of files stays visible ("in tests/a.py, tests/b.py").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tersh.compact import verify

#: Lines that may carry a protected fact; anything else is dropped without a closer look.
_MAY_CARRY_FACT = re.compile(
    r"[/:(]|\.[A-Za-z]|[0-9a-f]{7}|err|warn|fail|fatal|panic|exception|traceback|deprecat"
    r"|critical|abort|segmentation|assert",
    re.IGNORECASE,
)

PREFIX = "[tersh]"

#: Below this estimated saving (in tokens) a rule declines: the capture report that the pipeline
#: appends to every compacted output (about 40 tokens) would eat it.
MIN_TOKEN_SAVING = 60


def estimated_tokens(line: str) -> float:
    """A rough o200k token count for a line of prose or code (about four characters a token)."""
    return len(line) / 4 + 1


def estimated_mark_tokens(line: str) -> float:
    """A rough token count for a row of progress marks (long runs of one mark are cheap)."""
    return len(line) / 16 + 4


def carries_whole_line_fact(line: str) -> bool:
    """Whether the verifier protects ``line`` itself (a diagnostic or a located message)."""
    if not _MAY_CARRY_FACT.search(line):
        return False
    return verify.is_diagnostic(line) or next(verify.iter_locations(line), None) is not None


def fact_words(line: str) -> list[str]:
    """The paths and commit-shaped words ``line`` names (protected even on a passing line)."""
    if not _MAY_CARRY_FACT.search(line):
        return []
    return [*verify.iter_paths(line), *verify.iter_commits(line)]


class Omissions:
    """What a rule left out: how many lines, and the protected words they named."""

    def __init__(self) -> None:
        self.lines = 0
        self.tokens = 0.0
        self.words: dict[str, None] = {}

    def drop(self, line: str) -> bool:
        """Leave ``line`` out and return True, or return False when it must be kept."""
        if _MAY_CARRY_FACT.search(line):
            if verify.is_diagnostic(line) or next(verify.iter_locations(line), None) is not None:
                return False
            for word in verify.iter_paths(line):
                self.words[word] = None
            for word in verify.iter_commits(line):
                self.words[word] = None
        self.lines += 1
        self.tokens += estimated_tokens(line)
        return True

    def drop_known(self, line: str, path: str, rest: str) -> bool:
        """Leave out ``line``: a known file ``path`` then ``rest`` (only ``rest`` is searched)."""
        if _MAY_CARRY_FACT.search(rest):
            if verify.is_diagnostic(line) or next(verify.iter_locations(line), None) is not None:
                return False
            for word in verify.iter_paths(rest):
                self.words[word] = None
            for word in verify.iter_commits(rest):
                self.words[word] = None
        if path:
            self.words[path] = None
        self.lines += 1
        self.tokens += estimated_tokens(line)
        return True


class Output:
    """The lines a rule keeps, the lines it left out, and where its omission note goes."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.omitted = Omissions()
        self.note_at: int | None = None

    def keep(self, line: str) -> None:
        """Keep ``line`` as it is."""
        self.kept.append(line)

    def keep_blank(self, line: str) -> None:
        """Keep a blank ``line`` unless the text kept so far already ends with one."""
        if self.kept and self.kept[-1].strip():
            self.kept.append(line)

    def omit(self, line: str) -> None:
        """Leave ``line`` out, unless the verifier protects it as a whole (then keep it)."""
        if self.omitted.drop(line):
            self._mark()
        else:
            self.kept.append(line)

    def omit_in_file(self, line: str, path: str, rest: str) -> None:
        """Leave out ``line``, which is ``path`` followed by ``rest`` (a per-file progress line)."""
        if self.omitted.drop_known(line, path, rest):
            self._mark()
        else:
            self.kept.append(line)

    def omit_marks(self, line: str) -> None:
        """Leave out a row of progress marks the caller knows names nothing (``....s..``)."""
        self.omitted.lines += 1
        self.omitted.tokens += estimated_mark_tokens(line)
        self._mark()

    def _mark(self) -> None:
        if self.note_at is None:
            self.note_at = len(self.kept)

    def render(self, what: str, source: str) -> str | None:
        """The compact text with the note ``[tersh] <what>`` where the first omission was."""
        if not self.omitted.lines or self.note_at is None:
            return None
        kept = list(self.kept)
        summary = note(what, self.omitted.words, "\n".join(kept))
        if self.omitted.tokens - estimated_tokens(summary) < MIN_TOKEN_SAVING:
            return None
        kept.insert(self.note_at, summary)
        return finish(kept, source)


def thousands(number: int) -> str:
    """``1204`` -> ``'1,204'``."""
    return f"{number:,}"


def plural(number: int, word: str) -> str:
    """``1, 'test'`` -> ``'1 test'``; ``3, 'test'`` -> ``'3 tests'``."""
    return f"{thousands(number)} {word}{'' if number == 1 else 's'}"


def note(what: str, words: Iterable[str] = (), kept_text: str = "") -> str:
    """One omission line: ``[tersh] <what>``, plus the protected words not already kept."""
    missing = [word for word in words if word not in kept_text]
    if not missing:
        return f"{PREFIX} {what}"
    return f"{PREFIX} {what}; in: {' '.join(missing)}"


def finish(kept: list[str], source: str) -> str | None:
    """Join the kept lines; None when nothing was saved (the rule then declines)."""
    text = "\n".join(kept)
    if source.endswith("\n") and not text.endswith("\n"):
        text += "\n"
    return text if len(text) < len(source) else None
