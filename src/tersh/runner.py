"""Run a command with its output streamed into a capture: exact exit code, signals forwarded.

stdout and stderr are read as they arrive (never the whole output in memory) and written to
the capture's stream files and to the combined file in arrival order. The child runs in its own
process group; SIGINT and SIGTERM received by tersh are forwarded to that group. Death by signal
N is reported as 128+N, like a shell does; a timeout as 124, like timeout(1).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import NamedTuple

CHUNK = 1 << 20
TIMEOUT_EXIT = 124
KILL_GRACE_SECONDS = 2.0
_F_SETPIPE_SZ = 1031  # Linux fcntl: grow a pipe's buffer so big outputs move in fewer reads

Sink = Callable[[str, bytes], None]


class Exit(NamedTuple):
    """How the command ended."""

    code: int
    timed_out: bool
    duration_s: float


def shell_argv(command: str) -> list[str]:
    """The argv that runs ``command`` through the user's shell (POSIX: $SHELL -c, else sh)."""
    if sys.platform == "win32":
        return [os.environ.get("COMSPEC", "cmd.exe"), "/d", "/s", "/c", command]
    shell = os.environ.get("SHELL") or "/bin/sh"
    if not os.path.isabs(shell) or not os.access(shell, os.X_OK):
        shell = "/bin/sh"
    return [shell, "-c", command]


def exit_code_of(returncode: int) -> int:
    """A shell-style exit code: a negative return code (killed by signal N) becomes 128+N."""
    return 128 - returncode if returncode < 0 else returncode


def _grow_pipe(fd: int) -> None:
    if sys.platform.startswith("linux"):
        import fcntl

        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, _F_SETPIPE_SZ, CHUNK)


def run_streaming(argv: Sequence[str], sink: Sink, *, timeout: float | None = None,
                  cwd: str | None = None, env: dict[str, str] | None = None) -> Exit:
    """Run ``argv``; hand each chunk to ``sink(stream, data)``; return the exact exit status.

    A sink that raises stops nothing: the command keeps running and its remaining output is
    still drained (the error is re-raised after the command ends, for the caller to fail open).
    """
    started = time.monotonic()
    process = subprocess.Popen(
        list(argv), stdin=None, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=cwd, env=env, start_new_session=True, close_fds=True,
    )
    assert process.stdout is not None and process.stderr is not None
    names = {process.stdout.fileno(): "stdout", process.stderr.fileno(): "stderr"}
    for fd in names:
        _grow_pipe(fd)
    restore = _forward_signals(process.pid)
    sink_error: BaseException | None = None
    timed_out = False
    deadline = None if timeout is None else started + timeout
    try:
        with selectors.DefaultSelector() as selector:
            for fd in names:
                selector.register(fd, selectors.EVENT_READ)
            while names:
                wait = None if deadline is None else max(0.0, deadline - time.monotonic())
                events = selector.select(wait)
                if deadline is not None and time.monotonic() >= deadline and not timed_out:
                    timed_out = True
                    _terminate_group(process)
                    deadline = None
                for key, _ in events:
                    fd = int(key.fd)
                    data = os.read(fd, CHUNK)
                    if not data:
                        selector.unregister(fd)
                        del names[fd]
                        continue
                    if sink_error is None:
                        try:
                            sink(names[fd], data)
                        except BaseException as exc:  # keep draining; report after the end
                            sink_error = exc
        returncode = process.wait()
    finally:
        restore()
        process.stdout.close()
        process.stderr.close()
    if sink_error is not None:
        raise SinkFailed(sink_error, exit_code_of(returncode))
    code = TIMEOUT_EXIT if timed_out else exit_code_of(returncode)
    return Exit(code, timed_out, time.monotonic() - started)


class SinkFailed(Exception):
    """The capture sink failed while the command ran; carries the command's real exit code."""

    def __init__(self, cause: BaseException, exit_code: int) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.exit_code = exit_code


def _terminate_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(KILL_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)


def _forward_signals(pid: int) -> Callable[[], None]:
    """Forward SIGINT/SIGTERM/SIGHUP to the child's process group; return the undo function."""
    if sys.platform == "win32":
        return lambda: None
    previous: dict[int, object] = {}

    def forward(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):  # not the main thread: no forwarding
            previous[signum] = signal.signal(signum, forward)

    def restore() -> None:
        for signum, handler in previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(signum, handler)  # type: ignore[arg-type]

    return restore


def run_passthrough(argv: Sequence[str], *, timeout: float | None = None) -> int:
    """Run ``argv`` with the terminal's own streams (nothing captured); return the exit code."""
    process = subprocess.Popen(list(argv), start_new_session=False)
    try:
        returncode = process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            process.wait(KILL_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        return TIMEOUT_EXIT
    except KeyboardInterrupt:
        returncode = process.wait()
    return exit_code_of(returncode)
