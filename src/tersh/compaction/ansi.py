"""ANSI escape sequences: what a terminal draws but never shows as text."""

from __future__ import annotations

from tersh._startup.lazyre import lazy

# CSI (ESC [ … final), OSC (ESC ] … BEL or ST), other two-byte escapes, and 8-bit CSI.
_ANSI = lazy(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]*\x1b\\"
    r"|\x1b[@-Z\\-_]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (colours, cursor moves, hyperlinks, titles)."""
    if "\x1b" not in text and "\x9b" not in text:
        return text
    return _ANSI.sub("", text)
