"""Throughput and peak memory of `tersh run` over every shape of output, in one table.

Usage: python bench/bench_shapes.py [--full] [--rounds 3] [--sizes 1K,1M] [--lines 2,100]
       [--python-path SRC]   (measure another source tree: runs `python -m tersh` with it)

Cells: output sizes (1 KB … 64 MB; --full adds 256 MB and 1 GiB) × line lengths (2 B, 8 B,
100 B, 10 KB, 10 MB, newline included) × {no rule (`cat FILE`), a rule (the same bytes printed
by a program called `pytest`, so the registry picks the pytest rule)}. Each cell runs the whole
`tersh run` process and `cat FILE > copy` side by side (interleaved, medians of --rounds) and
reports MB/s (also net of the start-up, `tersh run -- true`), the ratio to `cat > file` and
the peak RSS of tersh's process tree (RUSAGE_CHILDREN of a one-command parent). 16 MB is
16,000,000 bytes: under the old 16 MiB in-memory limit, where the old in-memory path was slowest.
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
from common import VENV_BIN, clear_captures, peak_rss_mb

SIZES = {"1K": 1_000, "64K": 64_000, "1M": 1_000_000, "16M": 16_000_000, "64M": 64_000_000}
FULL_SIZES = {"256M": 256_000_000, "1G": 1 << 30}
LINE_LENGTHS = {"2B": 2, "8B": 8, "100B": 100, "10K": 10_000, "10M": 10_000_000}
#: A cell whose first run takes longer than this is not repeated (its one figure is shown).
REPEAT_UNDER_SECONDS = 20.0


def _line_block(length: int) -> bytes:
    """About 1 MB of lines of exactly ``length`` bytes (newline included), varied like real
    output: ``y``, seq-like numbers, log lines, long lines."""
    if length == 2:
        return b"y\n" * 500_000
    if length <= 8:
        return b"".join(b"%0*d\n" % (length - 1, i % 10 ** (length - 1)) for i in range(125_000))
    if length <= 1000:
        rows = []
        for i in range(1_000_000 // length):
            row = b"2026-12-01 10:11:12 worker-%02d handled request %08d status=ok" % (i % 16, i)
            rows.append(row.ljust(length - 1, b".")[: length - 1] + b"\n")
        return b"".join(rows)
    word = b"abcdefghij klmnopqrst uvwxyz0123 "
    return (word * (length // len(word) + 1))[: length - 1] + b"\n"


def make_file(path: Path, size: int, length: int) -> None:
    """``size`` bytes of ``length``-byte lines (the last one cut at ``size``)."""
    block = _line_block(length)
    with open(path, "wb") as handle:
        left = size
        while left > 0:
            piece = block[:left]
            handle.write(piece)
            left -= len(piece)


def _tersh_argv(python_path: str | None) -> tuple[list[str], dict[str, str]]:
    if python_path:
        return [sys.executable, "-m", "tersh"], {"PYTHONPATH": python_path}
    return [str(VENV_BIN / "tersh")], {}


def measure_cell(
    data: Path,
    shim: Path,
    with_rule: bool,
    rounds: int,
    trees: list[tuple[list[str], dict[str, str]]],
    home: Path,
) -> tuple[list[float], float, list[float]]:
    """([seconds per tree], cat seconds, [peak RSS MB per tree]) medians for one cell."""
    command = [str(shim), str(data)] if with_rule else ["cat", str(data)]
    copy = data.with_suffix(".copy")
    ours: list[list[float]] = [[] for _ in trees]
    cats: list[float] = []
    peaks: list[list[float]] = [[] for _ in trees]
    for _ in range(rounds):
        for number, (tersh, env) in enumerate(trees):
            seconds, peak, _rc = peak_rss_mb([*tersh, "run", "--", *command], env=env)
            clear_captures(home)
            ours[number].append(seconds)
            peaks[number].append(peak)
        cat_seconds, _, _ = peak_rss_mb(["sh", "-c", f"cat '{data}' > '{copy}'"])
        cats.append(cat_seconds)
        copy.unlink(missing_ok=True)
        if max(times[-1] for times in ours) > REPEAT_UNDER_SECONDS:
            break
    return [statistics.median(t) for t in ours], statistics.median(cats), [max(p) for p in peaks]


def _compile(folder: str) -> None:
    """Byte-compile a measured source tree first: with PYTHONDONTWRITEBYTECODE set, a module
    edited since its last compile would otherwise be compiled again by every run (for the
    preview, over 100 ms), and the table would measure the compiler. A read-only tree is left
    as it is."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", folder], capture_output=True, check=False)


def _startup(tersh: list[str], env: dict[str, str], home: Path) -> float:
    """Median seconds of `tersh run -- true` (no output: the fixed cost of a call)."""
    runs = [peak_rss_mb([*tersh, "run", "--", "true"], env=env)[0] for _ in range(5)]
    clear_captures(home)
    return statistics.median(runs)



def _net(size: int, seconds: float, startup: float) -> float:
    """MB/s over the time a call spends past its start-up (inf when within the start-up)."""
    spent = seconds - startup
    return size / spent / 1e6 if spent > 0 else float("inf")


def main() -> int:
    """Run the matrix and print one table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true", help="add 256 MB and 1 GiB")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", help="comma-separated subset of " + ",".join([*SIZES, *FULL_SIZES]))
    parser.add_argument("--lines", help="comma-separated line lengths: " + ",".join(LINE_LENGTHS))
    parser.add_argument("--python-path", help="run `python -m tersh` from this source folder")
    parser.add_argument("--against", help="also run `python -m tersh` from this source folder")
    args = parser.parse_args()
    sizes = {**SIZES, **(FULL_SIZES if args.full else {})}
    if args.sizes:
        every = {**SIZES, **FULL_SIZES}
        sizes = {name: every[name] for name in args.sizes.split(",")}
    lengths = LINE_LENGTHS
    if args.lines:
        lengths = {name: LINE_LENGTHS[name] for name in args.lines.split(",")}
    tersh, extra_env = _tersh_argv(args.python_path)
    for folder in (args.python_path or str(Path(__file__).resolve().parents[1] / "src"), args.against):
        if folder:
            _compile(folder)
    home = Path(tempfile.mkdtemp(prefix="tersh-bench-home-"))
    work = Path(tempfile.mkdtemp(prefix="tersh-bench-shapes-"))
    env = {"TERSH_HOME": str(home), **extra_env}
    subprocess.run([*tersh, "enable"], check=True, capture_output=True, env={**os.environ, **env})
    shim = work / "bin" / "pytest"  # a program the registry maps to a rule
    shim.parent.mkdir()
    shim.write_text('#!/bin/sh\nexec cat "$1"\n')
    shim.chmod(0o755)
    trees = [(tersh, env)]
    if args.against:
        trees.append(([sys.executable, "-m", "tersh"], {**env, "PYTHONPATH": args.against}))
    starts = [_startup(runner, tree_env, home) for runner, tree_env in trees]
    print("start-up, `tersh run -- true` (median of 5): "
          + ", ".join(f"{seconds * 1000:.0f} ms" for seconds in starts)
          + "; net MB/s = size / (tersh s - start-up)")
    other = f" {'other s':>9} {'o MB/s':>8} {'o net':>8} {'o peak':>8} {'this/o':>7}" if args.against else ""
    print(
        f"{'size':>5} {'line':>5} {'rule':>5} {'tersh s':>9} {'MB/s':>8} {'net MB/s':>8} {'cat s':>8} "
        f"{'x cat':>7} {'peak MB':>8}{other}"
    )
    try:
        for size_name, size in sizes.items():
            for line_name, length in lengths.items():
                data = work / f"out-{size_name}-{line_name}.txt"
                make_file(data, size, length)
                for with_rule in (False, True):
                    times, cat, peaks = measure_cell(data, shim, with_rule, args.rounds, trees, home)
                    ours, peak = times[0], peaks[0]
                    row = (
                        f"{size_name:>5} {line_name:>5} {'yes' if with_rule else 'no':>5} "
                        f"{ours:9.3f} {size / ours / 1e6:8.1f} {_net(size, ours, starts[0]):8.1f} "
                        f"{cat:8.3f} {ours / cat:7.1f} {peak:8.1f}"
                    )
                    if args.against:
                        row += (
                            f" {times[1]:9.3f} {size / times[1] / 1e6:8.1f}"
                            f" {_net(size, times[1], starts[1]):8.1f} {peaks[1]:8.1f}"
                            f" {ours / times[1]:7.2f}"
                        )
                    print(row, flush=True)
                data.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
