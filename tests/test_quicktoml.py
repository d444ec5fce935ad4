"""The plain-TOML reader agrees with tomllib on every document it accepts, and accepts ours."""

from __future__ import annotations

import tomllib

import pytest
import tomli_w
from hypothesis import given
from hypothesis import strategies as st

from tersh import settings
from tersh._startup.quicktoml import parse_plain

_KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=12)
_PLAIN = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20),
    st.floats(allow_nan=False, allow_infinity=False),
)
_TABLES = st.dictionaries(_KEYS, _PLAIN, max_size=6)
_DOCUMENTS = st.dictionaries(_KEYS, st.one_of(_PLAIN, _TABLES), max_size=8)


@given(_DOCUMENTS)
def test_written_documents_read_back_like_tomllib(document: dict[str, object]) -> None:
    text = tomli_w.dumps(document)
    parsed = parse_plain(text)
    assert parsed is None or parsed == tomllib.loads(text)


_SAFE = st.one_of(st.booleans(), st.integers(), st.text(alphabet="ab c/é._-:", max_size=20))


@given(st.dictionaries(_KEYS, st.one_of(_SAFE, st.dictionaries(_KEYS, _SAFE, max_size=6))))
def test_plain_documents_always_take_the_quick_path(document: dict[str, object]) -> None:
    text = tomli_w.dumps(document)
    assert parse_plain(text) == tomllib.loads(text) == document


@given(st.text(alphabet=' \t\n=[]."#\\+-.0123456789abeflnrstu_xé', max_size=80))
def test_any_text_it_accepts_is_valid_toml_with_the_same_value(text: str) -> None:
    parsed = parse_plain(text)
    if parsed is not None:
        assert parsed == tomllib.loads(text)


def test_every_settings_file_tersh_writes_takes_the_plain_path() -> None:
    values = {key: value for key, value in settings.DEFAULTS.items() if key != "rtk.path"}
    text = tomli_w.dumps(settings._nest({**values, "rtk.path": "/opt/rtk/bin/rtk"}))
    assert parse_plain(text) == tomllib.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        "a = 1 # comment",
        "a = 'literal'",
        'a = "esc\\"aped"',
        "a.b = 1",
        "[a]\n[a]",
        "a = 1\n[a]",
        "a = 01",
        "a = 1e5",
        "a = [1, 2]",
        "a = 2026-11-30",
        "[[a]]",
        "[ a ]",
        "a = 1\r\n",
        "a = 1\na = 2",
    ],
)
def test_anything_beyond_the_plain_subset_is_left_to_tomllib(text: str) -> None:
    assert parse_plain(text) is None


def test_settings_read_the_plain_file_and_still_fall_back(tmp_path: object) -> None:
    settings.save({"enabled": True, "preview.max_lines": 120, "tools.min_saving": 0.25})
    assert settings.load()["preview.max_lines"] == 120
    assert settings.load()["tools.min_saving"] == 0.25
    settings.settings_path().write_text("enabled = true # by hand\n[preview]\nmax_lines = 1_000\n")
    conf = settings.load()
    assert conf.flag("enabled") and conf.int("preview.max_lines") == 1000
