"""recording: the program and class of a call, found without importing the compaction package."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh import classify, recording
from tersh.compact.detect import invocation

COMMANDS = [
    "true", "python -m pytest -q", "uv run pytest tests", "cd web && npm test",
    "env X=1 timeout 60 cargo test", "pytest | tail -50", "bash -c 'make check'", "git status",
    "FOO=1", "", "   ", "make && echo ok", "npx tsc --noEmit", "(cd a; ruff check .)",
    "echo 'unterminated", "ls -la # no-opt",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_same_program_and_class_as_the_detector(command: str) -> None:
    expected = (invocation(command, 0).program or "?", classify.classify_command(command))
    assert recording.program_and_class(command, 0) == expected


@given(st.text(alphabet="abcgimnpstxy -|&;'\"()$=/.#\\\n", max_size=40))
def test_any_command_agrees_with_the_detector(command: str) -> None:
    expected = (invocation(command, 0).program or "?", classify.classify_command(command))
    assert recording.program_and_class(command, 0) == expected


def test_recording_a_call_does_not_import_the_compaction_package() -> None:
    probe = (
        "import sys\n"
        "from tersh import recording, settings\n"
        "from tersh.result import Result\n"
        "recording.record(Result('', 0, 'pytest -q', 'pytest -q'), settings.Settings())\n"
        "print(sorted(m for m in sys.modules if m.startswith('tersh.compact')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=os.environ, timeout=60, check=True)
    assert done.stdout.strip() == "[]", done.stderr
