"""ANSI / carriage-return clean-up: what a terminal finally shows, line structure kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tersh.compaction.clean import clean, clean_line, redraws_to_returns, strip_ansi

ESC = "\x1b"


def test_colours_hyperlinks_and_titles_go_and_the_text_stays() -> None:
    line = f"{ESC}[1;31merror{ESC}[0m: {ESC}]8;;file:///a.py{ESC}\\a.py{ESC}]8;;{ESC}\\ {ESC}]0;title\x07x"
    assert clean_line(line) == "error: a.py x"


def test_carriage_return_progress_keeps_the_final_state() -> None:
    assert clean_line("10%\r50%\r100% done") == "100% done"
    assert clean_line("downloading 1/3\rok") == "okwnloading 1/3"  # a terminal overwrites only
    assert clean_line("line\r") == "line"  # CRLF ending


def test_spinner_frames_drawn_at_column_one_leave_only_the_final_text() -> None:
    spinner = "".join(f"{frame}{ESC}[1G{ESC}[0K" for frame in "⠋⠙⠹⠸⠼⠴")
    assert clean_line(spinner + "added 57 packages in 2s") == "added 57 packages in 2s"
    assert clean_line(f"step 1{ESC}[G{ESC}[2Kstep 2") == "step 2"
    assert clean_line(f"abc{ESC}[1Gx") == "xbc"  # a move without an erase only overwrites
    assert redraws_to_returns("plain") == "plain"


def test_backspace_overstrike_and_stray_controls() -> None:
    assert clean_line("b\x08bo\x08ol\x08ld\x08d") == "bold"
    assert clean_line("a\x00b\x07c") == "abc"


def test_lines_and_a_final_newline_are_kept() -> None:
    assert clean(f"{ESC}[32ma{ESC}[0m\nb\r\nc\n") == "a\nb\nc\n"


plain_text = st.text(alphabet=st.characters(blacklist_categories=["Cc", "Cs"]), max_size=200)
noisy_text = st.lists(
    st.sampled_from(["a", "b", " ", "\n", "\r", f"{ESC}[1G", f"{ESC}[0K", f"{ESC}[31m", f"{ESC}[0m",
                     "\x08", "⠋", "%"]),
    max_size=60,
).map("".join)


@given(plain_text)
def test_text_without_escapes_or_controls_is_unchanged(text: str) -> None:
    assert clean(text) == text


@given(noisy_text)
def test_clean_up_never_invents_characters_and_keeps_every_line(text: str) -> None:
    cleaned = clean(text)
    assert cleaned.count("\n") == text.count("\n")
    assert set(cleaned) <= set(strip_ansi(text)) - {"\r", "\x08"}
