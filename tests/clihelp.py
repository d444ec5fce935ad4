"""Run the real `tersh` command line in a subprocess, as an agent's shell would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence


def tersh(args: Sequence[str], *, input: bytes | None = None, env: dict[str, str] | None = None,
          timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """``python -m tersh ARGS`` with the test's TERSH_HOME (inherited from os.environ)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "tersh", *args], input=input,
                          capture_output=True, env=full_env, timeout=timeout, check=False)


def enable() -> None:
    """Turn tersh on in the test's profile."""
    assert tersh(["enable"]).returncode == 0
