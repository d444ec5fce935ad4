"""When the caller ends the command (timeout, interrupt, kill of tersh or of its group), it ends
as it would without tersh: no orphans, exact codes, the terminal kept. Enabled and disabled."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.faults.support import (
    MODES,
    finish_in_pty,
    in_pty,
    set_mode,
    start_in_pty,
    start_tersh,
    tersh,
    wait_for_file,
    wait_gone,
)


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """Each test runs with tersh enabled and with a new profile's default (disabled)."""
    set_mode(request.param)
    return str(request.param)


def _sleeper(tmp_path: Path, seconds: int) -> tuple[str, Path]:
    """A shell command whose long sleep writes its pid to a file first (then never exits early)."""
    pid_file = tmp_path / "sleeper.pid"
    return f"sh -c 'echo $$ > {pid_file}; exec sleep {seconds}'; echo after", pid_file


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_tersh_alone_reaches_the_command_and_leaves_no_orphan(
    mode: str, tmp_path: Path, signum: int
) -> None:
    command, pid_file = _sleeper(tmp_path, 30)
    process = start_tersh(["run", "-c", command])
    sleeper = int(wait_for_file(pid_file))
    started = time.monotonic()
    process.send_signal(signum)
    process.communicate(timeout=10)
    assert time.monotonic() - started < 15, "tersh waited for the whole command (30 s)"
    assert wait_gone(sleeper), "the command survived the signal to tersh"
    assert process.returncode in (128 + signum, 0, -signum)  # bash may go on with `echo after`


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_kill_of_tersh_process_group_kills_the_command(mode: str, tmp_path: Path, signum: int) -> None:
    command, pid_file = _sleeper(tmp_path, 30)
    process = start_tersh(["run", "-c", command])
    sleeper = int(wait_for_file(pid_file))
    os.killpg(process.pid, signum)
    process.communicate(timeout=10)
    assert wait_gone(sleeper), "the command kept running after its group was killed"


def test_a_timeout_ends_the_whole_command_with_124(mode: str, tmp_path: Path) -> None:
    command, pid_file = _sleeper(tmp_path, 30)
    started = time.monotonic()
    done = tersh(["run", "--timeout", "1", "-c", command])
    assert done.returncode == 124
    assert time.monotonic() - started < 15  # the command would live 30 s
    assert wait_gone(int(wait_for_file(pid_file))), "the command survived its timeout"


def test_tersh_returns_when_the_command_exits_not_when_its_background_jobs_do(
    mode: str, tmp_path: Path
) -> None:
    pid_file = tmp_path / "bg.pid"
    started = time.monotonic()
    with open(tmp_path / "out", "wb") as out:  # a file: the test itself waits for no pipe
        done = tersh(
            ["run", "--timeout", "12", "-c", f"sleep 30 & echo $! > {pid_file}; echo hi"],
            stdout=out.fileno(),
            stderr=out.fileno(),
        )
    elapsed = time.monotonic() - started
    background = int(wait_for_file(pid_file))
    try:
        assert done.returncode == 0, "a background job is not the command timing out"
        assert b"hi" in (tmp_path / "out").read_bytes()
        assert elapsed < 10, f"tersh waited {elapsed:.1f} s for a background job"
    finally:
        os.kill(background, signal.SIGKILL)


def test_a_new_session_started_by_the_command_does_not_hold_tersh(mode: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "bg.pid"
    started = time.monotonic()
    with open(tmp_path / "out", "wb") as out:
        done = tersh(
            ["run", "-c", f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 30' & echo hi"],
            stdout=out.fileno(),
            stderr=out.fileno(),
        )
    background = int(wait_for_file(pid_file))
    try:
        assert done.returncode == 0 and b"hi" in (tmp_path / "out").read_bytes()
        assert time.monotonic() - started < 10  # the job lives 30 s; a loaded machine is slow
    finally:
        os.kill(background, signal.SIGKILL)


def test_the_command_keeps_the_controlling_terminal(mode: str) -> None:
    code, output = in_pty(["run", "-c", "(exec 3</dev/tty) && echo TTY-OK || echo TTY-LOST"])
    assert code == 0
    assert b"TTY-OK" in output, output


def test_a_terminal_interrupt_reaches_the_command_once_and_its_code_counts(mode: str, tmp_path: Path) -> None:
    # ^C on a terminal goes to the whole foreground group; tersh must not send a second one.
    ready = tmp_path / "ready"
    script = tmp_path / "count_int.py"
    script.write_text(
        "import pathlib, signal, sys, time\n"
        "hits = []\n"
        "signal.signal(signal.SIGINT, lambda *a: hits.append(1))\n"
        f"pathlib.Path({str(ready)!r}).write_text('1')\n"
        "end = time.monotonic() + 3\n"
        "while time.monotonic() < end: time.sleep(0.05)\n"
        "print('interrupts', len(hits)); sys.exit(3)\n"
    )
    pid, fd = start_in_pty(["run", "--", sys.executable, str(script)])
    wait_for_file(ready)
    os.write(fd, b"\x03")  # the terminal's interrupt character
    code, output = finish_in_pty(pid, fd)
    assert code == 3
    assert b"interrupts 1" in output, output
