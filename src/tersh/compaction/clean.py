"""ANSI and carriage-return clean-up: what a terminal would finally show, as plain text."""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.compaction.ansi import strip_ansi

_CONTROL = lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_BYTES = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
_SLICE = 1 << 18
# Cursor to column 1 (CHA) redraws a line like a carriage return does; an erase-line right at
# column 1 (EL 0/2, or EL 1 / 2 anywhere) blanks everything drawn on the line before it.
_TO_COLUMN_ONE = lazy(r"\x1b\[[01]?G")
_ERASE_LINE = lazy(r"\x1b\[[012]?K")


def resolve_carriage_returns(line: str) -> str:
    """The final state of one line that redraws itself with ``\\r`` (progress bars).

    Each ``\\r`` returns to the start of the line and later text overwrites earlier text, as a
    terminal does; a trailing ``\\r`` (CRLF endings) is simply dropped.
    """
    if "\r" not in line:
        return line
    line = line.rstrip("\r")
    if "\r" not in line:
        return line
    screen: list[str] = []
    parts = line.split("\r")
    for part in parts:
        if len(part) >= len(screen):
            screen = list(part)
        else:
            screen[: len(part)] = part
    shown = "".join(screen)
    lost = _overwritten_facts(parts[:-1], shown)
    return f"{shown}  [tersh: overwritten: {' | '.join(lost)}]" if lost else shown


def _overwritten_facts(parts: list[str], shown: str) -> list[str]:
    """The ``parts`` a redraw hid from ``shown`` that carry a fact, once each, in order."""
    from tersh.compaction.kit.core import carries_fact  # lazy: it needs the verifier

    lost: list[str] = []
    for part in parts:
        text = part.strip()
        if text and text not in shown and text not in lost and carries_fact(text):
            lost.append(text)
    return lost


def redraws_to_returns(line: str) -> str:
    """``line`` with cursor-to-column-1 moves as carriage returns, and what an erase-line at the
    start of the line wiped (spinner frames drawn as ``ESC[1G ESC[0K frame``) dropped."""
    if "\x1b[" not in line:
        return line
    if "G" in line:
        line = _TO_COLUMN_ONE.sub("\r", line)
    if "K" not in line:
        return line
    parts = line.split("\r")
    last_wipe = 0
    for index, part in enumerate(parts):
        if index and _ERASE_LINE.match(part):
            last_wipe = index
    return "\r".join(parts[last_wipe:]) if last_wipe else line


def clean_line(line: str) -> str:
    """One line as a terminal finally shows it: no escapes, no redraws, no stray controls."""
    line = resolve_carriage_returns(strip_ansi(redraws_to_returns(line)))
    if "\x08" in line:  # backspace overstrike (man pages, some progress bars)
        out: list[str] = []
        for char in line:
            if char == "\x08":
                if out:
                    out.pop()
            else:
                out.append(char)
        line = "".join(out)
    return _CONTROL.sub("", line) if _has_control(line) else line


def _has_control(text: str) -> bool:
    """Whether ``text`` holds a character of _CONTROL: its UTF-8 bytes hold the same byte (no
    byte of a multi-byte character is ASCII), and deleting bytes is far faster than the search."""
    for start in range(0, len(text), _SLICE):  # in slices: a 4 MB line costs no 8 MB of copies
        data = text[start : start + _SLICE].encode("utf-8", "surrogatepass")
        if len(data.translate(None, _CONTROL_BYTES)) != len(data):
            return True
    return False


def clean(text: str) -> str:
    """Clean every line of ``text``; line structure (and a final newline) is kept."""
    if "\x1b" not in text and "\r" not in text and not _has_control(text):
        return text
    return "\n".join(clean_line(line) for line in text.split("\n"))
