"""The shared corpus of real tool outputs (../shared/corpus), read-only, as typed cases."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import NamedTuple

from tersh.compaction.clean import strip_ansi

ROOT = Path(os.environ.get("TERSH_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"))


class CorpusMissing(RuntimeError):
    """The shared corpus is not there although this run requires it (CI)."""


def required() -> bool:
    """Whether a missing corpus fails the run: on CI (``CI`` set) or with TERSH_REQUIRE_CORPUS=1.

    Elsewhere the corpus tests collect no case, so a checkout without the corpus stays usable.
    """
    ci = os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}
    return ci or os.environ.get("TERSH_REQUIRE_CORPUS") == "1"


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
    """Every corpus case, sorted by name (empty when the corpus is not there and not required)."""
    return read_cases(ROOT, required())


def read_cases(root: Path, require: bool) -> tuple[Case, ...]:
    """Every case under ``root``; raise CorpusMissing when ``require`` and none is there."""
    if not root.is_dir() or not any((p / "cmd").is_file() for p in root.iterdir()):
        if require:
            raise CorpusMissing(
                f"the shared corpus is required (CI or TERSH_REQUIRE_CORPUS=1) but {root} holds no"
                " case: put it at ../shared/corpus beside the checkout or set TERSH_CORPUS"
            )
        return ()
    found = []
    for folder in sorted(p for p in root.iterdir() if (p / "cmd").is_file()):
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
