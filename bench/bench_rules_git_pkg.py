"""Throughput, peak memory and token saving of the git and package-manager rules.

Throughput: each rule compacts a synthetic log of about ``--mb`` megabytes made by repeating a
real output of its tool (a corpus case or a recorded fixture), each copy under its own path
prefix. Prints the median MB/s over ``--runs`` runs in wall time and in CPU time of this
process (which a busy machine disturbs less; the floor is checked on CPU time), the CPU speed
as a share of a ``baseline`` run in the same process (a loop testing one regex per line: what
any line rule pays at least), and the peak extra memory of one run on a tenth of the input
(tracemalloc) as a multiple of that input. Savings: every ``git__`` and ``pkg__`` corpus case
through the registry and the verifier gate, o200k tokens of the raw combined output against
the model text (plus 40 tokens of capture report when the text changed), and the must_keep
facts lost. Exits 1 when a rule is under ``--floor`` MB/s or a fact is lost.

    .venv/bin/python bench/bench_rules_git_pkg.py --mb 50 --runs 3
"""

from __future__ import annotations

import argparse
import importlib
import re
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import corpus  # noqa: E402

from tersh import tokens  # noqa: E402
from tersh.compaction import apply, detect, find_rule  # noqa: E402
from tersh.compaction.clean import clean  # noqa: E402

FIXTURES = ROOT / "tests" / "compact" / "fixtures"
REPORT_TOKENS = 40

# rule: (command, sample: a corpus case name or fixtures/<tool>/<name>)
SAMPLES = {
    "git_status": ("git status", "git__status-messy-worktree"),
    "git_log": ("git log", "git__log-default-huge"),
    "git_blame": ("git blame boltons/strutils.py", "git__blame-file"),
    "git_diff": ("git diff --stat", "git__diff-stat-reformat"),
    "git_refs": ("git branch -vv", "fixtures/git/branch-vv"),
    "git_transfer": ("git pull", "fixtures/git/pull-fastforward"),
    "pip": ("pip install requests rich httpx", "pkg__pip-install-fresh-venv"),
    "uv": ("uv add requests rich", "fixtures/uv/add"),
    "poetry": ("poetry install", "fixtures/poetry/install-tty"),
    "npm": ("npm install", "pkg__npm-install-legacy-deps"),
    "yarn": ("yarn add express@4 request", "fixtures/yarn/yarn-add-many"),
    "apt": ("apt-get install -y jq cowsay sl", "fixtures/apt/install-upgrade-suggested"),
    "cargo_deps": ("cargo install ripgrep", "fixtures/cargo_deps/install-ripgrep"),
}


class Speed(NamedTuple):
    rule: str
    mb_per_s: float
    cpu_mb_per_s: float
    peak_ratio: float
    out_bytes: int


def sample_text(source: str) -> str:
    """The cleaned text of a corpus case or a recorded fixture."""
    if source.startswith("fixtures/"):
        path = FIXTURES / f"{source.removeprefix('fixtures/')}.out"
        return clean(path.read_bytes().decode("utf-8", "replace"))
    return clean(next(c for c in corpus.cases() if c.name == source).combined)


def synthetic(sample: str, megabytes: float) -> str:
    """``sample`` repeated to about ``megabytes`` MB, each copy with its own path prefixes."""
    target = int(megabytes * 1_000_000)
    copies: list[str] = []
    size = index = 0
    while size < target:
        copy = sample.replace("src/", f"src{index}/").replace("tests/", f"tests{index}/")
        copies.append(copy if copy.endswith("\n") else copy + "\n")
        size += len(copies[-1])
        index += 1
    return "".join(copies)


def _baseline(text: str, inv: object) -> str:
    """The least a line rule does: walk every line, test one shape, keep the others."""
    shape = re.compile(r"\s*(?:Collecting|Downloading) ")
    return "\n".join(line for line in text.split("\n") if not shape.match(line))


def throughput(megabytes: float, runs: int, only: frozenset[str] = frozenset()) -> list[Speed]:
    """One Speed row per rule (or per rule of ``only``), after a ``baseline`` row (a one-regex
    line filter)."""
    rows = [_speed("baseline", _baseline, synthetic(sample_text(SAMPLES["pip"][1]), megabytes),
                   detect.invocation("pip install x", 0), runs)]  # fmt: skip
    for name, (command, source) in SAMPLES.items():
        if only and name not in only:
            continue
        rule = importlib.import_module(f"tersh.compaction.rules.{name}")
        text = synthetic(sample_text(source), megabytes)
        rows.append(_speed(name, rule.compact, text, detect.invocation(command, 0), runs))
    return rows


def _speed(name: str, compact: Callable[[str, Any], str | None], text: str, inv: object,
           runs: int) -> Speed:  # fmt: skip
    times, cpu_times = [], []
    out: str | None = None
    for _ in range(runs):
        start, cpu_start = time.perf_counter(), time.process_time()
        out = compact(text, inv)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    part = text[: len(text) // 10]
    tracemalloc.start()
    compact(part, inv)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    megabytes = len(text.encode()) / 1e6
    return Speed(name, megabytes / statistics.median(times),
                 megabytes / max(statistics.median(cpu_times), 1e-9),
                 peak / len(part.encode()), len((out or "").encode()))  # fmt: skip


class Saving(NamedTuple):
    case: str
    rule: str
    before: int
    after: int
    applied: bool
    lost: int


def savings() -> list[Saving]:
    """One Saving row per git__/pkg__ corpus case."""
    rows = []
    for case in corpus.cases():
        if case.family not in {"git", "pkg"}:
            continue
        text = clean(case.combined)
        inv = detect.invocation(case.cmd, case.exit_code)
        rule = find_rule(text, inv)
        outcome = apply(rule, text, inv) if rule is not None else None
        model = outcome.text if outcome is not None else text
        applied = outcome is not None and outcome.applied
        before = tokens.count(case.combined)
        after = tokens.count(model) + (REPORT_TOKENS if model != case.combined else 0)
        lost = len(corpus.lost_facts(case, model))
        rows.append(Saving(case.name, getattr(rule, "NAME", "-"), before, after, applied, lost))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print throughput and savings; 1 when a rule is too slow or a fact was lost."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor", type=float, default=20.0, help="minimum MB/s per rule")
    parser.add_argument("--rules", default="", help="comma-separated rule names (default: all)")
    args = parser.parse_args(argv)
    only = frozenset(name for name in args.rules.split(",") if name)
    failed = False
    print(f"{'rule':<13} {'wall MB/s':>9} {'CPU MB/s':>9} {'/base':>6} {'peak/input':>10}"
          f" {'out bytes':>12}   ({args.mb:g} MB input)")  # fmt: skip
    speeds = throughput(args.mb, args.runs, only)
    for row in speeds:
        flag = "" if row.cpu_mb_per_s >= args.floor else "  < floor"
        failed |= bool(flag) and row.rule != "baseline"
        print(f"{row.rule:<13} {row.mb_per_s:9.1f} {row.cpu_mb_per_s:9.1f}"
              f" {row.cpu_mb_per_s / speeds[0].cpu_mb_per_s:6.2f}"
              f" {row.peak_ratio:10.2f} {row.out_bytes:12,}{flag}")  # fmt: skip
    rows = savings()
    print(f"\n{'case':<40} {'rule':<12} {'tokens':>8} {'after':>8} {'saved':>6} applied lost")
    for row in rows:
        failed |= row.lost > 0
        saved = 1 - row.after / row.before if row.before else 0.0
        print(f"{row.case:<40} {row.rule:<12} {row.before:8,} {row.after:8,} {saved:6.0%}"
              f" {row.applied!s:>7} {row.lost:>4}")  # fmt: skip
    before = sum(row.before for row in rows)
    after = sum(row.after for row in rows)
    print(f"{'all git and package cases':<53} {before:8,} {after:8,} {1 - after / before:6.0%}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
