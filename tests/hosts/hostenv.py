"""Run ``tersh hook HOST`` the way an agent host does: a fresh process, JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

TERSH = Path(sys.executable).with_name("tersh")


class HookRun(NamedTuple):
    """What the host sees: exit code, stdout, stderr."""

    code: int
    stdout: str
    stderr: str

    def answer(self) -> dict[str, Any]:
        """The parsed JSON answer (fails the test when there is none)."""
        assert self.stdout.strip(), f"no answer (stderr: {self.stderr!r})"
        parsed: dict[str, Any] = json.loads(self.stdout)
        return parsed


def host_env(home: Path, **extra: str) -> dict[str, str]:
    """A host-like environment: private HOME, the test's TERSH_HOME, no config overrides."""
    env = {k: v for k, v in os.environ.items() if k not in {"CLAUDE_CONFIG_DIR", "CODEX_HOME"}}
    env["HOME"] = str(home)
    env.update(extra)
    return env


def run_hook(host: str, payload: object, env: dict[str, str], cwd: Path | None = None) -> HookRun:
    """Start ``tersh hook HOST`` with ``payload`` (a dict is sent as JSON, bytes as is)."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    done = subprocess.run(
        [str(TERSH), "hook", host], input=data, capture_output=True, env=env, cwd=cwd, timeout=60
    )
    return HookRun(done.returncode, done.stdout.decode(), done.stderr.decode())


def run_shell(command: str, env: dict[str, str], cwd: Path | None = None) -> HookRun:
    """Run ``command`` with ``bash -c`` as the host's shell tool would."""
    done = subprocess.run(["bash", "-c", command], capture_output=True, env=env, cwd=cwd, timeout=120)
    return HookRun(done.returncode, done.stdout.decode(), done.stderr.decode())


def enable(env: dict[str, str]) -> None:
    """``tersh enable`` in the test profile (a new profile is disabled)."""
    subprocess.run([str(TERSH), "enable"], env=env, check=True, capture_output=True)
