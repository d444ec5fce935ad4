"""A verified rewrite provider that misbehaves costs neither the command nor tersh's memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults.support import faulty_rtk, set_mode, tersh


@pytest.fixture
def rtk(tmp_path: Path) -> Path:
    """tersh enabled with the faulty rtk pinned by path."""
    set_mode("enabled")
    path = faulty_rtk(tmp_path / "bin")
    assert tersh(["settings", "set", "rtk.path", str(path)]).returncode == 0
    assert tersh(["settings", "set", "rtk.timeout_ms", "5000"]).returncode == 0
    return path


def test_a_rewrite_that_floods_its_answer_is_read_bounded(rtk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAULT_RTK", "flood-rewrite")
    probe = (
        "import sys\n"
        "from tersh.commands import run\n"
        "code = run.run(None, ['ls', '/'], timeout=None, fmt='text')\n"
        # VmHWM belongs to this process image; ru_maxrss would keep the forking parent's size
        # (Linux carries it across fork and exec: a big test worker would be counted).
        "status = open('/proc/self/status').read()\n"
        "peak = int(status.split('VmHWM:')[1].split()[0])\n"
        "sys.stderr.write(f'peak-kib={peak}\\n'); sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, timeout=60, env=dict(os.environ)
    )
    assert done.returncode == 0 and b"usr" in done.stdout
    asked = tersh(["rewrite", "ls /", "--format", "json"])  # the flood was really read, and cut
    assert b"answered more than" in asked.stdout, asked.stdout
    peak = int(done.stderr.decode().rsplit("peak-kib=", 1)[1].split()[0])
    # Unbounded, `yes` fills gigabytes within the 5 s timeout (428 MB within 500 ms was seen);
    # bounded, the answer costs 64 KiB over tersh's own size (tens of MB; more on a loaded box).
    assert peak < 300_000, f"tersh grew to {peak} KiB reading a flooding rewrite"
