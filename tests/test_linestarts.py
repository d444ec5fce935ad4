"""``linestarts.LineStarts``, held equal to the MULTILINE ``^body`` each use stands for."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tersh.compaction import stylish
from tersh.compaction.linestarts import LineStarts
from tersh.compaction.verify import facts, renderings

# Every LineStarts tersh defines, and whether its caller reads where the matches start (else
# only whether there is one).
_USES: list[tuple[LineStarts, bool]] = [
    (facts._PLACE_ENTRY_LINES, True),
    (stylish._ENTRIES, True),
    *((mark, False) for _, mark in renderings._FORM_MARKS),
]
_PIECES = [
    "\n", " ", "\t", "  ", "3", "12", ":", "10:4", "L:", "P:", "|", " | ", "-->", "--> ", "(", ")",
    "(3,4)", ",", "a.py", "a", "x", ": ", "\u2502", "\r", "\x0b", "\u00a0",
]  # fmt: skip
_TEXT = st.one_of(
    st.lists(st.sampled_from(_PIECES), max_size=30).map("".join),
    st.text(alphabet=st.sampled_from(" \t\n:|,()-> LP0123456789ax"), max_size=60),
)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
@example("")
@example("\n")
@example("  3:4 x\n  5:6 y")
@example("L: 1 | P: 2\nL:3|P:4\n")
@example("a.py:3: x\n  --> a:1:2\nf(1,2): m\n 1:2\n")
def test_line_starts_as_multiline_caret(text: str) -> None:
    for use, positions in _USES:
        plain = re.compile(use.pattern, re.MULTILINE)
        assert use.holds(text) == (plain.search(text) is not None), use.pattern
        if positions:
            assert list(use.starts(text)) == [match.start() for match in plain.finditer(text)], use.pattern


def test_place_entry_is_the_line_pattern() -> None:
    # ``place_line`` reads one line with the pattern ``place_lines`` reads a text with.
    assert facts._PLACE_ENTRY.pattern == facts._PLACE_ENTRY_LINES.pattern
