"""Wrapped cells of a table-like report, merged back onto the row they belong to.

A report that prints its findings as a table wraps a long last cell onto lines of its own,
padded to that cell's column and opened by the same bar (sqlfluff)::

    L:   9 | P:  31 | LT02 | Expected line break and indent of 4 spaces before
                           | 'relation'. [layout.indent]

Such a line is written back onto its row, its padding and bar dropped (``L:   9 | P:  31 | LT02 |
Expected line break and indent of 4 spaces before 'relation'. [layout.indent]``): the row's text
and the wrapped text stay in order, so the verifier finds each line's facts in the merged one
with white space collapsed.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.compaction.verify.facts import in_frame_shape

TYPE_CHECKING = False  # no typing import at run time
if TYPE_CHECKING:
    import re

# A wrapped cell: padding, the bar, then the cell's text (possibly empty).
_CONTINUATION = lazy(r"^( +)([|\u2502])(?: (.*))?$")
#: A row holds at least this many bars (it is a table's row, not prose with one bar).
MIN_BARS = 2


def merge_continuations(lines: list[str]) -> list[str] | None:
    """``lines`` with each wrapped cell (a line of padding and a bar under the bar of the row
    above, or of the wrapped cell above) merged onto its row; None when there is none."""
    out: list[str] = []
    above = ""  # the source line above, as the tool wrote it
    chained = False  # whether ``above`` is a wrapped cell, merged
    merged = False
    for line in lines:
        cell = _CONTINUATION.match(line) if line[:1] == " " else None
        if cell is not None and out and _continues(above, cell, chained):
            text = (cell[3] or "").strip()
            if text:
                out[-1] = f"{out[-1].rstrip()} {text}"
            merged = chained = True
        else:
            out.append(line)
            chained = False
        above = line
    return out if merged else None


def _continues(above: str, cell: re.Match[str], chained: bool) -> bool:
    """Whether the wrapped ``cell`` hangs under a bar of the line ``above`` at its column:
    ``above`` is a wrapped cell merged already (``chained``), or a table's row (at least
    MIN_BARS bars; a code frame's line is none: its gutter is no cell)."""
    column = len(cell[1])
    if above[column : column + 1] != cell[2]:
        return False
    return chained or (above.count(cell[2]) >= MIN_BARS and not in_frame_shape(above))

