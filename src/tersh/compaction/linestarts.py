"""Patterns anchored at the start of each line, found by a scan for the line breaks.

A MULTILINE pattern ``^body`` searched over a whole text is tried at every character of it
(the regex engine has no literal to skip to). The same lines are found by ``body`` matched at
the start of the text and ``\\n(?:body)`` searched over it: the line break is a literal the
engine skips to, so only the starts of lines are tried. Each match then starts one character
before the line it is on (its line break).

This holds for a ``body`` that looks at nothing before its start (no lookbehind, no ``\\b``
first) and whose matches hold no line break: a match then never runs into the next line, so
no line start is passed over (tests/test_linestarts.py holds each use equal to ``^body``).
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator


class LineStarts:
    """``^body`` (MULTILINE) over whole texts, read at line starts only (see the module doc)."""

    __slots__ = ("after_break", "first", "pattern")

    def __init__(self, body: str) -> None:
        #: The MULTILINE pattern this stands for (``^(?:body)``).
        self.pattern = f"^(?:{body})"
        self.first: re.Pattern[str] = lazy(f"(?:{body})", MULTILINE)
        self.after_break: re.Pattern[str] = lazy(f"\n(?:{body})", MULTILINE)

    def holds(self, text: str) -> bool:
        """Whether some line of ``text`` starts with a match (``^body`` finds one)."""
        return self.first.match(text) is not None or self.after_break.search(text) is not None

    def starts(self, text: str) -> Iterator[int]:
        """The start of each match on a line of ``text``, in order (``match.start()`` of each
        match ``^body`` finds)."""
        if self.first.match(text) is not None:
            yield 0
        for match in self.after_break.finditer(text):
            yield match.start() + 1
