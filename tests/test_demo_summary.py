"""The demo's closing table (scripts/demo_summary.py) reports what it measured, losses included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.clihelp import enable, tersh

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "demo_summary.py"
COMMAND = [
    "bash",
    "-c",
    'for i in $(seq 1 3000); do echo "ok line $i"; done;'
    " echo 'src/app.py:12:5: error: name is not defined' >&2; exit 2",
]


def _summary(model_text: Path, code: int) -> str:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(model_text), str(code), *COMMAND],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_table_shows_both_sides_and_every_fact_kept(tmp_path: Path) -> None:
    enable()
    run = tersh(["run", "--", *COMMAND])
    assert run.returncode == 2
    model_text = tmp_path / "model.txt"
    model_text.write_bytes(run.stdout + run.stderr)
    table = _summary(model_text, 2)
    assert "the command printed" in table and "the model receives" in table
    assert "exit code 2" in table
    kept = next(line for line in table.splitlines() if "protected facts" in line)
    shown, total = kept.split(": ")[1].split(" (")[0].split(" of ")
    assert shown == total and int(total) >= 1
    assert "/combined" in table


def test_a_text_that_lost_a_fact_is_reported_as_such(tmp_path: Path) -> None:
    enable()
    assert tersh(["run", "--", *COMMAND]).returncode == 2
    model_text = tmp_path / "model.txt"
    model_text.write_text("ok line 1\n")  # the error line and its location are gone
    kept = next(line for line in _summary(model_text, 2).splitlines() if "protected facts" in line)
    shown, total = kept.split(": ")[1].split(" (")[0].split(" of ")
    assert int(shown) < int(total)
