"""Throughput, peak memory and token saving of the build, type-check and lint rules.

Throughput: each rule gets a synthetic log of ``--mb`` megabytes built by repeating a real
output of its tool (a corpus case or a recorded fixture; a path prefix changes per copy so the
files differ). Prints the median MB/s of ``compact`` over ``--runs`` runs and the peak extra
memory (tracemalloc, one run) as a multiple of the input size. Savings: every ``build__`` and
``lint__`` corpus case through the verifier gate, o200k tokens before and after (the capture
report counted as 40 tokens when the text changed), and the facts kept. Exits 1 if a rule is
under ``--floor`` MB/s or a must_keep fact is lost.

    .venv/bin/python bench/bench_rules_builds.py --mb 50 --runs 3
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

from tersh import tokens  # noqa: E402
from tersh.compact import apply, detect  # noqa: E402
from tersh.compact.clean import clean  # noqa: E402

FIXTURES = ROOT / "tests" / "compact" / "fixtures"
REPORT_TOKENS = 40

# rule: (command, where the sample comes from: a corpus case name or fixtures/<tool>/<name>)
SAMPLES = {
    "cc": ("make", "build__make-lua-success-verbose"),
    "cargobuild": ("cargo build", "build__cargo-build-semver-errors"),
    "java": ("javac -Xlint:all", "build__javac-xlint-warnings-and-errors"),
    "mypy": ("mypy --pretty", "fixtures/mypy/mypy-pretty-many"),
    "tsc": ("tsc --noEmit", "build__tsc-ufo-injected-errors"),
    "ruff": ("ruff check .", "lint__ruff-boltons-default-full"),
    "flake8": ("flake8", "lint__flake8-boltons"),
    "pylint": ("pylint src", "fixtures/pylint/pylint-score"),
    "eslint": ("eslint .", "lint__eslint-express-no-var-rule"),
    "shellcheck": ("shellcheck -o all neofetch", "lint__shellcheck-neofetch-all-optional"),
    "golangci": ("golangci-lint run", "fixtures/golangci/golangci-v1"),
}


def _sample(source: str) -> str:
    if source.startswith("fixtures/"):
        return (FIXTURES / f"{source.removeprefix('fixtures/')}.txt").read_text(encoding="utf-8")
    return clean(next(c for c in corpus.cases() if c.name == source).combined)


def synthetic(sample: str, megabytes: float) -> str:
    """``sample`` repeated to about ``megabytes`` MB, each copy under its own folder prefix."""
    target = int(megabytes * 1_000_000)
    copies: list[str] = []
    size = index = 0
    while size < target:
        copy = sample.replace("src/", f"src{index}/").replace("boltons/", f"boltons{index}/")
        copies.append(copy)
        size += len(copy)
        index += 1
    return "".join(copies)


def throughput(megabytes: float, runs: int) -> list[tuple[str, float, float, int]]:
    """(rule, median MB/s, peak memory / input size, output bytes) per rule."""
    rows = []
    for name, (command, source) in SAMPLES.items():
        rule = importlib.import_module(f"tersh.compact.{name}")
        text = synthetic(_sample(source), megabytes)
        inv = detect.invocation(command, 1)
        times = []
        out: str | None = None
        for _ in range(runs):
            start = time.perf_counter()
            out = rule.compact(text, inv)
            times.append(time.perf_counter() - start)
        tracemalloc.start()
        rule.compact(text[: len(text) // 10], inv)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append((name, len(text) / 1e6 / statistics.median(times), peak / (len(text) / 10),
                     len(out or "")))  # fmt: skip
    return rows


def savings() -> tuple[list[tuple[str, int, int, bool, int]], int, int]:
    """Per build/lint corpus case: (name, tokens before, after, applied, facts lost)."""
    rows = []
    total_before = total_after = 0
    for case in corpus.cases():
        if case.family not in {"build", "lint"}:
            continue
        text = clean(case.combined)
        outcome = apply_rule(text, case)
        before = tokens.count(case.combined)
        after = tokens.count(outcome.text) + (REPORT_TOKENS if outcome.applied else 0)
        lost = len(corpus.lost_facts(case, outcome.text))
        rows.append((case.name, before, after, outcome.applied, lost))
        total_before += before
        total_after += after
    return rows, total_before, total_after


def apply_rule(text: str, case: corpus.Case):  # type: ignore[no-untyped-def]
    """The gate's outcome with the rule the registry (or the sniffer) picks for the case."""
    from tersh.compact import find_rule

    inv = detect.invocation(case.cmd, case.exit_code)
    rule = find_rule(text, inv)
    return apply(rule, text, inv) if rule else type("Kept", (), {"text": text, "applied": False})()


def main(argv: list[str] | None = None) -> int:
    """Print throughput and savings; 1 when a rule is too slow or a fact was lost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor", type=float, default=20.0, help="minimum MB/s per rule")
    args = parser.parse_args(argv)
    failed = False
    print(f"{'rule':<11} {'MB/s':>7} {'peak/input':>10} {'out bytes':>10}   ({args.mb:g} MB input)")
    for name, speed, memory, out in throughput(args.mb, args.runs):
        flag = "" if speed >= args.floor else "  < floor"
        failed |= bool(flag)
        print(f"{name:<11} {speed:7.1f} {memory:10.2f} {out:10,}{flag}")
    rows, before, after = savings()
    print(f"\n{'case':<44} {'tokens':>7} {'after':>7} {'saved':>6} applied lost")
    for name, b, a, applied, lost in rows:
        failed |= lost > 0
        print(f"{name:<44} {b:7,} {a:7,} {1 - a / b:6.0%} {applied!s:>7} {lost:>4}")
    print(f"{'all build and lint cases':<44} {before:7,} {after:7,} {1 - after / before:6.0%}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
