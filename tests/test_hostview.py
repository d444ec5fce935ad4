"""What each host would show: unchanged under its limits, its own bounded notice above them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.hosts import savings as hostview


def lines(count: int, width: int = 20) -> str:
    return "".join(f"{n:0{width}d}\n" for n in range(count))


def test_small_output_is_shown_unchanged_by_every_host() -> None:
    text = lines(100)
    assert hostview.claude_code(text) == text
    assert hostview.opencode(text) == text
    assert hostview.codex(text) == text
    assert set(hostview.shown_bytes(text).values()) == {len(text)}


def test_claude_code_keeps_30000_characters_then_a_2000_byte_preview() -> None:
    at_limit = "x" * hostview.CLAUDE_MAX_CHARS
    assert hostview.claude_code(at_limit) == at_limit
    text = lines(5000)
    shown = hostview.claude_code(text)
    assert shown.startswith("<persisted-output>\nOutput too large (")
    assert "Full output saved to: " in shown
    assert lines(90) in shown  # the preview starts at the top
    preview = shown.split("Preview (first 2.0 KB):\n", 1)[1].split("\n...\n", 1)[0]
    assert len(preview.encode()) <= hostview.CLAUDE_PREVIEW_BYTES
    assert text.startswith(preview)


def test_claude_code_counts_utf16_units_like_javascript() -> None:
    emoji = "😀" * (hostview.CLAUDE_MAX_CHARS // 2)  # 15,000 chars, 30,000 UTF-16 units
    assert hostview.claude_code(emoji) == emoji
    assert hostview.claude_code(emoji + "😀") != emoji + "😀"


def test_opencode_cuts_at_2000_lines() -> None:
    text = "\n".join(f"line {n}" for n in range(3000))
    shown = hostview.opencode(text)
    head = "\n".join(f"line {n}" for n in range(2000))
    assert shown.startswith(head + "\n\n...1000 lines truncated...\n\n")
    assert "line 2000" not in shown


def test_opencode_cuts_at_50_kib_on_a_line_boundary() -> None:
    text = "\n".join("y" * 999 for _ in range(100))  # 100 lines, ~100 KB
    shown = hostview.opencode(text)
    preview = shown.split("\n\n...", 1)[0]
    assert len(preview.encode()) <= hostview.OPENCODE_MAX_BYTES
    assert preview == "\n".join("y" * 999 for _ in range(51))
    assert f"...{len(text) - len(preview)} bytes truncated..." in shown


def test_codex_keeps_head_and_tail_within_its_budget() -> None:
    text = lines(10_000)
    shown = hostview.codex(text)
    assert shown.startswith("Warning: truncated output (original token count: ")
    assert "Total output lines: 10000\n" in shown
    assert lines(10) in shown
    assert shown.endswith(f"{9999:020d}\n")
    assert "tokens truncated…" in shown
    assert len(shown.encode()) <= hostview.CODEX_BYTE_BUDGET + 200


BOUNDS = {
    "claude_code": hostview.CLAUDE_PREVIEW_BYTES + 400,
    "opencode": hostview.OPENCODE_MAX_BYTES + 300,
    "codex": hostview.CODEX_BYTE_BUDGET + 200,
}


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=3000), st.integers(min_value=1, max_value=40))
def test_each_host_shows_everything_or_a_bounded_notice(text: str, repeat: int) -> None:
    big = text * repeat * 20
    raw = len(big.encode())
    for host, size in hostview.shown_bytes(big).items():
        view = hostview.HOSTS[host](big)
        assert view == big or size <= BOUNDS[host], host
        assert size == len(view.encode())
    assert raw > hostview.CODEX_BYTE_BUDGET or hostview.codex(big) == big
