"""A full disk, a full or closed output, a flood: the command's output and exit code still
reach the caller, and tersh leaves no temporary capture behind. Enabled and disabled."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.support import (
    MODES,
    fill_disk,
    set_mode,
    small_disk,
    stderr_line,
    temp_leftovers,
    tersh,
    tersh_argv,
)


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """Enabled, and a new profile's default (disabled)."""
    return str(request.param)


@pytest.fixture
def tiny_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> Iterator[Path]:
    """The profile on a real 2 MB tmpfs, in the test's mode."""
    with small_disk(tmp_path / "profile") as home:
        monkeypatch.setenv("TERSH_HOME", str(home))
        set_mode(mode)
        yield home


#: Both streams of a command, over the 2 MB disk: one channel fills it while the command runs;
#: a document on stdout (separate streams) fills it when its stream files are written.
_FLOODS = {
    "one channel": ("seq 1 200000; seq 1 200000 >&2; exit 8", "200000"),
    "separate streams": (
        "seq 1 100000 | python3 -m json.tool --json-lines; seq 1 100000 >&2; exit 8",
        "100000",
    ),
}


@pytest.mark.parametrize("flood", list(_FLOODS))
def test_a_disk_that_fills_up_on_both_streams_loses_no_output_and_no_exit_code(
    tiny_profile: Path, flood: str, mode: str
) -> None:
    command, last = _FLOODS[flood]
    done = tersh(["run", "-c", command])
    assert done.returncode == 8
    assert ("output shown unbounded" in stderr_line(done)) == (mode == "enabled")  # disk full
    lines = (done.stdout + done.stderr).decode().split()
    assert lines.count(last) == 2 and lines.count("1") == 2
    assert temp_leftovers(tiny_profile) == []


@pytest.mark.parametrize("free", [4096, 8192])
def test_a_nearly_full_disk_still_shows_both_streams_and_the_exit_code(tiny_profile: Path, free: int) -> None:
    fill_disk(tiny_profile, free)
    done = tersh(["run", "-c", "echo out; echo err >&2; exit 11"])
    assert done.returncode == 11
    stderr_line(done)
    shown = (done.stdout + done.stderr).decode()
    assert "out" in shown and "err" in shown
    assert temp_leftovers(tiny_profile) == []


def test_a_full_output_device_keeps_the_exit_code(mode: str) -> None:
    set_mode(mode)
    with open("/dev/full", "wb") as full:
        done = tersh(["run", "-c", "echo some output; exit 6"], stdout=full.fileno())
    assert done.returncode == 6
    stderr_line(done)


def test_a_reader_that_goes_away_on_a_full_disk_keeps_the_exit_code(tiny_profile: Path) -> None:
    fill_disk(tiny_profile, 4096)
    run = " ".join(tersh_argv("run", "-c", "'seq 1 200000; exit 5'"))
    done = subprocess.run(
        ["bash", "-c", f"{run} | head -1; echo code=${{PIPESTATUS[0]}}"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.decode().split() == ["1", "code=5"]
    assert "Traceback" not in done.stderr.decode()


def test_a_capture_stops_at_its_cap_and_the_rest_still_streams(mode: str) -> None:
    set_mode(mode)
    assert tersh(["settings", "set", "captures.max_bytes", "10000"]).returncode == 0
    done = tersh(["run", "-c", "seq 1 20000; exit 4"])
    assert done.returncode == 4
    stderr_line(done)
    produced = "".join(f"{n}\n" for n in range(1, 20001)).encode()
    if mode == "disabled":
        assert done.stdout == produced
        return
    assert done.stdout.startswith(produced[10000:])  # past the cap: streamed, unprocessed
    assert b"capture stopped at 10000 bytes" in done.stdout
    (store,) = [p for p in (Path(os.environ["TERSH_HOME"]) / "captures").iterdir() if p.is_dir()]
    assert (store / "combined").read_bytes() == produced[:10000]  # before it: captured, exact


def test_an_endless_producer_into_a_closed_reader_ends_like_without_tersh(mode: str) -> None:
    set_mode(mode)
    assert tersh(["settings", "set", "captures.max_bytes", "100000"]).returncode == 0
    run = " ".join(tersh_argv("run", "--", "yes"))
    done = subprocess.run(
        ["bash", "-c", f"{run} | head -2; echo code=${{PIPESTATUS[0]}}"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.stdout.decode().split() == ["y", "y", "code=141"]
