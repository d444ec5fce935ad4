"""The regression corpus (tests/compact/fixtures/regression/): real outputs, judged as the graders do.

The outputs were recorded for this project (other projects, flags and modes of the same tools)
to check rules on outputs they had not seen; the rules now pass them all, so the corpus guards
against regressions.

Each case folder holds `cmd`, `exit_code`, `combined` and `facts.json` (`must_keep`, `source`), in
the shape of the shared corpus; the facts come from the tool's machine-readable output, never from
tersh. A case is judged through the real CLI: `tersh compact --command CMD --exit-code N
--combined FILE --format json`, whose `text` field is what the model receives.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from tersh.compaction.clean import strip_ansi

ROOT = Path(__file__).resolve().parent / "fixtures" / "regression"


class RegressionCase(NamedTuple):
    """One recorded command and the facts a compaction must keep."""

    name: str
    cmd: str
    exit_code: int
    path: Path
    must_keep: tuple[str, ...]

    @property
    def combined(self) -> Path:
        """The file holding both streams as a terminal showed them."""
        return self.path / "combined"


def regression_cases() -> list[RegressionCase]:
    """Every case folder under fixtures/regression, sorted by name."""
    found = []
    for folder in sorted(p for p in ROOT.iterdir() if (p / "cmd").is_file()) if ROOT.is_dir() else []:
        facts = json.loads((folder / "facts.json").read_text(encoding="utf-8"))
        found.append(RegressionCase(
            name=folder.name,
            cmd=(folder / "cmd").read_text(encoding="utf-8").strip(),
            exit_code=int((folder / "exit_code").read_text().strip()),
            path=folder,
            must_keep=tuple(facts["must_keep"]),
        ))
    return found


def model_text(case: RegressionCase, env: dict[str, str] | None = None) -> str:
    """The `text` that `tersh compact --format json` gives the model for this case."""
    argv = [sys.executable, "-m", "tersh", "compact", "--command", case.cmd, "--exit-code",
            str(case.exit_code), "--combined", str(case.combined), "--format", "json"]
    done = subprocess.run(argv, capture_output=True, check=True, env={**os.environ, **(env or {})})
    record = json.loads(done.stdout)
    return str(record["text"])


def lost_facts(case: RegressionCase, text: str) -> list[str]:
    """The case's must_keep strings missing from ``text`` (both compared without ANSI)."""
    plain = strip_ansi(text)
    return [fact for fact in case.must_keep if strip_ansi(fact) not in plain]
