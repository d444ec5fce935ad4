"""The start-up pause of Python's cyclic garbage collector in the ``tersh hook`` and ``tersh run``
processes (never in a library caller's process).

At start-up the collector would only walk the freshly imported modules again (~1 ms of every
hook and run), and a rule or the verifier builds many small records and no cycles, which the
collector would walk again and again (up to 1.2 times the CPU of a rule on a 2 MB log). The
command line pauses it before importing a command; ``tersh run`` resumes it once the call's
output is compacted when ``cli.main`` was called in a process that goes on (the console script
exits at once, so it keeps it paused), Claude Code's shell prefix and the hooks exit with it
paused. Library callers keep their collector as it is.
"""

from __future__ import annotations

import gc

_paused: list[bool] = []
_until_exit: list[bool] = []


def pause(*, until_exit: bool = False) -> None:
    """Turn the collector off, if it is on, until :func:`resume`.

    ``until_exit``: the process ends (``os._exit``) soon after the caller's resume, so the
    collector stays off: turned on again, it would walk every object the call made once more
    (~1.5 ms) only for the process to exit.
    """
    if gc.isenabled():
        gc.disable()
        _paused.append(True)
        if until_exit:
            _until_exit.append(True)


def resume() -> None:
    """Turn the collector back on if :func:`pause` turned it off (and not until exit)."""
    if _paused and not _until_exit:
        _paused.clear()
        gc.enable()


class paused:  # used as a function: ``with paused():``
    """The collector off for one block, then as it was (nested uses leave it to the outermost).

    What a rule reads of a big log it keeps until it is done (a few objects a line, no cycles),
    and each collection its allocations trigger walks all of them again: in a process that keeps
    its collector (``tersh serve``, a library caller) that costs up to a third of the reading.
    """

    __slots__ = ("enabled",)

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if self.enabled:
            gc.enable()
