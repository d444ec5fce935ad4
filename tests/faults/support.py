"""Fault injection for the fail-open tests: the faults a user's machine produces, made real.

Each helper builds one fault with real resources (a tmpfs mount, a held flock, a planted
symlink, a pty, a process that floods or ignores signals) so a test states only what it
protects. The next fault campaign adds its faults here.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

MODES = ("enabled", "disabled")


def tersh_argv(*args: str) -> list[str]:
    """The argv of the real `tersh` command line."""
    return [sys.executable, "-m", "tersh", *args]


def tersh(
    args: Sequence[str],
    *,
    home: Path | None = None,
    timeout: float = 60,
    stdout: int | None = subprocess.PIPE,
    stderr: int | None = subprocess.PIPE,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run `tersh ARGS` (optionally with another profile); stdout/stderr may be any descriptor."""
    full_env = {**os.environ, **(env or {})}
    if home is not None:
        full_env["TERSH_HOME"] = str(home)
    return subprocess.run(
        tersh_argv(*args), stdout=stdout, stderr=stderr, env=full_env, timeout=timeout, check=False
    )


def set_mode(mode: str, home: Path | None = None) -> None:
    """Turn tersh on (``enabled``) or leave a new profile at its default (``disabled``)."""
    if mode == "enabled":
        assert tersh(["enable"], home=home).returncode == 0


def stderr_line(done: subprocess.CompletedProcess[bytes]) -> str:
    """tersh's stderr as text, asserting it holds no traceback."""
    text = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    return text


# --- the disk ----------------------------------------------------------------------------------


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "2m") -> Iterator[Path]:
    """A real tmpfs of ``size`` mounted on ``folder`` (skips where mounting is refused)."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def fill_disk(folder: Path, leave_bytes: int) -> Path:
    """Fill the filesystem of ``folder`` until about ``leave_bytes`` remain free."""
    filler = folder / "filler"
    with open(filler, "wb") as handle:
        while True:
            free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
            if free <= leave_bytes:
                break
            try:
                handle.write(b"\0" * min(free - leave_bytes, 1 << 16))
                handle.flush()
            except OSError:
                break
    return filler


def temp_leftovers(home: Path) -> list[str]:
    """Temporary capture folders left in the profile's capture store."""
    store = home / "captures"
    return sorted(p.name for p in store.iterdir() if p.name.startswith(".tmp-")) if store.is_dir() else []


# --- files and locks ---------------------------------------------------------------------------


@contextlib.contextmanager
def held_lock(path: Path) -> Iterator[None]:
    """Another process's exclusive flock on ``path`` for the duration of the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT, 0o600)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(120)",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        probe = os.open(path, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(probe)
        yield
    finally:
        holder.kill()
        holder.wait()


def plant_symlink(link: Path, target: Path) -> None:
    """Replace ``link`` by a symbolic link to ``target``."""
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_dir() and not link.is_symlink():
        shutil.rmtree(link)
    elif link.exists() or link.is_symlink():
        link.unlink()
    link.symlink_to(target)


def corrupt(path: Path, how: str) -> None:
    """Break a state file: ``garbage``, ``truncated`` (half of it) or ``directory``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "garbage":
        path.write_bytes(b"this is not a database\n" * 64)
    elif how == "truncated":
        data = path.read_bytes() if path.exists() else b"SQLite format 3\0" + b"\1" * 5000
        path.write_bytes(data[: max(1, len(data) // 2)])
    elif how == "directory":
        if path.exists():
            path.unlink()
        path.mkdir()
    else:
        raise ValueError(how)


# --- processes ---------------------------------------------------------------------------------


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rpartition(b")")[2].split()[0]
    except OSError:
        return False
    return state != b"Z"


def wait_for_file(path: Path, seconds: float = 30) -> str:
    """The text of ``path`` once a process has written it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.02)
    raise AssertionError(f"{path} was never written")


def wait_gone(pid: int, seconds: float = 5) -> bool:
    """Whether ``pid`` is gone within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def start_tersh(args: Sequence[str], *, new_group: bool = True) -> subprocess.Popen[bytes]:
    """Start `tersh ARGS` in the background with default signal dispositions (SIGINT too);
    ``new_group`` makes it the leader of its own process group, as a shell's job is."""
    return subprocess.Popen(
        tersh_argv(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        process_group=0 if new_group else None,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def start_in_pty(args: Sequence[str]) -> tuple[int, int]:
    """Start `tersh ARGS` on a real pseudo-terminal (its controlling terminal, tersh in the
    foreground group); (pid, terminal master descriptor)."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execv(sys.executable, tersh_argv(*args))
    return pid, fd


def finish_in_pty(pid: int, fd: int, seconds: float = 20) -> tuple[int, bytes]:
    """Read the terminal until tersh is done; (exit code, everything it showed)."""
    output = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), output


def in_pty(args: Sequence[str], seconds: float = 20) -> tuple[int, bytes]:
    """Run `tersh ARGS` on a real pseudo-terminal to its end; (code, output)."""
    pid, fd = start_in_pty(args)
    return finish_in_pty(pid, fd, seconds)


# --- a rewrite provider that misbehaves --------------------------------------------------------

FAULTY_RTK = """
import os, signal, sys
mode = os.environ.get("FAULT_RTK", "")
args = sys.argv[1:]
if args[:1] == ["--version"]:
    print("rtk 1.1.0")
    sys.exit(0)
if args[:1] == ["rewrite"]:
    if mode == "flood-rewrite":
        os.execvp("yes", ["yes", "rtk " + args[1]])
    print("rtk " + args[1])
    sys.exit(0)
if mode == "crash-on-run":
    os.kill(os.getpid(), signal.SIGSEGV)
os.execvp(args[0], args)
"""


def faulty_rtk(folder: Path) -> Path:
    """An ``rtk`` that passes verification, then misbehaves as ``$FAULT_RTK`` says:
    ``crash-on-run`` (the rewritten command dies by SIGSEGV before doing anything) or
    ``flood-rewrite`` (``rtk rewrite`` prints without end)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "rtk"
    target.write_text(f"#!{sys.executable} -S\n{FAULTY_RTK}")
    target.chmod(0o755)
    return target
