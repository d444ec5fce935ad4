"""Run a command with its output streamed into a capture: exact exit code, signals forwarded.

stdout and stderr are read as they arrive (never the whole output in memory) and handed to the
sink in arrival order. The child runs in its own session (so its own process group); SIGINT,
SIGTERM and SIGHUP received by tersh are forwarded to that group. Death by signal N is reported
as 128+N, like a shell does; a timeout as 124, like timeout(1); a program that cannot be found
as 127 and one that cannot be executed as 126, each with a shell-style message on stderr.

Start-up matters here (this runs before every command of an agent), so the child is started with
``os.posix_spawn`` and the pipes are watched with ``select.poll``: neither ``subprocess`` nor
``selectors`` (nor the threading module they pull in) is imported on this path. ``subprocess`` is
used only where posix_spawn cannot serve: a working folder for the child, or no posix_spawn.
For the same reason signals come from ``_signal`` (the C module ``signal`` wraps, without the
IntEnum classes whose imports cost more than this module) and errors are suppressed with plain
``try`` blocks rather than ``contextlib``.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not `from typing import …`: keeps `typing` off the start-up path
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Mapping, Sequence
    from types import FrameType, ModuleType
    from typing import NamedTuple

    #: Receives each chunk of output: ``sink("stdout" | "stderr", data)``.
    Sink = Callable[[str, bytes], None]
else:
    from tersh.lean import NamedTuple

CHUNK = 1 << 20
TIMEOUT_EXIT = 124
NOT_FOUND_EXIT = 127
NOT_EXECUTABLE_EXIT = 126
KILL_GRACE_SECONDS = 2.0
_F_SETPIPE_SZ = 1031  # Linux fcntl: grow a pipe's buffer so big outputs move in fewer reads
_DEFAULT_PIPE_BYTES = 65536
_FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP")


def _signals() -> ModuleType:
    """The signal numbers and ``signal()``: ``_signal`` (loaded at interpreter start-up), else
    the ``signal`` module."""
    loaded = sys.modules.get("_signal")
    if loaded is not None:
        return loaded
    import signal  # pragma: no cover - other Python implementations

    return signal


class Exit(NamedTuple):
    """How the command ended."""

    code: int
    timed_out: bool
    duration_s: float


class NotRunnable(Exception):
    """The command cannot be started; ``exit_code`` is what a shell would return (127/126)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class SinkFailed(Exception):
    """The capture sink failed while the command ran; carries the command's real exit code."""

    def __init__(self, cause: BaseException, exit_code: int) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.exit_code = exit_code


# Shells that understand what hosts' shell tools write (bash syntax such as $'..', [[ ]], arrays).
_HOST_SHELLS = frozenset({"bash", "zsh"})


def shell_argv(command: str) -> list[str]:
    """The argv that runs ``command`` through the user's shell, as coding hosts pick it.

    POSIX: ``$SHELL`` when it is bash or zsh, else ``bash`` from ``PATH`` (agents write bash),
    else ``$SHELL`` when it is an executable path, else ``/bin/sh``. Windows: ``%COMSPEC%``.
    """
    if sys.platform == "win32":
        return [os.environ.get("COMSPEC", "cmd.exe"), "/d", "/s", "/c", command]
    user_shell = os.environ.get("SHELL", "")
    usable = os.path.isabs(user_shell) and os.access(user_shell, os.X_OK)
    if usable and os.path.basename(user_shell) in _HOST_SHELLS:
        return [user_shell, "-c", command]
    try:
        return [find_program("bash"), "-c", command]
    except NotRunnable:
        return [user_shell if usable else "/bin/sh", "-c", command]


def exit_code_of(returncode: int) -> int:
    """A shell-style exit code: a negative return code (killed by signal N) becomes 128+N."""
    return 128 - returncode if returncode < 0 else returncode


# --- finding the program (like the shell's PATH search) ---------------------------------------


def _problem(path: str) -> str:
    """'' when ``path`` is a file this user may execute, else why not (shell wording)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "No such file or directory"
    except OSError as exc:
        return exc.strerror or "cannot be read"
    if stat.S_ISDIR(mode):
        return "Is a directory"
    if not os.access(path, os.X_OK):
        return "Permission denied"
    return ""


def _exec_path(env: Mapping[str, str] | None) -> list[str]:
    """The folders of ``PATH`` like ``os.get_exec_path`` (which imports ``warnings``) gives them."""
    path = (os.environ if env is None else env).get("PATH")
    return (os.defpath if path is None else path).split(os.pathsep)


def find_program(program: str, env: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
    """The file to execute for ``program``, searched like the shell does; raise NotRunnable.

    A name with a slash is used as it is (relative to ``cwd``); a bare name is looked up in the
    folders of ``PATH`` (of ``env``, else of this process), the first executable file winning.
    A name found only as a non-executable file is "Permission denied" (126), as in bash.
    """
    if not program:
        raise NotRunnable("tersh: : command not found", NOT_FOUND_EXIT)
    if "/" in program:
        path = program if cwd is None else os.path.join(cwd, program)
        problem = _problem(path)
        if problem:
            code = NOT_FOUND_EXIT if problem == "No such file or directory" else NOT_EXECUTABLE_EXIT
            raise NotRunnable(f"tersh: {program}: {problem}", code)
        return path
    denied = ""
    for folder in _exec_path(env):
        base = folder or "."
        candidate = os.path.join(base if cwd is None else os.path.join(cwd, base), program)
        problem = _problem(candidate)
        if not problem:
            return candidate
        if problem == "Permission denied" and not denied:
            denied = candidate
    if denied:
        raise NotRunnable(f"tersh: {denied}: Permission denied", NOT_EXECUTABLE_EXIT)
    raise NotRunnable(f"tersh: {program}: command not found", NOT_FOUND_EXIT)


# --- starting and reaping the child ----------------------------------------------------------


class _Child:
    """A started command: its pid, and the Popen object when subprocess had to start it."""

    def __init__(self, pid: int, popen: subprocess.Popen[bytes] | None = None) -> None:
        self.pid = pid
        self.popen = popen

    def wait(self, timeout: float | None = None) -> int | None:
        """The child's return code (-N when killed by signal N); None if still running."""
        if self.popen is not None:
            import subprocess

            try:
                return self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                return None
        status = _wait_status(self.pid, timeout)
        return None if status is None else os.waitstatus_to_exitcode(status)

    def signal_group(self, signum: int) -> None:
        """Send ``signum`` to the child's process group (its own session)."""
        try:  # noqa: SIM105 - contextlib stays off the start-up path
            os.killpg(self.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass


def _wait_status(pid: int, timeout: float | None) -> int | None:
    """waitpid with a timeout (a pidfd is polled where the OS has one); None on timeout."""
    if timeout is None:
        return os.waitpid(pid, 0)[1]
    deadline = time.monotonic() + timeout
    pidfd = _pidfd(pid)
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if pidfd >= 0:
                import select

                poller = select.poll()
                poller.register(pidfd, select.POLLIN)
                poller.poll(int(left * 1000) + 1)
            else:
                time.sleep(min(left, 0.01))
    finally:
        if pidfd >= 0:
            os.close(pidfd)


def _pidfd(pid: int) -> int:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return -1
    try:
        return int(opener(pid))
    except OSError:
        return -1


def _above_stdio(fd: int) -> int:
    """``fd`` moved to 3 or above (when tersh's own stdio was closed, a pipe may land on 0-2)."""
    if fd > 2:
        return fd
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.close(fd)
    return moved


def _pipe() -> tuple[int, int]:
    read_end, write_end = os.pipe()
    return _above_stdio(read_end), _above_stdio(write_end)


def _spawn(argv: Sequence[str], *, outputs: tuple[int, int] | None, new_session: bool,
           cwd: str | None, env: Mapping[str, str] | None) -> _Child:
    """Start ``argv`` (stdin inherited; stdout/stderr onto ``outputs`` when given).

    Like subprocess, the child gets the default action back for the signals Python ignores
    (SIGPIPE, SIGXFSZ): an ignored signal would otherwise stay ignored across exec.
    """
    if sys.platform == "win32":
        return _spawn_subprocess(argv, None, outputs, new_session, cwd, env)
    executable = find_program(argv[0], env, cwd)
    if cwd is not None or not hasattr(os, "posix_spawn"):
        return _spawn_subprocess(argv, executable, outputs, new_session, cwd, env)
    signals = _signals()
    actions = []
    if outputs is not None:
        actions = [(os.POSIX_SPAWN_DUP2, outputs[0], 1), (os.POSIX_SPAWN_DUP2, outputs[1], 2)]
    try:
        pid = os.posix_spawn(executable, list(argv), os.environ if env is None else env,
                             file_actions=actions, setsid=new_session,
                             setsigdef=(signals.SIGPIPE, signals.SIGXFSZ))
    except OSError as exc:
        raise _not_runnable(argv[0], exc) from exc
    return _Child(pid)


def _spawn_subprocess(argv: Sequence[str], executable: str | None, outputs: tuple[int, int] | None,
                      new_session: bool, cwd: str | None,
                      env: Mapping[str, str] | None) -> _Child:
    import subprocess

    try:
        popen = subprocess.Popen(
            list(argv), executable=executable, stdout=None if outputs is None else outputs[0],
            stderr=None if outputs is None else outputs[1], cwd=cwd, env=env,
            start_new_session=new_session, close_fds=True,
        )
    except OSError as exc:
        raise _not_runnable(argv[0], exc) from exc
    return _Child(popen.pid, popen)


def _not_runnable(program: str, exc: OSError) -> NotRunnable:
    import errno

    code = NOT_FOUND_EXIT if exc.errno == errno.ENOENT else NOT_EXECUTABLE_EXIT
    return NotRunnable(f"tersh: {program}: {exc.strerror or exc}", code)


def _grow_pipe(fd: int) -> None:
    if sys.platform.startswith("linux"):
        import fcntl

        try:  # noqa: SIM105 - contextlib stays off the start-up path
            fcntl.fcntl(fd, _F_SETPIPE_SZ, CHUNK)
        except OSError:
            pass


# --- running ---------------------------------------------------------------------------------


def run_streaming(argv: Sequence[str], sink: Sink, *, timeout: float | None = None,
                  cwd: str | None = None, env: dict[str, str] | None = None) -> Exit:
    """Run ``argv``; hand each chunk to ``sink(stream, data)``; return the exact exit status.

    A sink that raises stops nothing: the command keeps running and its remaining output is
    still drained (the error is re-raised after the command ends, for the caller to fail open).
    A program that cannot be started gets the shell's message on its stderr stream and the
    shell's exit code (127 not found, 126 not executable).
    """
    started = time.monotonic()
    out_read, out_write = _pipe()
    err_read, err_write = _pipe()
    try:
        child = _spawn(argv, outputs=(out_write, err_write), new_session=True, cwd=cwd, env=env)
    except NotRunnable as exc:
        for fd in (out_read, out_write, err_read, err_write):
            os.close(fd)
        sink("stderr", f"{exc}\n".encode("utf-8", "surrogateescape"))
        return Exit(exc.exit_code, False, time.monotonic() - started)
    os.close(out_write)
    os.close(err_write)
    names = {out_read: "stdout", err_read: "stderr"}
    restore = _forward_signals(child)
    try:
        sink_error, timed_out = _drain(names, sink, child, timeout, started)
        returncode = child.wait()
    finally:
        restore()
        for fd in (out_read, err_read):
            os.close(fd)
    code = exit_code_of(returncode if returncode is not None else 0)
    if sink_error is not None:
        raise SinkFailed(sink_error, code)
    return Exit(TIMEOUT_EXIT if timed_out else code, timed_out, time.monotonic() - started)


def _drain(names: dict[int, str], sink: Sink, child: _Child, timeout: float | None,
           started: float) -> tuple[BaseException | None, bool]:
    """Read both pipes to their end; stop the child at the deadline. (sink error, timed out)."""
    import select

    poller = select.poll()
    for fd in names:
        poller.register(fd, select.POLLIN)
    small = set(names)  # pipes still at the default size: grown once one fills up
    sink_error: BaseException | None = None
    timed_out = False
    deadline = None if timeout is None else started + timeout
    while names:
        wait_ms = None if deadline is None else max(0, int((deadline - time.monotonic()) * 1000) + 1)
        events = poller.poll(wait_ms)
        if deadline is not None and time.monotonic() >= deadline:
            timed_out = True
            _terminate_group(child)
            deadline = None
        for fd, _ in events:
            data = os.read(fd, CHUNK)
            if len(data) >= _DEFAULT_PIPE_BYTES and fd in small:
                small.discard(fd)  # a big output: fewer, larger reads (fcntl only then)
                _grow_pipe(fd)
            if not data:
                poller.unregister(fd)
                del names[fd]
                continue
            if sink_error is None:
                try:
                    sink(names[fd], data)
                except BaseException as exc:  # keep draining; report after the end
                    sink_error = exc
    return sink_error, timed_out


def _terminate_group(child: _Child) -> None:
    """SIGTERM to the child's group; SIGKILL if the child is still there after the grace."""
    signals = _signals()
    child.signal_group(signals.SIGTERM)
    if child.popen is not None:
        import subprocess

        try:
            child.popen.wait(KILL_GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            pass
    elif _exited(child.pid, KILL_GRACE_SECONDS):
        return
    child.signal_group(signals.SIGKILL)


def _exited(pid: int, seconds: float) -> bool:
    """Whether ``pid`` exits within ``seconds`` (it is left unreaped, for the final wait)."""
    waitid = getattr(os, "waitid", None)
    deadline = time.monotonic() + seconds
    while True:
        if waitid is not None:
            info = waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if info is not None:
                return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(left, 0.02))


def _forward_signals(child: _Child) -> Callable[[], None]:
    """Forward SIGINT/SIGTERM/SIGHUP to the child's process group; return the undo function."""
    if sys.platform == "win32":
        return lambda: None
    signals = _signals()
    previous: dict[int, object] = {}

    def forward(signum: int, frame: FrameType | None) -> None:
        child.signal_group(signum)

    for name in _FORWARDED:
        signum = getattr(signals, name)
        try:  # noqa: SIM105 - contextlib stays off the start-up path
            previous[signum] = signals.signal(signum, forward)
        except (ValueError, OSError):  # not the main thread: no forwarding
            pass

    def restore() -> None:
        for signum, handler in previous.items():
            try:  # noqa: SIM105 - contextlib stays off the start-up path
                signals.signal(signum, handler)
            except (ValueError, OSError, TypeError):
                pass

    return restore


def run_passthrough(argv: Sequence[str], *, timeout: float | None = None) -> int:
    """Run ``argv`` with the terminal's own streams (nothing captured); return the exit code."""
    try:
        child = _spawn(argv, outputs=None, new_session=False, cwd=None, env=None)
    except NotRunnable as exc:
        from tersh.errors import warn

        warn(str(exc).removeprefix("tersh: "))
        return exc.exit_code
    try:
        returncode = child.wait(timeout)
    except KeyboardInterrupt:  # the child got the ^C too (same process group): its code counts
        returncode = child.wait()
    if returncode is None:
        signals = _signals()
        _signal_one(child.pid, signals.SIGTERM)
        if child.wait(KILL_GRACE_SECONDS) is None:
            _signal_one(child.pid, signals.SIGKILL)
            child.wait()
        return TIMEOUT_EXIT
    return exit_code_of(returncode)


def _signal_one(pid: int, signum: int) -> None:
    try:  # noqa: SIM105 - contextlib stays off the start-up path
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
