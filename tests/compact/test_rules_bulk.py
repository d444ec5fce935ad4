"""The bulk readings of the build and lint rules, held equal to their per-line definitions.

Each rule reads its tool's output a block or a run of findings at a time (compiled regexes over
the whole text, ``str.count``), not a Python step per line; the readable per-line reading stays
beside it (or here) as the definition. Outputs assembled from real lines of each tool, mixed
with lines of the shapes where the two readings could part, must give the same result.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction.kit import diag as _diag
from tersh.compaction.rules import ruff
from tests.compact import support

_PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Lines where a reading a block at a time could part from one a line at a time: findings hidden
# in hint or gutter shapes, grouped files and entries, frames of every shape, other line breaks.
_RUFF_EDGES = [
    "help:3: F401 [*] `os` imported but unused", "|a.py:3:1: E501 Line too long", "|a.b:",
    "src/x.py:", "  12:5  F401 [*] `os` imported but unused", "  12:5 F401", "12:3: F401 x",
    "> 12 | x = 1", "12 | raise ValueError('error')", "   |     ^^^^ here", "   |", "...",
    "..:3: F401 x", "-" * 19, "-" * 20, "-" * 25, "-" * 25 + "x", "--- a.py", "│ x", "12 + fixed", "12 - old",
    "   - old", "note: This is an unsafe fix", "note[x]: y", "hint: z", "help[x]: w",
    "info: see src/a.py:3", "F401 [*] `os` imported but unused", "  --> src/a.py:1:8",
    "   --> a.py:12:30  ", "unformatted: File would be reformatted", "E501 Line too long",
    "Found 3 errors.", "[*] 2 fixable with the `--fix` option.", "  deadbeef1 commit",
    "12 | see lib/b.py:4", "   12 | warning: quoted", "", " ", "\t", "x\ry", "a\x0cb", "\u2028",
    "  1\t2", "1 2 | x", "12", "12 |", "h", "n", "note", "helper: x", "nothing: 1:2",
]  # fmt: skip
_RUFF_LINES = st.one_of(
    st.sampled_from(support.fragment_lines("lint__ruff", "ruff")), st.sampled_from(_RUFF_EDGES)
)


def _ruff_reading(text: str, bulk: bool) -> tuple[list[_diag.Finding | str], dict[str, int], str | None]:
    reading = ruff._Reading(ruff._newline_lines(text))
    if bulk:
        reading.read_bulk(text)
    else:
        reading.read_each()
    return reading.items, reading.dropped, reading.group


@_PROPERTY
@given(st.lists(_RUFF_LINES, min_size=1, max_size=150), st.booleans())
def test_ruff_reads_blocks_as_it_reads_lines(lines: list[str], newline_at_end: bool) -> None:
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    if any(mark in text for mark in ruff._OTHER_BREAKS) or not text.replace("\n", ""):
        return  # read a line at a time (compact never reads those in bulk)
    assert _ruff_reading(text, bulk=True) == _ruff_reading(text, bulk=False)


@_PROPERTY
@given(_RUFF_LINES)
def test_frame_fact_kind_says_what_frame_line_carries_fact_needs(line: str) -> None:
    kind = _diag.frame_fact_kind(line)
    if kind == _diag.BLANK:
        assert not line.strip()
        return
    for quoted in ([line, "   |"], [line]):  # quoted code (a gutter under it), or not
        expected = _diag.frame_line_carries_fact(quoted, 0)
        if kind == _diag.NO_FACT:
            assert expected is False
        elif kind == _diag.FACT:
            assert expected is True
