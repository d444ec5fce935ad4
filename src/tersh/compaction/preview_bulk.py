"""The preview's pass over a large file with no Python call per line: each shape of line read once.

A line's facts (whether it is a fact line, where its locations, paths, codes, failing test and
summary are, whether it is a shape line) depend on its shape alone: its text with every ASCII
digit as ``0`` (see ``preview_read._DIGITS_AS_ZERO``). So a chunk of lines (its bytes) has its
digits made ``0`` and is split into shapes at C speed; each new shape is read once (the shapes
that cannot carry a fact found by literal marks, the others read by ``preview_read.read_line``);
the lines the index reads are then grouped by shape and each fact is taken out of a group's
lines by one slice mapped over them, counted with ``Counter``, its first sighting found with one
``dict`` built backwards.

What it finds is what the per-line scan finds (``preview._Scan`` with the lines grep or the
Python search offers): the index with its entries in the same order and the same counts, and the
same earliest fact and shape lines. tests/compact/test_preview_bulk.py holds the two equal. A
chunk where a table of the index fills up, or a fact line holds a URL, is read line by line.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from functools import partial
from itertools import accumulate, chain, compress, groupby, repeat
from operator import add, and_, attrgetter, is_not, itemgetter, mul, not_, rshift

from tersh._startup.lazyre import lazy, lazy_bytes
from tersh.compaction import preview_read
from tersh.compaction.preview_paths import masked_lines
from tersh.compaction.preview_read import DIGEST_ENTRIES, LineRead
from tersh.compaction.verify.facts import SEVERITY_WORDS

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable, Iterator

#: Every ASCII digit as "0" (bytes: the lines' UTF-8 forms; no other byte of it is a digit).
_ZERO = bytes.maketrans(b"123456789", b"000000000")
#: At most this many shapes are remembered (then the memory starts again). A shape costs about a
#: kilobyte with its key and reading: 65,536 of them took a flood of lines each of its own shape to
#: 118 MB of RSS; the text never depends on it (a forgotten shape is read again).
SHAPES_KEPT = 1 << 14
_NO_FACT = LineRead(False, (), (), (), None, False, None)


class Shape:
    """What every line of one shape carries (``read``: None for a line with a URL) and the
    flags that make it a shape line (see :func:`_flags`)."""

    __slots__ = (
        "code",
        "date",
        "fact",
        "group_head",
        "group_paren",
        "has_head",
        "head",
        "marked",
        "number",
        "read",
        "selected",
        "structure",
        "underline",
        "url_fact",
    )

    def __init__(self, number: int, flags: tuple[bool, ...], read: LineRead | None, fact: bool,
                 head: slice | None) -> None:
        self.number, self.read, self.fact, self.head = number, read, fact, head
        self.has_head = head is not None
        #: Its number when its lines are read for the index (fact lines, or opening with a code).
        self.selected = number if fact or self.has_head else 0
        self.url_fact = fact and read is None
        self.structure, self.date, self.underline, self.group_head, self.group_paren = flags
        self.marked = self.structure or self.date or self.underline or self.group_head
        #: What a chunk's lines of this shape are found by (one dict look-up a line, no
        #: attribute read): its selected number twice, plus 1 when it is marked.
        self.code = self.selected * 2 + self.marked


_NOT_SPACE = lazy(r"\S")


def _flags(texts: list[str]) -> Iterator[tuple[bool, ...]]:
    """Of each text: whether it is a definition or commit line (``preview_read._STRUCTURE``), a Date
    header, an underline, a group header, a group header with a count (what a line next to
    one must be is read on its text: see :meth:`BulkScan._shape_lines`)."""
    group_heads = [False] * len(texts)
    # a group header ends with "/" or ")": only those are matched
    ends = compress(range(len(texts)), map(str.endswith, texts, repeat(("/", ")"))))
    fullmatch = preview_read._GROUP_HEAD.fullmatch
    for index in ends:
        group_heads[index] = fullmatch(texts[index]) is not None
    return zip(
        map(is_not, map(preview_read._STRUCTURE.match, texts), repeat(None)),
        map(str.startswith, texts, repeat(("Date:", "CommitDate:"))),
        map(is_not, map(preview_read._UNDERLINE.fullmatch, texts), repeat(None)),
        group_heads,
        map(and_, group_heads, map(str.endswith, texts, repeat(")"))),
        strict=True,
    )


_UNFLAGGED = (False,) * 5

_GROUP_PAREN = attrgetter("group_paren")
_MARKED = attrgetter("marked")
_SELECTED = attrgetter("selected")
_CODE = attrgetter("code")


#: What every location (``path:12``, ``file.c(12``, ``File "``) holds once its digits are ``0``
#: and its letters lower-cased, and what every line that opens with a code holds: the last three
#: of its digits, then a space (``E501 ``, ``F401 [*] ``: see ``preview_read._CODE_HEAD``).
_SHAPE_MARKS = (b":0", b"(0", b'file "', b"000 ")
#: The marks opening with a byte rare in text, found by the regex engine, which runs to a literal's
#: first byte (``bytes.find`` stops wherever the byte after the literal's place is one of its).
_RARE_MARKS = tuple(lazy_bytes(b"\\" + mark) for mark in _SHAPE_MARKS if mark[:1] in b":(")
_COMMON_MARKS = tuple(mark for mark in _SHAPE_MARKS if mark[:1] not in b":(")
#: The severity words every diagnostic holds one of, lower-cased; but "assert", which opens only
#: "asserterror" and "assertionerror" (see ``verify.facts._SEVERITY``): they hold "error".
_STEMS = tuple(word.encode() for word in SEVERITY_WORDS if word != "assert")


def _candidates(keys: list[bytes]) -> list[int]:
    """The indexes of the shapes (``keys``) that may be fact lines or open with a code (a
    superset of them): on an ASCII shape, a severity word in any case (it is ASCII: lower-casing
    folds nothing else onto it) or one of _SHAPE_MARKS (in any case); every other shape. Each word
    is looked for in all the shapes joined (``word in key`` costs a raised and cleared error a
    key), and the lines' starts are summed only once a word is found."""
    return _candidates_and_places(keys)[0]


def _candidates_and_places(keys: list[bytes]) -> tuple[list[int], set[int]]:
    """:func:`_candidates`, and the indexes of the shapes that hold ``:0`` or ``(0`` (every shape
    ``preview_paths`` masks holds one)."""
    found: set[int] = set()
    joined = b"\n".join(keys)
    if not joined.isascii():
        found.update(compress(range(len(keys)), map(not_, map(bytes.isascii, keys))))
    lowered = joined.lower()
    starts: list[int] = []
    places: set[int] = set()
    for pattern in _RARE_MARKS:
        _add_lines(_matcher(lowered, pattern), keys, starts, places)
    found.update(places)
    for word in (*_COMMON_MARKS, *_STEMS):
        _add_lines(partial(lowered.find, word), keys, starts, found)
    return sorted(found), places


def _matcher(joined: bytes, pattern: re.Pattern[bytes]) -> Callable[[int], int]:
    """Where ``pattern`` is first found in ``joined`` from a place on (-1: nowhere), as ``find``."""
    search = pattern.search

    def first_from(start: int) -> int:
        match = search(joined, start)
        return -1 if match is None else match.start()

    return first_from


def _line_starts(keys: list[bytes], starts: list[int]) -> list[int]:
    """Fill ``starts`` (when empty) with where each line of ``keys`` joined starts, and the end."""
    if not starts:
        starts.extend(accumulate(map((1).__add__, map(len, keys)), initial=0))
    return starts


def _add_lines(first_from: Callable[[int], int], keys: list[bytes], starts: list[int],
               found: set[int]) -> None:
    """Add to ``found`` the index of every line of ``keys`` joined by newlines (their starts in
    ``starts``, once summed) where ``first_from`` (a ``find`` of that text, from a place on) finds
    what it looks for (no newline in it)."""
    position = first_from(0)
    if position >= 0:
        _line_starts(keys, starts)
    while position >= 0:
        index = bisect_right(starts, position) - 1
        found.add(index)
        position = first_from(starts[index + 1])  # the next line


#: The lines not met yet are looked for among the masked shapes read (one search of them all)
#: while at least one in SHARED_SHARE of them were found there (or, when not looked for, are masked);
#: a linter's full format, whose few finding lines lie among its code frames, is not searched.
SHARED_SHARE = 8


class _Shapes:
    """The shapes met so far (bounded), each read once."""

    def __init__(self) -> None:
        #: The shape of each shape met, but of those that carry no fact met once the flags are no
        #: longer asked: those all have the one shape of the lines with no flag (see shapes).
        self.known: dict[bytes, Shape] = {}
        #: The code of each shape met (see Shape.code; unmarked once the flags are no longer asked).
        self.codes: dict[bytes, int] = {}
        self.by_number: dict[int, Shape] = {}  # the shapes read for the index, by number
        self.plain: dict[tuple[bool, ...], Shape] = {}  # shapes of lines that carry no fact
        #: Whether the lines not met yet are looked for among the masked shapes first (see
        #: SHARED_SHARE; the text never depends on it: the lines not found are read).
        self.sharing = True
        #: The shape of the lines of each masked shape read (see ``preview_paths``): forgotten
        #: with the shapes (at most as many as those).
        self.shared: dict[bytes, Shape] = {}
        self.count = 0
        #: Whether the shape-line flags are still asked (not once the shape lines fill the room).
        self.flagged = True

    def shapes(self, keys: list[bytes]) -> list[Shape]:
        """The shape of each line (``keys``: the lines' UTF-8 forms, digits as ``0``), the
        shapes not met yet read first (one look-up a line when every shape is known)."""
        try:
            return list(map(self.known.__getitem__, keys))
        except KeyError:
            pass
        self._learn_missing(keys)
        if self.flagged:
            return list(map(self.known.__getitem__, keys))
        return list(map(self.known.get, keys, repeat(self._plain(_UNFLAGGED))))

    def codes_of(self, keys: list[bytes]) -> list[int]:
        """The code of the shape of each line (see :meth:`shapes` and :attr:`codes`)."""
        try:
            return list(map(self.codes.__getitem__, keys))
        except KeyError:
            pass
        self._learn_missing(keys)
        return list(map(self.codes.__getitem__, keys))

    def unflag(self) -> None:
        """Ask the shape-line flags no more: no code is marked from now on."""
        self.flagged = False
        self.codes = {key: code & ~1 for key, code in self.codes.items()}

    def _learn_missing(self, keys: list[bytes]) -> None:
        distinct = set(keys)
        new = distinct.difference(self.codes)
        if len(self.codes) + len(new) > SHAPES_KEPT:
            new = self._forget(distinct, new)
        if new and self.shared and self.sharing:
            self._share(list(new))
            new = new.difference(self.codes)
        if new:
            self._learn(list(new))

    def _share(self, keys: list[bytes]) -> None:
        """Give each of ``keys`` (not met yet) whose masked shape is read already (see
        ``preview_paths``) the shape read for it."""
        get = self.shared.get
        found = [(key, shape) for key, masked in masked_lines(keys) if (shape := get(masked)) is not None]
        self.sharing = len(found) * SHARED_SHARE >= len(keys)
        if not found:
            return
        self.known.update(found)
        shapes = list(map(itemgetter(1), found))
        codes = map(_CODE, shapes)
        if not self.flagged:  # no code is marked (see unflag)
            codes = map(and_, codes, repeat(~1))
        self.codes.update(zip(map(itemgetter(0), found), codes, strict=True))
        self.by_number.update((shape.selected, shape) for shape in set(shapes) if shape.selected)

    def _take(self, key: bytes, shape: Shape) -> None:
        """Give ``key`` the shape read for another line of its masked shape."""
        self.known[key] = shape
        self.codes[key] = shape.code if self.flagged else shape.code & ~1
        if shape.selected:
            self.by_number[shape.selected] = shape

    def numbers(self, keys: list[bytes]) -> list[int]:
        """Of each line, the number of its shape when it is read for the index (see
        :attr:`Shape.selected`), else 0."""
        return list(map(_SELECTED, self.shapes(keys)))

    def _forget(self, distinct: set[bytes], new: set[bytes]) -> set[bytes]:
        """Forget every shape but those of the lines (``distinct``; all of them when even those
        do not fit): the shapes of the lines still to learn."""
        known, codes = self.known, self.codes
        if len(distinct) > SHAPES_KEPT:
            self.known, self.codes, new = {}, {}, distinct
        else:
            kept = distinct - new
            self.known = {key: shape for key in kept if (shape := known.get(key)) is not None}
            self.codes = {key: codes[key] for key in kept}
        self.by_number = {shape.selected: shape for shape in self.known.values() if shape.selected}
        self.shared = {}  # (the memory they hold is bounded with theirs)
        return new

    def _learn(self, keys: list[bytes]) -> None:
        candidates, places = _candidates_and_places(keys)
        codes = self.codes
        if self.flagged:
            every = list(map(bytes.decode, keys, repeat("utf-8"), repeat("surrogatepass")))
            flags = list(_flags(every))
            texts = dict(zip(candidates, map(every.__getitem__, candidates), strict=True))
        else:  # the lines that carry no fact have the one shape with no flag: only codes are kept
            codes.update(zip(keys, repeat(0)))  # those of the candidates set below
            texts = dict(zip(candidates, map(bytes.decode, map(keys.__getitem__, candidates),
                                             repeat("utf-8"), repeat("surrogatepass")), strict=True))
            flags = [_UNFLAGGED] * len(keys)
        shared = self.shared
        masks = dict(masked_lines(list(map(keys.__getitem__, places))))  # (no Python step for the others)
        self.sharing = self.sharing or len(masks) * SHARED_SHARE >= len(keys)
        for index in candidates:
            masked = masks.get(keys[index])
            if masked is not None:
                same = shared.get(masked)
                if same is not None:  # read for another line of its masked shape
                    self._take(keys[index], same)
                    continue
            text = texts[index]
            read = preview_read.read_line(text)
            if read is None:  # a line with a URL
                fact = preview_read.fact_locations(text) is not None
                head = preview_read._CODE_HEAD.match(text) if not fact else None
                shape = Shape(self._next(), flags[index], None, fact,
                              slice(*head.span(1)) if head else None)
            else:
                shape = Shape(self._next(), flags[index], read, read.fact,
                              None if read.fact else read.head)
            self.known[keys[index]] = shape
            codes[keys[index]] = shape.code
            if shape.selected:
                self.by_number[shape.selected] = shape
            if masked is not None and read is not None and read.locations:
                shared[masked] = shape
        if not self.flagged:
            return
        chosen = set(candidates)
        others = list(compress(keys, map(not_, map(chosen.__contains__, range(len(keys))))))
        other_flags = list(compress(flags, map(not_, map(chosen.__contains__, range(len(keys))))))
        for flag in set(other_flags):
            self._plain(flag)
        plains = list(map(self.plain.__getitem__, other_flags))
        self.known.update(zip(others, plains, strict=True))
        codes.update(zip(others, map(_CODE, plains), strict=True))

    def _plain(self, flags: tuple[bool, ...]) -> Shape:
        """The one shape of the lines with these flags that carry no fact."""
        shape = self.plain.get(flags)
        if shape is None:
            shape = self.plain[flags] = Shape(self._next(), flags, _NO_FACT, False, None)
        return shape

    def _next(self) -> int:
        self.count += 1
        return self.count


#: The bytes cleaning acts on (escape, carriage return, backspace, other controls; not tab nor
#: newline): what ``clean.clean`` looks for.
_CONTROLS = bytes([*range(0x09), *range(0x0B, 0x20), 0x7F])


#: Digits as "0" and the bytes cleaning acts on as NUL (one of them): a chunk to be cleaned is
#: left as it is by cleaning when this leaves no NUL in it (``translate`` with no byte to delete
#: runs its fast loop).
_ZERO_CONTROLS_AS_NUL = bytes(0 if code in _CONTROLS else _ZERO[code] for code in range(256))


def _plain_text(body: bytes, unclean: bool) -> str | None:
    """The text of ``body`` when its UTF-8 form is ``body``: valid UTF-8 that cleaning leaves as
    it is (``unclean``: it is cleaned and holds a byte cleaning acts on; no byte of a multi-byte
    character is one)."""
    if unclean:
        return None
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


#: The lines of a chunk by their index: all of them, or only those asked for.
_Lines = list[str] | dict[int, str]
#: A chunk's lines are cut out of it one by one when at most this share of them are asked for
#: (else it is split whole).
SPARSE_SHARE = 1 / 16


def _lines_at(chunk: str, raw: bytes, keys: list[bytes], indexes: list[int]) -> _Lines:
    """The lines of ``chunk`` at ``indexes`` (in order; ``raw``: its UTF-8 form, ``keys``: its
    lines' UTF-8 forms with digits as ``0``): a few lines are cut out where their keys say they
    are (out of the chunk when it is ASCII, else out of ``raw`` and decoded: no line of it is
    split off but those), else every line."""
    if len(indexes) > SPARSE_SHARE * len(keys):
        lines = chunk.split("\n")
        lines.pop()
        return lines
    ascii = len(raw) == len(chunk)
    found: dict[int, str] = {}
    start = done = 0  # the start of line ``done``
    for index in indexes:
        start += sum(map(len, keys[done:index])) + index - done
        end = start + len(keys[index])
        found[index] = chunk[start:end] if ascii else raw[start:end].decode("utf-8", "surrogatepass")
        done = index
    return found


#: Where a chunk's lines cannot be counted in bulk, at most this many of its fact lines (and lines
#: that open with a code) are read one at a time (the others in bulk, a half at a time).
LINE_BY_LINE_MOST = 64

#: A first sighting as one number: the line's index in its chunk, then the place on the line.
_PLACES = 1 << 24


class _Found:
    """What one chunk's fact lines hold: each kind's counts, and its columns (the entries of
    one place of the lines of one shape) to find the first sighting of an entry in."""

    def __init__(self) -> None:
        # kind -> (column, the indexes of its lines in the chunk, the place on the line)
        self.columns: dict[str, list[tuple[list[str], list[int], int]]] = {kind: [] for kind in _KINDS}
        # kind -> what to count: one entry per sighting (a file once a line)
        self.counted: dict[str, list[Iterable[str]]] = {kind: [] for kind in _KINDS}

    def add(self, kind: str, column: list[str], indexes: list[int], place: int) -> None:
        """Count the entries of ``column`` (one per line), found at ``place`` on their lines."""
        self.counted[kind].append(column)
        self.columns[kind].append((column, indexes, place))

    def counts(self) -> dict[str, Counter[str]]:
        """Each kind's entries with how many times each is counted (one pass each)."""
        return {kind: Counter(chain.from_iterable(self.counted[kind])) for kind in _KINDS}

    def firsts(self, kind: str, wanted: set[str]) -> dict[str, int]:
        """The first sighting (the line's index times _PLACES, plus the place) of each entry
        of ``wanted``."""
        firsts: dict[str, int] = {}
        get = firsts.get
        for column, indexes, place in self.columns[kind]:
            seen = dict(zip(reversed(column), reversed(indexes), strict=True))
            for entry in seen.keys() & wanted:
                key = seen[entry] * _PLACES + place
                if key < get(entry, _NEVER):
                    firsts[entry] = key
        return firsts


_NEVER = 1 << 62
_KINDS = ("codes", "files", "located", "failing", "summaries")


def _column(lines: list[str], where: slice) -> list[str]:
    return list(map(itemgetter(where), lines))


def _read_group(found: _Found, read: LineRead, indexes: list[int], lines: list[str]) -> None:
    """Count the facts of the fact lines of one shape (``indexes`` in the chunk, in order)."""
    for place, where in enumerate(read.codes):
        found.add("codes", _column(lines, where), indexes, place)
    located = len(read.locations)
    slots = [slice(*path) for path, _, _ in read.locations] + list(read.paths)
    taken: set[tuple[int, int]] = set()  # a place read before on the line adds nothing
    distinct: list[list[str]] = []
    for place, where in enumerate(slots):
        if (where.start, where.stop) in taken:
            continue
        taken.add((where.start, where.stop))
        column = _column(lines, where)
        distinct.append(column)
        found.columns["files"].append((column, indexes, place))
        if place < located:
            found.columns["located"].append((column, indexes, place))
    if len(distinct) == 1:
        found.counted["files"].append(distinct[0])
    elif distinct:
        found.counted["files"].append(chain.from_iterable(map(dict.fromkeys, zip(*distinct, strict=True))))
    if read.failing is not None:
        found.add("failing", _column(lines, read.failing), indexes, 0)
    if read.summary:
        found.add("summaries", [" ".join(line.split())[:200] for line in lines], indexes, 0)


def _location_text(path: str, line: str, read: LineRead, place: int) -> str:
    """The place string of location ``place`` of ``line`` (as Digest.add writes it)."""
    _, row, col = read.locations[place]
    if col[0] >= 0:
        return f"{path}:{line[row[0]:row[1]]}:{line[col[0]:col[1]]}"
    return f"{path}:{line[row[0]:row[1]]}"


class BulkScan:
    """The index, the earliest fact lines and the earliest shape lines of a file, read in
    chunks of whole lines."""

    def __init__(self, bodies: Iterable[bytes], cleaned: bool,
                 decoded: Callable[[bytes], str], max_bytes: int, line_cap: int,
                 known: _Shapes | None = None) -> None:
        """Scan ``bodies`` (chunks of whole lines as read, in order), each chunk's text
        ``decoded`` from its bytes (and ``cleaned``) when they are not its text;
        ``known``: the shapes read already (those of the file's start, by the probe)."""
        self.digest = preview_read.Digest()
        self.facts = preview_read._Earliest(max_bytes, line_cap)
        self.shapes = preview_read._Earliest(max_bytes, line_cap)
        self.grouped = False
        self.max_bytes, self.line_cap = max_bytes, line_cap
        self.facts_cost = self.shapes_cost = 0
        self.known = known if known is not None else _Shapes()
        self.carry_shapes: list[Shape] = []  # the last two lines before the chunk
        self.carry_lines: list[str] = []
        self.pending: str | None = None  # the last line read, when it may head a group
        self.bare: set[str] = set()  # the files of the index not located yet (named only)
        first = 0  # the number of the chunk's first line
        for body in bodies:
            zeroed = body.translate(_ZERO_CONTROLS_AS_NUL if cleaned else _ZERO)
            text = _plain_text(body, cleaned and b"\0" in zeroed)
            if text is not None:  # its bytes are its text's UTF-8 form
                first += self._chunk(first, text, body, zeroed)
            else:
                text = decoded(body)
                raw = text.encode("utf-8", "surrogatepass")
                self._chunk(first, text, raw, raw.translate(_ZERO))
                first += body.count(b"\n")
        #: How many lines the chunks hold (what ``preview._count_lines`` counts).
        self.lines = first
        if self.pending is not None and not self.grouped:
            self.grouped = _heads_group(self.pending, None)

    def _grouped_only(self, chunk: str) -> None:
        """Whether a shape line of the chunk heads a group with a count (``path (12)``), once
        the shape lines fill their room (only that is still asked of them)."""
        if self.pending is not None:
            self.grouped = _heads_group(self.pending, chunk[: chunk.find("\n")])
            self.pending = None
        if self.grouped or ")\n" not in chunk:
            return
        size = len(chunk)
        for found in _COUNT_END.finditer(chunk):
            end = found.end()
            line = chunk[chunk.rfind("\n", 0, found.start()) + 1 : end - 1]
            if end >= size:
                self.pending = line
            elif _heads_group(line, chunk[end : chunk.find("\n", end)]):
                self.grouped = True
                return

    def _chunk(self, first: int, chunk: str, raw: bytes, zeroed: bytes) -> int:
        """Read one chunk (``raw``: its UTF-8 form, ``zeroed``: that with its digits as ``0``):
        the number of its lines."""
        keys = zeroed.split(b"\n")
        keys.pop()
        known = self.known
        codes = known.codes_of(keys)
        # the fact lines and the lines with a code (code 2 and up), and the marked ones (odd)
        lines: _Lines
        if known.flagged:
            lines = chunk.split("\n")
            lines.pop()
            found = list(compress(range(len(keys)), codes))
            picked = list(map(codes.__getitem__, found))
            selected = list(compress(found, map(rshift, picked, repeat(1))))
            self._shape_lines(first, lines, keys, list(compress(found, map(and_, picked, repeat(1)))))
            if self.shapes_cost > self.max_bytes:  # no later shape line is among the earliest
                known.unflag()
                self.pending = self.carry_lines[-1] if self.carry_lines else None
        else:
            if not self.grouped:
                self._grouped_only(chunk)
            selected = list(compress(range(len(keys)), codes))
            if not selected:
                return len(keys)
            lines = _lines_at(chunk, raw, keys, selected)
        if not selected:
            return len(keys)
        by_number = known.by_number
        if self.facts_cost <= self.max_bytes:
            for index in selected:
                if self.facts_cost > self.max_bytes:
                    break
                if by_number[codes[index] >> 1].fact:
                    line = lines[index]
                    self.facts.add(first + index, line)
                    self.facts_cost += min(len(line), self.line_cap) + 1
        self._count_part(lines, keys, codes, selected)
        return len(keys)

    def _count_part(self, lines: _Lines, keys: list[bytes], codes: list[int], selected: list[int]) -> None:
        """Count the facts of the ``selected`` lines of the chunk (their indexes, in order) in
        bulk; where a table of the index fills up or a fact line holds a URL, each half of them
        on its own, down to the lines of at most LINE_BY_LINE_MOST of them read one at a time."""
        by_number = self.known.by_number
        groups = [list(group) for _, group in
                  groupby(sorted(selected, key=codes.__getitem__), codes.__getitem__)]
        shape_of = [by_number[codes[group[0]] >> 1] for group in groups]
        if not any(shape.url_fact for shape in shape_of) and self._counted(lines, codes, groups, shape_of):
            return
        if len(selected) > LINE_BY_LINE_MOST:
            half = len(selected) // 2
            self._count_part(lines, keys, codes, selected[:half])
            self._count_part(lines, keys, codes, selected[half:])
            return
        # (a line that is no fact line and opens with no code counts nothing)
        self._line_by_line(list(map(lines.__getitem__, selected)),
                           self.known.shapes(list(map(keys.__getitem__, selected))))
        self.bare = {path for path, first in self.digest.firsts.items() if first == path}

    def _counted(self, lines: _Lines, codes: list[int], groups: list[list[int]],
                 shape_of: list[Shape]) -> bool:
        """Count the chunk's facts into the index (``groups``: the indexes of the fact lines and
        of the lines that open with a code, by shape); False (nothing counted) when a table of
        the index would fill up within the chunk (then the order of every entry counts)."""
        found = _Found()
        facts = 0
        for indexes, shape in zip(groups, shape_of, strict=True):
            texts = list(map(lines.__getitem__, indexes))
            if shape.fact:
                assert shape.read is not None
                _read_group(found, shape.read, indexes, texts)
                facts += len(indexes)
            else:
                assert shape.head is not None
                found.add("codes", _column(texts, shape.head), indexes, 0)
        digest = self.digest
        counted: dict[str, dict[str, int]] = {"codes": digest.codes, "files": digest.files}
        listed: dict[str, dict[str, None]] = {"failing": digest.failing, "summaries": digest.summaries}
        counts = found.counts()
        fresh: dict[str, set[str]] = {}
        sizes = {kind: len(table) for kind, table in counted.items()}
        sizes.update((kind, len(table)) for kind, table in listed.items())
        for kind in sizes:
            table_keys = counted[kind].keys() if kind in counted else listed[kind].keys()
            fresh[kind] = counts[kind].keys() - table_keys
            if sizes[kind] < DIGEST_ENTRIES < sizes[kind] + len(fresh[kind]):
                return False
        digest.lines += facts
        new_files: list[str] = []
        for kind, table in counted.items():
            found_counts = counts[kind]
            for entry in found_counts.keys() - fresh[kind]:
                table[entry] += found_counts[entry]
            new = self._new(found, found_counts, kind, len(table), fresh[kind])
            table.update(zip(new, map(found_counts.__getitem__, new), strict=True))
            if kind == "files":
                new_files = new
        for kind, seen in listed.items():
            seen.update(dict.fromkeys(self._new(found, counts[kind], kind, len(seen), fresh[kind])))
        firsts = digest.firsts
        firsts.update(zip(new_files, new_files, strict=True))  # named; located below
        self.bare.update(new_files)
        if self.bare and counts["files"]:
            wanted = self.bare.intersection(counts["files"])
            if wanted:
                self.bare -= wanted
                for path, key in found.firsts("located", wanted).items():
                    index, place = divmod(key, _PLACES)
                    read = self.known.by_number[codes[index] >> 1].read
                    assert read is not None
                    firsts[path] = _location_text(path, lines[index], read, place)
                self.bare.update(path for path in wanted if firsts[path] == path)
        return True

    def _new(self, found: _Found, counts: Counter[str], kind: str, size: int, fresh: set[str]) -> list[str]:
        """The entries of ``fresh`` (of ``kind``) the table of ``size`` entries takes, in the
        order first seen (none when it is full: each sighting of each is left out)."""
        if size >= DIGEST_ENTRIES:
            self.digest.dropped += sum(map(counts.__getitem__, fresh))
            return []
        if not fresh:
            return []
        first = found.firsts(kind, fresh)
        return sorted(fresh, key=first.__getitem__)

    def _line_by_line(self, lines: list[str], shapes: list[Shape]) -> None:
        """Count the chunk's facts one line at a time, as ``preview_read._Scan`` does."""
        digest = self.digest
        for line, shape in zip(lines, shapes, strict=True):
            read = shape.read
            if shape.fact:
                if read is None:
                    locations = preview_read.fact_locations(line)
                    assert locations is not None
                    digest.add(line, locations)
                else:
                    digest.add_read(line, read, preview_read.read_locations(line, read))
            elif shape.head is not None:
                digest.count_code(line[shape.head])

    def _shape_lines(self, first: int, lines: list[str], keys: list[bytes], marks: list[int]) -> None:
        """Offer the chunk's shape lines (and those of the two lines before it, whose next lines
        are now known): definitions, commit lines, subjects, setext headings, group headers
        (``marks``: the positions of the chunk's marked lines). A position below 0 is one of
        those two lines."""
        carried, carried_lines = self.carry_shapes, self.carry_lines
        known = self.known.known
        self.carry_shapes = (carried + [known[key] for key in keys[-2:]])[-2:]
        self.carry_lines = (carried_lines + lines[-2:])[-2:]
        size = len(keys)

        def shape_at(position: int) -> Shape | None:
            if position >= 0:
                return known[keys[position]]
            return carried[position] if -position <= len(carried) else None

        def text_at(position: int) -> str | None:
            if position >= 0:
                return lines[position]
            return carried_lines[position] if -position <= len(carried_lines) else None

        marked = [position for position in range(-len(carried), 0) if carried[position].marked]
        marked += marks
        found: list[int] = []
        for position in marked:
            shape = known[keys[position]] if position >= 0 else carried[position]
            if shape.structure and position >= 0:
                found.append(position)
            if (shape.date and position + 2 < size and text_at(position + 1) == ""
                    and lines[position + 2].startswith("    ")):
                found.append(position + 2)
            if shape.underline and position >= 0:
                before = text_at(position - 1)
                if before is not None and _NOT_SPACE.match(before) is not None:
                    found.append(position - 1)
            if shape.group_head and position >= -1 and position + 1 < size and lines[position + 1][:1] == " ":
                found.append(position)
        if not found:
            return
        if not self.grouped:
            self.grouped = any(map(_GROUP_PAREN, map(shape_at, found)))
        if self.shapes_cost <= self.max_bytes:
            for position in sorted(set(found)):
                if self.shapes_cost > self.max_bytes:
                    break
                line = lines[position] if position >= 0 else carried_lines[position]
                self.shapes.add(first + position, line)
                self.shapes_cost += min(len(line), self.line_cap) + 1


# The end of a line that may head a group with a count (see preview_read._GROUP_HEAD).
_COUNT_END = lazy(r" \(\d[\d,]*\)\n")


def _heads_group(line: str, following: str | None) -> bool:
    """Whether ``line`` is a shape line (before ``following``, None: the last line) that heads a
    group with a count."""
    if not line.endswith(")") or preview_read._GROUP_HEAD.fullmatch(line) is None:
        return False
    if preview_read._STRUCTURE.match(line) is not None:
        return True
    return following is not None and (
        preview_read._UNDERLINE.fullmatch(following) is not None or following[:1] == " ")


#: A file is read in bulk when at least this share of the lines its start holds are read for the
#: index or are shape lines (else the few such lines are found faster by grep).
DENSE_SHARE = 1 / 16


def worth_reading_in_bulk(start: bytes, known: _Shapes | None = None) -> bool:
    """Whether the lines of ``start`` (whole lines: a file's first bytes) that the index reads
    or that may be shape lines (definitions, commit lines, Date headers, underlines, group
    headers) are at least DENSE_SHARE of them (each shape read once, weighed by its lines, and
    remembered in ``known`` when given: the bulk scan then reads none of them again)."""
    keys = start.translate(_ZERO).split(b"\n")
    keys.pop()
    if not keys:
        return False
    counts = Counter(keys)
    shapes = list(counts)
    read = (known if known is not None else _Shapes()).shapes(shapes)
    weights = list(map(add, map(bool, map(_SELECTED, read)), map(_MARKED, read)))
    hits: int = sum(map(mul, weights, counts.values()))
    return hits >= DENSE_SHARE * len(keys)
