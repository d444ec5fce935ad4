"""grep's screen of a flood (``grepscreen``) never hides a fact line from the generic compactor.

``may_hold_fact_lines`` False stands for "the bulk scan finds no fact line": texts made of
lines of recorded outputs (fact lines among them) and of any text are held to that, and the
generic compactor's answer with the screen to its answer without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tersh.compaction import generic, grepscreen, preview
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify.scan import fact_lines

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = sorted(
    {line for path in sorted((FIXTURES / "generic").glob("*/combined"))
     for line in path.read_text(encoding="utf-8", errors="replace").splitlines()}
)
FACT_FREE = [line for line in RECORDED if not fact_lines(line + "\n")]
#: A log no line of which grep picks (as bench_shapes writes one).
LOG = [f"2026-12-01 10:11:{n % 60:02d} worker-{n % 16:02d} handled request {n:08d} status=ok"
       for n in range(generic.FLOOD_LINES + 200)]
ANY_LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=60)
INV = Invocation("cat out.txt", "cat", ("out.txt",), 1)

pytestmark = pytest.mark.skipif(preview._grep() is None, reason="no grep on PATH")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(*map(st.sampled_from, (RECORDED, FACT_FREE, LOG)), ANY_LINE), max_size=30))
def test_a_text_grep_clears_holds_no_fact_line(lines: list[str]) -> None:
    text = "\n".join(lines)
    if not grepscreen.may_hold_fact_lines(text):
        assert fact_lines(text + "\n") == []
        assert 1 not in generic._fact_flags(text)


def test_the_screen_clears_a_fact_free_flood_and_not_one_with_a_fact() -> None:
    flood = "\n".join(LOG * 4)
    assert not grepscreen.may_hold_fact_lines(flood)
    assert grepscreen.may_hold_fact_lines(flood + "\nsrc/app.py:12:4: E501 line too long")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(RECORDED), min_size=0, max_size=3), st.integers(0, 1000))
def test_the_generic_compactor_answers_the_same_with_and_without_the_screen(
        facts: list[str], seed: int) -> None:
    lines = LOG[seed:] + LOG * 3
    for number, line in enumerate(facts):
        lines.insert((seed * (number + 7)) % len(lines), line)
    text = "\n".join(lines)
    assert len(text) >= grepscreen.MIN_CHARS and text.count("\n") >= generic.FLOOD_LINES
    screened = generic.compact(text, INV)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grepscreen, "may_hold_fact_lines", lambda _text: True)
        assert generic.compact(text, INV) == screened


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.one_of(*map(st.sampled_from, (RECORDED, FACT_FREE, LOG)), ANY_LINE),
                      min_size=1, max_size=12), copies=st.integers(min_value=1, max_value=4000))
@example(lines=LOG[:10], copies=400)  # 290 KB of a log grep clears
@example(lines=[LOG[0], ""], copies=4000)  # the same ending with a line break (one line less)
def test_the_preview_of_a_cleared_text_starts_no_grep_and_is_the_same(
        monkeypatch: pytest.MonkeyPatch, lines: list[str], copies: int) -> None:
    text = "\n".join(lines * copies)
    cleared = not grepscreen.may_hold_fact_lines(text)
    assert preview.cleared(text) is cleared
    twin = "".join(text)[:0] + text[:1] + text[1:]  # the same characters, another object
    assert twin == text and (twin is not text or len(text) < 2)
    started: list[object] = []
    real = preview._Grep

    def counting(*args: object, **kwargs: object) -> object:
        started.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:  # undone after each example
        patch.setattr(preview, "_Grep", counting)
        shown = preview.bound_text(text, 200, 8000, filler_bytes=2000)
        grep_runs = len(started)
        plain = preview.bound_text(twin, 200, 8000, filler_bytes=2000) if len(text) >= 2 else shown
    assert shown == plain
    if cleared and len(text) >= preview.GREP_MIN_BYTES:
        assert grep_runs == 0 and len(started) == 1  # the twin was searched by grep
    if lines in (LOG[:10], [LOG[0], ""]) and copies in (400, 4000):
        assert cleared and grep_runs == 0
