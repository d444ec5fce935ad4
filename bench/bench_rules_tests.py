"""Throughput and peak memory of the test-runner rules on large synthetic logs.

Each input is built by repeating real lines (from the shared corpus and the recorded fixtures)
up to ``--mb`` megabytes, with one failure block in the middle so the rule has to keep
something. Prints, per rule, the median MB/s of ``compact`` over ``--runs`` runs (by the process's
CPU time, which other jobs on a shared machine disturb less, and by wall time), the peak traced
memory as a multiple of the input size, and the output size; exits 1 if a rule's CPU-time figure
is under ``--floor`` MB/s.

    .venv/bin/python bench/bench_rules_tests.py --mb 50 --runs 3
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import corpus  # noqa: E402

from tersh.compaction import detect  # noqa: E402
from tersh.compaction.clean import clean  # noqa: E402

FIXTURES = ROOT / "tests" / "compact" / "fixtures"


def _corpus_lines(name: str, start: int, stop: int) -> list[str]:
    case = next(c for c in corpus.cases() if c.name == name)
    return clean(case.combined).split("\n")[start:stop]


def _fixture_lines(tool: str, name: str) -> list[str]:
    return (FIXTURES / tool / f"{name}.out").read_text().split("\n")


def _inputs() -> dict[str, tuple[str, str, list[str], list[str]]]:
    """rule -> (command, kind, repeated body lines, failure block lines)."""
    pytest_failure = _corpus_lines("test__pytest-click-default-failures", 66, 120)
    return {
        "pytest -v": ("pytest -v", "pytest",
                      _corpus_lines("test__pytest-click-v-pass", 10, 2020), pytest_failure),
        "pytest": ("pytest", "pytest",
                   _corpus_lines("test__pytest-click-default-failures", 7, 63), pytest_failure),
        "unittest -v": ("python -m unittest -v", "unittest",
                        _corpus_lines("test__unittest-more-itertools-v-pass", 0, 1190),
                        _fixture_lines("unittest", "failures")[1:20]),
        "jest --verbose": ("npx jest --verbose", "jest",
                           _fixture_lines("jest", "jest-pass")[:27],
                           _fixture_lines("jest", "jest-verbose-failure")[:80]),
        "vitest": ("npx vitest run", "jest", _corpus_lines("test__vitest-ufo-failures", 3, 60),
                   _corpus_lines("test__vitest-ufo-failures", 60, 100)),
        "mocha": ("npx mocha", "mocha", _corpus_lines("test__mocha-express-spec-pass", 0, 1900),
                  _fixture_lines("mocha", "spec-failure")[:50]),
        "node --test": ("node --test", "nodetest",
                        _corpus_lines("test__node-test-marked-unit-failures", 0, 1490),
                        []),
        "cargo test": ("cargo test", "cargotest",
                       _corpus_lines("test__cargo-test-semver-pass", 0, 70),
                       _corpus_lines("test__cargo-test-semver-failures", 64, 110)),
        "go test -v": ("go test -v ./...", "gotest", _fixture_lines("gotest", "verbose-pass"),
                       _fixture_lines("gotest", "verbose-failures")[-8:]),
    }


def build(body: list[str], failure: list[str], megabytes: float) -> str:
    """Repeat ``body`` to about ``megabytes`` MB with ``failure`` once in the middle."""
    chunk = "\n".join(body) + "\n"
    copies = max(1, int(megabytes * 1_000_000 / max(len(chunk.encode()), 1)))
    half = copies // 2
    return chunk * half + "\n".join(failure) + "\n" + chunk * (copies - half)


def measure(label: str, megabytes: float, runs: int) -> tuple[float, float, float, int, int]:
    """Median MB/s (CPU time, then wall time), peak memory / input size, in and out sizes."""
    command, module, body, failure = _inputs()[label]
    rule = importlib.import_module(f"tersh.compaction.rules.{module}")
    text = build(body, failure, megabytes)
    inv = detect.invocation(command, 1)
    size = len(text.encode())
    speeds = []
    walls = []
    out = None
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        out = rule.compact(text, inv)
        speeds.append(size / 1e6 / (time.process_time() - cpu))
        walls.append(size / 1e6 / (time.perf_counter() - start))
    tracemalloc.start()
    rule.compact(text, inv)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return (statistics.median(speeds), statistics.median(walls), peak / size, size,
            len((out or text).encode()))


def main(argv: list[str] | None = None) -> int:
    """Measure every test-runner rule; exit 1 when one is under the floor."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor", type=float, default=20.0, help="minimum MB/s")
    parser.add_argument("--only", help="one label, e.g. 'pytest -v'")
    args = parser.parse_args(argv)
    slow = []
    print(f"{'rule input':16} {'MB/s cpu':>8} {'MB/s wall':>9} {'peak/in':>8} {'in MB':>7} {'out KB':>8}")
    for label in [args.only] if args.only else list(_inputs()):
        speed, wall, peak, size, out = measure(label, args.mb, args.runs)
        print(f"{label:16} {speed:8.1f} {wall:9.1f} {peak:8.2f} {size / 1e6:7.1f} {out / 1e3:8.1f}")
        if speed < args.floor:
            slow.append(label)
    if slow:
        print(f"under {args.floor} MB/s: {', '.join(slow)}")
    return 1 if slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
