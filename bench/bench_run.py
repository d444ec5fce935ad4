"""Issue 2 benchmarks: start-up of `tersh run`, capture throughput, compaction of a big log.

Usage: python bench/bench_run.py [--big-gib 1.0] [--rounds 21] [--startup-only]
Prints medians and ratios measured side by side in one run.

Start-up: the whole process of `tersh run -- true` (enabled profile: capture, index, ledger,
status) against `python -c pass` on the same interpreter, runs interleaved. Sources are
byte-compiled first (this machine sets PYTHONDONTWRITEBYTECODE, so an uncompiled tree would be
recompiled on every start). Wall time and CPU time (user+sys of the child, from RUSAGE_CHILDREN)
are reported side by side: on a shared, loaded machine the wall figure also counts waiting.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import VENV_BIN, peak_rss_mb


def _make_big(path: Path, size: int) -> None:
    block = b"".join(b"2026-11-30 01:02:03 worker-%02d processed item %09d ok\n" % (i % 16, i)
                     for i in range(20000))
    with open(path, "wb") as handle:
        written = 0
        while written < size:
            handle.write(block)
            written += len(block)
        handle.write(b"src/app.py:42: error: something failed at the very end\n")


def _wall_and_cpu(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds user+sys) of one run of ``argv``, output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def startup(rounds: int, env: dict[str, str]) -> None:
    """Median wall and CPU of `tersh run -- true` and `python -c pass`, interleaved; print."""
    src = Path(__file__).resolve().parents[1] / "src"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True,
                   stdout=subprocess.DEVNULL)
    commands = {"python -c pass": [sys.executable, "-c", "pass"],
                "tersh run -- true": [str(VENV_BIN / "tersh"), "run", "--", "true"]}
    full_env = {**os.environ, **env}
    for argv in commands.values():  # warm-up: page cache, first capture folder, ledger file
        for _ in range(3):
            _wall_and_cpu(argv, full_env)
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            seconds, cpu_seconds = _wall_and_cpu(argv, full_env)
            wall[name].append(seconds)
            cpu[name].append(cpu_seconds)
    med_wall = {name: statistics.median(values) * 1000 for name, values in wall.items()}
    med_cpu = {name: statistics.median(values) * 1000 for name, values in cpu.items()}
    base, ours = "python -c pass", "tersh run -- true"
    print(f"start-up ({rounds} rounds, medians): wall python -c pass {med_wall[base]:.1f} ms, "
          f"tersh run -- true {med_wall[ours]:.1f} ms, ratio {med_wall[ours] / med_wall[base]:.2f}"
          f" (target <= 2.0)")
    print(f"  CPU user+sys: python -c pass {med_cpu[base]:.1f} ms, tersh run -- true "
          f"{med_cpu[ours]:.1f} ms, ratio {med_cpu[ours] / max(med_cpu[base], 1e-6):.2f}")


def main() -> int:
    """Run the three measurements and print them."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--big-gib", type=float, default=1.0)
    parser.add_argument("--log-mb", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--startup-only", action="store_true",
                        help="measure only the start-up of `tersh run -- true`")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="tersh-bench-home-")
    env = {"TERSH_HOME": home}
    tersh = str(VENV_BIN / "tersh")
    os.environ["TERSH_HOME"] = home
    subprocess.run([tersh, "enable"], check=True, capture_output=True)

    startup(args.rounds, env)
    if args.startup_only:
        shutil.rmtree(home, ignore_errors=True)
        return 0

    work = Path(tempfile.mkdtemp(prefix="tersh-bench-data-"))
    try:
        big = work / "big.log"
        size = int(args.big_gib * (1 << 30))
        _make_big(big, size)
        actual = big.stat().st_size
        cat_seconds, _, _ = peak_rss_mb(["sh", "-c", f"cat {big} > {work / 'copy'}"])
        (work / "copy").unlink()
        seconds, rss, rc = peak_rss_mb([tersh, "run", "--", "cat", str(big)], env=env)
        mbps = actual / seconds / 1e6
        print(f"run -- cat {actual / 1e6:.0f} MB: {seconds:.2f} s = {mbps:.0f} MB/s (target >= 200),"
              f" peak RSS {rss:.1f} MB (target <= 64), exit {rc}; cat > file {cat_seconds:.2f} s,"
              f" ratio {seconds / cat_seconds:.2f}")
        shutil.rmtree(Path(home) / "captures", ignore_errors=True)

        log = work / "log.txt"
        _make_big(log, int(args.log_mb * 1e6))
        log_size = log.stat().st_size
        seconds, rss, rc = peak_rss_mb([tersh, "compact", "--command", "./service --verbose",
                                        "--exit-code", "1", "--combined", str(log)], env=env)
        print(f"compact {log_size / 1e6:.0f} MB log: {seconds:.2f} s = {log_size / seconds / 1e6:.0f}"
              f" MB/s (target >= 50), peak RSS {rss:.1f} MB (target <= 128), exit {rc}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
