"""Run a command with its output streamed into a capture: exact exit code, signals forwarded.

By default the command's stdout and stderr are one pipe, as in a terminal and in the hosts'
own shell tools, so the output keeps the order the command wrote it, down to back-to-back
writes; the sink receives it as the "combined" stream, and which stream a byte came from is not
known. Separate streams (``merged=False``, for a command whose stdout is a document that must
stay byte-exact alone) are two pipes: each stream is exact, but their interleaving is the order
the reads saw, since the kernel keeps no order across two pipes (writes closer together than
one turn of the read loop arrive grouped by stream). Nothing on Linux keeps both without
changing the command's behaviour: a pty changes it, and a socket in place of a pipe fails
``open("/dev/stdout")``. Output is read as it arrives, never whole in memory. The child runs
in tersh's own process group and session, so a kill of that group reaches it and it keeps the
controlling terminal; SIGINT, SIGTERM and SIGHUP sent to tersh alone are forwarded to all of
the command's processes (see _Supervisor).
Death by signal N is reported as 128+N, like a shell does; a timeout as 124, like timeout(1); a
program that cannot be found as 127 and one that cannot be executed as 126, each with a shell-
style message on stderr.

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

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Mapping, Sequence
    from types import ModuleType
    from typing import NamedTuple

    #: Receives each chunk of output: ``sink("combined" | "stdout" | "stderr", data)``.
    Sink = Callable[[str, bytes], None]
else:
    from tersh._startup.lean import NamedTuple

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
    """A started command: its pid, and the Popen object when subprocess had to start it (tersh
    reaps the pid itself either way; the Popen is told the return code for its bookkeeping)."""

    def __init__(self, pid: int, popen: subprocess.Popen[bytes] | None = None) -> None:
        self.pid = pid
        self.popen = popen
        self.returncode: int | None = None

    def reap(self, block: bool = False) -> int | None:
        """The child's return code (-N when killed by signal N) once it has exited, else None."""
        if self.returncode is None:
            try:
                done, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: its code is lost
                done, status = self.pid, 0
            if done:
                self.returncode = os.waitstatus_to_exitcode(status)
                if self.popen is not None:
                    self.popen.returncode = self.returncode
        return self.returncode


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
        pid = os.posix_spawn(executable, list(argv), _environment() if env is None else env,
                             file_actions=actions, setsid=new_session,
                             setsigdef=(signals.SIGPIPE, signals.SIGXFSZ))
    except OSError as exc:
        raise _not_runnable(argv[0], exc) from exc
    return _Child(pid)


def _environment() -> Mapping[str, str] | Mapping[bytes, bytes]:
    """This process's environment for ``posix_spawn``: the bytes ``os.environ`` keeps, as a plain
    dict (read through ``os.environ`` itself, each of its entries costs a decoding call in Python:
    half a millisecond for a usual environment); ``os.environ`` where that dict is not there."""
    data = getattr(os.environ, "_data", None)
    return data if isinstance(data, dict) else os.environ


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

        try:  # noqa: SIM105 - start-up path: no contextlib
            fcntl.fcntl(fd, _F_SETPIPE_SZ, CHUNK)
        except OSError:
            pass


# --- running ---------------------------------------------------------------------------------

#: How often a running command is looked at (signals received, deadline) while nothing arrives.
TICK_SECONDS = 0.05
#: After the command exits, output its background jobs still write is read until the pipes are
#: quiet this long (or LINGER_MAX_SECONDS have passed); tersh does not wait for them to end.
LINGER_IDLE_SECONDS = 0.1
LINGER_MAX_SECONDS = 1.0
_SI_KERNEL = 0x80  # siginfo code of a signal the kernel sent itself (a terminal's ^C, ^\)


class StopReading(Exception):
    """Raised by a sink that can take no more output: the pipes are closed, so the command gets
    SIGPIPE on its next write, as it would had its own output gone away."""


class _Supervisor:
    """Watches one started command from the thread that started it.

    The command runs in tersh's own process group and session (a kill of that group reaches it,
    and it keeps the controlling terminal). The signals tersh would die of (SIGINT, SIGTERM,
    SIGHUP) are blocked while it runs and collected at each tick: one sent to tersh alone is
    forwarded to every process of the command; one the terminal sent to the whole foreground
    group is not sent again. At the deadline the command's processes get SIGTERM, and SIGKILL
    after the grace.
    """

    def __init__(self, child: _Child, timeout: float | None, started: float) -> None:
        self.child = child
        self.deadline = None if timeout is None else started + timeout
        self.kill_at: float | None = None
        self.timed_out = False
        self.pidfd = _pidfd(child.pid)
        self.blocked: set[int] = set()
        self.previous_mask: object = None
        self._block_signals()

    def _block_signals(self) -> None:
        if sys.platform == "win32":
            return
        signals = _signals()
        wanted = {getattr(signals, name) for name in _FORWARDED}
        try:  # only the main thread receives signals; elsewhere nothing is forwarded
            signals.signal(signals.SIGINT, signals.getsignal(signals.SIGINT))
            self.previous_mask = signals.pthread_sigmask(signals.SIG_BLOCK, wanted)
        except (ValueError, OSError, AttributeError):
            return
        self.blocked = wanted

    def close(self) -> None:
        """Forward what is still pending, unblock the signals, close the pidfd (idempotent)."""
        if self.blocked:
            self.forward_pending()
            signals = _signals()
            signals.pthread_sigmask(signals.SIG_SETMASK, self.previous_mask)
            self.blocked = set()
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1

    def wait_ms(self) -> int:
        """How long the next poll may sleep."""
        now = time.monotonic()
        wait = TICK_SECONDS
        for moment in (self.deadline, self.kill_at):
            if moment is not None:
                wait = min(wait, moment - now)
        return max(0, int(wait * 1000) + 1)

    def check(self) -> int | None:
        """Forward received signals, enforce the deadline; the return code once exited."""
        self.forward_pending()
        returncode = self.child.reap()
        if returncode is not None:
            return returncode
        now = time.monotonic()
        if self.deadline is not None and now >= self.deadline:
            self.timed_out = True
            self.deadline = None
            self.kill_at = now + KILL_GRACE_SECONDS
            self.signal_command(_signals().SIGTERM)
        elif self.kill_at is not None and now >= self.kill_at:
            self.kill_at = None
            self.signal_command(_signals().SIGKILL)
        return None

    def forward_pending(self) -> None:
        """Forward each blocked signal received since the last look (see the class docstring)."""
        if not self.blocked:
            return
        signals = _signals()
        while True:
            try:
                info = signals.sigtimedwait(self.blocked, 0)
            except (OSError, ValueError):
                return
            if info is None:
                return
            if info.si_code == _SI_KERNEL or info.si_pid == os.getpid():
                continue  # the terminal's group signal reached the command already
            self.signal_command(info.si_signo)

    def signal_command(self, signum: int) -> None:
        """Send ``signum`` to the command and every process it started (children first seen
        through /proc on Linux; elsewhere the command's own process alone). Once the command
        is reaped its pid may belong to another process: nothing is sent then."""
        if self.child.returncode is not None:
            return
        for pid in command_processes(self.child.pid):
            _signal_one(pid, signum)


def command_processes(root: int) -> list[int]:
    """``root`` and its descendants still running (from /proc; only ``root`` without it)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return [root]
    parents: dict[int, list[int]] = {}
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields) > 1:
            parents.setdefault(int(fields[1]), []).append(int(name))
    found = [root]
    for pid in found:  # grows while it is walked: breadth first
        found.extend(parents.get(pid, ()))
    return found


def run_streaming(argv: Sequence[str], sink: Sink, *, timeout: float | None = None,
                  cwd: str | None = None, env: dict[str, str] | None = None,
                  merged: bool = True) -> Exit:
    """Run ``argv``; hand each chunk to ``sink(stream, data)``; return the exact exit status.

    ``merged``: stdout and stderr are one pipe and every chunk is "combined", in the order the
    command wrote it; else two pipes, chunks "stdout" and "stderr" (see the module docstring).
    The command's end is its own process's exit (background jobs holding the pipes are not
    waited for, see LINGER_*). A sink that raises stops nothing: the command keeps running and
    its remaining output is still drained (the error is re-raised after the command ends, for
    the caller to fail open); a sink raising StopReading closes the pipes instead. A program
    that cannot be started gets the shell's message on its stderr stream (the combined one when
    merged) and the shell's exit code (127 not found, 126 not executable).
    """
    started = time.monotonic()
    pipes = [_pipe()] if merged else [_pipe(), _pipe()]
    writes = (pipes[0][1], pipes[-1][1])
    try:
        child = _spawn(argv, outputs=writes, new_session=False, cwd=cwd, env=env)
    except NotRunnable as exc:
        for pipe in pipes:
            os.close(pipe[0])
            os.close(pipe[1])
        sink("combined" if merged else "stderr", f"{exc}\n".encode("utf-8", "surrogateescape"))
        return Exit(exc.exit_code, False, time.monotonic() - started)
    for pipe in pipes:
        os.close(pipe[1])
    names = {pipes[0][0]: "combined"} if merged else {pipes[0][0]: "stdout", pipes[1][0]: "stderr"}
    supervisor = _Supervisor(child, timeout, started)
    try:
        sink_error, returncode = _drain(names, sink, supervisor)
    finally:
        supervisor.close()
        for fd in names:
            os.close(fd)
    code = exit_code_of(returncode)
    if sink_error is not None and not isinstance(sink_error, StopReading):
        raise SinkFailed(sink_error, code)
    timed_out = supervisor.timed_out
    return Exit(TIMEOUT_EXIT if timed_out else code, timed_out, time.monotonic() - started)


def _drain(names: dict[int, str], sink: Sink,
           supervisor: _Supervisor) -> tuple[BaseException | None, int]:
    """Read the pipes until the command has exited and they are quiet; close the ones read to
    their end (removed from ``names``). (sink error, return code)."""
    import select

    poller = select.poll()
    for fd in names:
        poller.register(fd, select.POLLIN)
    if supervisor.pidfd >= 0:
        poller.register(supervisor.pidfd, select.POLLIN)
    small = set(names)  # pipes still at the default size: grown once one fills up
    sink_error: BaseException | None = None
    returncode: int | None = None
    linger_until = 0.0
    while True:
        if returncode is None:
            wait_ms = supervisor.wait_ms()
        elif not names or time.monotonic() >= linger_until:
            return sink_error, returncode
        else:
            wait_ms = int(LINGER_IDLE_SECONDS * 1000)
        events = poller.poll(wait_ms)
        if returncode is None:
            returncode = supervisor.check()
            if returncode is not None:
                linger_until = time.monotonic() + LINGER_MAX_SECONDS
                if supervisor.pidfd >= 0:
                    poller.unregister(supervisor.pidfd)
        elif not events:
            return sink_error, returncode  # exited and quiet: background jobs are not waited for
        for fd, _ in events:
            if fd not in names:
                continue
            data = os.read(fd, CHUNK)
            if len(data) >= _DEFAULT_PIPE_BYTES and fd in small:
                small.discard(fd)  # a big output: fewer, larger reads (fcntl only then)
                _grow_pipe(fd)
            if not data:
                poller.unregister(fd)
                os.close(fd)
                del names[fd]
                continue
            if sink_error is None:
                try:
                    sink(names[fd], data)
                except BaseException as exc:  # keep draining; report after the end
                    sink_error = exc
            if isinstance(sink_error, StopReading):
                for open_fd in list(names):
                    poller.unregister(open_fd)
                    os.close(open_fd)
                names.clear()
                break


def run_passthrough(argv: Sequence[str], *, timeout: float | None = None) -> int:
    """Run ``argv`` with the terminal's own streams (nothing captured); return the exit code.

    Signals and the deadline are handled as for :func:`run_streaming`.
    """
    started = time.monotonic()
    try:
        child = _spawn(argv, outputs=None, new_session=False, cwd=None, env=None)
    except NotRunnable as exc:
        from tersh.errors import warn

        warn(str(exc).removeprefix("tersh: "))
        return exc.exit_code
    import select

    supervisor = _Supervisor(child, timeout, started)
    try:
        poller = select.poll()
        if supervisor.pidfd >= 0:
            poller.register(supervisor.pidfd, select.POLLIN)
        returncode = supervisor.check()
        while returncode is None:
            poller.poll(supervisor.wait_ms())
            returncode = supervisor.check()
    finally:
        supervisor.close()
    return TIMEOUT_EXIT if supervisor.timed_out else exit_code_of(returncode)


def _signal_one(pid: int, signum: int) -> None:
    try:  # noqa: SIM105 - start-up path: no contextlib
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
