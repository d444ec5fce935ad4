"""Cost of the rewrite decision: whole `tersh rewrite 'git status'` process vs `python -c pass`,
and the in-process policy decision for a 200-character command.

Usage: python bench/bench_rewrite.py [--runs N] [--json OUT]

Whole process: the baseline is the very interpreter the ``tersh`` script runs on
(``sys.executable``), started the same way; runs alternate so machine noise hits both alike; the
figure is the ratio of medians (target <= 1.5). No RTK is on PATH (the usual case: only the
policy and a PATH scan run, no subprocess). In process: ``policy.decide`` on a realistic
200-character command, median of many timed batches (target <= 100 µs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
TERSH = Path(sys.executable).with_name("tersh")
COMMAND_200 = (
    "cd /home/dev/work/project && FORCE_COLOR=0 timeout 600 uv run --with rich pytest -q "
    "tests/test_api.py -k 'not slow and not network' --maxfail=3 -p no:cacheprovider "
    "2>&1 | tail -n 80 | tee /tmp/out.log"
)


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``argv``."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def whole_process(runs: int) -> dict[str, float]:
    """Median wall times (ms) of `tersh rewrite 'git status'` and `python -c pass`, and ratio."""
    work = Path(tempfile.mkdtemp(prefix="tersh-bench-rewrite-"))
    env = dict(os.environ, TERSH_HOME=str(work / "profile"), HOME=str(work),
               PATH=os.pathsep.join(["/usr/bin", "/bin"]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure byte-compiled modules, as installed
    tersh = [sys.executable, str(TERSH), "rewrite", "git status"]
    base = [sys.executable, "-c", "pass"]
    for _ in range(3):  # warm-up: byte-compile, fill the page cache, write the probe cache
        _time(tersh, env)
        _time(base, env)
    wall: dict[str, list[float]] = {"tersh": [], "python": []}
    cpu: dict[str, list[float]] = {"tersh": [], "python": []}
    for _ in range(runs):
        for name, argv in (("tersh", tersh), ("python", base)):
            seconds, cpu_seconds = _time(argv, env)
            wall[name].append(seconds)
            cpu[name].append(cpu_seconds)
    tersh_ms = statistics.median(wall["tersh"]) * 1000
    python_ms = statistics.median(wall["python"]) * 1000
    cpu_ratio = statistics.median(cpu["tersh"]) / max(statistics.median(cpu["python"]), 1e-9)
    return {"tersh_ms": tersh_ms, "python_ms": python_ms, "ratio": tersh_ms / python_ms,
            "cpu_ratio": cpu_ratio}


def in_process(batches: int = 200, per_batch: int = 50) -> dict[str, float]:
    """Median µs of one ``policy.decide`` on COMMAND_200 (and on `git status`).

    Wall time, and CPU time of this process (on a busy machine the wall figure also counts
    the time other processes held the CPU).
    """
    from tersh.command import policy

    result: dict[str, float] = {"chars": float(len(COMMAND_200))}
    for name, command in (("decide_200", COMMAND_200), ("decide_git_status", "git status")):
        policy.decide(command)
        wall, cpu = [], []
        for _ in range(batches):
            started, started_cpu = time.perf_counter(), time.process_time()
            for _ in range(per_batch):
                policy.decide(command)
            wall.append((time.perf_counter() - started) / per_batch)
            cpu.append((time.process_time() - started_cpu) / per_batch)
        result[f"{name}_us"] = statistics.median(wall) * 1e6
        result[f"{name}_cpu_us"] = statistics.median(cpu) * 1e6
    return result


def main() -> int:
    """Print both measurements side by side."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = {**whole_process(args.runs), **in_process()}
    print(f"tersh rewrite 'git status': {figures['tersh_ms']:.1f} ms  "
          f"python -c pass: {figures['python_ms']:.1f} ms  ratio {figures['ratio']:.2f} "
          f"(target <= 1.5); CPU-time ratio {figures['cpu_ratio']:.2f}")
    print(f"policy.decide, {int(figures['chars'])}-char command: {figures['decide_200_us']:.1f} µs"
          f" wall, {figures['decide_200_cpu_us']:.1f} µs CPU, medians (target <= 100); "
          f"'git status': {figures['decide_git_status_us']:.1f} µs wall")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
