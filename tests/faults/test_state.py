"""Broken state (corrupt databases, planted links, held locks, read-only or full profiles) and
bad arguments: one clear line, never a traceback, never a hang, never a lost exit code."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from tests.faults.support import (
    MODES,
    corrupt,
    fill_disk,
    held_lock,
    plant_symlink,
    set_mode,
    small_disk,
    stderr_line,
    tersh,
    tersh_argv,
)


def _home() -> Path:
    return Path(os.environ["TERSH_HOME"])


def _one_call() -> None:
    set_mode("enabled")
    assert tersh(["run", "-c", "echo some output"]).returncode == 0
    assert tersh(["gain"]).returncode == 0  # folds the spool: ledger.db exists


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e400", "-1", "0", "1e300"])
@pytest.mark.parametrize("mode", MODES)
def test_an_odd_timeout_never_costs_the_exit_code_or_a_traceback(mode: str, value: str) -> None:
    set_mode(mode)
    done = tersh(["run", "--timeout", value, "-c", "echo ran; exit 5"])
    stderr_line(done)
    if value in ("-inf", "nan", "-1"):
        assert done.returncode == 2 and b"--timeout" in done.stderr  # refused before running
        assert b"ran" not in done.stdout
    else:
        assert done.returncode == 5 and b"ran" in done.stdout


def test_an_exit_code_sqlite_cannot_hold_is_refused_and_gain_keeps_working(tmp_path: Path) -> None:
    source = tmp_path / "out.txt"
    source.write_text("hello\n")
    done = tersh(
        ["compact", "--command", "x", "--exit-code", "999999999999999999999", "--stdout", str(source)]
    )
    assert done.returncode == 2 and b"out of range" in done.stderr
    assert tersh(["compact", "--command", "x", "--exit-code", "3", "--stdout", str(source)]).returncode == 0
    gain = tersh(["gain"])
    stderr_line(gain)
    assert gain.returncode == 0


def test_a_held_status_lock_does_not_hang_the_command() -> None:
    _one_call()
    lock = _home() / "state" / "output-optimizer" / "status.json.lock"
    with held_lock(lock):
        started = time.monotonic()
        done = tersh(["run", "-c", "echo hi; exit 7"], timeout=30)
        elapsed = time.monotonic() - started
    assert done.returncode == 7 and b"hi" in done.stdout
    assert elapsed < 10, f"tersh waited {elapsed:.1f} s on a lock another process holds"
    stderr_line(done)


def test_a_symlink_planted_as_the_capture_index_is_never_written(tmp_path: Path) -> None:
    set_mode("enabled")
    victim = tmp_path / "other-application.dat"
    victim.write_bytes(b"precious\n")
    (_home() / "captures").mkdir(mode=0o700)
    plant_symlink(_home() / "captures" / "index.db", victim)
    done = tersh(["run", "-c", "echo hi; exit 3"])
    assert done.returncode == 3 and b"hi" in done.stdout
    assert victim.read_bytes() == b"precious\n"
    stderr_line(done)


@pytest.mark.parametrize("side", ["-wal", "-shm"])
def test_a_symlink_planted_beside_the_ledger_is_refused_in_one_line(tmp_path: Path, side: str) -> None:
    _one_call()
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    plant_symlink(_home() / f"ledger.db{side}", victim)
    done = tersh(["gain"])
    assert done.returncode != 0 and b"symbolic link" in done.stderr
    stderr_line(done)
    assert victim.read_bytes() == b"precious\n"


def test_a_profile_first_created_by_a_tool_call_is_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "fresh" / "profile"
    monkeypatch.setenv("TERSH_HOME", str(home))
    lines = "\n".join(f"filler text number {i} here" for i in range(20000))
    done = subprocess.run(
        ["sh", "-c", 'umask 000; exec "$@"', "sh", *tersh_argv("tool", "--name", "Read", "--text")],
        input=lines.encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    folders = [home, *(p for p in home.rglob("*") if p.is_dir())]
    assert len(folders) > 1, "the tool call stored nothing: the test proves nothing"
    for folder in folders:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


@pytest.mark.parametrize("how", ["garbage", "truncated", "directory"])
def test_gain_on_a_broken_ledger_says_so_in_one_line(how: str) -> None:
    _one_call()
    for side in ("-wal", "-shm"):
        (_home() / f"ledger.db{side}").unlink(missing_ok=True)
    corrupt(_home() / "ledger.db", how)
    done = tersh(["gain"])
    assert done.returncode != 0
    assert len(stderr_line(done).strip().splitlines()) == 1


def test_a_lock_file_turned_into_a_folder_costs_no_command() -> None:
    _one_call()
    corrupt(_home() / "state" / "output-optimizer" / "status.json.lock", "directory")
    done = tersh(["run", "-c", "echo hi; exit 9"])
    assert done.returncode == 9 and b"hi" in done.stdout
    stderr_line(done)
    stderr_line(tersh(["gain"]))


def test_gain_on_a_full_disk_answers_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with small_disk(tmp_path / "profile") as home:
        monkeypatch.setenv("TERSH_HOME", str(home))
        _one_call()
        for _ in range(3):
            tersh(["run", "-c", "echo more output"])
        fill_disk(home, 0)
        stderr_line(tersh(["gain"]))


@pytest.mark.parametrize("args", [["disable"], ["enable"], ["settings", "set", "preview.max_lines", "10"]])
def test_changing_a_read_only_profile_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    with small_disk(tmp_path / "profile") as home:
        monkeypatch.setenv("TERSH_HOME", str(home))
        set_mode("enabled")
        subprocess.run(["mount", "-o", "remount,ro", str(home)], check=True)
        done = tersh(args)
        assert done.returncode != 0
        assert "Read-only file system" in stderr_line(done)


def test_retrieve_with_an_offset_beyond_any_file_is_one_line() -> None:
    _one_call()
    done = tersh(["retrieve", "c000000000000", "--bytes", "--offset", "99999999999999999999999"])
    assert done.returncode == 2 and b"out of range" in done.stderr
    stderr_line(done)
