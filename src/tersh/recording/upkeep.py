"""The once-a-minute upkeep after a call: capture eviction and the ledger's maintenance.

Both open SQLite, and the imports and transactions cost the call that happens to be due 50 to
100 ms of wall time, while the agent waits for that call to end. So the call claims the upkeep
(one caller of many, ``captures.claim_eviction``) and hands it to a detached process: a
grandchild in its own session, with no terminal, its standard streams on ``/dev/null`` and no
other descriptor of the call's (the host's pipes reach EOF when the call ends). Where a fork
cannot be had (no ``fork``, threads running in the process, the fork failing), the call does
the upkeep itself, as before.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Callable

    from tersh.settings import Settings


def after_call(conf: Settings) -> None:
    """Evict captures and maintain the ledger when due, in the background when possible; never
    raises (a warning names what failed when it runs in this process)."""
    from tersh.recording import captures

    try:
        if not captures.claim_eviction():
            return
    except Exception as exc:
        _warn(exc)
        return
    if not in_background(lambda: _upkeep(conf)):
        try:
            _upkeep(conf)
        except Exception as exc:
            _warn(exc)


def _upkeep(conf: Settings) -> None:
    from tersh.recording import captures

    captures.evict(settings=conf)
    if conf.flag("ledger.enabled"):
        from tersh.recording import ledger

        ledger.maintain(conf)


def _warn(exc: Exception) -> None:
    from tersh.errors import warn

    warn(f"capture eviction or ledger upkeep failed: {type(exc).__name__}: {exc}")


def in_background(work: Callable[[], object]) -> bool:
    """Run ``work`` in a detached grandchild process and return True at once (the child that
    forks it is reaped here); False when no such process can be made, and ``work`` did not run.

    The grandchild leaves the call's session and process group, resets the signals the call
    may handle, puts its standard streams on ``/dev/null``, closes every other descriptor,
    runs ``work`` (whatever it raises is dropped: nobody is there to read it) and ends with
    ``os._exit``, so no exit handler or buffer of the call's runs twice.
    """
    if not hasattr(os, "fork") or _threads_running():
        return False
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid == 0:  # the child: fork the worker and end, so the worker is nobody's zombie
        try:
            os.setsid()
            if os.fork() == 0:
                _detach_streams()
                try:
                    work()
                finally:
                    os._exit(0)
        finally:
            os._exit(0)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:  # reaped already (SIGCHLD ignored by whoever started us)
        return True
    return True


def _threads_running() -> bool:
    """Whether another thread runs here (a fork would copy its locks held, not the thread)."""
    threading = sys.modules.get("threading")
    return threading is not None and threading.active_count() > 1


def _detach_streams() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 1 << 16)
    import signal

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_DFL)
