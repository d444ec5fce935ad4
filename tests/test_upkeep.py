"""The once-a-minute upkeep runs detached: the call that is due does not wait for it, its pipes
reach EOF when it ends, and the upkeep still happens."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from tersh.fsutil import TEMP_PREFIX
from tersh.recording import captures, upkeep
from tests.clihelp import enable, tersh


def _wait_for(condition: object, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.05)
    return False


def test_background_work_outlives_a_caller_whose_pipes_close_at_once(tmp_path: Path) -> None:
    marker = tmp_path / "done"
    script = textwrap.dedent(f"""
        import os, time
        from tersh.recording import upkeep

        def work():
            time.sleep(1.5)
            with open({str(marker)!r}, "w") as handle:
                handle.write(f"{{os.getsid(0)}} {{os.getppid()}}")

        print(upkeep.in_background(work), flush=True)
    """)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30,
                          check=False)
    waited = time.monotonic() - started
    assert done.stdout == "True\n" and done.returncode == 0, done.stderr
    assert not marker.exists(), "the caller waited for the work"
    assert waited < 1.5  # the pipes reached EOF before the work ended: no descriptor kept
    assert _wait_for(marker.exists), "the detached work never ran"
    assert _wait_for(lambda: " " in marker.read_text())
    session, _parent = marker.read_text().split()
    assert int(session) != os.getsid(0)  # its own session: no signal of the call's group reaches it


def test_no_fork_while_threads_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert upkeep.in_background(lambda: marker.write_text("x")) is False
    finally:
        stop.set()
        worker.join()
    time.sleep(0.2)
    assert not marker.exists()


def test_a_due_call_hands_eviction_to_the_background_and_it_happens() -> None:
    enable()
    assert tersh(["run", "--", "true"]).returncode == 0  # creates the store
    root = Path(captures.store_dir())
    (root / captures.EVICT_STAMP).unlink(missing_ok=True)
    stale = root / f"{TEMP_PREFIX}crashed-writer"
    stale.mkdir()
    (stale / "combined").write_bytes(b"left by a crash\n")
    old = time.time() - captures.STALE_TEMP_SECONDS - 60
    os.utime(stale, (old, old))
    done = tersh(["run", "--", "echo", "hello"])
    assert done.returncode == 0 and b"hello" in done.stdout
    assert (root / captures.EVICT_STAMP).exists()  # claimed by the call
    assert _wait_for(lambda: not stale.exists()), "eviction did not run"


def test_an_upkeep_not_due_runs_nothing() -> None:
    enable()
    root = Path(captures.store_dir())
    root.mkdir(parents=True, exist_ok=True)
    (root / captures.EVICT_STAMP).touch()  # evicted just now
    stale = root / f"{TEMP_PREFIX}crashed-writer"
    stale.mkdir()
    old = time.time() - captures.STALE_TEMP_SECONDS - 60
    os.utime(stale, (old, old))
    assert tersh(["run", "--", "true"]).returncode == 0
    time.sleep(0.5)
    assert stale.exists()  # the stamp is under a minute old: no eviction yet
