"""execute: the requested command of an argv is written exactly as shlex.join writes it."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from tersh.execute import shell_join


@given(st.lists(st.text(max_size=12), max_size=6))
def test_shell_join_is_shlex_join(argv: list[str]) -> None:
    assert shell_join(argv) == shlex.join(argv)


def test_shell_join_quotes_what_a_shell_would_expand() -> None:
    assert shell_join(["printf", "%s|", "a b", "$HOME", "*", "", "it's"]) == (
        "printf '%s|' 'a b' '$HOME' '*' '' 'it'\"'\"'s'"
    )
