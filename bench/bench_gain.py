"""`tersh gain` and `tersh status` after a large capture: wall time and peak RSS.

Usage: python bench/bench_gain.py [--gib 1.0] [--small 20] [--rounds 5] [--used-profile]

Records one `tersh run -- cat FILE` of --gib GiB (100-byte lines) and --small short commands
(`seq 1 N`), then times the first `tersh gain` (which counts the waiting calls' tokens), then
the median of --rounds further `tersh gain` and `tersh status` runs. The profile is new and made
by `tersh enable`, which keeps the o200k table in it as it does for a user; --used-profile also
counts once before the calls are recorded.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_shapes import make_file
from common import VENV_BIN, measure, peak_rss_mb


def main() -> int:
    """Record the calls, then time the reports."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--small", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--used-profile", action="store_true",
                        help="a profile that has counted before (the o200k table already kept)")
    args = parser.parse_args()
    tersh = str(VENV_BIN / "tersh")
    home = tempfile.mkdtemp(prefix="tersh-bench-home-")
    work = Path(tempfile.mkdtemp(prefix="tersh-bench-gain-"))
    env = {"TERSH_HOME": home}
    full_env = {**os.environ, **env}
    try:
        subprocess.run([tersh, "enable"], check=True, capture_output=True, env=full_env)
        if args.used_profile:
            subprocess.run([sys.executable, "-c", "from tersh import tokens; tokens.count_bulk('x')"],
                           check=True, env=full_env)
        big = work / "big.txt"
        make_file(big, int(args.gib * (1 << 30)), 100)
        seconds, peak, _ = peak_rss_mb([tersh, "run", "--", "cat", str(big)], env=env)
        print(f"recorded run -- cat {big.stat().st_size / 1e6:.0f} MB: {seconds:.2f} s, peak {peak:.1f} MB")
        big.unlink()
        for number in range(args.small):
            subprocess.run(
                [tersh, "run", "--", "seq", "1", str(100 * (number + 1))],
                check=True,
                capture_output=True,
                env=full_env,
            )
        first = measure([tersh, "gain"], env=env)
        print(
            f"first tersh gain (counts {args.small + 1} calls): {first.wall:.2f} s wall, "
            f"{first.cpu:.2f} s CPU, peak {first.peak_mb:.1f} MB (target <= 1 s)"
        )
        base = [measure([sys.executable, "-c", "pass"]) for _ in range(args.rounds)]
        print(
            f"python -c pass (median of {args.rounds}, machine load): "
            f"{statistics.median(r.wall for r in base):.3f} s wall, "
            f"{statistics.median(r.cpu for r in base):.3f} s CPU"
        )
        for name in ("gain", "status"):
            runs = [measure([tersh, name], env=env) for _ in range(args.rounds)]
            print(
                f"tersh {name} (median of {args.rounds}): "
                f"{statistics.median(r.wall for r in runs):.2f} s wall, "
                f"{statistics.median(r.cpu for r in runs):.2f} s CPU, "
                f"peak {max(r.peak_mb for r in runs):.1f} MB"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
