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
from tersh.compaction.verify.facts import iter_paths

# An entry of a grouped finding: "   3:10  ✖  message" (indented, line:col, the message).
_ENTRY = lazy(r"^[ \t]+(\d+):(\d+)[ \t]+(\S.*)$")
# A line that names a place with no path on it: such an entry, or sqlfluff's "L:  12 | P:   4 |".
_POSITION = lazy(r"^[ \t]+\d+:\d+(?:[ \t]|$)|^L:[ \t]*\d+[ \t]*\|[ \t]*P:[ \t]*\d+")
#: What every line ``position_line`` accepts starts with, in a text: a break, then one of these.
POSITION_STARTS = ("\n ", "\n\t", "\nL:")


def position_line(line: str) -> bool:
    """Whether ``line`` names a place by line and column with no path on it (``  3:10  ✖ msg``,
    ``L:  12 | P:   4 | LT02 | msg``): its place is a fact only its own line carries."""
    return _POSITION.match(line) is not None


def _header(line: str) -> str | None:
    """The path a line that is one path word, not indented, names; else None."""
    if not line or line[0].isspace() or " " in line.rstrip() or "\t" in line:
        return None
    word = line.rstrip()
    return word if next(iter_paths(word), None) == word else None


def regroup(lines: list[str]) -> list[str] | None:
    """``lines`` with the entries of each file that share a message merged onto one entry (its
    header then ``path (N)``); None when no file's entries share one."""
    from tersh.compaction.kit import diag  # the linters' renderer, loaded when needed

    out: list[str] = []
    changed = False
    index, total = 0, len(lines)
    while index < total:
        path = _header(lines[index])
        end = index + 1
        found: list[diag.Finding] = []
        while path is not None and end < total:
            entry = _ENTRY.match(lines[end])
            if entry is None:
                break
            message = " ".join(entry[3].split())
            found.append(diag.Finding(path, f"{entry[1]}:{entry[2]}", message, lines[end]))
            end += 1
        if len({finding.text for finding in found}) < len(found):
            grouped = diag.render_grouped(found)
            if len(grouped) < len(found) + 1:
                out.extend(grouped)
                changed = True
                index = end
                continue
        out.extend(lines[index:end])
        index = end
    return out if changed else None
