"""Dense findings folded into brace groups: what a tool wrote again and again, written once.

Outputs made only of findings (linters with no rule of their own) leave the generic compactor
little to collapse: every line names a file or a place. What goes instead is what each line
repeats, by these folds, each written with ``renderings.brace_group`` (``{a,b,c}`` stands for
the line with each of ``a``, ``b``, ``c`` in its place; the verifier reads every line back):

- *wrapped cells* of a table-like report are merged onto their row first (``wrapped``);
- *blocks* (a header naming a file, the indented entries under it) with the same entries: one
  header, the files in braces (yamllint's ``{v1/a.yaml,v1/b.yaml}`` over ``  1:1  warning
  missing document start "---"  (document-start)``);
- *places*: findings under one head word (their file, or ``L:`` of a place with no path) that
  differ only in one number, when there are more than FEW_PLACES such lines (fewer stay as the
  tool wrote them, directly usable): the message once, the numbers in braces (``Git.pm: Always
  unpack @_ first at line {155,264,309}, column 1.  See …``; ``L:  {10,11,12} | P:   1 | LT02 |
  Expected indent …``);
- *paths*: lines in a row, not indented, that differ only in the file they name (``[warn]
  {all/a.js,all/b.js}``), a file's place (``a.py:3:1``) never split from it.

Every path stays whole, written as the tool wrote it, and so does every message (white space
included): only the repeated text goes. A folded line stands where the first line it stands
for stood; the blocks of one stretch and the findings under one head word are regrouped so
(no other line moves). A line that holds a brace, or a note of tersh, is never folded (its
braces would read as a group).
"""

from __future__ import annotations

from _operator import is_not
from itertools import compress, repeat

from tersh._startup.lazyre import lazy
from tersh._startup.lean import lru_cache
from tersh.compaction import wrapped
from tersh.compaction.kit.base import min_share
from tersh.compaction.verify.facts import _word_path, place_line

TYPE_CHECKING = False  # no typing import at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

#: At least this many lines that differ only in the file they name are folded.
MIN_PATHS = 3
#: At least this many lines that differ only in one number are folded.
MIN_PLACES = 2
#: Up to this many lines that may fold by their places stay as the tool wrote them (as
#: ``generic.FEW_FINDINGS`` keeps that many findings: directly usable, and folding saves little).
FEW_PLACES = 40
#: At least this many blocks with the same entries are folded.
MIN_BLOCKS = 2
#: Texts of more lines than this are not folded (the compactor's other work is bounded so too).
MAX_LINES = 50_000

# A word that may be a path (path characters, with a "/" or a "." inside).
_PATH_WORD = lazy(r"(?<![\w.@+~/-])(?=[\w@+~-]*[/.])[\w.@+~/-]+")
# A number standing as a word (a field of a message).
_NUMBER = lazy(r"\b(\d+)\b")
_NOTE = "[tersh"


def folded(text: str, compacted: str | None) -> str | None:
    """The folds of ``compacted`` (the generic compaction of ``text``), or of ``text`` when that
    is None; ``compacted`` when nothing folds or the folds do not save enough of ``text``."""
    base = text if compacted is None else compacted
    result = fold(base)
    if result is None or len(result) >= len(text) * (1 - min_share()):
        return compacted
    return result


def fold(text: str) -> str | None:
    """``text`` with its wrapped cells merged and its blocks, places and paths folded (see the
    module's docstring); None when nothing changes."""
    if "\n" not in text or text.count("\n") > MAX_LINES:
        return None
    lines = text.split("\n")
    changed = False
    steps: tuple[Callable[[list[str]], list[str] | None], ...] = (
        wrapped.merge_continuations, _fold_blocks, _fold_places, _fold_paths,
    )  # fmt: skip
    for step in steps:
        found = step(lines)
        if found is not None:
            lines, changed = found, True
    return "\n".join(lines) if changed else None


def _foldable(line: str) -> bool:
    """Whether ``line`` may be folded: it holds no brace and is no note of tersh."""
    return "{" not in line and "}" not in line and not line.startswith(_NOTE)


@lru_cache(maxsize=1 << 14)
def _path_key(line: str) -> tuple[str, str, str] | None:
    """``(before, path, after)`` of ``line`` around the last file it names (a path word, as
    ``verify.facts`` reads one, with no place right after it: ``a.py:3`` is one fact), or None
    when it names none or may not be folded."""
    if ("/" not in line and "." not in line) or not _foldable(line):
        return None
    found = None
    for match in _PATH_WORD.finditer(line):
        word = match.group()
        if _word_path(word) == word and "," not in word:
            found = match
    if found is None:
        return None
    end = found.end()
    if line[end : end + 1] in (":", "(") and line[end + 1 : end + 2].isdigit():
        return None
    return line[: found.start()], found.group(), line[end:]


def _brace(prefix: str, alternatives: list[str], suffix: str) -> str | None:
    from tersh.compaction.verify.renderings import brace_group  # the renderer, once a fold is found

    return brace_group(prefix, alternatives, suffix)


def _fold_paths(lines: list[str]) -> list[str] | None:
    """The lines in a row, not indented, that differ only in the file they name (at least
    MIN_PATHS) folded: ``[warn] {all/a.js,all/b.js,all/c.js}`` (an indented line may be an entry
    under a header: it is never folded)."""
    signatures = list(map(_signature, lines))
    counts: dict[str | None, int] = {}
    for signature in signatures:
        counts[signature] = counts.get(signature, 0) + 1
    counts[None] = 0
    keys = [
        _path_key(line) if counts[signature] >= MIN_PATHS else None
        for line, signature in zip(lines, signatures, strict=True)
    ]
    return _regroup(
        lines,
        [None if key is None else (key[0], key[2]) for key in keys],
        lambda members: _path_line([keys[index] for index in members]),
        MIN_PATHS,
    )


def _signature(line: str) -> str | None:
    """What every line of a fold of paths shares (its text up to the first ``/`` or ``.``, and
    its last three characters), for a line that may be one (not indented, holding a ``/`` or a
    ``.``); else None. Only lines whose signature MIN_PATHS lines share are read for a path."""
    if not line or line[0].isspace():
        return None
    slash, dot = line.find("/"), line.find(".")
    first = slash if dot < 0 else dot if slash < 0 else min(slash, dot)
    return None if first < 0 else line[:first] + "\n" + line[-3:]


def _path_line(keys: list[tuple[str, str, str] | None]) -> str | None:
    """The folded line of the lines of ``keys`` (one key, distinct paths), or None."""
    first = keys[0]
    assert first is not None  # (members of a group have a key)
    paths = [key[1] for key in keys if key is not None]
    if len(set(paths)) < len(paths):
        return None  # a line written again: left to the count of repeated lines
    return _brace(first[0], paths, first[2])


def _regroup(
    lines: list[str],
    keys: list[object | None],
    render: Callable[[list[int]], str | None],
    least: int,
) -> list[str] | None:
    """``lines`` with each run of lines in a row that have one key (at least ``least``) replaced
    by ``render`` of their indexes when that is shorter (no line moves: a log's order stays)."""
    out: list[str] = []
    changed = False
    for index, end in _runs(keys):
        line = render(list(range(index, end))) if end - index >= least else None
        if line is None or len(line) >= sum(len(lines[member]) + 1 for member in range(index, end)):
            out.extend(lines[index:end])
        else:
            out.append(line)
            changed = True
    return out if changed else None


def _runs(keys: Sequence[object | None]) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each run of lines in a row with one key (a line with no key, None,
    is a run of its own), in order."""
    index, total = 0, len(keys)
    while index < total:
        key = keys[index]
        end = index + 1
        while key is not None and end < total and keys[end] == key:
            end += 1
        yield index, end
        index = end


def _head(line: str) -> str | None:
    """The head word of a finding whose places may fold: the first word, with no digit, of a
    line that is not indented and may be folded, when it is the file the finding is about
    (``Git.pm:``) or the line names a place with no path (``L:  12 | P:   4 | …``); else None
    (the lines of a log or of a file's text are never moved)."""
    if not line or line[0].isspace() or not _foldable(line):
        return None
    word = line.split(None, 1)[0]
    if any(map(str.isdigit, word)):
        return None
    path = word.rstrip(":")
    return word if (path and _word_path(path) == path) or place_line(line) else None


def _fold_places(lines: list[str]) -> list[str] | None:
    """Each stretch of lines under one head word, with the lines that differ only in one number
    (at least MIN_PLACES) folded onto one: ``L:  {10,11} | P:   1 | msg``; None when no more
    than FEW_PLACES lines have a head word and a number."""
    numbered = list(compress(lines, map(_NUMBER.search, lines)))  # (no Python call a line)
    if len(numbered) <= FEW_PLACES or sum(map(is_not, map(_head, numbered), repeat(None))) <= FEW_PLACES:
        return None
    heads = [_head(line) for line in lines]
    out: list[str] = []
    changed = False
    for index, end in _runs(heads):
        if end - index < MIN_PLACES:
            out.extend(lines[index:end])
            continue
        written, gone = _places(lines, index, end)
        changed = changed or bool(written)
        out.extend(written.get(at, lines[at]) for at in range(index, end) if at not in gone)
    return out if changed else None


def _places(lines: list[str], start: int, end: int) -> tuple[dict[int, str], set[int]]:
    """The folded line written for the first of each set of lines of ``lines[start:end]`` that
    differ only in one number, and the other lines of those sets."""
    shapes: dict[tuple[str, ...], list[tuple[int, list[str]]]] = {}
    for at in range(start, end):
        parts = _NUMBER.split(lines[at])
        if len(parts) > 1:
            shapes.setdefault(tuple(parts[0::2]), []).append((at, parts))
    written: dict[int, str] = {}
    gone: set[int] = set()
    for members in shapes.values():
        if len(members) < MIN_PLACES:
            continue
        fields = len(members[0][1]) // 2
        varying = [
            field for field in range(fields) if len({parts[2 * field + 1] for _, parts in members}) > 1
        ]
        if not varying:
            continue  # the same line again: left to the count of repeated lines

        def rest(parts: list[str], field: int) -> tuple[str, ...]:
            return tuple(parts[: 2 * field + 1] + parts[2 * field + 2 :])

        field = min(varying, key=lambda field: len({rest(parts, field) for _, parts in members}))
        sets: dict[tuple[str, ...], list[tuple[int, list[str]]]] = {}
        for at, parts in members:
            sets.setdefault(rest(parts, field), []).append((at, parts))
        for same in sets.values():
            if len(same) < MIN_PLACES:
                continue
            parts = same[0][1]
            line = _brace(
                "".join(parts[: 2 * field + 1]),
                [numbered[2 * field + 1] for _, numbered in same],
                "".join(parts[2 * field + 2 :]),
            )
            if line is None or len(line) >= sum(len(lines[at]) + 1 for at, _ in same):
                continue
            written[same[0][0]] = line
            gone.update(at for at, _ in same[1:])
    return written, gone


def _block_end(lines: list[str], index: int) -> int:
    """The index past the indented lines right under line ``index``."""
    end = index + 1
    while end < len(lines) and lines[end][:1] in (" ", "\t") and lines[end].strip():
        end += 1
    return end


def _fold_blocks(lines: list[str]) -> list[str] | None:
    """Each stretch of blocks (a line naming a file, the indented lines under it, the empty
    lines after them), with the blocks whose indented lines are the same (at least MIN_BLOCKS)
    folded under one header: ``{dir/a.yaml,dir/b.yaml}``."""
    out: list[str] = []
    changed = False
    index, total = 0, len(lines)
    while index < total:
        line = lines[index]
        # (a block's header is followed by an indented line: no other line is asked more)
        if index + 1 >= total or lines[index + 1][:1] not in (" ", "\t") or not line or line[0].isspace():
            out.append(line)
            index += 1
            continue
        blocks = _blocks_from(lines, index)
        if len(blocks) < MIN_BLOCKS:
            out.append(line)
            index += 1
            continue
        groups: dict[tuple[str, str, tuple[str, ...]], list[tuple[int, int, int]]] = {}
        for block in blocks:
            key = _path_key(lines[block[0]])
            assert key is not None  # (a block's header names a file)
            groups.setdefault((key[0], key[2], tuple(lines[block[0] + 1 : block[1]])), []).append(block)
        written: dict[int, list[str]] = {}
        gone: set[int] = set()
        for members in groups.values():
            if len(members) < MIN_BLOCKS:
                continue
            header = _path_line([_path_key(lines[first]) for first, _, _ in members])
            if header is None:
                continue
            first, _, block_end = members[0]
            written[first] = [header, *lines[first + 1 : block_end]]
            gone.update(member[0] for member in members[1:])
        for first, _, block_end in blocks:
            if first in written:
                out.extend(written[first])
            elif first not in gone:
                out.extend(lines[first:block_end])
        changed = changed or bool(written)
        index = blocks[-1][2]
    return out if changed else None


def _blocks_from(lines: list[str], index: int) -> list[tuple[int, int, int]]:
    """The blocks in a row from line ``index``: ``(header, end of its indented lines, end of
    the empty lines after them)`` each; a block's header is a line that is not indented and
    names a file, with at least one indented line under it."""
    blocks: list[tuple[int, int, int]] = []
    total = len(lines)
    while index < total:
        line = lines[index]
        if not line or line[0].isspace() or _path_key(line) is None:
            break
        body_end = _block_end(lines, index)
        if body_end == index + 1 or any(not _foldable(inner) for inner in lines[index + 1 : body_end]):
            break
        end = body_end
        while end < total and not lines[end].strip():
            end += 1
        blocks.append((index, body_end, end))
        index = end
    return blocks
