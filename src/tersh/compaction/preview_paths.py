"""Lines that differ only in the letters of the file they open with are read alike.

A type checker or linter over thousands of files writes one line a finding, each naming its file
first (``src/app/parse.ts(69,36): error TS2345: …``, ``pkg/mod.py:12:5: E501 …``, ruff's and
rustc's ``  --> src/main.rs:2:5``): lines of one shape but for their path, each a new shape of line
(``preview_bulk``) to read. :func:`path_masked` writes such a line's shape with every lower-case
ASCII letter of its path but those of its extension as ``a`` (its length kept): lines with the same
masked shape have the same reading (``preview_read.read_line``) and the same shape-line flags,
when that reading holds a location; so one of them is read for all.

Why: the path ``P`` is a maximal run of ASCII path characters (``[\\w.@+~/-]``) after nothing but
blanks (and ruff's arrow ``-->`` with a blank after it), holding a ``.`` and ending with a word
after its last ``.`` (its extension, kept), followed by ``(`` or ``:`` and a digit; the lines of a
masked shape differ only in lower-case letters of ``P`` before its last ``.``, each another
lower-case letter. Whether a location opens at ``P`` is the same for them (the location patterns
read its letters as ``\\w``; ``_colon_location_path`` reads whether ``P`` has a letter, its
``.``, ``/`` and ``-`` where they are, its extension, and ``_NOT_PATH`` never matches a word
holding a ``.``), and so is every other location (they start after ``P``: their look-behinds
read no character of it). With a location on the line, the severity words are not read; every
other pattern of the reading, and of the shape-line flags, that can read a character of ``P``
reads a letter there as ``\\w``, ``\\S`` or ``.`` (a pattern that reads words — a summary's count
and words, a failing test's marker, an end code, a definition's keyword — needs a blank or a
digit before or after them, which ``P`` does not hold and its neighbours do not give), and the
quick literal tests before the patterns (``_may_summarize``, ``_may_fail``) only let a line through
to them. A line with a URL (``://``) is never masked. tests/compact/test_preview_paths.py holds
the readings of lines masked alike equal, and the bulk scan with masking equal to the per-line scan.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy_bytes

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterator

#: What may come before the path: blanks, or ruff's and rustc's arrow with a blank after it.
_LEAD = rb"[ \t]*+(?:-->[ \t]++)?+"
#: The path up to its last ``.`` (that ``.`` too: no letter in it), then its extension: each part
#: taken whole, never given back (the path ends where its characters end).
_PATH = rb"((?:[A-Za-z0-9_@+~/-]*+\.)++)"
_EXTENSION = rb"[A-Za-z0-9_]++[(:]0"
#: A line (its UTF-8 form, digits as ``0``) that opens with a path followed by a line number:
#: group 1 is the path up to its last ``.`` (the letters masked).
_OPENING_PATH = lazy_bytes(_LEAD + _PATH + _EXTENSION)
#: The same after a newline, in lines joined by newlines: group 1 what comes before the path,
#: group 2 the path up to its last ``.``, group 3 the rest of the line.
_OPENING_PATH_LINES = lazy_bytes(rb"\n(" + _LEAD + rb")" + _PATH + rb"(" + _EXTENSION + rb"[^\n]*)")
#: Every lower-case ASCII letter as ``a``.
_LOWER_AS_A = bytes.maketrans(b"bcdefghijklmnopqrstuvwxyz", b"a" * 25)


def path_masked(key: bytes) -> bytes | None:
    """The masked shape of a line (``key``: its UTF-8 form, digits as ``0``) that opens with a
    path followed by a line number (see the module's text), else None."""
    found = _OPENING_PATH.match(key)
    if found is None or b"://" in key:
        return None
    start, end = found.span(1)
    return key[:start] + key[start:end].translate(_LOWER_AS_A) + key[end:]


def masked_lines(keys: list[bytes]) -> Iterator[tuple[bytes, bytes]]:
    """``(key, path_masked(key))`` of each of ``keys`` that :func:`path_masked` masks, in order,
    found by one search of them all (the others cost no Python step)."""
    for found in _OPENING_PATH_LINES.finditer(b"\n" + b"\n".join(keys)):
        lead, path, rest = found.groups()
        if b"://" not in rest:  # (a URL holds a ":" and the lead and path hold none)
            yield found[0][1:], lead + path.translate(_LOWER_AS_A) + rest
