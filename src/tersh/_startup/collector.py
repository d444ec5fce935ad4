"""The start-up pause of Python's cyclic garbage collector in the ``tersh hook`` and ``tersh run``
processes (never in a library caller's process).

At start-up the collector would only walk the freshly imported modules again (~1 ms of every
hook and run), and a rule or the verifier builds many small records and no cycles, which the
collector would walk again and again (up to 1.2 times the CPU of a rule on a 2 MB log). The
command line pauses it before importing a command; ``tersh run`` resumes it once the call's
output is compacted, Claude Code's shell prefix and the hooks exit with it paused. Library
callers keep their collector as it is.
"""

from __future__ import annotations

import gc

_paused: list[bool] = []


def pause() -> None:
    """Turn the collector off, if it is on, until :func:`resume`."""
    if gc.isenabled():
        gc.disable()
        _paused.append(True)


def resume() -> None:
    """Turn the collector back on if :func:`pause` turned it off."""
    if _paused:
        _paused.clear()
        gc.enable()
