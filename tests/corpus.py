"""The shared corpus of real tool outputs (../shared/corpus), read-only, as typed cases."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import NamedTuple

from tersh.compaction.clean import strip_ansi

ROOT = Path(os.environ.get("TERSH_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"))


class Case(NamedTuple):
    """One recorded command: its line, exit code, streams and the facts a compaction must keep."""

    name: str
    cmd: str
    exit_code: int
    combined: str
    stdout: str
    stderr: str
    must_keep: tuple[str, ...]
    path: Path

    @property
    def family(self) -> str:
        """The case's prefix: test, build, lint, git, pkg, other."""
        return self.name.split("__", 1)[0]


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "replace")


@cache
def cases() -> tuple[Case, ...]:
    """Every corpus case, sorted by name (empty when the corpus is not there)."""
    if not ROOT.is_dir():
        return ()
    found = []
    for folder in sorted(p for p in ROOT.iterdir() if (p / "cmd").is_file()):
        facts = json.loads((folder / "facts.json").read_text())
        found.append(
            Case(
                name=folder.name,
                cmd=_read(folder / "cmd").strip(),
                exit_code=int(_read(folder / "exit_code").strip()),
                combined=_read(folder / "combined"),
                stdout=_read(folder / "stdout"),
                stderr=_read(folder / "stderr"),
                must_keep=tuple(facts["must_keep"]),
                path=folder,
            )
        )
    return tuple(found)


def lost_facts(case: Case, text: str) -> list[str]:
    """The case's must_keep strings missing from ``text`` (both compared without ANSI)."""
    plain = strip_ansi(text)
    return [fact for fact in case.must_keep if strip_ansi(fact) not in plain]
