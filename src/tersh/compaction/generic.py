"""The generic compactor: for output no rule was written for, behind the same verifier.

It never rewrites a line the verifier reads a diagnostic or a location on, except to group
consecutive ``path:line[:col]: message`` findings under their file (the grouped form the
verifier reads back). Of the other lines it collapses:

- chatter: log lines at INFO / DEBUG / TRACE level, ``Resolving`` / ``Downloading`` / ``Fetching``
  progress, progress lines about one file (``Checking a.c ...``, ``Compiling b``, a counter such
  as ``3/90 files checked 3% done``), passing-test lines (``PASSED``, ``ok``, ``(pass)``, ``✓``) and
  percentage bars, each kind counted;
- code frames: the source a frame quotes (``  12 │ x``, as the verifier reads it: no diagnostic)
  and its marker lines (``     │ ^^^``), counted; a frame line naming a path, a location or a
  commit id stays where it is; so are caret frames (the source line right under a finding and,
  right under that, a line of only blanks and ``^`` / ``~``, as gcc, javac or rubocop print
  them), unless the quoted line carries a fact;
- runs of lines of one shape (numbers, hex ids, durations and paths masked, a leader of dots
  of any length): the first and the last line of the run stay, the lines between are counted;
  so are runs of lines that take two or three shapes in turn (``Start 3: t`` then
  `` 3/9 Test #3: t .... Passed``, ctest's or ant's lines of each test), whose first and last
  cycles stay.

What stays is then folded where a tool wrote the same thing again and again (``folds``: wrapped
table cells merged onto their row; files of one folder, or places of one message, in braces).

Whatever a collapsed line names — paths, commit ids — is listed in the note that counts it, so
no fact goes; the verifier checks that, and the exit code, before the text is used.

The lines are classified in bulk (``_codes``): each question is asked of all lines at once by
``map`` over a builtin or a pattern's method, and only the lines that may answer yes are asked
the next (a frame's walk to its gutter is a ``find`` in flags); two lines are compared by
byte skeletons made a window at a time before either is masked (``_Masks``), and stretches of
chatter, and of plain lines that start no run, are taken as slices. Beside the lines and the
text it returns, it holds a few bytes a line (codes and marks, a byte each; a reference to each
line it keeps or counts) and, at a time, one chunk
of the text (``CHUNK_CHARS``) or one window of lines (``SKELETON_WINDOW``), but for the
skeletons of a text of up to ``KEEP_SKELETON_LINES`` lines, made once and kept for the masks;
a line's mask is kept by its text, so a line written again is masked once. Tests hold each
bulk answer equal to the per-line definition it stands for.
"""

from __future__ import annotations

from _bisect import bisect_left
from _operator import add, contains, eq, floordiv, is_not, itemgetter, methodcaller, sub
from itertools import accumulate, compress, repeat

from tersh._startup.lazyre import lazy, lazy_bytes
from tersh.compaction import excerpts, grepscreen, repeats, stylish
from tersh.compaction.blanks import squeeze, squeeze_bytes
from tersh.compaction.kit.base import Invocation, min_share
from tersh.compaction.verify.facts import (
    _TSC_MARKERS,
    _TSC_SOURCE,
    FRAME_REACH,
    _word_path,
    iter_commits,
    iter_locations,
    iter_paths,
    may_be_quoted_source,
    place_lines,
    quoted_source,
)

TYPE_CHECKING = False  # no typing import at run time
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Iterator, MutableSequence
    from typing import AnyStr

NAME = "generic"
CATEGORY = "other"
PROGRAMS: tuple[str, ...] = ()  # chosen by no program: it takes the last turn on any text

#: A run of at least this many lines of one shape is collapsed.
MIN_RUN = 4
#: Up to this many findings in a run stay as the tool wrote them (``path:line:col: message``),
#: as the linter rules keep theirs (``kit.diag.FEW_FINDINGS``): directly usable, and regrouping
#: them saves little; a longer run is grouped by file.
FEW_FINDINGS = 40
#: Past this many lines, an output with no diagnostic or location is left to the preview.
FLOOD_LINES = 8000
#: The folds (``folds``) are tried when at least one line in this many carries a fact or names a
#: place (they fold the findings of an output made of them; a log with a few costs them time).
FOLD_SHARE = 4
#: At most this many distinct values are listed for one collapsed run (the verifier refuses
#: the text when a fact is then missing, so the output stays whole).
MAX_VALUES = 200

# Variable fields: hex ids, numbers with their units, dates and times, paths and URLs.
_MASK = lazy(
    r"\b[a-z][a-z0-9+.-]*://\S+|[\w.@+~-]*/[\w.@+~/-]*|\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{7,40}\b"
    r"|\d+(?:[.,:/-]\d+)*(?:ms|us|µs|ns|s|m|h|%|[kKMGT]i?B)?"
)
_CHATTER = (
    (
        "log lines",
        lazy(
            r"^\s*(?:\S+\s+){0,3}\[?(?:INFO|DEBUG|TRACE|VERBOSE|FINE|FINER|FINEST|info|debug|trace)\]?[\s:]"
        ),
    ),
    (
        "download and resolve lines",
        lazy(
            r"^\s*(?:\[\w+\]\s*)?(?:Resolving|Resolved|Downloading|Downloaded|Download|Fetching|Fetched"
            r"|Progress|Receiving|Counting|Compressing|Unpacking|Extracting|Preparing)\b"
        ),
    ),
    (
        "progress lines",
        lazy(
            r"^\s*(?:\[\s*\d+(?:/\d+|%)\s*\]\s*)?(?:Checking|Processing|Scanning|Analyzing|Analysing|Linting"
            r"|Loading|Compiling|Building)\s+\S+(?::\s+\S+)?(?:\s*\.\.\.)?(?:\s+(?:OK|ok|done))?$"
            r"|^\s*\d+/\d+ (?:\w+ )+\d{1,3}(?:\.\d+)?% (?:done|complete|completed)$"
        ),
    ),
    (
        "passing-test lines",
        lazy(r"(?:\bPASSED\b|\bPASS\b|^\s*ok\b|^\s*\(pass\)|\.\.\. ok\s*$|[✓✔√]|\bSUCCESS\b|--- PASS\b)"),
    ),
    ("progress bars", lazy(r"\d{1,3}(?:\.\d+)?%.*(?:[#=█░▓▒■]{3,}|\|)|(?:[#=█░▓▒■]{3,}).*\d{1,3}%")),
    # no line is one by its own text: ``repeats.repeated_links`` finds them (see _codes)
    ("repeated link lines", lazy(r"(?!)")),
)
_REPEATED_LINK_CODE = len(_CHATTER)
# A frame's marker line, with no label: "      │ ^^^^", "  |     ---", "  |".
_FRAME_MARKERS = lazy(r"^\s*[|│][\s|│^~_\-]*$")
_FRAME = "code-frame lines"
# A caret frame's marker line: "      ^^^^", "  ^~~~~" (no bar; at least one marker).
_CARET_MARKERS = lazy(r"^[ \t]*[\^~][ \t\^~]*$")
_FINDING = lazy(r"^(?P<path>[\w.@+~/-]+\.\w+):(?P<line>\d+)(?::(?P<col>\d+))?:?\s+(?P<message>\S.*)$")


def sniff(text: str) -> float:
    """Never chosen by content: the generic compactor is the fallback, not a tool's rule."""
    return 0.0


# Every literal a chatter line holds (each _CHATTER pattern matches only where one of these
# stands): the lines without one are not read by the patterns.
# The ones that start with a lower-case letter are found with str.find (a regex stops at every
# such letter of the text).
_CHATTER_MARKS = lazy(
    "INFO|DEBUG|TRACE|VERBOSE|FINE|Resolv|Download|Fetch|Progress|Receiving|Counting"
    "|Compressing|Unpacking|Extracting|Preparing|PASS|SUCCESS|\u2713|\u2714|\u221a|%"
    "|Checking|Processing|Scanning|Analy[zs]ing|Linting|Loading|Compiling|Building"
)
_LOWER_CHATTER_MARKS = ("info", "debug", "trace", "ok", "(pass)")
_WIDE = lazy("[^\x00-\x7f]")
# A digit first on a line that has the shape of a frame's source line with no bar: "12 x",
# "12 + x" (found after the line break before it).
_DIGIT_FIRST = lazy(r"\n\d++(?: |\s*+[+~-](?:\s|$))")
#: The codes of ``_codes``: 0 a plain line, 1..len(_CHATTER) its chatter kind, then these.
_FRAME_CODE = len(_CHATTER) + 1
_PROTECTED = _FRAME_CODE + 1
_CODE_KINDS = (None, *(kind for kind, _ in _CHATTER), _FRAME)


def _lines_holding(pattern: re.Pattern[AnyStr], text: AnyStr, first: int = 0) -> Iterator[int]:
    """Indexes of the lines of ``text`` (split at ``\n``; the first is line ``first``) where
    ``pattern`` matches, in order (each line searched once, from where the match before left
    off: no call per line)."""
    newline = "\n" if isinstance(text, str) else b"\n"
    search, count, find = pattern.search, text.count, text.find
    index, last = first, 0
    match = search(text)
    while match is not None:
        start = match.start()
        index += count(newline, last, start)
        yield index
        last = find(newline, start)
        if last < 0:
            return
        match = search(text, last + 1)


#: Long texts are read this many characters at a time (whole lines), so that the working
#: copies the scans make stay small whatever the size of the output.
CHUNK_CHARS = 1 << 20


def _chunks(text: str) -> Iterator[tuple[int, str]]:
    """``(index of its first line, chunk)`` for pieces of whole lines of ``text``, the line
    break between two pieces in neither."""
    start = first = 0
    size = len(text)
    while True:
        end = text.find("\n", start + CHUNK_CHARS)
        if end < 0:
            yield first, text[start:] if start else text
            return
        chunk = text[start:end]
        yield first, chunk
        first += chunk.count("\n") + 1
        start = end + 1
        if start > size:
            return


def _wide_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every line of ``text`` that holds a character past ASCII."""
    spans: list[tuple[int, int]] = []
    search, rfind, find = _WIDE.search, text.rfind, text.find
    match = search(text)
    while match is not None:
        start = rfind("\n", 0, match.start()) + 1
        end = find("\n", start)
        if end < 0:
            spans.append((start, len(text)))
            break
        spans.append((start, end))
        match = search(text, end + 1)
    return spans


def _fact_flags(text: str) -> bytearray:
    """1 for each line of ``text`` that carries a diagnostic or a location (the verifier's
    first facts), else 0.

    ``fact_lines`` reads each line on its own, so its lines may be read in two texts: the lines
    that are ASCII (the others made empty, so that indexes stay) and the others. Its fast
    paths hold for any text but one with a letter that folds onto an ASCII one (``İ``, ``K``):
    such a letter anywhere would send a whole text to the slow ones, so the lines of a chunk
    that holds one are read in those two texts.
    """
    from tersh.compaction.verify.scan import FOLDING, fact_lines  # bulk scan: no preview import

    flags = bytearray(text.count("\n") + 1)
    for first, chunk in _chunks(text):
        if chunk.isascii() or not any(letter in chunk for letter in FOLDING):
            for index in fact_lines(chunk):
                flags[first + index] = 1
            continue
        spans = _wide_spans(chunk)
        pieces: list[str] = []
        last = 0
        for start, end in spans:
            pieces.append(chunk[last:start])
            last = end
        pieces.append(chunk[last:])
        for index in fact_lines("".join(pieces)):
            flags[first + index] = 1
        wide_lines = _lines_of(chunk, [start for start, _ in spans])
        for index in fact_lines("\n".join([chunk[start:end] for start, end in spans])):
            flags[first + wide_lines[index]] = 1
    return flags


def _lines_of(text: str, starts: list[int]) -> list[int]:
    """The line index of each of ``starts`` (sorted offsets)."""
    found: list[int] = []
    index = last = 0
    count = text.count
    for start in starts:
        index += count("\n", last, start)
        last = start
        found.append(index)
    return found


def _codes(text: str, lines: list[str], flags: bytearray) -> bytearray:
    """What the compactor needs to know of each line, one byte a line: _PROTECTED for a line
    that carries a diagnostic or a location (a code frame's quoted source aside), _FRAME_CODE
    for a frame line that names nothing, the chatter kind (1 + its index in _CHATTER), else 0.

    Found in bulk: each question is asked of many lines by ``map`` over a builtin or a pattern's
    method (no Python call per line), and of the lines that could answer yes only (a bar or a
    digit first for a frame line, a ``^`` or ``~`` for a caret frame's marker line, a mark of
    _CHATTER_MARKS for chatter). ``_line_codes`` is the same one line at a time (tests hold the
    two equal).
    """
    codes = flags.translate(_FLAG_TO_CODE)  # ``flags``: ``_fact_flags(text)``
    for index in _position_lines(text):  # a place with no path: only its line holds it
        codes[index] = _PROTECTED
    for index in _bulk_frame_lines(lines, codes, text):
        codes[index] = _FRAME_CODE
    carets = _where(_or_flags(_has(lines, "^", text), _has(lines, "~", text)))
    for index in _caret_frames(lines, codes, carets):
        codes[index] = _FRAME_CODE
    for index in _excerpt_lines(lines, codes, text):  # bandit's "174\t  code" under a finding
        codes[index] = _FRAME_CODE
    marks = _matching(_CHATTER_MARKS, lines, text)
    for mark in _LOWER_CHATTER_MARKS:
        marks = _or_flags(marks, _has(lines, mark, text))
    plain = _where(_and_flags(marks, codes.translate(_ZERO_TO_ONE)))  # marked lines of no code yet
    for code, (_, pattern) in enumerate(_CHATTER, 1):
        matched = _flags(map(pattern.search, map(lines.__getitem__, plain)))
        for index in compress(plain, matched):
            codes[index] = code
        plain = list(compress(plain, matched.translate(_ZERO_TO_ONE)))
    if repeats.URL_MARK in text:
        linked = _where(_has(lines, repeats.URL_MARK, text))
        for index in repeats.repeated_links(lines, linked, lambda index: not codes[index]):
            codes[index] = _REPEATED_LINK_CODE
    return codes


def _excerpt_lines(lines: list[str], codes: bytearray, text: str | None = None) -> list[int]:
    """The lines of numbered excerpts (``excerpts``) under a protected line that carry and name
    nothing (``codes`` 0): found from the lines a number and a tab start (``text``: the lines
    joined, searched for them; without it every line is read)."""
    if text is None:
        candidates: Iterable[int] = range(len(lines))
    elif "\t" not in text:
        return []
    else:
        candidates = [index + 1 for index in _lines_holding(excerpts.NUMBERED_AFTER_BREAK, text)]
        if excerpts.numbered(lines[0]) is not None:
            candidates = [0, *candidates]
    found = excerpts.excerpt_runs(lines, candidates, lambda index: codes[index] == _PROTECTED)
    plain = [index for index in found if not codes[index]]
    named = _naming_lines([lines[index] for index in plain])
    return [index for index, names in zip(plain, named, strict=True) if not names]


def _position_lines(text: str) -> list[int]:
    """The lines ``stylish.position_line`` accepts, found by one scan of ``text``."""
    return stylish.position_lines(text)


def _flags(found: Iterable[object]) -> bytes:
    """1 for each of ``found`` that is not None (a match), else 0, in C."""
    return bytes(map(is_not, found, repeat(None)))


def _matching(pattern: re.Pattern[str], lines: list[str], text: str) -> bytes:
    """1 for each line ``pattern`` finds something on, else 0: by a search over ``text`` (the
    lines joined) when a sample of its head says few lines match, else by ``map`` over them."""
    sample = text[: text.find("\n", _SAMPLE_CHARS) % (len(text) + 1)]
    if len(list(_lines_holding(pattern, sample))) * 4 > sample.count("\n") + 1:
        return _flags(map(pattern.search, lines))
    flags = bytearray(len(lines))
    for index in _lines_holding(pattern, text):
        flags[index] = 1
    return bytes(flags)


#: ``_matching`` reads about this many characters to tell whether a pattern is on few lines.
_SAMPLE_CHARS = 1 << 16


def _has(lines: list[str], literal: str, text: str | None = None) -> bytes:
    """1 for each line that holds ``literal``, else 0. ``text``: the lines joined, when the
    caller holds it: a literal on few lines is found there with ``str.find`` (no pass per line)."""
    if text is None or text.count(literal, 0, _SAMPLE_CHARS) * 8 > text.count("\n", 0, _SAMPLE_CHARS) + 1:
        return bytes(map(contains, lines, repeat(literal)))
    flags = bytearray(len(lines))
    count, find = text.count, text.find
    index = last = 0
    start = find(literal)
    while start >= 0:
        index += count("\n", last, start)
        flags[index] = 1
        last = find("\n", start)
        if last < 0:
            break
        start = find(literal, last + 1)
    return bytes(flags)


def _or_flags(*flags: bytes | bytearray) -> bytes:
    """Flags (bytes of 0 and 1, of one length) or-ed byte by byte, as one integer each."""
    found = 0
    for one in flags:
        found |= int.from_bytes(one, "little")
    return found.to_bytes(len(flags[0]), "little")


def _and_flags(*flags: bytes | bytearray) -> bytes:
    """Flags (bytes of 0 and 1, of one length) and-ed byte by byte, as one integer each."""
    found = -1
    for one in flags:
        found &= int.from_bytes(one, "little")
    return found.to_bytes(len(flags[0]), "little")


def _where(flags: bytes | bytearray) -> list[int]:
    """The indexes of ``flags`` that hold 1, in order."""
    return list(compress(range(len(flags)), flags))


# Codes (or flags) as flags: 1 where the byte is 0, else 0.
_ZERO_TO_ONE = bytes([1, *repeat(0, 255)])


def _bulk_frame_lines(lines: list[str], codes: bytearray, text: str | None = None) -> list[int]:
    """``_frame_lines(lines, protected, ...)`` in bulk, ``protected`` read and cleared on
    ``codes`` (a quoted line that names nothing is no longer _PROTECTED): the indexes of the
    code-frame lines that name nothing, in order (``text``: the lines joined, see ``_has``)."""
    bars = _or_flags(_has(lines, "|", text), _has(lines, "\u2502", text))
    if text is None:
        digit_first = bytes(map(str.isdigit, map(_FIRST_CHAR, lines)))
    else:  # of the lines with a digit first, only those a frame line may be ("12 x", "12 + x")
        digits = bytearray(len(lines))
        if _DIGIT_FIRST.match("\n" + text[:LONG_LINE]):
            digits[0] = 1
        for index in _lines_holding(_DIGIT_FIRST, text):
            digits[index + 1] = 1  # the break before the digit ends the line before
        digit_first = bytes(digits)
    candidates = _where(_or_flags(bars, digit_first))
    if not candidates:
        return []
    held = list(map(lines.__getitem__, candidates))
    markers = _flags(map(_FRAME_MARKERS.match, held))
    found = set(compress(candidates, markers))
    others = markers.translate(_ZERO_TO_ONE)
    rest = list(compress(candidates, others))  # a line not of a source's shape is quoted by none
    sources = list(compress(rest, _quoted_lines(lines, rest)))
    for index, names in zip(sources, _naming_lines(list(map(lines.__getitem__, sources))), strict=True):
        if not names:
            found.add(index)
            codes[index] = 0
    return sorted(found)


_FIRST_CHAR = itemgetter(slice(None, 1))
# _FRAME_GUTTER, _FRAME_SOURCE and _FRAME_ELISION on the lines of a text, each after the line
# break before it (a blank is no line break; the end of a line is a break or the end of the
# text), their leading blanks read once and no run of blanks or digits read again (what follows
# each run is not of it); tests hold each equal to its pattern on every line.
_BLANK = r"[^\S\n]"
_GUTTER_LINES = lazy(rf"\n{_BLANK}*+(?:[|\u2502]|\d++{_BLANK}++\d++{_BLANK}*+[|\u2502])")
_SOURCE_LINES = lazy(
    rf"\n{_BLANK}*+(?:(?:>{_BLANK}*+)?(?:\d++{_BLANK}++)?\d++{_BLANK}*+[|\u2502]|\d++{_BLANK}*+[+~-]"
    rf"|(?<={_BLANK})-)(?!\S)"
)
_ELISION_LINES = lazy(rf"\n{_BLANK}*+\.\.\.{_BLANK}*+(?=\n|\Z)")
_START = methodcaller("start")
#: ``_quoted_lines`` reads the lines this many at a time (at least FRAME_REACH).
FRAME_WINDOW = 4096


def _quoted_lines(lines: list[str], indexes: list[int]) -> bytes:
    """``quoted_source(lines, index)`` of each of ``indexes`` (sorted), 1 or 0: the lines of each
    window of FRAME_WINDOW lines within FRAME_REACH of one of them are matched against the frame
    patterns once, by ``map``, and the walk to a gutter is a ``find`` in those flags.

    A walk from a source line passes over the lines that are source or elision and not a
    gutter: the first it does not pass over, within FRAME_REACH lines, must be a gutter."""
    total = len(lines)
    if not indexes:
        return b""
    gutter, source, elision = bytearray(total), bytearray(total), bytearray(total)
    # the windows of FRAME_WINDOW lines a walk from one of ``indexes`` may read
    windows = set(map(floordiv, indexes, repeat(FRAME_WINDOW)))
    windows.update(map(floordiv, map(add, indexes, repeat(FRAME_REACH)), repeat(FRAME_WINDOW)))
    windows.update(map(floordiv, map(sub, indexes, repeat(FRAME_REACH)), repeat(FRAME_WINDOW)))
    for window in sorted(windows):
        low, high = window * FRAME_WINDOW, min(total, (window + 1) * FRAME_WINDOW)
        if low < 0 or low >= total:
            continue
        part = lines[low:high]  # a window at a time: bounded copies
        joined = "\n" + "\n".join(part)  # each line after a line break
        starts = list(accumulate(map(add, map(len, part), repeat(1)), initial=0))  # of its breaks
        for flags, pattern in ((gutter, _GUTTER_LINES), (source, _SOURCE_LINES), (elision, _ELISION_LINES)):
            for at in map(bisect_left, repeat(starts), map(_START, pattern.finditer(joined))):
                flags[low + at] = 1
    passed = _and_flags(_or_flags(source, elision), gutter.translate(_ZERO_TO_ONE))
    near = bytearray(total)  # the source lines of each window holding one of ``indexes`` that meet a gutter
    for window in sorted(set(map(floordiv, indexes, repeat(FRAME_WINDOW)))):
        low, high = window * FRAME_WINDOW, min(total, (window + 1) * FRAME_WINDOW)
        first, last = max(0, low - FRAME_REACH), min(total, high + FRAME_REACH)
        walked = _gutter_walks(gutter[first:last], passed[first:last])
        near[low:high] = _and_flags(walked[low - first : high - first], source[low:high])
    answers = bytearray(map(near.__getitem__, indexes))
    unanswered = list(compress(range(len(indexes)), answers.translate(_ZERO_TO_ONE)))
    held = list(map(lines.__getitem__, map(indexes.__getitem__, unanswered)))
    numbered = _flags(map(_TSC_SOURCE.match, held))  # a tsc source line: its markers right under it
    for at in compress(unanswered, numbered):
        index = indexes[at]
        number = _TSC_SOURCE.match(lines[index])
        if number is None or index + 1 >= total:
            continue
        markers = _TSC_MARKERS.match(lines[index + 1])
        if markers is not None and len(markers[1]) > len(number[1]):
            answers[at] = 1
    return bytes(answers)


def _gutter_walks(gutter: bytes | bytearray, passed: bytes | bytearray) -> bytes:
    """1 for each line from which a walk up or down over ``passed`` lines (1) first meets a
    gutter (``gutter`` 1, never passed) within FRAME_REACH lines, else 0: the walks of all the
    lines a step at a time, the flags as one integer each (a line's byte takes its neighbour's)."""
    size = len(gutter)
    gutters, passes = int.from_bytes(gutter, "little"), int.from_bytes(passed, "little")
    whole = (1 << (8 * size)) - 1
    above = below = 0  # the lines whose walk meets a gutter within the steps made
    for _ in range(FRAME_REACH):
        above = ((gutters | (passes & above)) << 8) & whole
        below = (gutters | (passes & below)) >> 8
    return (above | below).to_bytes(size, "little")


_FLAG_TO_CODE = bytes([0, _PROTECTED, *range(2, 256)])


def _line_codes(lines: list[str]) -> bytearray:
    """``_codes``, one line at a time with the per-line definitions (what the tests compare)."""
    from tersh.compaction.verify.scan import fact_lines

    protected = [bool(fact_lines(line)) or stylish.position_line(line) for line in lines]
    frames = _frame_lines(lines, protected, range(len(lines)))
    kept = bytearray(
        _PROTECTED if flag else _FRAME_CODE if i in frames else 0 for i, flag in enumerate(protected)
    )
    frames.update(_caret_frames(lines, kept, range(len(lines))))
    for index, flag in enumerate(protected):
        if not flag and index in frames:
            kept[index] = _FRAME_CODE
    frames.update(_excerpt_lines(lines, kept))
    codes = bytearray(len(lines))
    for index, line in enumerate(lines):
        if protected[index]:
            codes[index] = _PROTECTED
        elif index in frames:
            codes[index] = _FRAME_CODE
        else:
            codes[index] = _chatter_code(line)
    for index in repeats.repeated_links(lines, range(len(lines)), lambda index: not codes[index]):
        codes[index] = _REPEATED_LINK_CODE
    return codes


def _chatter_code(line: str) -> int:
    kind = _chatter_kind(line)
    return 0 if kind is None else 1 + [name for name, _ in _CHATTER].index(kind)


def _values(lines: list[str], limit: int | None = None) -> list[str]:
    """The distinct paths and commit ids the lines name, in order (the paths first), read a
    slice of lines at a time as one text (no path or commit id spans a line break) by the
    verifier's bulk readers (``_line_values`` is the same with ``iter_paths``/``iter_commits``).
    With ``limit``, the reading stops once more than ``limit`` are found (a note that would
    list them is not made): then only more than ``limit`` of them are returned."""
    from tersh.compaction.verify import scan  # the bulk readers, loaded with the first note

    found: dict[str, None] = {}
    for text in _slices(lines):  # a slice at a time: no copy of all of them
        if "/" in text or "." in text:
            words = scan._path_words(scan._without_urls(text))
            found.update(dict.fromkeys(path for path in map(_word_path, words) if path is not None))
        if limit is not None and len(found) > limit:
            return list(found)
    for text in _slices(lines):
        ids = scan.commit_words(text)
        found.update(dict.fromkeys(word for word in ids if not word.isdigit() and not word.isalpha()))
        if limit is not None and len(found) > limit:
            break
    return list(found)


def _slices(lines: list[str], size: int | None = None) -> Iterator[str]:
    """The lines, ``size`` (SKELETON_WINDOW) of them at a time, each slice as one text."""
    size = size or SKELETON_WINDOW
    for start in range(0, len(lines), size):
        yield "\n".join(lines[start : start + size])


def _line_values(lines: list[str]) -> list[str]:
    """``_values``, one line at a time with the per-line readers (what the tests compare)."""
    found = dict.fromkeys(path for line in lines for path in iter_paths(line))
    found.update(dict.fromkeys(commit for line in lines for commit in iter_commits(line)))
    return list(found)


def _note(count: int, what: str, hidden: list[str]) -> str | None:
    """The note that stands for ``count`` omitted lines (``hidden``) and lists what they name;
    None when they name more than MAX_VALUES things. A code frame's lines name nothing (they
    are frame lines because they do not): their note reads none of them."""
    values = [] if what == _FRAME else _values(hidden, MAX_VALUES)
    if len(values) > MAX_VALUES:
        return None
    named = f"; they name: {', '.join(values)}" if values else ""
    return f"[tersh: {count:,} {what} omitted{named}]"


def _grouped(findings: list[str]) -> list[str]:
    """Consecutive ``path:line[:col]: message`` findings grouped under their file, the lines of
    one message merged onto one entry (as the linter rules write them)."""
    from tersh.compaction.kit import diag as _diag  # the linters' renderer, loaded when needed

    found: list[_diag.Finding] = []
    for line in findings:
        match = _FINDING.match(line)
        assert match is not None
        place = f"{match['line']}:{match['col']}" if match["col"] else match["line"]
        found.append(_diag.Finding(match["path"], place, match["message"], line))
    return _diag.render_grouped(found)


def _finding(line: str) -> bool:
    match = _FINDING.match(line) if ":" in line else None
    return match is not None and _finding_matched(line, match)


def _finding_matched(line: str, match: re.Match[str]) -> bool:
    """Whether ``line``, which ``_FINDING`` matched (``match``), is a finding."""
    if match["message"][:1].isdigit():
        return False
    locations = list(iter_locations(line))  # one location, the one at the start of the line
    return len(locations) == 1 and locations[0][0] == match["path"]


#: A line this long is left to the preview: the shape masks are not run over it.
LONG_LINE = 4096


# _MASK for a line without "/" (its URL and path forms need one), one character consumed first so
# that the search skips what no form starts with; with no hex-id run either (seven hex digits in
# a row), the hex-id form goes too, and the search stops at digits only. Each form keeps its
# place in _MASK's order; tests hold the three equal to _MASK on the lines they are used for.
_UNITS = "(?:ms|us|\u00b5s|ns|s|m|h|%|[kKMGT]i?B)?"
_HEX_PREFIX = "(?<=0)(?<!\\w0)x[0-9a-fA-F]++\\b"
_NUMBER_REST = "(?<=\\d)\\d*+(?:[.,:/-]\\d++)*+" + _UNITS
_MASK_NO_SLASH = lazy(
    f"[\\da-f](?:{_HEX_PREFIX}|(?<=[0-9a-f])(?<!\\w[0-9a-f])[0-9a-f]{{6,39}}\\b|{_NUMBER_REST})"
)
_MASK_DIGITS = lazy(f"\\d(?:{_HEX_PREFIX}|{_NUMBER_REST})")
_MASK_FORMS = (_MASK_DIGITS, _MASK_NO_SLASH, _MASK)
# Bytes as "x" when a hex digit, line breaks as they are, the others as " " (a run of seven "x"
# is a hex-id run).
_HEX_BYTES = bytes(ord("x") if chr(c) in "0123456789abcdef" else c if c == 10 else 32 for c in range(256))
_HEX_RUN = lazy_bytes(b"xxxxxxx")  # a literal: searched far faster than x{7}


def _mask_forms(text: str, total: int, lines: list[str] | None = None) -> bytearray:
    """Which of _MASK_FORMS masks each line: 2 (all of _MASK) for a line with a "/", else 1 for
    a line with a hex-id run, else 0; plus 4 for a line with a character past ASCII.

    Each chunk's lines are tested by ``map`` over builtins (no Python call per line): three
    flags a line, summed into one byte and read through ``_FORM_OF``. ``lines``: the lines of
    ``text`` when the caller holds them (no copy of a chunk's lines then)."""
    forms = bytearray(total)
    for first, chunk in _chunks(text):
        part = chunk.split("\n") if lines is None else lines[first : first + chunk.count("\n") + 1]
        hexes = bytearray(len(part))  # few lines hold a run: found by searches, not line by line
        for index in _lines_holding(_HEX_RUN, chunk.encode("utf-8", "surrogatepass").translate(_HEX_BYTES)):
            hexes[index] = 1
        slashes = bytes(map(str.__contains__, part, repeat("/"))).translate(_TWO_FOR_ONE)
        wide = bytes(map(str.isascii, part)).translate(_FOUR_FOR_NOT_ONE)
        sums = bytes(map(add, map(add, hexes, slashes), wide))
        forms[first : first + len(part)] = sums.translate(_FORM_OF)
    return forms


# The sums of ``_mask_forms``' flags (hex run 1, "/" 2, wide 4) as forms: a "/" wins over a run.
_FORM_OF = bytes([0, 1, 2, 2, 4, 5, 6, 6, *range(8, 256)])
_TWO_FOR_ONE = bytes([0, 2, *range(2, 256)])
_FOUR_FOR_NOT_ONE = bytes([4, 0, *range(2, 256)])


# What a mask may replace on an ASCII line with no "/" (and "#", what it writes): the bytes that
# are left of such a line (its skeleton) are left of its mask too, so two such lines whose
# skeletons differ have different masks, and neither needs masking to tell.
_FIELD_BYTES = b"0123456789abcdefABCDEFx.,:/-%#msunhkKMGTiB"
# On any line a mask keeps every space, tab and other ASCII blank: the skeleton of any line.
_NOT_BLANK = bytes(c for c in range(256) if c not in b" \t\r\x0b\x0c\n")
#: Lines whose skeletons are held at a time (the window before stays too).
SKELETON_WINDOW = 4096
#: Frame lines read at a time for what they name (``_naming_lines``).
NAMING_WINDOW = 1024


# A leader of dots (``name .......... Passed``), whatever its length.
_LEADER = lazy(r"\.{3,}")


def _line_mask(line: str, form: int) -> str:
    """``line`` with its variable fields masked, by the form of _MASK_FORMS ``form`` (its
    ``_mask_forms`` byte) names."""
    masked = _MASK_FORMS[form & 3].sub("#", line)
    if "..." in masked:  # a leader of dots pads a name to a column: as padding is, no shape
        masked = _LEADER.sub("...", masked)
    # padding is no part of a shape: an ASCII line squeezed as its bytes (see ``blanks``)
    return b" ".join(masked.encode().split()).decode() if form < 4 else squeeze(masked)


class _Masks:
    """Whether two lines have the same shape (the same mask), masking a line only when the
    skeletons of the two (see _FIELD_BYTES) do not tell them apart. The skeletons are made a
    window of lines at a time, in bulk; the masks made are kept by the text of their line (a
    line's mask is made of its text alone: its form too), up to SKELETON_WINDOW of them, so a
    line written again and again (a log's own lines in each of its runs) is masked once."""

    __slots__ = ("cache", "forms", "kept", "lines", "windows")

    def __init__(self, lines: list[str], forms: bytearray, kept: _KeptSkeletons | None = None) -> None:
        """``kept``: the windows of skeletons ``_alike_after`` made, when it kept them."""
        self.lines, self.forms = lines, forms
        self.windows: list[tuple[int, list[bytes], list[bytes]]] = []
        self.cache: dict[str, str] = {}
        self.kept = kept

    def mask(self, index: int) -> str:
        """Line ``index`` with its variable fields masked."""
        line = self.lines[index]
        found = self.cache.get(line)
        if found is None:
            if len(self.cache) >= SKELETON_WINDOW:
                self.cache.clear()
            found = self.cache[line] = _line_mask(line, self.forms[index])
        return found

    def same(self, one: int, other: int) -> bool:
        """Whether lines ``one`` and ``other`` have the same mask."""
        weak = self.forms[one] >= 2 or self.forms[other] >= 2  # a "/" or a wide character
        if self._skeleton(one, weak) != self._skeleton(other, weak):
            return False
        return self.mask(one) == self.mask(other)

    def _skeleton(self, index: int, weak: bool) -> bytes:
        low, strong, blanks = self._window(index)
        return (blanks if weak else strong)[index - low]

    def _window(self, index: int) -> tuple[int, list[bytes], list[bytes]]:
        """A window of skeletons that holds line ``index``: (its first line, strong, weak); the
        windows start at multiples of SKELETON_WINDOW, as ``_alike_after`` makes them."""
        for window in self.windows:
            if 0 <= index - window[0] < len(window[1]):
                return window
        low = index - index % SKELETON_WINDOW
        kept = None if self.kept is None else self.kept.get(low)
        window = (low, *(kept or _skeletons(self.lines[low : low + SKELETON_WINDOW])))
        self.windows = [window, *self.windows[:1]]
        return window

    def run(self, index: int, codes: bytearray) -> tuple[list[int], list[int]]:
        """The lines of the shape of line ``index`` that follow it with only chatter between, and
        the chatter lines between them: ``same(other, index)`` for each line in one loop, the
        skeletons of line ``index`` and its mask read once (tests/compact/test_generic_bulk.py
        holds the line-by-line definition, ``shape_run``)."""
        forms, total = self.forms, len(self.lines)
        head_weak = forms[index] >= 2
        low, strong, blanks = self._window(index)
        head_strong, head_blanks = strong[index - low], blanks[index - low]
        head_mask: str | None = None
        members: list[int] = [index]
        between: list[int] = []
        pending: list[int] = []
        other = index + 1
        while other < total and codes[other] != _PROTECTED:
            if other - low >= len(strong):
                low, strong, blanks = self._window(other)
            at = other - low
            if codes[other] and blanks[at] != head_blanks:  # chatter: only a line of the head's
                # blanks may be alike; the stretch of chatter is searched for the next one
                stop = _PLAIN_OR_PROTECTED.search(codes, other, low + len(strong))
                end = low + len(strong) if stop is None else stop.start()
                try:
                    alike_at = blanks.index(head_blanks, at + 1, end - low)
                except ValueError:  # none: every line of the stretch waits
                    pending += range(other, end)
                    other = end
                    continue
                pending += range(other, low + alike_at)
                other, at = low + alike_at, alike_at
            weak = head_weak or forms[other] >= 2  # a "/" or a wide character: blanks only
            alike = blanks[at] == head_blanks if weak else strong[at] == head_strong
            if alike:
                if head_mask is None:
                    head_mask = self.mask(index)
                alike = self.mask(other) == head_mask
            if alike:
                members.append(other)
                between += pending
                pending = []
            elif codes[other]:
                pending.append(other)
            else:
                break
            other += 1
        return members, between


# A plain or a protected line's code (a stretch of chatter and frame lines ends there).
_PLAIN_OR_PROTECTED = lazy_bytes(b"[\\x00\\x%02x]" % _PROTECTED)
# A byte of the codes that is not the given one (a run of one code ends there).
_OTHER_CODE = [lazy_bytes(f"[^\\x{code:02x}]".encode()) for code in range(_PROTECTED + 1)]


def compact(text: str, inv: Invocation) -> str | None:
    """Collapse chatter and same-shape runs, group findings by file; None when nothing goes."""
    total = text.count("\n") + 1
    if total < MIN_RUN:
        return None
    # Each way out is asked before the costlier test is made: a flood's fact scan before its
    # split, a short text's split (for its longest line) before its fact scan.
    flags = None
    if total > FLOOD_LINES:
        if not _may_hold_facts(text):
            return None  # grep finds no line that may carry a fact: the scan would flag none
        flags = _fact_flags(text)
        if 1 not in flags:
            return None  # a flood with no fact: the preview's filler allowance shows it for less
    lines = text.split("\n")
    if max(map(len, lines)) >= LONG_LINE:
        return None  # masking lines this long backtracks for minutes (16 MB of 10 KB lines)
    if "\n " in text or "\n\t" in text:  # a linter's findings grouped under their file
        grouped = stylish.regroup(lines, text)
        if grouped is not None:
            return _regrouped(text, grouped, inv)
    if flags is None:
        flags = _fact_flags(text)
    compacted = _compacted(text, lines, _codes(text, lines, flags))
    if (flags.count(1) + len(place_lines(text))) * FOLD_SHARE < len(flags):
        return compacted  # folds fold an output made of findings: too few lines are findings
    from tersh.compaction import folds  # loaded with the first text that has fact lines

    return folds.folded(text, compacted)


def _may_hold_facts(text: str) -> bool:
    """False when ``text`` is large and grep finds no line in it that may be a fact line
    (``grepscreen``): ``_fact_flags(text)`` would flag none. True: the scan decides."""
    return len(text) < grepscreen.MIN_CHARS or grepscreen.may_hold_fact_lines(text)


def _regrouped(text: str, grouped: list[str], inv: Invocation) -> str | None:
    """The compaction of ``grouped`` (``text`` with its findings merged by ``stylish.regroup``),
    or ``grouped`` itself when nothing else goes; None when it does not save enough of ``text``."""
    regrouped = "\n".join(grouped)
    result = compact(regrouped, inv) or regrouped
    return result if len(result) < len(text) * (1 - min_share()) else None


def _lone_lines(
    lines: list[str], codes: bytearray, forms: bytearray, alike: dict[int, bytes] | None = None
) -> bytes:
    """1 for each plain line that starts no run: the line after it is protected, or plain with
    another skeleton (so another mask), or there is none; else 0. The skeletons are compared a
    window at a time, and the answer is made of flags (bytes of 0 and 1), with no call per line
    (``alike``: ``_alike_after`` with lag 1, when the caller has it)."""
    same = (alike or _alike_after(lines, forms, (1,)))[1]
    plain = codes.translate(_ZERO_TO_ONE)
    after_plain = plain[1:] + b"\x00"
    after_protected = codes.translate(_PROTECTED_TO_ONE)[1:] + b"\x01"  # after the last: as if protected
    other_shape = _and_flags(after_plain, same.translate(_ZERO_TO_ONE))
    return _and_flags(plain, _or_flags(after_protected, other_shape))


def _skeletons(lines: list[str]) -> tuple[list[bytes], list[bytes]]:
    """The strong skeleton (see _FIELD_BYTES) and the blanks (see _NOT_BLANK) of each of
    ``lines``, made of them joined, in bulk (padding is no part of a shape: see ``blanks``)."""
    part = squeeze_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
    return part.translate(None, _FIELD_BYTES).split(b"\n"), part.translate(None, _NOT_BLANK).split(b"\n")


#: The windows of skeletons of a text (by their first line): ``_alike_after`` keeps those it
#: makes for the masks (``_Masks``) when the text has at most KEEP_SKELETON_LINES lines.
_KeptSkeletons = dict[int, tuple[list[bytes], list[bytes]]]
#: Up to this many lines, the skeletons are made once for a text, not again by the masks (the
#: pipeline hands the compactor at most 25,000 lines: a few MB of skeletons at most).
KEEP_SKELETON_LINES = 1 << 15


def _alike_after(
    lines: list[str], forms: bytearray, lags: tuple[int, ...], kept: _KeptSkeletons | None = None
) -> dict[int, bytes]:
    """For each of ``lags``, 1 for each line whose skeletons are those of the line ``lag`` after
    it (the same blanks, and the same strong skeleton unless one of the two has a "/" or a wide
    character: see _FIELD_BYTES), else 0 (0 for the last ``lag`` lines). The skeletons are made
    a window of lines at a time and compared by ``map``, with no call per line; each window's
    are put in ``kept`` (by its first line) when it is given."""
    total, reach = len(lines), max(lags)
    same_strong = {lag: bytearray() for lag in lags}
    same_blanks = {lag: bytearray() for lag in lags}
    for low in range(0, total, SKELETON_WINDOW):
        high = min(total, low + SKELETON_WINDOW)
        strong, blanks = _skeletons(lines[low : high + reach])
        size = high - low
        if kept is not None:
            kept[low] = (strong[:size], blanks[:size])
        for lag in lags:  # (the lines with none ``lag`` after them: 0)
            same_strong[lag] += bytes(map(eq, strong[:size], strong[lag:])).ljust(size, b"\x00")
            same_blanks[lag] += bytes(map(eq, blanks[:size], blanks[lag:])).ljust(size, b"\x00")
    weak = forms.translate(_WEAK_TO_ONE)  # a "/" or a wide character: compared by blanks only
    return {
        lag: _and_flags(same_blanks[lag], _or_flags(same_strong[lag], weak, weak[lag:] + bytes(lag)))
        for lag in lags
    }


_PROTECTED_TO_ONE = bytes(1 if code == _PROTECTED else 0 for code in range(256))
_FRAME_TO_ONE = bytes(1 if code == _FRAME_CODE else 0 for code in range(256))
#: The blanks ``blanks.squeeze`` squeezes: a line of only these has an empty mask.
_BLANKS = " \t\r\x0b\x0c"
_WEAK_TO_ONE = bytes(1 if form >= 2 else 0 for form in range(256))


_NOT_LONE = lazy_bytes(b"[^\x01]")

#: Plain lines that repeat a cycle of this many shapes, each line of the shape of the line this
#: many before it (``Start 3: t`` / `` 3/9 Test #3: t ... Passed``), are a run too when the
#: cycle comes round at least MIN_RUN times; no run of one shape starts at any of them.
CYCLES = (2, 3)


def _cycle_flags(
    lines: list[str], lone: bytes, forms: bytearray, alike: dict[int, bytes] | None = None
) -> dict[int, bytes]:
    """For each period of CYCLES, 1 for each lone line whose skeletons are those of the line
    ``period`` after it (``_alike_after``; ``alike``: its answer for CYCLES, when the caller has
    it), the lines from one to the other all lone, else 0; an empty dict when no stretch of lone
    lines is long enough to hold MIN_RUN cycles of the shortest period."""
    if lone.find(b"\x01" * (min(CYCLES) * MIN_RUN)) < 0:
        return {}
    alike = alike or _alike_after(lines, forms, CYCLES)
    flags: dict[int, bytes] = {}
    together = lone
    for shift in range(1, max(CYCLES) + 1):
        together = _and_flags(together, lone[shift:] + bytes(shift))  # lone from here to ``shift`` after
        if shift in CYCLES:
            flags[shift] = _and_flags(alike[shift], together)
    return flags


def _cycle_run(cycles: dict[int, bytes], masks: _Masks, index: int, end: int) -> tuple[int, int, int] | None:
    """The first run of lines in a cycle (``_cycle_flags``) within lines ``index`` to ``end``
    (lone lines): ``(its first line, the line past it, its period)``, each of its lines past the
    first cycle of the mask of the line ``period`` before it, and each line of its first cycle
    of two words at least (a line of one word is a name: names in turn, ``out1`` ``err1`` or a
    listing's ``a1.c`` ``a1.h``, are no records of one kind); None when there is none."""
    best: tuple[int, int, int] | None = None
    for period in CYCLES:
        flags, need = cycles[period], period * (MIN_RUN - 1)
        start = flags.find(b"\x01" * need, index, end - period)
        while start >= 0 and (best is None or start < best[0]):
            stop = flags.find(0, start, end - period)
            stop = end - period if stop < 0 else stop
            first_other = next(
                (at for at in range(start, stop) if masks.mask(at) != masks.mask(at + period)), stop
            )
            worded = all(" " in masks.mask(at) for at in range(start, start + period))
            if first_other - start >= need and worded:
                best = (start, first_other + period, period)
                break
            start = flags.find(b"\x01" * need, first_other + 1, end - period)
    return best


def _lone_stretch(
    lines: list[str], index: int, end: int, cycles: dict[int, bytes], masks: _Masks, out: list[str]
) -> int:
    """Lines ``index`` to ``end`` (lone lines) added to ``out``: as they are but for the runs
    of lines in a cycle, whose first and last cycles stay around a note that counts the lines
    between (and lists what they name); how many lines were left out."""
    omitted = 0
    while cycles and end - index >= min(CYCLES) * MIN_RUN:
        run = _cycle_run(cycles, masks, index, end)
        if run is None:
            break
        start, stop, period = run
        hidden = lines[start + period : stop - period]
        note = _note(len(hidden), f"lines of the same {period} shapes in turn", hidden)
        out.extend(lines[index : start + period])
        if note is None:
            out.extend(hidden)
        else:
            out.append(note)
            omitted += len(hidden)
        out.extend(lines[stop - period : stop])
        index = stop
    out.extend(lines[index:end])
    return omitted


def _compacted(text: str, lines: list[str], codes: bytearray) -> str | None:
    forms = _mask_forms(text, len(lines), lines)
    kept: _KeptSkeletons | None = {} if len(lines) <= KEEP_SKELETON_LINES else None
    alike = _alike_after(lines, forms, (1, *CYCLES), kept)
    masks = _Masks(lines, forms, kept)
    lone = _lone_lines(lines, codes, forms, alike)
    cycles = _cycle_flags(lines, lone, forms, alike)
    findings = _finding_lines(lines, codes)
    in_run = _or_flags(findings, codes.translate(_FRAME_TO_ONE))  # what a findings run passes over
    short_until = 0  # the end of the last run of findings too short to be grouped
    out: list[str] = []
    chatter: dict[str, list[str]] = {}
    places: dict[str, int] = {}
    omitted = 0
    index = 0
    total = len(lines)
    while index < total:
        line = lines[index]
        code = codes[index]
        if code == _PROTECTED:
            if index >= short_until and findings[index]:
                found, end = _bulk_findings_run(findings, in_run, index)
                if len(found) > FEW_FINDINGS:
                    framed = [lines[inner] for inner in range(index, end) if codes[inner] == _FRAME_CODE]
                    if framed:  # the frames between the findings are counted as frames
                        places.setdefault(_FRAME, len(out))
                        chatter.setdefault(_FRAME, []).extend(framed)
                        omitted += len(framed)
                    out.extend(_grouped([lines[inner] for inner in found]))
                    index = end
                    continue
                short_until = end  # the findings after this one in the run make shorter runs
            # the protected lines up to the next finding past the short run stay as they are
            other = _OTHER_CODE[_PROTECTED].search(codes, index)
            end = total if other is None else other.start()
            if end > short_until:
                next_finding = findings.find(1, max(index + 1, short_until), end)
                end = end if next_finding < 0 else next_finding
            out.extend(lines[index:end])
            index = end
            continue
        if code:
            kind = _CODE_KINDS[code]
            assert kind is not None
            other = _OTHER_CODE[code].search(codes, index)
            end = total if other is None else other.start()
            if kind not in chatter:
                places[kind] = len(out)  # the note stands where the first such line stood
            chatter.setdefault(kind, []).extend(lines[index:end])
            omitted += end - index
            index = end
            continue
        if lone[index]:  # no run starts at these lines: as they are
            other = _NOT_LONE.search(lone, index)
            end = total if other is None else other.start()
            omitted += _lone_stretch(lines, index, end, cycles, masks, out)
            index = end
            continue
        if not line.strip(_BLANKS):  # its mask is empty: no run, the blank lines right after it stay
            end = index + 1
            while end < total and codes[end] != _PROTECTED and not lines[end].strip(_BLANKS):
                end += 1
            out.extend(lines[index:end])
            index = end
            continue
        members, between = masks.run(index, codes)
        # the members right after line ``index``: the lines of its shape up to the first other
        end = index + _consecutive(members)
        if end - index >= 3 and line.strip() and lines[index:end].count(line) == end - index:
            out += [line, f"[tersh: previous line repeated {end - index - 1:,} more times]"]
            omitted += end - index - 1
            index = end
            continue
        if len(members) >= MIN_RUN and masks.mask(index).strip():
            hidden = [lines[member] for member in members[1:-1]]
            note = _note(len(hidden), "lines of the same shape", hidden)
            if note is not None:
                for inner in between:  # chatter between the run's lines is counted as chatter
                    inner_kind = _CODE_KINDS[codes[inner]]
                    assert inner_kind is not None
                    places.setdefault(inner_kind, len(out))
                    chatter.setdefault(inner_kind, []).append(lines[inner])
                out += [line, note, lines[members[-1]]]
                omitted += len(hidden) + len(between)
                index = members[-1] + 1
                continue
        out.extend(lines[index:end])
        index = end
    if not omitted and len(out) == total:
        return None
    for kind in sorted(chatter, key=places.__getitem__, reverse=True):
        note = _note(len(chatter[kind]), kind, chatter[kind])
        if note is None:
            return None
        out.insert(places[kind], note)
    result = "\n".join(out)
    return result if len(result) < len(text) * (1 - min_share()) else None


def _consecutive(members: list[int]) -> int:
    """How many of ``members`` (sorted, distinct) follow the first with no gap, it included."""
    low, high = 1, len(members)  # members[:low] has no gap; find the longest such prefix
    first = members[0]
    while low < high:
        middle = (low + high + 1) // 2
        if members[middle - 1] - first == middle - 1:
            low = middle
        else:
            high = middle - 1
    return low


def _findings_run(lines: list[str], codes: bytearray, index: int) -> tuple[list[int], int]:
    """The findings that follow line ``index`` (a finding or not) with only code-frame lines
    between them, and the index past the last of them (its frame lines included), one line at
    a time (``_bulk_findings_run`` is the same in bulk; tests hold the two equal)."""
    found: list[int] = []
    end = index
    total = len(lines)
    while end < total:
        code = codes[end]
        if code == _PROTECTED and _finding(lines[end]):
            found.append(end)
        elif code != _FRAME_CODE or not found:
            break
        end += 1
    return found, end


def _bulk_findings_run(findings: bytes, in_run: bytes, index: int) -> tuple[list[int], int]:
    """``_findings_run`` from a finding (``findings[index]``), read in the flags: ``findings``
    (``_finding_lines``) and ``in_run``, 1 for a finding or a code-frame line."""
    end = in_run.find(0, index)
    end = len(in_run) if end < 0 else end
    return list(compress(range(index, end), findings[index:end])), end


def _finding_lines(lines: list[str], codes: bytearray) -> bytes:
    """1 for each protected line (``codes``) that is a finding (``_finding``), else 0: the
    pattern is matched by ``map`` over the protected lines with a colon, and only the lines it
    matches are read for their locations."""
    flags = bytearray(len(lines))
    protected = _where(codes.translate(_PROTECTED_TO_ONE))
    held = list(map(lines.__getitem__, protected))
    colons = bytes(map(contains, held, repeat(":")))
    held = list(compress(held, colons))
    for index, line, match in zip(compress(protected, colons), held, map(_FINDING.match, held), strict=True):
        if match is not None and _finding_matched(line, match):
            flags[index] = 1
    return bytes(flags)


def _frame_lines(
    lines: list[str],
    protected: MutableSequence[bool],
    candidates: Iterable[int],
) -> set[int]:
    """Indexes of the code-frame lines that name nothing (no path, location or commit id): the
    quoted code (unprotected where only its words looked like a report) and bare markers, among
    the lines ``candidates`` (in order; every line with a bar or a digit first among them),
    one line at a time (``_bulk_frame_lines`` is the same in bulk; tests hold the two equal)."""
    found: set[int] = set()
    sources: list[int] = []
    for index in candidates:
        line = lines[index]
        if "|" not in line and "\u2502" not in line and not line[:1].isdigit():
            continue
        if _FRAME_MARKERS.match(line):
            found.add(index)
        elif may_be_quoted_source(line) and quoted_source(lines, index):
            sources.append(index)
    named = [_names_something(lines[index]) for index in sources]
    for index, names in zip(sources, named, strict=True):
        if not names:
            found.add(index)
            protected[index] = False
    return found


def _naming_lines(lines: list[str]) -> bytearray:
    """``_names_something`` of each line, read a slice of lines at a time as one text by the
    verifier's bulk readers (no location, path or commit id spans a line break)."""
    from tersh.compaction.verify import scan  # the bulk readers, loaded with the first frame

    named = bytearray(len(lines))
    slices = _slices(lines, NAMING_WINDOW)  # (a split of one holds a string a word)
    for first, text in zip(range(0, len(lines), NAMING_WINDOW), slices, strict=True):
        for index in scan.located_lines(text):
            named[first + index] = 1
        for index in scan.commit_lines(text):
            named[first + index] = 1
    # a path only on a line with a "/" or a "." (as ``iter_paths`` reads them): those lines only
    dotted = _where(_or_flags(*(bytes(map(contains, lines, repeat(mark))) for mark in "/.")))
    held = list(map(lines.__getitem__, dotted))
    for first, text in zip(range(0, len(held), NAMING_WINDOW), _slices(held, NAMING_WINDOW), strict=True):
        for index in scan.path_lines(text):
            named[dotted[first + index]] = 1
    return named


def _caret_frames(lines: list[str], codes: bytearray, candidates: Iterable[int]) -> list[int]:
    """Indexes of the lines of caret frames: a finding (``path:line[:col] message``), the
    source line right under it, and right under that a marker line (``      ^^^``), among the
    marker lines ``candidates`` (in order; every line with a ``^`` or ``~`` among them). A frame
    whose quoted line or marker line is protected (``codes``: _PROTECTED), or whose quoted line
    names a path, a location or a commit id, is not one."""
    found: list[int] = []
    for index in candidates:
        if index < 2 or codes[index] == _PROTECTED or codes[index - 1] == _PROTECTED:
            continue
        if codes[index - 2] != _PROTECTED or not _CARET_MARKERS.match(lines[index]):
            continue
        if _names_something(lines[index - 1]) or not _finding(lines[index - 2]):
            continue
        found += [index - 1, index]
    return found


def _names_something(line: str) -> bool:
    return (
        next(iter_locations(line), None) is not None
        or next(iter_paths(line), None) is not None
        or next(iter_commits(line), None) is not None
    )


def _chatter_kind(line: str) -> str | None:
    if not line.strip():
        return None
    for kind, pattern in _CHATTER:
        if pattern.search(line):
            return kind
    return None
