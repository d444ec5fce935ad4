"""Drop chatter lines without losing a protected fact, and say what was dropped.

Shared by the git and package-manager rules. A line is only ever dropped when it carries no
diagnostic, no location and no commit id (``kit.core.carries_fact``); file paths named only on dropped
lines are listed in the omission note, so the compact text still names every path.

Speed matters (rules run on captures of tens of megabytes): each exact check of the verifier is
guarded by a cheap pre-test that can only say "maybe" (lower-cased literal search, a digit after
a colon, seven hex digits in a row, a slash or a source extension).
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh._startup.lean import counted, lru_cache
from tersh.compaction.kit.core import (
    BYTES_PER_TOKEN,
    CHUNK_CHARS,
    MARK,
    MAYBE_COMMIT,
    MAYBE_SEVERITY,
    carries_fact,
    finish,
    maybe_diagnostic,
    maybe_location,
    plural,
)
from tersh.compaction.verify import facts as verify

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

#: How many characters of the source a quick check looks at (sniffers stay cheap).
SNIFF_CHARS = 4000

#: Above this many named paths the note lists them all without checking which the kept text
#: already names (each check is a scan of the kept text).
MAX_CHECKED_PATHS = 64

#: How a dropped diffstat bar is counted.
STAT_BAR = "diffstat bar"

_PADDING = lazy(r" {2,}")
_STAT_BAR = lazy(r"(?<=\d) [+-]+$")
# A diffstat row: " path/to/file.py    |  12 +++--" (or "| Bin 0 -> 12 bytes").
_STAT_ROW = lazy(r"^ \S.* \| +(?:\d+ ?[+-]*|Bin .*)$")
# A slash beside a letter ("mb/s" and "73.1/73.1 kb" are not paths, "kb/27.3" is to the
# verifier), or a source extension.
_MAYBE_SLASH = lazy(r"[a-z_~.](?<![kmgt]b)/|(?<=[kmgt]b)/\d|/(?!s\b)[a-z_.~]")
_MAYBE_EXT = lazy(rf"\.{verify._EXT}\b")
# Literal-led marks for scanning many lines at once (a location, a path).
_LOCATION_MARK = lazy(r"\.[\w.@+~/-]*:\d|/[\w.@+~/-]*:\d|\.\w+\(\d|File \"")
# What every _LOCATION_MARK match holds, literal first (scans a large text fast).
_LOCATION_HINT = lazy(r":\d|\(\d|File \"")
_PATH_MARK = lazy(rf"/|\.{verify._EXT}\b")
# A word (between characters no path holds) with a slash or a source extension in it.
_PATH_CANDIDATE = lazy(
    rf"[^\s\"'`<>()\[\]{{}},;=|]*(?:/|\.{verify._EXT}\b)[^\s\"'`<>()\[\]{{}},;=|]*"
)


def iter_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` without their ``\\n``, one at a time (no list of them all)."""
    start, find, size = 0, text.find, len(text)
    while start < size:
        end = find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def maybe_severity(text: str) -> bool:
    """Whether any line of ``text`` may be a diagnostic (False: certainly none is)."""
    overlap = 16  # longer than any hint word, so none is missed at a chunk edge
    for start in range(0, len(text), CHUNK_CHARS):
        if MAYBE_SEVERITY.search(text[start : start + CHUNK_CHARS + overlap].lower()):
            return True
    return False


def maybe_located(text: str) -> bool:
    """Whether any line of ``text`` may hold a location (False: certainly none does)."""
    return _LOCATION_MARK.search(text) is not None


def paths_in(line: str) -> Iterator[str]:
    """The file paths the verifier finds on ``line`` (a few more at worst; cheap when none).

    Only the words that hold a slash or a source extension are handed to the verifier, one
    by one; the separators between words are never part of a path, so nothing is missed.
    """
    if ("/" in line and _MAYBE_SLASH.search(line.lower())) or (
        "." in line and _MAYBE_EXT.search(line)
    ):
        for word in _PATH_CANDIDATE.findall(line):
            yield from _word_paths(word)


@lru_cache(maxsize=4096)
def _word_paths(word: str) -> tuple[str, ...]:
    return tuple(verify.iter_paths(word))


class Omissions:
    """Counts of dropped lines per label, and the paths those lines named."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.paths: dict[str, None] = {}
        self.blank = 0
        self.reformatted = ""

    def drop(self, label: str, line: str) -> bool:
        """Record ``line`` as dropped under ``label``; False (keep it) when it carries a fact."""
        if carries_fact(line):
            return False
        for path in paths_in(line):
            self.paths[path] = None
        self.counts[label] = self.counts.get(label, 0) + 1
        return True

    def count(self, label: str, number: int = 1) -> None:
        """Count ``number`` dropped items under ``label``."""
        self.counts[label] = self.counts.get(label, 0) + number

    @property
    def total(self) -> int:
        """How many lines were dropped or rewritten in all (blank lines included)."""
        return sum(self.counts.values()) + self.blank + bool(self.reformatted)

    def proposal(
        self, kept_lines: list[str], source: str, bytes_per_token: float = BYTES_PER_TOKEN
    ) -> str | None:
        """The compact text (kept lines + note), or None when nothing was dropped or it does not
        save enough (``bytes_per_token``: what the dropped bytes cost, see ``kit.core``)."""
        if not self.total:
            return None
        body = "\n".join(kept_lines).strip("\n")
        return finish(source, [body, self.note(body)], bytes_per_token)

    def note(self, kept: str) -> str:
        """One line saying what was dropped, plus the paths ``kept`` does not name itself."""
        parts = [plural(number, label) for label, number in self.counts.items() if number]
        if not parts:
            parts = [self.reformatted or "blank lines"]
        text = f"{MARK} {', '.join(parts)} omitted"
        missing = list(self.paths)
        if len(missing) <= MAX_CHECKED_PATHS:
            missing = [path for path in missing if path not in kept]
        if missing:
            text += "; they named " + ", ".join(missing)
        return text


def squeeze_spaces(line: str) -> str:
    """Collapse runs of spaces inside a line (column padding), keeping its indentation."""
    stripped = line.lstrip(" ")
    indent = line[: len(line) - len(stripped)]
    return indent + _PADDING.sub(" ", stripped).rstrip()


def squeeze_stat(line: str, omissions: Omissions) -> str:
    """A diffstat row without its column padding and its ``+++--`` bar (counted in
    ``omissions`` as a ``diffstat bar``: the row's count of changed lines stays); any other line
    unchanged. A row the verifier reads as a diagnostic (a file named ``errors.py``) keeps its
    bar: such a line is kept whole."""
    if "|" not in line or not _STAT_ROW.match(line):
        return line
    squeezed = squeeze_spaces(line)
    bare = _STAT_BAR.sub("", squeezed)
    if bare == squeezed or verify.is_diagnostic(squeezed):
        return squeezed
    omissions.count(STAT_BAR)
    return bare


class Chatter:
    """Labelled line shapes a rule drops, tried with one combined regex per line."""

    def __init__(self, shapes: dict[str, str]) -> None:
        self.labels = list(shapes)
        self.pattern = lazy(
            "|".join(f"(?P<c{index}>{shape})" for index, shape in enumerate(shapes.values()))
        )

    def label(self, line: str) -> str | None:
        """The label of the shape ``line`` has, or None."""
        match = self.pattern.match(line)
        if match is None or match.lastgroup is None:
            return None
        return self.labels[int(match.lastgroup[1:])]


def iter_chunks(text: str, size: int = CHUNK_CHARS) -> Iterator[list[str]]:
    """The lines of ``text`` in lists of about ``size`` characters (split at C speed, memory
    bounded by the chunk)."""
    start, length = 0, len(text)
    while start < length:
        end = text.find("\n", start + size)
        if end < 0:
            end = length
        yield text[start:end].split("\n")
        start = end + 1


def drop_lines(text: str, chatter: Chatter, omissions: Omissions) -> list[str]:
    """The lines of ``text`` that are neither blank nor droppable ``chatter``.

    Chatter lines are set aside and checked a chunk at a time (the pre-tests run on one joined
    text at C speed); the few that may hold a fact are checked line by line, and a line that
    does is put back where it stood.
    """
    kept: list[str] = []
    match = chatter.pattern.match
    for lines in iter_chunks(text):
        dropped: list[str] = []
        places: list[int] = []  # where each dropped line stood among the kept ones
        groups: list[str | None] = []
        for line in lines:
            found = match(line)
            if found is None:
                if line and not line.isspace():
                    kept.append(line)
                else:
                    omissions.blank += 1
            else:
                dropped.append(line)
                places.append(len(kept))
                groups.append(found.lastgroup)
        restore = _check_dropped(dropped, omissions)
        for index in sorted(restore, reverse=True):
            kept.insert(places[index], dropped[index])
            groups[index] = None
        for group, number in counted(groups).items():
            if group is not None:
                omissions.count(chatter.labels[int(group[1:])], number)
    return kept


def _suspects(blob: str, pattern: re.Pattern[str], starts: list[int]) -> set[int]:
    """Indexes of the joined lines (starting at ``starts``) in which ``pattern`` matches.

    After a hit the search resumes at the next line: a line with many hits costs one.
    """
    from _bisect import bisect_right  # lazy: most texts have no suspect

    found: set[int] = set()
    search, count, size = pattern.search, len(starts), len(blob)
    position = 0
    while position < size and (match := search(blob, position)) is not None:
        index = bisect_right(starts, match.start()) - 1  # the line holding the match
        found.add(index)
        position = starts[index + 1] if index + 1 < count else size
    return found


def _commit_suspects(blob: str, starts: list[int]) -> set[int]:
    """Indexes of the joined lines with seven hex digits in a row (found as the verifier does:
    an ASCII copy marking hex digits, then plain ``find``)."""
    if not blob.isascii():
        return _suspects(blob, MAYBE_COMMIT, starts)
    from _bisect import bisect_right

    from tersh.compaction.verify import scan as verify_scan  # its other readers: not needed here

    marked = blob.translate(verify_scan._HEX_MARKS)
    found: set[int] = set()
    position = marked.find(verify_scan._SEVEN_HEX)
    while position >= 0:
        index = bisect_right(starts, position) - 1
        found.add(index)
        following = starts[index + 1] if index + 1 < len(starts) else len(blob)
        position = marked.find(verify_scan._SEVEN_HEX, following)
    return found


def _check_dropped(dropped: list[str], omissions: Omissions) -> set[int]:
    """Indexes of dropped lines that carry a fact; records the paths of the others."""
    if not dropped:
        return set()
    blob = "\n".join(dropped)
    starts: list[int] = []
    offset = 0
    for line in dropped:
        starts.append(offset)
        offset += len(line) + 1
    # Patterns that open with a literal scan fastest; the exact checks follow per suspect line.
    restore = {
        index
        for index in _suspects(blob.lower(), MAYBE_SEVERITY, starts)
        | {
            index
            for index in _suspects(blob, _LOCATION_HINT, starts)
            if _LOCATION_MARK.search(dropped[index])
        }
        if maybe_diagnostic(dropped[index]) or maybe_location(dropped[index])
    }
    # A commit-id-shaped word ("1.2~git20170615.f752187-5" in a version) keeps its line too.
    restore.update(
        index
        for index in _commit_suspects(blob, starts) - restore
        if next(verify.iter_commits(dropped[index]), None) is not None
    )
    for index in sorted(_suspects(blob, _PATH_MARK, starts) - restore):
        for path in paths_in(dropped[index]):
            omissions.paths[path] = None
    return restore
