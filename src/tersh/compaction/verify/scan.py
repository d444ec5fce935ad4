"""The bulk scanner: every fact of a large text found a chunk at a time, with no call per line.

``facts.plain_facts`` reads one line at a time with one regex per question; on an output of
millions of lines that costs seconds. The scanner reads the text in chunks of whole lines
(``_chunks``) and finds each kind of fact with searches over the whole chunk: ``str.find`` of
literal marks first (the severity words' heads, ``:`` before a digit, seven hex digits in a
row), the patterns only on the lines a mark is on, one ``split`` of the chunk when a form is on
many lines. Its answer is the plain one: tests/compact/test_verify_equivalence.py and
tests/test_verify_scan.py hold ``extract_facts`` equal to ``plain_facts`` and the line finders
below equal to ``is_diagnostic``/``iter_locations``.

The line finders (``diagnostic_lines``, ``located_lines``, ``fact_lines``,
``fact_line_offsets``) serve a bounded preview of a large output, which needs the few lines
among millions that report something or name a location. Lines are what
``chunk.split("\\n")`` gives; a line index counts from 0 within the chunk.
"""

from __future__ import annotations

from _operator import add, contains, is_not, not_, or_, sub
from itertools import accumulate, chain, compress, filterfalse, islice, repeat

from tersh._startup.lazyre import lazy, lazy_bytes
from tersh._startup.lean import deque
from tersh.compaction.ansi import strip_ansi
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify.facts import (
    _COMMIT,
    _FRAME_ELISION,
    _FRAME_GUTTER,
    _FRAME_SOURCE,
    _KINDS,
    _LOCATION_COLON,
    _PATH_CANDIDATE,
    _PATH_CHARS,
    _SEVERITY,
    _SEVERITY_HEADS,
    _SEVERITY_STEMS,
    _TRIM,
    _TSC_MARKERS,
    _TSC_SOURCE,
    _URL,
    FRAME_REACH,
    PASSING_MARKS,
    UNCHANGED_REF_MARK,
    Fact,
    _colon_location_path,
    _git_messages,
    _looks_like_git_log,
    _norm_path,
    _not_passing,
    _searching,
    _without_locations,
    _word_path,
    blank_unchanged_refs,
    is_diagnostic,
    iter_locations,
    may_be_quoted_source,
    normalize,
    quoted_source,
)

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable, Iterator
    from typing import AnyStr

# _PATH_CANDIDATE as one group: ``split`` gives the text between words and the words.
_PATH_WORD_SPLIT = lazy(f"({_PATH_CANDIDATE.pattern})")
# The same patterns for a text of many lines: a match never runs past the end of its line.
_TEXT_LOCATION_PYTHON = lazy(r'File "(?P<path>[^"\n]+)", line (?P<line>\d+)')
_TEXT_LOCATION_PAREN = lazy(
    rf"(?<![\w.@+~/-])(?P<path>{_PATH_CHARS}+\.\w+)\((?P<line>\d+)(?:,[^\S\n]*(?P<col>\d+))?\)"
)
_URL_MARK = lazy("://")
# What every colon or parenthesised location holds (cheap to find: a literal comes first).
_COLON_DIGIT = lazy(r":\d")
# Every ASCII character as "x" when a commit id may hold it, else as a space.
# ASCII as "x" (a lower-case hex digit), "w" (another word character of _COMMIT's fences) or " ".
_HEX_MARKS = str.maketrans(
    {
        chr(c): "x" if chr(c) in "0123456789abcdef" else "w" if chr(c).isalnum() or chr(c) == "_" else " "
        for c in range(128)
    }
)
_SEVEN_HEX = "x" * 7
_LONG_HEX = "x" * 41
_HEX_RUN = lazy("x{7,}")
_PAREN_DIGIT = lazy(r"\(\d")
# What every parenthesised location holds: a word character right before "(" and a digit after.
_PAREN_LOCATION_MARK = lazy(r"\w\(\d")
# Every character str.splitlines() breaks a line at, besides "\n" ("\r\n" counts once).
_OTHER_BREAKS = lazy("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_ASCII_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e"
_ALL_OTHER_BREAKS = _ASCII_OTHER_BREAKS + "\x85\u2028\u2029"

#: Large texts are read this many characters at a time (whole lines), so that the verifier's
#: working copies stay small whatever the size of the output.
CHUNK_CHARS = 1 << 20

# Order of the facts a line yields: search match, locations (three forms), diagnostic, paths,
# commits; git messages come after every other fact.
_RANK = {"match": 0, "python": 1, "paren": 2, "colon": 3, "diagnostic": 4, "path": 5, "commit": 6}
_LINE_SHIFT = 40
_RANK_SHIFT = 37
_LATE = 1 << 100
_LINE_MASK = (1 << 60) - 1


def _severe_line_starts(chunk: str) -> list[int] | None:
    """Start of every line of ``chunk`` holding a severity word outside an option (the first
    test of ``is_diagnostic``), found from the chunk's head words; None when lower-casing does
    not keep each character in place or a letter folds onto ASCII (see _stem_line_starts).

    The pattern is tried at each head word's place, and the line of each match found, by
    ``map`` (no Python call per word); only a match right after a character that is not a
    blank (``-Werror``'s ``-``, ``[ERROR]``'s ``[``) is looked at on its own, for an option.
    """
    heads = _severity_heads_of(chunk)
    if heads is None:
        return None
    matched = list(compress(heads, map(is_not, map(_SEVERITY.match, repeat(chunk), heads), repeat(None))))
    # a match after a blank (or first on its line) starts its word: it is in no option
    after_blank = bytes(map(_BLANKS.__contains__, map(chunk.__getitem__, map(sub, matched, repeat(1)))))
    starts = set(_line_starts_at(chunk, compress(matched, after_blank)))
    rfind = chunk.rfind
    for position in compress(matched, after_blank.translate(_ZERO_TO_ONE)):
        line_start = rfind("\n", 0, position) + 1
        if line_start in starts:
            continue
        space = max(rfind(" ", line_start, position), rfind("\t", line_start, position))
        word = space + 1 if space >= 0 else line_start
        if not (chunk.startswith("-", word) and word < position):  # not in an option
            starts.add(line_start)
    return sorted(starts)


# The characters after which a word starts (chunk[-1] for a match at 0: any, the check after holds).
_BLANKS = frozenset(" \t\n")
# Flags as flags the other way: 1 where the byte is 0, else 0.
_ZERO_TO_ONE = bytes([1, *repeat(0, 255)])
#: A word found more often than this in a chunk is found by one split, not a find each.
_SPLIT_FINDS = 32


#: The letters past ASCII that the case-blind severity pattern reads as ASCII ones (İ ı ſ K).
FOLDING = "\u0130\u0131\u017f\u212a"
_SEVERITY_BYTE_HEADS = tuple(head.encode() for head in _SEVERITY_HEADS)


def _severity_heads_of(chunk: str) -> list[int] | None:
    """Where each of _SEVERITY_HEADS stands in ``chunk`` lower-cased (by head, see
    ``_head_positions``); None when a letter past ASCII folds onto an ASCII one.

    Every match of _SEVERITY starts at one of them: its letters are ASCII letters (no other
    letter folds onto one), found in the chunk's ASCII bytes, each other character one ``?``
    (``encode("ascii", "replace")``: the places stay), lower-cased."""
    if chunk.isascii():
        return _head_positions(chunk.lower(), _SEVERITY_HEADS)
    if any(letter in chunk for letter in FOLDING):
        return None
    return _head_positions(chunk.encode("ascii", "replace").lower(), _SEVERITY_BYTE_HEADS)


def _head_positions(lowered: AnyStr, heads: tuple[AnyStr, ...]) -> list[int]:
    """Where each of ``heads`` (words that do not overlap themselves) stands in ``lowered``,
    head by head, each found from the end of the one before (as ``str.find`` finds them); a
    head found often is found by one ``split`` (the places are the pieces' lengths summed)."""
    positions: list[int] = []
    for head in heads:
        find, size = lowered.find, len(head)
        position = find(head)
        for _ in range(_SPLIT_FINDS):
            if position < 0:
                break
            positions.append(position)
            position = find(head, position + size)
        else:
            if position >= 0:  # the rest by one split of the text after the last found
                pieces = lowered[position:].split(head)
                pieces.pop()
                ends = accumulate(map(add, map(len, pieces), repeat(size)), initial=position)
                positions += map(sub, islice(ends, 1, None), repeat(size))
    return positions


def _line_starts_at(text: str, positions: Iterable[int]) -> Iterator[int]:
    """The start of the line of each of ``positions`` (one ``rfind`` each, by ``map``)."""
    return map(add, map(text.rfind, repeat("\n"), repeat(0), positions), repeat(1))


# ASCII: a character of a path word as itself, ``:`` as itself, any other as a space.
_PATH_WORD_MARKS = str.maketrans(
    {chr(c): chr(c) if chr(c).isalnum() or chr(c) in "_.@+~/-:" else " " for c in range(128)}
)


def _path_words(text: str) -> list[str]:
    """``_PATH_CANDIDATE.findall(text)``: every word that may be a path, in order.

    On ASCII text each run of path characters (a word of ``text`` once every other character
    but ``:`` is a space, split at ``:``) is found whole when it holds a ``/`` or a ``.`` and
    no ``:`` comes right before it; after a ``:`` the pattern's look-behind lets a word start
    only after a ``+`` or ``~`` (the path characters it does not refuse), see
    ``_after_colon``. So the words come from one ``translate`` and one ``split``, not from a
    regex tried at every character. A text past ASCII is read so once those characters are
    spaces (``_spaced_marks``) when none of them is a word character, else by the pattern."""
    if not text.isascii():
        spaced = _spaced_marks(text)
        if spaced is None:
            return _PATH_CANDIDATE.findall(text)
        text = spaced
    words: list[str] = []
    add = words.append
    for token in text.translate(_PATH_WORD_MARKS).split():
        if "/" not in token and "." not in token:  # nor any piece of it (the times of a log)
            continue
        if ":" in token:
            first, *rest = token.split(":")
            if "/" in first or "." in first:
                add(first)
            for piece in rest:
                if "/" in piece or "." in piece:
                    word = _after_colon(piece)
                    if word:
                        add(word)
        elif "/" in token or "." in token:
            add(token)
    return words


def _token_words(token: str) -> list[str]:
    """The path words of one run of path characters and ``:`` that holds a ``/`` or a ``.``
    (see ``_path_words``)."""
    if ":" not in token:
        return [token]
    words: list[str] = []
    first, *rest = token.split(":")
    if "/" in first or "." in first:
        words.append(first)
    for piece in rest:
        if "/" in piece or "." in piece:
            word = _after_colon(piece)
            if word:
                words.append(word)
    return words


# As _PATH_WORD_MARKS, line breaks kept.
_PATH_LINE_MARKS = {**_PATH_WORD_MARKS, 10: "\n"}
_ASCII_BYTES = bytes(range(128))
#: A text past ASCII with more distinct characters past ASCII is read by the path pattern.
_STAND_INS = 64


def _ascii_stand_in(text: str) -> str | None:
    """``text`` with each character past ASCII as an ASCII one that a path word reads alike,
    for telling whether a line names a path (not for the words themselves): a letter as
    ``Q`` (no extension, rate or abbreviation of ``_is_path`` holds one), another word
    character (``\\w``: ``str.isalnum``) as ``0``, any other as a space (no path character).
    None when the text holds more than _STAND_INS distinct ones."""
    wide = _wide_characters(text)
    if wide is None:
        return None
    for char in wide:
        text = text.replace(char, "Q" if char.isalpha() else "0" if char.isalnum() else " ")
    return text


def _wide_characters(text: str) -> set[str] | None:
    """The distinct characters past ASCII of ``text`` (None: more than _STAND_INS), found by
    deleting the ASCII bytes of its UTF-8 form."""
    wide_bytes = text.encode("utf-8", "surrogatepass").translate(None, _ASCII_BYTES)
    wide = set(wide_bytes.decode("utf-8", "surrogatepass"))
    return None if len(wide) > _STAND_INS else wide


def _spaced_marks(text: str) -> str | None:
    """``text`` with each character past ASCII as a space, for finding its path words: the
    same words (no such character is a path character, ``\\w`` is ``str.isalnum`` and ``_``);
    None when one of them is a word character (or there are more than _STAND_INS)."""
    wide = _wide_characters(text)
    if wide is None or any(map(str.isalnum, wide)):
        return None
    for char in wide:
        text = text.replace(char, " ")
    return text


def path_lines(text: str) -> list[int]:
    """Indexes of the lines of ``text`` (split at ``\\n``) on which ``iter_paths`` finds a path,
    in order: every line's words from one ``translate`` and a split of each line (by ``map``),
    each distinct word that may be a path judged once (``_word_path``, cached); a text past
    ASCII read through its ``_ascii_stand_in``, or by the path pattern."""
    urlfree = _without_urls(text)
    if "/" not in urlfree and "." not in urlfree:
        return []
    if not urlfree.isascii():
        stand_in = _ascii_stand_in(urlfree)
        if stand_in is None:
            return _pattern_path_lines(urlfree)
        urlfree = stand_in
    token_lists = list(map(str.split, urlfree.translate(_PATH_LINE_MARKS).split("\n")))
    tokens = list(chain.from_iterable(token_lists))
    line_of = chain.from_iterable(map(repeat, range(len(token_lists)), map(len, token_lists)))
    held = _or_bytes([bytes(map(contains, tokens, repeat(mark))) for mark in "/."], len(tokens))
    candidates = list(compress(tokens, held))
    named = {token: _names_path(token) for token in set(candidates)}
    return sorted(set(compress(compress(line_of, held), map(named.__getitem__, candidates))))


def _pattern_path_lines(urlfree: str) -> list[int]:
    """``path_lines`` of a text without URLs, by one split of it by the path pattern."""
    parts = _PATH_WORD_SPLIT.split(urlfree)  # text, word, text, word, …, text
    lines_before = accumulate(map(str.count, parts[::2], repeat("\n")))
    named = map(is_not, map(_word_path, parts[1::2]), repeat(None))
    return sorted(set(compress(lines_before, named)))


def _names_path(token: str) -> bool:
    return any(_word_path(word) is not None for word in _token_words(token))


def _path_word_set(text: str) -> set[str]:
    """``set(_PATH_CANDIDATE.findall(text))``: the ASCII lines read by ``_path_words``, and so
    are the others once their characters past ASCII are spaces (``_spaced_marks``), but for
    the lines that hold such a character that is a word character (or all of them when there
    are more than _WORDED_FINDS of those): those by the pattern (no word runs past the end of
    its line)."""
    if text.isascii():
        return set(_path_words(text))
    wide = _wide_characters(text)
    worded = None if wide is None else [char for char in wide if char.isalnum()]
    if worded is not None and not worded:  # (``_spaced_marks``, the distinct ones found once)
        for char in wide or ():
            text = text.replace(char, " ")
        return set(_path_words(text))
    lines = text.split("\n")
    found = set(_path_words("\n".join(filter(str.isascii, lines))))
    others = list(filterfalse(str.isascii, lines))
    if worded is None or len(worded) > _WORDED_FINDS:
        found.update(_PATH_CANDIDATE.findall("\n".join(others)))
        return found
    holds_word = _or_bytes([bytes(map(contains, others, repeat(char))) for char in worded], len(others))
    plain = "\n".join(compress(others, holds_word.translate(_ZERO_TO_ONE)))  # none past ASCII a word's
    spaced = _spaced_marks(plain)
    found.update(_PATH_CANDIDATE.findall(plain) if spaced is None else _path_words(spaced))
    found.update(_PATH_CANDIDATE.findall("\n".join(compress(others, holds_word))))
    return found


#: A text with more distinct word characters past ASCII than this has its lines past ASCII read
#: by the path pattern (each is looked for on every such line).
_WORDED_FINDS = 8


def _after_colon(run: str) -> str:
    """The path word ``_PATH_CANDIDATE`` finds in a run of path characters right after a ``:``
    (it may not start the run): from the first ``+`` or ``~`` after which the run still holds
    a ``/`` or a ``.``, or '' when there is none."""
    for index in range(1, len(run)):
        if run[index - 1] in "+~":
            rest = run[index:]
            if "/" in rest or "." in rest:
                return rest
            return ""
    return ""


def _has_other_breaks(text: str) -> bool:
    """Whether ``text`` holds a line break other than ``\n`` (literal finds on ASCII text)."""
    breaks = _ASCII_OTHER_BREAKS if text.isascii() else _ALL_OTHER_BREAKS
    return any(char in text for char in breaks)


def _chunks(text: str) -> Iterator[str]:
    """``text`` in pieces of whole lines, each line break written ``\\n`` (as splitlines reads)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start + CHUNK_CHARS)
        end = size if end < 0 else end + 1
        chunk = text[start:end]
        if _has_other_breaks(chunk):
            chunk = _OTHER_BREAKS.sub("\n", chunk.replace("\r\n", "\n"))
        yield chunk
        start = end


def _key(line: int, rank: int, position: int) -> int:
    """Sort key of a fact first seen on ``line``: by line, then kind, then place on the line."""
    return (line << _LINE_SHIFT) | (rank << _RANK_SHIFT) | position


def _without_urls(chunk: str) -> str:
    return _sparse_sub(_URL, _URL_MARK, chunk) if "://" in chunk else chunk


def _line_starts_of(text: str, positions: Iterable[int]) -> list[int]:
    """The start of the line of each position (sorted, each line once)."""
    starts = {text.rfind("\n", 0, position) + 1 for position in positions}
    return sorted(starts)


def _line_bounds(text: str, start: int) -> tuple[int, int]:
    end = text.find("\n", start)
    return start, len(text) if end < 0 else end


def _severity_line_starts(text: str) -> list[int] | None:
    """Start of every line of ``text`` that may hold a severity word (None: read them all)."""
    return _stem_line_starts(text, _SEVERITY_STEMS)


def _stem_line_starts(text: str, stems: tuple[str, ...]) -> list[int] | None:
    """Start of every line of ``text`` holding one of ``stems`` in any case (None: unsure)."""
    positions = _stem_positions(text, stems)
    return None if positions is None else _line_starts_of(text, positions)


def _stem_positions(text: str, stems: tuple[str, ...]) -> list[int] | None:
    """Where each of ``stems`` (lower-case) stands in ``text`` in any case, stem by stem, each
    stem's places not overlapping (None: unsure, a letter of ``text`` changes length or folds
    onto ASCII when lower-cased).

    Text past ASCII is read as its ASCII bytes, each other character one ``?`` (``encode("ascii",
    "replace")``: the places stay, and bytes lower-case faster): with no letter of FOLDING, no
    character past ASCII lower-cases to an ASCII one or to more than one."""
    if text.isascii():
        return _find_all(text.lower(), stems)
    if any(letter in text for letter in FOLDING):
        return None
    return _find_all(text.encode("ascii", "replace").lower(), tuple(stem.encode() for stem in stems))


def _find_all(lowered: AnyStr, stems: tuple[AnyStr, ...]) -> list[int]:
    """Where each of ``stems`` stands in ``lowered``, stem by stem, each found from the end of
    the one before."""
    positions: list[int] = []
    find = lowered.find
    for stem in stems:
        position = find(stem)
        while position >= 0:
            positions.append(position)
            position = find(stem, position + len(stem))
    return positions


def _sparse_spans(text: str, hint: re.Pattern[str], after_word: bool = False) -> list[tuple[int, int]] | None:
    """The lines of ``text`` where ``hint`` occurs, as ``(start, end)`` spans of adjacent lines.

    With ``after_word``, only the hints right after a word character count. None when ``hint``
    occurs on so many lines that one scan of the whole text is cheaper.
    """
    found: Iterable[int] = (match.start() for match in hint.finditer(text))
    if after_word:
        found = (hit for hit in found if hit and (text[hit - 1].isalnum() or text[hit - 1] == "_"))
    # one past as many as a sparse text may hold: the rest are not looked for
    hits = list(islice(found, (text.count("\n") + 1) // 8 + 1))
    return _spans_of(text, hits)


def _colon_spans(urlfree: str) -> list[tuple[int, int]] | None:
    """``_sparse_spans`` for the colon form of a text without URLs, from the colons where a
    location may end its path (``_colon_candidates``): the times of day of a log are no hint."""
    return _spans_of(urlfree, _colon_candidates(urlfree, (urlfree.count("\n") + 1) // 8 + 1))


def _spans_of(text: str, hits: list[int]) -> list[tuple[int, int]] | None:
    """The lines of ``text`` holding a position of ``hits`` (sorted) as spans of adjacent lines
    (see ``_sparse_spans``); None when they are so many that one scan of the text is cheaper."""
    if len(hits) * 8 > text.count("\n") + 1:
        return None
    spans: list[tuple[int, int]] = []
    for start in _line_starts_of(text, hits):
        _, end = _line_bounds(text, start)
        if spans and spans[-1][1] + 1 >= start:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _bare_lines(chunk: str) -> list[str]:
    """``_without_locations`` of each line of ``chunk``, read as one text (each form is blanked
    out only on the lines that hold its mark)."""
    if 'File "' in chunk:
        chunk = _TEXT_LOCATION_PYTHON.sub(" ", chunk)
    if "(" in chunk:
        chunk = _sparse_sub(_TEXT_LOCATION_PAREN, _PAREN_LOCATION_MARK, chunk)
    if ":" in chunk:
        chunk = _sparse_sub(_LOCATION_COLON, _COLON_DIGIT, chunk)
    return list(map(str.strip, _normalized(chunk.split("\n")), repeat(_TRIM)))


def _bare_messages(lines: list[str]) -> list[str]:
    """``_without_locations`` of each line (lines without line breaks), read as one text."""
    return _bare_lines("\n".join(lines))


def _sparse_sub(pattern: re.Pattern[str], hint: re.Pattern[str], text: str) -> str:
    """``pattern.sub(" ", text)`` for a pattern whose matches hold ``hint`` and stay on one
    line: only the lines where ``hint`` occurs are read."""
    spans = _sparse_spans(text, hint)
    if spans is None:
        return pattern.sub(" ", text)
    return _sub_spans(pattern, text, spans)


def _sub_spans(pattern: re.Pattern[str], text: str, spans: list[tuple[int, int]]) -> str:
    """``pattern.sub(" ", text)`` for a pattern whose matches stay on one line and lie within
    ``spans`` (whole lines)."""
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces += (text[last:start], pattern.sub(" ", text[start:end]))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _commit_matches(text: str) -> Iterator[re.Match[str]]:
    """Every _COMMIT match in ``text``, reading only lines with seven hex digits in a row.

    A text past ASCII is read as its ASCII copy, each other character a ``?``
    (``encode("ascii", "replace")``: one a character, so the places stay): _COMMIT's classes
    are ASCII ones, so a character past ASCII is to it what a ``?`` is, and the matches (their
    text, their places) are the same."""
    text = _ascii_copy(text)
    yield from _marked_commit_matches(text, text.translate(_HEX_MARKS))  # a fast copy, then fast finds


def _marked_commit_matches(text: str, marked: str) -> Iterator[re.Match[str]]:
    """``_commit_matches`` of an ASCII text, ``marked`` its _HEX_MARKS (line breaks kept or not)."""
    position = marked.find(_SEVEN_HEX)
    while position >= 0:
        start, end = _line_bounds(text, text.rfind("\n", 0, position) + 1)
        if marked.find(_LONG_HEX, start, end) < 0:
            yield from _COMMIT.finditer(text, start, end)
        else:  # the pattern would try every digit of a long run of digits
            yield from _runs_of_hex(text, marked, start, end)
        position = marked.find(_SEVEN_HEX, end)


# ASCII: a character _COMMIT's fences refuse (``[0-9a-zA-Z_]``) as itself, any other as a space;
# the same with line breaks kept, and _HEX_MARKS so.
_COMMIT_WORD_MARKS = str.maketrans(
    {chr(c): chr(c) if chr(c).isalnum() or chr(c) == "_" else " " for c in range(128)}
)
_COMMIT_LINE_MARKS = {**_COMMIT_WORD_MARKS, 10: "\n"}
_HEX_LINE_MARKS = {**_HEX_MARKS, 10: "\n"}
# The marks of a word that is a _COMMIT match: 7 to 40 lower-case hex digits.
_HEX_WORDS = frozenset("x" * size for size in range(7, 41))


def _ascii_copy(text: str) -> str:
    """``text`` with each character past ASCII as a ``?`` (one a character: the places stay)."""
    return text if text.isascii() else text.encode("ascii", "replace").decode("ascii")


def commit_words(text: str) -> list[str]:
    """``_COMMIT.findall(text)``, in order.

    A match is a whole word of ``[0-9a-zA-Z_]`` characters (its fences refuse them, and a
    longer run of hex digits holds none) of 7 to 40 lower-case hex digits: the words of the
    text once every other character is a space, paired with the words of its _HEX_MARKS,
    are kept where the marks are 7 to 40 ``x`` (a set lookup, by ``map``). A text past
    ASCII is read as its ASCII copy (``_ascii_copy``: _COMMIT's classes are ASCII ones)."""
    text = _ascii_copy(text)
    marked = text.translate(_HEX_MARKS)
    if _sparse_hex(text, marked):
        return [match.group() for match in _marked_commit_matches(text, marked)]
    marks = marked.split()
    return list(compress(text.translate(_COMMIT_WORD_MARKS).split(), map(_HEX_WORDS.__contains__, marks)))


def commit_lines(text: str) -> list[int]:
    """Indexes of the lines of ``text`` (split at ``\\n``) on which ``iter_commits`` finds a
    commit id, in order (the words of ``commit_words``, each line's by ``map``)."""
    text = _ascii_copy(text)
    marked = text.translate(_HEX_LINE_MARKS)
    if _sparse_hex(text, marked):
        return _indexes_of_matches(text, _marked_commit_matches(text, marked))
    mark_lists = list(map(str.split, marked.split("\n")))
    words = chain.from_iterable(map(str.split, text.translate(_COMMIT_LINE_MARKS).split("\n")))
    line_of = chain.from_iterable(map(repeat, range(len(mark_lists)), map(len, mark_lists)))
    hexes = bytes(map(_HEX_WORDS.__contains__, chain.from_iterable(mark_lists)))
    found = list(compress(words, hexes))
    mixed = map(not_, map(or_, map(str.isdigit, found), map(str.isalpha, found)))
    return sorted(set(compress(compress(line_of, hexes), mixed)))


def _sparse_hex(text: str, marked: str) -> bool:
    """Whether runs of seven hex digits are on less than about half the lines of ``text``
    (``marked``: its hex marks), so that reading only their lines (``_commit_matches``) is
    cheaper than splitting all of them."""
    return marked.count(_SEVEN_HEX, 0, _SAMPLE_CHARS) * 2 < text.count("\n", 0, _SAMPLE_CHARS) + 1


#: ``_sparse_hex`` reads about this many characters.
_SAMPLE_CHARS = 1 << 16


def _indexes_of_matches(text: str, matches: Iterable[re.Match[str]]) -> list[int]:
    """The line index of each commit id among ``matches`` (in order), each line once."""
    found: list[int] = []
    index = last = 0
    count = text.count
    for match in matches:
        word = match.group()
        if not word.isdigit() and not word.isalpha():
            index += count("\n", last, match.start())
            last = match.start()
            if not found or found[-1] != index:
                found.append(index)
    return found


def _runs_of_hex(text: str, marked: str, start: int, end: int) -> Iterator[re.Match[str]]:
    """The _COMMIT matches of ``text[start:end]``: a match is a whole run of word characters
    that are all lower-case hex digits, 7 to 40 of them, so each run of hex marks is judged
    once, by its length and its neighbours."""
    size = len(marked)
    for run in _HEX_RUN.finditer(marked, start, end):
        first, last = run.span()
        if last - first > 40 or (first and marked[first - 1] == "w") or (last < size and marked[last] == "w"):
            continue
        found = _COMMIT.match(text, first, last)
        if found is not None:
            yield found


def _scan(
    text: str, pattern: re.Pattern[str], hint: re.Pattern[str], after_word: bool = False
) -> Iterator[re.Match[str]]:
    """Every match of ``pattern`` in ``text``, reading only the lines where ``hint`` occurs."""
    return _scan_spans(text, pattern, _sparse_spans(text, hint, after_word))


def _scan_spans(
    text: str, pattern: re.Pattern[str], spans: list[tuple[int, int]] | None
) -> Iterator[re.Match[str]]:
    """Every match of ``pattern`` in ``text`` (one line at most each) within ``spans`` (whole
    lines that hold every match; None: all of the text)."""
    if spans is None:
        yield from pattern.finditer(text)
        return
    for start, end in spans:
        yield from pattern.finditer(text, start, end)


def _iter_text_locations(
    urlfree: str,
    paren: bool = True,
    colon: bool = True,
    colon_spans: list[tuple[int, int]] | None = None,
) -> Iterator[tuple[int, int, str, str, str]]:
    """``(rank, start, path, line, col)`` of every location in a chunk without URLs (the
    parenthesised and colon forms only with ``paren`` and ``colon``; ``colon_spans``: the
    chunk's ``_colon_spans`` when known).

    The three forms come one after the other (a line's Python locations before its others).
    """
    if 'File "' in urlfree:
        for match in _TEXT_LOCATION_PYTHON.finditer(urlfree):
            yield 1, match.start(), _norm_path(match["path"]), match["line"], ""
    if paren and "(" in urlfree:
        for match in _scan(urlfree, _TEXT_LOCATION_PAREN, _PAREN_DIGIT, after_word=True):
            path = _norm_path(match["path"])
            yield 2, match.start(), path, match["line"], match["col"] or ""
    if colon and ":" in urlfree:
        spans = colon_spans if colon_spans is not None else _colon_spans(urlfree)
        for match in _scan_spans(urlfree, _LOCATION_COLON, spans):
            path, row, col = match.groups()
            named = _colon_location_path(path)
            if named is not None:
                yield 3, match.start(), named, row, col or ""


class _Facts:
    """Every protected fact of a text by kind: fact text -> sort key of its first sighting."""

    def __init__(
        self, source: str, inv: Invocation | None, skip: tuple[set[str], ...] = (), placed: bool = True
    ) -> None:
        """Read ``source``, all of it or only its lines not skipped (see ``_blanked_chunks``).

        Without ``placed``, a path is only known to be there: its sort key is the first line of
        its chunk (enough to ask whether a proposal keeps every fact, not to say where one is).
        """
        self.placed = placed
        self.by_kind: dict[str, dict[str, int]] = {kind: {} for kind in _KINDS}
        chunks = _blanked_chunks(source, *skip) if skip else _chunks(source)
        if UNCHANGED_REF_MARK in source and not _searching(inv):  # git's unchanged refs: no fact
            chunks = map(blank_unchanged_refs, chunks)
        self.read(chunks, inv)
        if _looks_like_git_log(inv, list(islice(_chunk_lines(source), 50))):
            messages = self.by_kind["message"]
            for fact in _git_messages(source.splitlines()):
                if fact.text and fact.text not in messages:
                    messages[fact.text] = _LATE | _key(fact.line, 0, 0)

    def read(self, chunks: Iterable[str], inv: Invocation | None) -> None:
        """Record the facts of every line of ``chunks`` (whole lines, ``\n`` breaks) but git
        commit messages (each other fact belongs to one line)."""
        searching = _searching(inv)
        first_line = 1
        base = 0
        for chunk, lines, frame in _with_frame_context(chunks):
            if searching:
                self._matches(lines, first_line, base)
            urlfree = _without_urls(chunk)
            located, bare = self._locations(urlfree, first_line, base)
            bare = bare if urlfree is chunk else None
            self._diagnostics(chunk, lines, located, first_line, base, bare, frame)
            self._paths(urlfree, first_line, base)
            self._commits(chunk, first_line, base)
            first_line += chunk.count("\n")
            base += len(chunk) + 1

    def _matches(self, lines: list[str], first_line: int, base: int) -> None:
        found = self.by_kind["match"]
        for number, line in enumerate(lines, first_line):
            text = normalize(line)
            if text and text not in found:
                found[text] = _key(number, _RANK["match"], base)

    def _locations(self, urlfree: str, first_line: int, base: int) -> tuple[set[int], list[str] | None]:
        """Record every location; return the chunk's line indexes that hold one and, when the
        scans made it cheap, the chunk's lines with their locations blanked out the way
        ``_without_locations`` does it (before white space is collapsed), else None.

        A form found on many lines is read by one split of the chunk (no call per match).
        """
        located: set[int] = set()
        colon_spans = _colon_spans(urlfree) if ":" in urlfree else []
        colon_dense = colon_spans is None
        paren_dense = "(" in urlfree and _sparse_spans(urlfree, _PAREN_DIGIT, after_word=True) is None
        blanked: str | None = None if 'File "' in urlfree else urlfree
        if paren_dense:
            parts = _TEXT_LOCATION_PAREN.split(urlfree)  # text, path, line, col, text, …
            self._split_locations(parts, _RANK["paren"], _norm_path, first_line, base, located)
            if blanked is not None and len(parts) > 1:
                blanked = " ".join(parts[::4])
        scanned = self._scanned_locations(urlfree, first_line, base, located, not paren_dense, colon_spans)
        if scanned:
            blanked = None  # a sparse form found something: its lines are blanked one by one
        if colon_dense:
            parts = _LOCATION_COLON.split(urlfree)
            self._split_locations(parts, _RANK["colon"], _colon_location_path, first_line, base, located)
            if blanked is urlfree:
                blanked = " ".join(parts[::4])
            elif blanked is not None:
                blanked = _LOCATION_COLON.sub(" ", blanked)
        elif blanked is not None and ":" in blanked:  # a colon + digit on many lines: times of day
            spans = _sparse_spans(blanked, _COLON_DIGIT)  # blanked by one scan only when few
            blanked = None if spans is None else _sub_spans(_LOCATION_COLON, blanked, spans)
        return located, None if blanked is None else blanked.split("\n")

    def _scanned_locations(
        self,
        urlfree: str,
        first_line: int,
        base: int,
        located: set[int],
        paren: bool,
        colon_spans: list[tuple[int, int]] | None,
    ) -> bool:
        """Record the locations the per-match scans find (Python form; the others when asked:
        the colon form in ``colon_spans``, none when None); whether they found any."""
        found = self.by_kind["location"]
        index = last = 0
        count, get = urlfree.count, found.get
        any_found = False
        colon = colon_spans is not None
        for rank, start, path, row, col in _iter_text_locations(urlfree, paren, colon, colon_spans):
            if start < last:
                index, last = 0, 0
            index += count("\n", last, start)
            last = start
            located.add(index)
            any_found = True
            text = f"{path}:{row}:{col}" if col else f"{path}:{row}"
            key = ((first_line + index) << _LINE_SHIFT) | (rank << _RANK_SHIFT) | (base + start)
            if key < get(text, _LATE):
                found[text] = key
        return any_found

    def _split_locations(
        self,
        parts: list[str],
        rank: int,
        path_of: Callable[[str], str | None],
        first_line: int,
        base: int,
        located: set[int],
    ) -> None:
        """Record the locations of a chunk split by their regex (one scan, no call per match but
        ``path_of``, cached). A match's place on its line is its rank in the chunk.
        """
        found = self.by_kind["location"]
        get = found.get
        rank <<= _RANK_SHIFT
        lines_before = accumulate(map(str.count, parts[::4], repeat("\n")))
        paths = map(path_of, parts[1::4])
        matches = zip(lines_before, paths, parts[2::4], parts[3::4], strict=False)  # one more text
        for number, (index, path, row, col) in enumerate(matches):
            if path is None:
                continue
            located.add(index)
            text = f"{path}:{row}:{col}" if col else f"{path}:{row}"
            key = ((first_line + index) << _LINE_SHIFT) | rank | (base + number)
            if key < get(text, _LATE):
                found[text] = key

    def _diagnostics(
        self,
        chunk: str,
        lines: list[str],
        located: set[int],
        first_line: int,
        base: int,
        bare: list[str] | None,
        frame: _FrameContext,
    ) -> None:
        candidates = located.copy()
        severe = _severe_line_starts(chunk)
        starts = severe if severe is not None else _severity_line_starts(chunk)
        if starts is None:
            starts = _line_starts_of(chunk, (match.start() for match in _SEVERITY.finditer(chunk)))
        report = _not_passing if severe is not None else is_diagnostic
        index = last = 0
        for start in starts:
            index += chunk.count("\n", last, start)
            last = start
            if index not in candidates and report(lines[index]):
                candidates.add(index)
        candidates.difference_update([index for index in candidates if frame.quoted(index)])
        if not candidates:
            return
        found = self.by_kind["diagnostic"]
        rank = _RANK["diagnostic"]
        order = sorted(candidates)
        messages: Iterable[str]
        if len(order) < 64:
            messages = (_without_locations(lines[index]) for index in order)
        elif bare is not None:
            messages = map(str.strip, _normalized(bare[index] for index in order), repeat(_TRIM))
        else:  # one scan per location form over all the lines, not three calls per line
            messages = _bare_messages([lines[index] for index in order])
        for index, message in zip(order, messages, strict=True):
            if len(message) >= 3 and message not in found:
                found[message] = _key(first_line + index, rank, base)

    def _paths(self, urlfree: str, first_line: int, base: int) -> None:
        """Record every path; one split of the chunk finds the words and where they stand."""
        if "/" not in urlfree and "." not in urlfree:
            return
        found = self.by_kind["path"]
        if not self.placed:  # each distinct word judged once, no place counted
            key = _key(first_line, _RANK["path"], base)
            for path in map(_word_path, _path_word_set(urlfree)):
                if path is not None and path not in found:
                    found[path] = key
            return
        parts = _PATH_WORD_SPLIT.split(urlfree)  # text, word, text, word, …, text
        paths = list(map(_word_path, parts[1::2]))
        # each path once, at its first word (a dict keeps the last value given: read backwards)
        first = dict(zip(reversed(paths), range(len(paths) - 1, -1, -1), strict=True))
        first.pop(None, None)
        new = [(number, path) for path, number in first.items() if path not in found]
        if not new:
            return
        new.sort()
        starts = list(accumulate(map(len, parts)))  # a word starts where its text before ends
        rank = _RANK["path"]
        index = last = 0
        for number, path in new:
            start = starts[2 * number]
            index += urlfree.count("\n", last, start)
            last = start
            found[str(path)] = _key(first_line + index, rank, base + start)

    def _commits(self, chunk: str, first_line: int, base: int) -> None:
        found = self.by_kind["commit"]
        rank = _RANK["commit"]
        index = last = 0
        for match in _commit_matches(chunk):
            word = match.group()
            if word in found or word.isdigit() or word.isalpha():
                continue
            start = match.start()
            index += chunk.count("\n", last, start)
            last = start
            found[word] = _key(first_line + index, rank, base + start)

    def ordered(self, kinds: Iterable[str] = _KINDS) -> list[Fact]:
        """The facts of ``kinds`` in the order first seen."""
        by_key = {key: (kind, text) for kind in kinds for text, key in self.by_kind[kind].items()}
        return [Fact(*by_key[key], (key >> _LINE_SHIFT) & _LINE_MASK) for key in sorted(by_key)]


def extract_facts(source: str, inv: Invocation | None = None) -> list[Fact]:
    """Every protected fact of ``source``, deduplicated, in the order first seen.

    Colour codes never hide a fact: the text is read as a terminal shows it.
    """
    return _Facts(strip_ansi(source), inv).ordered()


class _FrameContext:
    """The lines of a chunk with the FRAME_REACH lines before and after it, to tell which of its
    lines are source quoted in a code frame (``facts.quoted_source``)."""

    __slots__ = ("after", "before", "lines")

    def __init__(self, lines: list[str], before: list[str], after: list[str]) -> None:
        self.lines, self.before, self.after = lines, before, after

    def quoted(self, index: int) -> bool:
        """Whether line ``index`` of the chunk is quoted source (read across the chunk's edges)."""
        lines = self.lines
        if not may_be_quoted_source(lines[index]):
            return False
        low, high = index - FRAME_REACH, index + FRAME_REACH + 1
        if low >= 0 and high <= len(lines):
            return quoted_source(lines[low:high], FRAME_REACH)
        before = self.before[max(0, len(self.before) + low) :] if low < 0 else []
        window = before + lines[max(low, 0) : high] + self.after[: max(high - len(lines), 0)]
        return quoted_source(window, len(before) + index - max(low, 0))


def _with_frame_context(chunks: Iterable[str]) -> Iterator[tuple[str, list[str], _FrameContext]]:
    """Each chunk (whole lines), its lines, and its frame context: the FRAME_REACH lines before
    it and after it, from as many chunks around it as they take."""
    source = iter(chunks)
    pending: deque[tuple[str, list[str]]] = deque()
    ahead = 0  # lines in the chunks pending after the first
    before: deque[str] = deque(maxlen=FRAME_REACH)
    exhausted = False
    while True:
        while not exhausted and (not pending or ahead < FRAME_REACH):
            chunk = next(source, None)
            if chunk is None:
                exhausted = True
                break
            lines = chunk.split("\n")
            if chunk.endswith("\n"):
                lines.pop()
            if pending:
                ahead += len(lines)
            pending.append((chunk, lines))
        if not pending:
            return
        chunk, lines = pending.popleft()
        if pending:
            ahead -= len(pending[0][1])
        after = list(islice(chain.from_iterable(lines for _, lines in pending), FRAME_REACH))
        yield chunk, lines, _FrameContext(lines, list(before), after)
        before.extend(lines[-FRAME_REACH:])


def _normalized(lines: Iterable[str]) -> Iterator[str]:
    """``normalize`` of each line (that holds no line break), without a call per line."""
    return map(" ".join, map(str.split, lines))


def _location_triples(urlfree: str) -> set[tuple[str, str, str]]:
    """``(path, line, col)`` of every location of a chunk without URLs (col may be '');
    a form found on many lines is read by one split."""
    colon_spans = _colon_spans(urlfree) if ":" in urlfree else []
    colon_dense = colon_spans is None
    paren_dense = "(" in urlfree and _sparse_spans(urlfree, _PAREN_DIGIT, after_word=True) is None
    scanned = _iter_text_locations(urlfree, not paren_dense, not colon_dense, colon_spans)
    found = {(path, row, col) for _, _, path, row, col in scanned}
    forms = (
        (paren_dense, _TEXT_LOCATION_PAREN, _norm_path),
        (colon_dense, _LOCATION_COLON, _colon_location_path),
    )
    for dense, pattern, path_of in forms:
        if dense:
            parts = pattern.split(urlfree)
            triples = set(zip(parts[1::4], parts[2::4], parts[3::4], strict=True))
            for raw, row, col in triples:
                path = path_of(raw)
                if path is not None:
                    found.add((path, row, col or ""))
    return found


def _chunk_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` as ``_Facts`` reads them."""
    for chunk in _chunks(text):
        lines = chunk.split("\n")
        if chunk.endswith("\n"):
            lines.pop()
        yield from lines


def _blanked_chunks(
    source: str, held: set[str], rebuilt: set[str] | None = None, entries: set[str] | None = None
) -> Iterator[str]:
    """The chunks of ``source`` with every line in ``held`` or ``rebuilt`` (spaces and tabs around
    it aside), or in ``entries`` once white space is collapsed, made empty: the line numbers
    stay, the facts of those lines go. A line a code frame may be made of stays (whether the
    lines around it are quoted code depends on it).

    Each chunk's distinct lines are matched against the sets once; a line is blanked by one dict
    lookup (no call per line)."""
    for chunk in _chunks(source):
        lines = chunk.split("\n")
        # whether a line is blanked depends on its text alone: each distinct one is judged once
        distinct = list(set(lines))
        stripped = list(map(str.strip, distinct, repeat(" \t")))
        flags = list(map(held.__contains__, stripped))
        if rebuilt:
            flags = list(map(or_, flags, map(rebuilt.__contains__, stripped)))
        if entries:
            flags = list(map(or_, flags, map(entries.__contains__, _normalized(distinct))))
        held_here = list(compress(distinct, flags))
        blank = list(compress(held_here, map(not_, map(_IN_FRAME_SHAPE.match, held_here))))
        if blank:
            yield "\n".join(map(dict.fromkeys(blank, "").get, lines, lines))
        else:
            yield chunk


# ``in_frame_shape`` as one pattern: one match a line, no call per line (a test holds the two equal).
_IN_FRAME_SHAPE = lazy(
    "|".join(
        f"(?:{pattern.pattern})"
        for pattern in (_FRAME_SOURCE, _TSC_SOURCE, _FRAME_GUTTER, _FRAME_ELISION, _TSC_MARKERS)
    )
)
# Every location iter_locations finds holds one of these: "path:12", "file.c(12", 'File "'.
# Three patterns that each start with a literal are searched far faster than one alternation.
_LOCATION_MARKS = (lazy(r":\d"), lazy(r"\(\d"), lazy('File "'))


def _lines_at(chunk: str, starts: list[int]) -> Iterator[str]:
    """The line of ``chunk`` that starts at each of ``starts`` (by ``map``: no call per line)."""
    ends = list(map(chunk.find, repeat("\n"), starts))
    if ends and ends[-1] < 0:  # only the last line may end with no break
        ends[-1] = len(chunk)
    return map(chunk.__getitem__, map(slice, starts, ends))


def _indexed(chunk: str, starts: list[int]) -> list[tuple[int, int]]:
    """``(index, start)`` of the lines starting at ``starts`` (sorted, distinct): each index by
    one count of the breaks since the start before, by ``map``."""
    counts = map(chunk.count, repeat("\n"), [0, *starts[:-1]], starts)
    return list(zip(accumulate(counts), starts, strict=True))


def _diagnostic_starts(chunk: str) -> list[int]:
    """Start of every line of ``chunk`` for which ``is_diagnostic`` holds, in order.

    The lines with a severity word outside an option report something unless a test runner
    marks them as passing; only those that hold one of PASSING_MARKS are read for that."""
    severe = _severe_line_starts(chunk)
    if severe is None:
        starts = _line_starts_of(chunk, [match.start() for match in _SEVERITY.finditer(chunk)])
        return list(compress(starts, map(is_diagnostic, _lines_at(chunk, starts))))
    if not severe:
        return severe
    lines = list(_lines_at(chunk, severe))
    marked = _or_bytes([bytes(map(contains, lines, repeat(mark))) for mark in PASSING_MARKS], len(lines))
    if not any(marked):
        return severe
    reports = bytearray(marked.translate(_ZERO_TO_ONE))
    for at in compress(range(len(lines)), marked):
        reports[at] = _not_passing(lines[at])
    return list(compress(severe, reports))


def _or_bytes(flags: list[bytes], size: int) -> bytes:
    """Flags (bytes of 0 and 1, of length ``size``) or-ed byte by byte, as one integer each."""
    found = 0
    for one in flags:
        found |= int.from_bytes(one, "little")
    return found.to_bytes(size, "little")


def _diagnostic(chunk: str) -> list[tuple[int, int]]:
    return _indexed(chunk, _diagnostic_starts(chunk))


def _has_location(line: str) -> bool:
    return next(iter_locations(line), None) is not None


def _located_starts(chunk: str) -> list[int]:
    """Start of every line of ``chunk`` on which ``iter_locations`` finds a location, in order:
    it reads the lines with a mark every location holds (``(`` + digit, ``File "``, a
    candidate colon: ``_colon_candidates``)."""
    positions = [match.start() for mark in _LOCATION_MARKS[1:] for match in mark.finditer(chunk)]
    if ":" in chunk:
        positions += _colon_candidates(chunk)
    starts = _line_starts_of(chunk, positions)
    return list(compress(starts, map(_has_location, _lines_at(chunk, starts))))


def _located(chunk: str) -> list[tuple[int, int]]:
    return _indexed(chunk, _located_starts(chunk))


# ASCII as "a" (a letter), "0" (another character of a path), ":" (itself) or " " (the rest).
_PATH_LETTER_MARKS = str.maketrans(
    {
        chr(c): "a"
        if chr(c).isalpha()
        else "0"
        if chr(c).isalnum() or chr(c) in "_.@+~/-"
        else ":"
        if chr(c) == ":"
        else " "
        for c in range(128)
    }
)
# In those marks read backwards: a digit (or another path character), a colon, then path
# characters up to a letter (a literal comes first: a fast search, where the letter-first form
# is tried at every letter).
_LETTERED_COLON_BACKWARDS = lazy("0:0*+a")
# The same over bytes where each character past ASCII is a "?" (``encode("ascii", "replace")``
# keeps one byte a character), marked "b": it may be a digit, a letter or no path character, so
# it counts as a digit after the colon and as a letter before it (so does a "?" of the text).
# (Two patterns, each led by a literal: searched far faster than one led by a class.) The second
# only looks at the letter after its digits: that "b" may lead the next match ("b:b:" of
# "é.py:٣:İ" holds two).
_WIDE_LETTERED_COLON_BACKWARDS = (lazy_bytes(b"0:0*+[ab]"), lazy_bytes(b"b:0*+(?=[ab])"))
_PATH_LETTER_BYTES = bytes(
    ord("b") if c == ord("?") else ord(chr(c).translate(_PATH_LETTER_MARKS)) if c < 128 else 32
    for c in range(256)
)


def _colon_candidates(chunk: str, limit: int | None = None) -> list[int]:
    """Where a ``:`` + digit may end the path of a colon location. On an ASCII chunk only where
    the run of path characters before the colon holds a letter: a location's path is that whole
    run (see _LOCATION_COLON), a path without a letter never names a file (see
    _colon_location_path), and a URL blanked out only shortens a run. So the times of day of a
    log (``10:11:12``) cost no call per line. On other chunks the same, a character past ASCII
    read as any of a digit, a letter and a character of no path (a superset of the colons).
    Last first; with ``limit``, at most that many (the last ones)."""
    last = len(chunk) - 2  # a match's colon, counted from the chunk's start
    if chunk.isascii():
        found = (
            last - match.start()
            for match in _LETTERED_COLON_BACKWARDS.finditer(chunk.translate(_PATH_LETTER_MARKS)[::-1])
        )
    else:
        marks = chunk.encode("ascii", "replace").translate(_PATH_LETTER_BYTES)[::-1]
        found = (
            last - match.start()
            for pattern in _WIDE_LETTERED_COLON_BACKWARDS
            for match in pattern.finditer(marks)
        )
    return list(found if limit is None else islice(found, limit))


def _facts(chunk: str) -> list[tuple[int, int]]:
    return _indexed(chunk, sorted({*_diagnostic_starts(chunk), *_located_starts(chunk)}))


def diagnostic_lines(chunk: str) -> list[int]:
    """Indexes of the lines of ``chunk`` for which ``is_diagnostic`` holds, in order."""
    return [index for index, _ in _diagnostic(chunk)]


def located_lines(chunk: str) -> list[int]:
    """Indexes of the lines of ``chunk`` on which ``iter_locations`` finds a location, in order."""
    return [index for index, _ in _located(chunk)]


def fact_lines(chunk: str) -> list[int]:
    """Indexes of the lines of ``chunk`` that are diagnostics or name a location, in order
    (the lines a bounded preview offers between its head and its tail)."""
    return [index for index, _ in _facts(chunk)]


def fact_line_offsets(data: bytes) -> list[int]:
    """Byte offsets of the lines of ``data`` (split at ``b"\\n"``) that, decoded as UTF-8 with
    replacement, are diagnostics or name a location.

    ASCII data is scanned as it is. Other data is decoded with ``surrogateescape`` (each invalid
    byte one character that encodes back to it), and each found line's offset is counted by
    encoding the text between it and the one before.
    """
    if data.isascii():
        return [start for _, start in _facts(data.decode("ascii"))]
    text = data.decode("utf-8", "surrogateescape")
    offsets: list[int] = []
    position = last = 0
    for _, start in _facts(text):
        position += len(text[last:start].encode("utf-8", "surrogateescape"))
        last = start
        offsets.append(position)
    return offsets
