"""POSIX shell quoting, as ``shlex.quote`` / ``shlex.join`` write it, without importing shlex.

``shlex`` imports ``re`` and ``io``; the run and hook paths only need its quoting.
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
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


def tersh_command() -> str:
    """A shell-ready prefix that starts this tersh: an absolute executable path when known.

    The hook is started by the host as ``/abs/tersh hook HOST``, so ``sys.argv[0]`` is that
    path; otherwise the ``tersh`` on PATH; otherwise ``python -m tersh`` with this interpreter.
    """
    import os
    import sys

    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0).startswith("tersh") and not argv0.endswith(".py"):
        candidate = os.path.abspath(argv0)
        if os.path.basename(candidate) != "tersh":  # e.g. tersh-shell-prefix: its sibling tersh
            candidate = os.path.join(os.path.dirname(candidate), "tersh")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return quote(candidate)
    from tersh.command.onpath import which  # not shutil: see onpath

    found = which("tersh")
    if found:
        return quote(os.path.abspath(found))
    return f"{quote(sys.executable)} -m tersh"
