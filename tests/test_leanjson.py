"""leanjson gives json's answers (loads and default dumps) without importing json or re."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh._startup import leanjson

plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


def _same(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@given(plain)
def test_dumps_writes_what_json_dumps_writes(value: object) -> None:
    assert leanjson.dumps(value) == json.dumps(value)


@given(plain, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_reads_what_json_loads_reads(value: object, blank: str) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, indent=1)):
        document = blank + text + blank
        assert _same(leanjson.loads(document), json.loads(document))
        assert _same(leanjson.loads(document.encode("utf-8")), json.loads(document))


@pytest.mark.parametrize("bad", ["", "{", "[1,]", '{"a": 1} x', "nul", '"\x01"', "01", "{'a': 1}"])
def test_invalid_documents_raise_value_error_like_json(bad: str) -> None:
    with pytest.raises(ValueError):
        json.loads(bad)
    with pytest.raises(ValueError):
        leanjson.loads(bad)


def test_other_encodings_with_a_bom_are_read_as_json_reads_them() -> None:
    data = json.dumps({"k": "é"}).encode("utf-16")
    assert leanjson.loads(data) == json.loads(data) == {"k": "é"}


def test_values_json_cannot_write_are_refused() -> None:
    with pytest.raises(TypeError):
        leanjson.dumps({1: "a"})
    with pytest.raises(TypeError):
        leanjson.dumps({"a": object()})


def test_neither_json_nor_re_is_imported() -> None:
    probe = ("import sys\nfrom tersh._startup import leanjson\n"
             "value = {'a': [1, 2.5, None, 'x']}\n"
             "assert leanjson.loads(leanjson.dumps(value)) == value\n"
             "print(sorted(m for m in ('json', 're') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=os.environ, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
