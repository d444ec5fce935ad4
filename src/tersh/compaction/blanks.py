"""Column padding is no part of a line's shape: ``a.py   12`` and ``bb.py  3`` are one shape.

Tools pad columns to the widest value of a table (``git fetch -v``'s refs, ``wc -l``'s counts,
a linter's ``line:col`` column), so lines of one shape differ in their runs of blanks; the
generic compactor compares lines with every run of ASCII blanks written as one space and none at
either end, in its masks (``squeeze``) and, the same way, in the byte skeletons it compares
first (``squeeze_bytes``, on many lines joined by ``\\n`` at once).
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy

# The blanks a skeleton keeps (generic._NOT_BLANK: all ASCII blanks but the line break), which
# are the ones ``bytes.split()`` splits at.
_RUN = lazy(r"[ \t\r\x0b\x0c]+")
_ENDS = lazy(r"^[ \t\r\x0b\x0c]+|[ \t\r\x0b\x0c]+$")


def squeeze(line: str) -> str:
    """``line`` with no blanks at either end and each run of blanks inside as one space."""
    return _RUN.sub(" ", _ENDS.sub("", line))


def squeeze_bytes(lines: bytes) -> bytes:
    """``squeeze`` of each of ``lines`` (UTF-8, joined by ``\\n``), by ``map`` over builtins (no
    call per line): ``bytes.split()`` splits at exactly the blanks ``squeeze`` squeezes."""
    return b"\n".join(map(b" ".join, map(bytes.split, lines.split(b"\n"))))
