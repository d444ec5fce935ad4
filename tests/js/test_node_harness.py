"""Run the OpenCode plugin's node harness tests (tests/js/*.test.mjs) as part of the suite."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _ensure_sucrase(npm: str) -> None:
    """The harness strips TypeScript types with sucrase (pinned in package-lock.json)."""
    if (HERE / "node_modules" / "sucrase" / "package.json").is_file():
        return
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"npm ci failed in {HERE}:\n{done.stdout}\n{done.stderr}"


@pytest.mark.slow
def test_opencode_plugin_under_node(tersh_home: Path) -> None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the OpenCode plugin harness")
    _ensure_sucrase(npm)
    env = {**os.environ, "TERSH_TEST_PYTHON": sys.executable}
    files = sorted(str(p) for p in HERE.glob("*.test.mjs"))
    done = subprocess.run(
        [node, "--test", *files], cwd=HERE, env=env, capture_output=True, text=True, timeout=600
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    passed = re.search(r"^# pass (\d+)$", report, re.M)
    assert passed and int(passed.group(1)) >= 9, report[-3000:]
    assert re.search(r"^# fail 0$", report, re.M), report[-3000:]
