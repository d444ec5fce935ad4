"""The preview's pass over a large file with no Python call per line: each shape of line read once.

A line's facts (whether it is a fact line, where its locations, paths, codes, failing test and
summary are, whether it is a shape line) depend on its shape alone: its text with every ASCII
digit as ``0`` (see ``preview._DIGITS_AS_ZERO``). So a chunk of lines is encoded, its digits
made ``0`` and split into shapes at C speed; each new shape is read once (the lines that cannot
carry a fact found by one whole-text search, the others by ``preview.read_line``); the lines
are then grouped by shape and each fact is taken out of a group's lines by one slice mapped over
them, counted with ``Counter``, its first sighting found with one ``dict`` built backwards.

What it finds is what the per-line scan finds (``preview._Scan`` with the lines grep or the
Python search offers): the index with its entries in the same order and the same counts, and the
same earliest fact and shape lines. tests/compact/test_preview_bulk.py holds the two equal. A
chunk where a table of the index fills up, or a fact line holds a URL, is read line by line.
"""

from __future__ import annotations

from collections import Counter
from itertools import accumulate, chain, compress, groupby, repeat
from operator import add, and_, attrgetter, is_, is_not, itemgetter, mul, not_

from tersh._startup.lazyre import lazy
from tersh.compaction import preview
from tersh.compaction.preview import DIGEST_ENTRIES, LineRead

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

#: Every ASCII digit as "0" (bytes: the lines' UTF-8 forms; no other byte of it is a digit).
_ZERO = bytes.maketrans(b"123456789", b"000000000")
#: A file is read this many bytes at a time (whole lines).
BULK_CHUNK = 1 << 20
#: At most this many shapes are remembered (then the memory starts again).
SHAPES_KEPT = 1 << 16
_NO_FACT = LineRead(False, (), (), (), None, False, None)


class Shape:
    """What every line of one shape carries (``read``: None for a line with a URL) and the
    flags that make it a shape line (see :func:`_flags`)."""

    __slots__ = ("blank", "date", "fact", "four", "group_head", "group_paren", "has_head", "head", "marked",
                 "heading", "number", "read", "space", "structure", "underline", "url_fact")

    def __init__(self, number: int, flags: tuple[bool, ...], read: LineRead | None, fact: bool,
                 head: slice | None) -> None:
        self.number, self.read, self.fact, self.head = number, read, fact, head
        self.has_head = head is not None
        self.url_fact = fact and read is None
        (self.structure, self.date, self.blank, self.four, self.space, self.underline,
         self.heading, self.group_head, self.group_paren) = flags
        self.marked = self.structure or self.date or self.underline or self.group_head


_NOT_SPACE = lazy(r"\S")


def _flags(texts: list[str]) -> Iterator[tuple[bool, ...]]:
    """Of each text: whether it is a definition or commit line (``preview._STRUCTURE``), a Date
    header, blank, indented four spaces, indented, an underline, a possible setext heading, a
    group header, a group header with a count."""
    group_heads = list(map(is_not, map(preview._GROUP_HEAD.fullmatch, texts), repeat(None)))
    return zip(
        map(is_not, map(preview._STRUCTURE.match, texts), repeat(None)),
        map(str.startswith, texts, repeat(("Date:", "CommitDate:"))),
        map(not_, texts),
        map(str.startswith, texts, repeat("    ")),
        map(str.startswith, texts, repeat(" ")),
        map(is_not, map(preview._UNDERLINE.fullmatch, texts), repeat(None)),
        map(is_not, map(_NOT_SPACE.match, texts), repeat(None)),
        group_heads,
        map(and_, group_heads, map(str.endswith, texts, repeat(")"))),
        strict=True,
    )


_UNFLAGGED = (False,) * 9

_NUMBER = attrgetter("number")
_FACT = attrgetter("fact")
_HAS_HEAD = attrgetter("has_head")
_URL_FACT = attrgetter("url_fact")
_STRUCTURE = attrgetter("structure")
_DATE, _BLANK, _FOUR = attrgetter("date"), attrgetter("blank"), attrgetter("four")
_SPACE, _UNDERLINE = attrgetter("space"), attrgetter("underline")
_HEADING, _GROUP_HEAD = attrgetter("heading"), attrgetter("group_head")
_GROUP_PAREN = attrgetter("group_paren")
_MARKED = attrgetter("marked")


class _Shapes:
    """The shapes met so far (bounded), each read once."""

    def __init__(self) -> None:
        self.known: dict[bytes, Shape] = {}
        self.plain: dict[tuple[bool, ...], Shape] = {}  # shapes of lines that carry no fact
        self.count = 0
        #: Whether the shape-line flags are still asked (not once the shape lines fill the room).
        self.flagged = True

    def of(self, keys: list[bytes]) -> list[Shape]:
        """The shape of each line (``keys``: the lines' UTF-8 forms, digits as ``0``)."""
        shapes = list(map(self.known.get, keys))
        if None not in shapes:
            return shapes  # type: ignore[return-value]
        new = set(compress(keys, map(is_, shapes, repeat(None))))
        if len(self.known) + len(new) > SHAPES_KEPT:
            self.known.clear()
            new = set(keys)
        self._learn(list(new))
        return list(map(self.known.__getitem__, keys))

    def _learn(self, keys: list[bytes]) -> None:
        texts = list(map(bytes.decode, keys, repeat("utf-8"), repeat("surrogatepass")))
        joined = "\n".join(texts) + "\n"
        starts = accumulate(map((1).__add__, map(len, texts)), initial=0)
        index_of = dict(zip(starts, range(len(texts)), strict=False))
        candidates = set(map(index_of.__getitem__, preview.candidate_starts(joined)))
        flags = list(_flags(texts)) if self.flagged else [_UNFLAGGED] * len(texts)
        for index in candidates:
            text = texts[index]
            read = preview.read_line(text)
            if read is None:  # a line with a URL
                fact = preview.fact_locations(text) is not None
                head = preview._CODE_HEAD.match(text) if not fact else None
                shape = Shape(self._next(), flags[index], None, fact,
                              slice(*head.span(1)) if head else None)
            else:
                shape = Shape(self._next(), flags[index], read, read.fact,
                              None if read.fact else read.head)
            self.known[keys[index]] = shape
        plain, known = self.plain, self.known
        if not self.flagged:  # one shape for all the lines that carry no fact
            shape = plain.get(_UNFLAGGED)
            if shape is None:
                shape = plain[_UNFLAGGED] = Shape(self._next(), _UNFLAGGED, _NO_FACT, False, None)
            others = map(not_, map(candidates.__contains__, range(len(keys))))
            known.update(zip(compress(keys, others), repeat(shape)))
            return
        for index, flag in enumerate(flags):
            if index in candidates:
                continue
            shape = plain.get(flag)
            if shape is None:
                shape = plain[flag] = Shape(self._next(), flag, _NO_FACT, False, None)
            known[keys[index]] = shape

    def _next(self) -> int:
        self.count += 1
        return self.count


#: A first sighting as one number: the line's index in its chunk, then the place on the line.
_PLACES = 1 << 24


class _Found:
    """What one chunk's fact lines hold, each kind as counts and first sightings."""

    def __init__(self) -> None:
        self.codes: Counter[str] = Counter()
        self.files: Counter[str] = Counter()
        self.failing: Counter[str] = Counter()
        self.summaries: Counter[str] = Counter()
        # entry -> its first sighting (see _PLACES); "located": a path's first location
        self.firsts: dict[str, dict[str, int]] = {
            "codes": {}, "files": {}, "failing": {}, "summaries": {}, "located": {}}

    def sighted(self, kind: str, column: list[str], keys: Iterable[int]) -> None:
        """Note the first sighting of each entry of ``column`` (at ``keys``, in order)."""
        firsts = self.firsts[kind]
        seen = dict(zip(reversed(column), reversed(list(keys)), strict=True))
        if firsts:
            for entry in seen.keys() & firsts.keys():
                if firsts[entry] < seen[entry]:
                    seen[entry] = firsts[entry]
        firsts.update(seen)


def _column(lines: list[str], where: slice) -> list[str]:
    return list(map(itemgetter(where), lines))


def _read_group(found: _Found, read: LineRead, indexes: list[int], lines: list[str]) -> None:
    """Count the facts of the fact lines of one shape (``indexes`` in the chunk, in order)."""
    scaled = list(map(mul, indexes, repeat(_PLACES)))
    for place, where in enumerate(read.codes):
        column = _column(lines, where)
        found.codes.update(column)
        found.sighted("codes", column, map(add, scaled, repeat(place)))
    slots = [slice(*path) for path, _, _ in read.locations] + list(read.paths)
    columns = [_column(lines, where) for where in slots]
    distinct: list[list[str]] = []  # a column equal to one before it adds nothing on any line
    for place, column in enumerate(columns):
        if column in distinct:
            continue
        distinct.append(column)
        found.sighted("files", column, map(add, scaled, repeat(place)))
        if place < len(read.locations):
            found.sighted("located", column, map(add, scaled, repeat(place)))
    if len(distinct) == 1:
        found.files.update(distinct[0])
    elif distinct:
        found.files.update(chain.from_iterable(map(dict.fromkeys, zip(*distinct, strict=True))))
    if read.failing is not None:
        column = _column(lines, read.failing)
        found.failing.update(column)
        found.sighted("failing", column, scaled)
    if read.summary:
        column = [" ".join(line.split())[:200] for line in lines]
        found.summaries.update(column)
        found.sighted("summaries", column, scaled)


def _location_text(path: str, line: str, read: LineRead, place: int) -> str:
    """The place string of location ``place`` of ``line`` (as Digest.add writes it)."""
    _, row, col = read.locations[place]
    if col[0] >= 0:
        return f"{path}:{line[row[0]:row[1]]}:{line[col[0]:col[1]]}"
    return f"{path}:{line[row[0]:row[1]]}"


class BulkScan:
    """The index, the earliest fact lines and the earliest shape lines of a file, read in
    chunks of whole lines (``chunks``: what ``preview._File.chunks`` yields)."""

    def __init__(self, chunks: Iterable[tuple[int, str]], max_bytes: int, line_cap: int) -> None:
        self.digest = preview.Digest()
        self.facts = preview._Earliest(max_bytes, line_cap)
        self.shapes = preview._Earliest(max_bytes, line_cap)
        self.grouped = False
        self.max_bytes, self.line_cap = max_bytes, line_cap
        self.facts_cost = self.shapes_cost = 0
        self.known = _Shapes()
        self.carry_shapes: list[Shape] = []  # the last two lines before the chunk
        self.carry_lines: list[str] = []
        self.pending: str | None = None  # the last line read, when it may head a group
        for first, chunk in chunks:
            self._chunk(first, chunk)
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

    def _chunk(self, first: int, chunk: str) -> None:
        lines = chunk.split("\n")
        lines.pop()
        keys = chunk.encode("utf-8", "surrogatepass").translate(_ZERO).split(b"\n")
        keys.pop()
        shapes = self.known.of(keys)
        if self.known.flagged:
            self._shape_lines(first, lines, shapes)
            if self.shapes_cost > self.max_bytes:  # no later shape line is among the earliest
                self.known.flagged = False
                self.pending = self.carry_lines[-1] if self.carry_lines else None
        elif not self.grouped:
            self._grouped_only(chunk)
        flags = list(map(_FACT, shapes))
        facts = list(compress(range(len(lines)), flags))
        heads = list(compress(range(len(lines)), map(_HAS_HEAD, shapes)))
        if not facts and not heads:
            return
        for index in facts:
            if self.facts_cost > self.max_bytes:
                break
            line = lines[index]
            self.facts.add(first + index, line)
            self.facts_cost += min(len(line), self.line_cap) + 1
        if any(map(_URL_FACT, map(shapes.__getitem__, facts))) or not self._counted(lines, shapes,
                                                                                    facts, heads):
            self._line_by_line(lines, shapes)

    def _counted(self, lines: list[str], shapes: list[Shape], facts: list[int], heads: list[int]) -> bool:
        """Count the chunk's facts into the index; False (nothing counted) when a table of the
        index would fill up within the chunk (then the order of every entry counts)."""
        found = _Found()
        numbers = list(map(_NUMBER, shapes))
        for _, group in groupby(sorted(facts, key=numbers.__getitem__), numbers.__getitem__):
            indexes = list(group)
            read = shapes[indexes[0]].read
            assert read is not None
            _read_group(found, read, indexes, list(map(lines.__getitem__, indexes)))
        for _, group in groupby(sorted(heads, key=numbers.__getitem__), numbers.__getitem__):
            indexes = list(group)
            head = shapes[indexes[0]].head
            assert head is not None
            column = _column(list(map(lines.__getitem__, indexes)), head)
            found.codes.update(column)
            found.sighted("codes", column, map(mul, indexes, repeat(_PLACES)))
        digest = self.digest
        tables: dict[str, dict[str, int] | dict[str, None]] = {
            "codes": digest.codes, "files": digest.files, "failing": digest.failing,
            "summaries": digest.summaries}
        counts = {"codes": found.codes, "files": found.files, "failing": found.failing,
                  "summaries": found.summaries}
        located = found.firsts["located"]

        def first_location(path: str) -> str:
            index, place = divmod(located[path], _PLACES)
            read = shapes[index].read
            assert read is not None
            return _location_text(path, lines[index], read, place)

        new: dict[str, list[str]] = {}
        for kind, table in tables.items():
            fresh = [entry for entry in counts[kind] if entry not in table]
            if len(table) < DIGEST_ENTRIES < len(table) + len(fresh):
                return False
            firsts = found.firsts[kind]
            new[kind] = sorted(fresh, key=firsts.__getitem__)
        digest.lines += len(facts)
        for kind in ("codes", "files"):
            table_counts: dict[str, int] = tables[kind]  # type: ignore[assignment]
            for entry, count in counts[kind].items():
                if entry in table_counts:
                    table_counts[entry] += count
                    if kind == "files" and entry in located and digest.firsts[entry] == entry:
                        digest.firsts[entry] = first_location(entry)
            room = len(table_counts) < DIGEST_ENTRIES
            for entry in new[kind]:
                if room:
                    table_counts[entry] = counts[kind][entry]
                    if kind == "files":
                        digest.firsts[entry] = first_location(entry) if entry in located else entry
                else:
                    digest.dropped += counts[kind][entry]
        for kind in ("failing", "summaries"):
            seen: dict[str, None] = tables[kind]  # type: ignore[assignment]
            room = len(seen) < DIGEST_ENTRIES
            for entry in new[kind]:
                if room:
                    seen[entry] = None
                else:
                    digest.dropped += counts[kind][entry]
        return True

    def _line_by_line(self, lines: list[str], shapes: list[Shape]) -> None:
        """Count the chunk's facts one line at a time, as ``preview._Scan`` does."""
        digest = self.digest
        for line, shape in zip(lines, shapes, strict=True):
            read = shape.read
            if shape.fact:
                if read is None:
                    locations = preview.fact_locations(line)
                    assert locations is not None
                    digest.add(line, locations)
                else:
                    digest.add_read(line, read, preview.read_locations(line, read))
            elif shape.head is not None:
                digest.count_code(line[shape.head])

    def _shape_lines(self, first: int, lines: list[str], shapes: list[Shape]) -> None:
        """Offer the chunk's shape lines (and the last line before it, whose next line is now
        known): definitions, commit lines, subjects, setext headings, group headers."""
        carried = len(self.carry_shapes)
        around = self.carry_shapes + shapes
        texts = self.carry_lines + lines
        self.carry_shapes, self.carry_lines = around[-2:], texts[-2:]
        size = len(around)
        found: list[int] = []
        for position in compress(range(size), map(_MARKED, around)):
            shape = around[position]
            if shape.structure and position >= carried:
                found.append(position)
            if (shape.date and position + 2 < size and around[position + 1].blank
                    and around[position + 2].four):
                found.append(position + 2)
            if shape.underline and position >= carried and position and around[position - 1].heading:
                found.append(position - 1)
            if (shape.group_head and position >= carried - 1 and position + 1 < size
                    and around[position + 1].space):
                found.append(position)
        if not found:
            return
        if not self.grouped:
            self.grouped = any(map(_GROUP_PAREN, map(around.__getitem__, found)))
        if self.shapes_cost <= self.max_bytes:
            base = first - carried
            for position in sorted(set(found)):
                if self.shapes_cost > self.max_bytes:
                    break
                line = texts[position]
                self.shapes.add(base + position, line)
                self.shapes_cost += min(len(line), self.line_cap) + 1


# The end of a line that may head a group with a count (see preview._GROUP_HEAD).
_COUNT_END = lazy(r" \(\d[\d,]*\)\n")


def _heads_group(line: str, following: str | None) -> bool:
    """Whether ``line`` is a shape line (before ``following``, None: the last line) that heads a
    group with a count."""
    if not line.endswith(")") or preview._GROUP_HEAD.fullmatch(line) is None:
        return False
    return preview._STRUCTURE.match(line) is not None or following is not None and (
        preview._UNDERLINE.fullmatch(following) is not None or following[:1] == " ")


def scan_file(source: preview._File, max_bytes: int, line_cap: int) -> BulkScan:
    """The bulk scan of a file (see :class:`BulkScan`)."""
    return BulkScan(source.chunks(BULK_CHUNK), max_bytes, line_cap)


def chunk_lines(chunk: str) -> Iterator[str]:
    """The lines of a chunk of whole lines (for tests)."""
    yield from chunk.split("\n")[:-1]
