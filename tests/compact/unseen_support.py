"""The unseen-outputs corpus (tests/compact/fixtures/unseen/): real outputs, judged as the graders do.

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

ROOT = Path(__file__).resolve().parent / "fixtures" / "unseen"


class UnseenCase(NamedTuple):
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


def unseen_cases() -> list[UnseenCase]:
    """Every case folder under fixtures/unseen, sorted by name."""
    found = []
    for folder in sorted(p for p in ROOT.iterdir() if (p / "cmd").is_file()) if ROOT.is_dir() else []:
        facts = json.loads((folder / "facts.json").read_text(encoding="utf-8"))
        found.append(UnseenCase(
            name=folder.name,
            cmd=(folder / "cmd").read_text(encoding="utf-8").strip(),
            exit_code=int((folder / "exit_code").read_text().strip()),
            path=folder,
            must_keep=tuple(facts["must_keep"]),
        ))
    return found


def model_text(case: UnseenCase, env: dict[str, str] | None = None) -> str:
    """The `text` that `tersh compact --format json` gives the model for this case."""
    argv = [sys.executable, "-m", "tersh", "compact", "--command", case.cmd, "--exit-code",
            str(case.exit_code), "--combined", str(case.combined), "--format", "json"]
    done = subprocess.run(argv, capture_output=True, check=True, env={**os.environ, **(env or {})})
    record = json.loads(done.stdout)
    return str(record["text"])


def lost_facts(case: UnseenCase, text: str) -> list[str]:
    """The case's must_keep strings missing from ``text`` (both compared without ANSI)."""
    plain = strip_ansi(text)
    return [fact for fact in case.must_keep if strip_ansi(fact) not in plain]
