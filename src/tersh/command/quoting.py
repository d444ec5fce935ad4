"""POSIX shell quoting, as ``shlex.quote`` / ``shlex.join`` write it, without importing shlex.

``shlex`` imports ``re`` and ``io``; the run and hook paths only need its quoting.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import …`: keeps `typing` off the start-up path
if TYPE_CHECKING:
    from collections.abc import Sequence

#: Characters a shell word may hold without quotes (``shlex.quote``'s set).
SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")


def quote(word: str) -> str:
    """``word`` as one shell word, exactly as ``shlex.quote`` writes it."""
    if not word:
        return "''"
    if SAFE.issuperset(word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def join(argv: Sequence[str]) -> str:
    """``argv`` as one shell string, exactly as ``shlex.join`` writes it."""
    return " ".join(quote(word) for word in argv)
