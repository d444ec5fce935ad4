"""Findings a linter already grouped under their file, as eslint's ``stylish`` form prints them
(stylelint, yamllint, and every tool that copies it)::

    css/default.css
       3:10  ✖  Too many declarations, maximum 1  declaration-block-single-line-max-declarations
       5:9   ✖  Too many declarations, maximum 1  declaration-block-single-line-max-declarations

Such an entry names its place by ``line:col`` only: the verifier reads no location on it, so the
generic compactor must never fold it into a run (``position_line``). What may go is the message
written again for each place: the entries of one file that share a message are merged onto one
entry under ``css/default.css (2)`` (``  3:10 5:9 ✖ Too many …``), as the linter rules write
them (``kit.diag.render_grouped``); the verifier reads each entry back as its places and as the
tool's own lines (``verify.renderings``).
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.compaction.linestarts import LineStarts
from tersh.compaction.verify.facts import iter_paths, place_line, place_lines

# An entry of a grouped finding: "   3:10  ✖  message" (indented, line:col, the message).
_ENTRY = lazy(r"^[ \t]+(\d+):(\d+)[ \t]+(\S.*)$")


def position_line(line: str) -> bool:
    """Whether ``line`` names a place by line and column with no path on it (``  3:10  ✖ msg``,
    ``L:  12 | P:   4 | LT02 | msg``, ``… at line 12, column 4``): its place is a fact only its
    own line carries (``verify.facts.place_line``)."""
    return place_line(line)


def position_lines(text: str) -> list[int]:
    """The indexes of the lines of ``text`` that ``position_line`` accepts, by one scan of it."""
    return place_lines(text)


def _header(line: str) -> str | None:
    """The path a line that is one path word, not indented, names; else None."""
    if not line or line[0].isspace() or " " in line.rstrip() or "\t" in line:
        return None
    word = line.rstrip()
    return word if next(iter_paths(word), None) == word else None


def regroup(lines: list[str], text: str) -> list[str] | None:
    """``lines`` (``text`` split at ``\\n``) with the entries of each file that share a message
    merged onto one entry (its header then ``path (N)``); None when no file's entries share one.
    Only the lines one scan of ``text`` finds an entry on are read one by one."""
    blocks: list[tuple[int, int]] = []  # (first, end) of each run of entry lines
    for index in _entry_lines(text):
        if blocks and blocks[-1][1] == index:
            blocks[-1] = (blocks[-1][0], index + 1)
        else:
            blocks.append((index, index + 1))
    if not blocks:
        return None
    from tersh.compaction.kit import diag  # the linters' renderer, loaded when an entry is found
    out: list[str] = []
    done = 0  # lines[:done] are in ``out``
    for first, end in blocks:
        path = _header(lines[first - 1]) if first > 0 else None
        if path is None:
            continue
        found: list[diag.Finding] = []
        for line in lines[first:end]:
            entry = _ENTRY.match(line)
            assert entry is not None  # (a line _ENTRIES found)
            message = " ".join(entry[3].split())
            found.append(diag.Finding(path, f"{entry[1]}:{entry[2]}", message, line))
        if len({finding.text for finding in found}) == len(found):
            continue
        grouped = diag.render_grouped(found)
        if len(grouped) < len(found) + 1:
            out.extend(lines[done : first - 1])
            out.extend(grouped)
            done = end
    if not out:
        return None
    out.extend(lines[done:])
    return out


# _ENTRY over a whole text, tried at its line starts only.
_ENTRIES = LineStarts(r"[ \t]+\d+:\d+[ \t]+\S")


def _entry_lines(text: str) -> list[int]:
    """The indexes of the lines ``_ENTRY`` matches, in order, by one scan of ``text``."""
    found: list[int] = []
    index, last = 0, 0
    for start in _ENTRIES.starts(text):
        index += text.count("\n", last, start)
        last = start
        found.append(index)
    return found
