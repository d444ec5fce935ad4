"""Textual TOML table edits: everything outside tersh's table stays byte for byte."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh.errors import TershError
from tersh.hosts import tomledit

TABLE = tomledit.render_table("mcp_servers.tersh", {"command": "/x/tersh", "args": ["mcp"]})

keys = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
values = st.one_of(st.integers(-5, 5), st.booleans(), st.text(max_size=10))


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines = ["# comment at the top"]
    for key, value in draw(st.dictionaries(keys, values, max_size=3)).items():
        lines.append(
            f"{key} = {tomledit.toml_value(value) if isinstance(value, str) else str(value).lower()}"
        )
    for name in draw(st.lists(keys, max_size=3, unique=True)):
        lines += ["", f"[mcp_servers.{name}]" if name != "tersh" else "[other]", 'command = "c"  # why']
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))


@given(documents())
def test_add_then_remove_gives_back_the_same_bytes(text: str) -> None:
    added = tomledit.set_table(text, "mcp_servers.tersh", TABLE)
    assert tomllib.loads(added)["mcp_servers"]["tersh"] == {"command": "/x/tersh", "args": ["mcp"]}
    assert tomledit.set_table(added, "mcp_servers.tersh", TABLE) == added
    restored = tomledit.set_table(added, "mcp_servers.tersh", None)
    assert tomllib.loads(restored) == tomllib.loads(text)
    assert restored.rstrip("\n") == text.rstrip("\n")


def test_replacing_a_table_in_the_middle_keeps_its_neighbours() -> None:
    text = (
        '[a]\nx = 1\n\n[mcp_servers.tersh]\ncommand = "old"\n\n'
        '[mcp_servers.tersh.env]\nK = "v"\n\n[b]\ny = 2\n'
    )
    new = tomledit.set_table(text, "mcp_servers.tersh", TABLE)
    assert new == "[a]\nx = 1\n\n" + TABLE + "\n[b]\ny = 2\n"


def test_values_are_escaped() -> None:
    table = tomledit.render_table("t", {"command": 'C:\\a "b"', "args": ["é", "\n"]})
    assert tomllib.loads(table)["t"] == {"command": 'C:\\a "b"', "args": ["é", "\n"]}


def test_invalid_toml_is_refused() -> None:
    with pytest.raises(TershError):
        tomledit.set_table("model = \n", "mcp_servers.tersh", TABLE)
