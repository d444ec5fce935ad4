"""The one error type tersh raises for problems a user can fix, and the fail-open notice."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import TextIO


class TershError(RuntimeError):
    """A problem with a clear message for the user (bad id, bad setting, unknown host…)."""


def warn(message: str, stream: TextIO | None = None) -> None:
    """Write one line on stderr saying what went wrong inside tersh (never a traceback)."""
    out = stream if stream is not None else sys.stderr
    try:
        out.write(f"tersh: {message}\n")
        out.flush()
    except (OSError, ValueError, AttributeError):  # a closed or broken stderr (None when the
        pass  # process started without one) must not break the command
