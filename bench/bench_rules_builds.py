"""Throughput, peak memory and token saving of the build, type-check and lint rules.

Throughput: each rule gets a synthetic log of ``--mb`` megabytes built by repeating a real
output of its tool (a corpus case or a recorded fixture; a path prefix changes per copy so the
files differ). Each input is measured in its own process: the median MB/s of ``compact`` over
``--runs`` runs by CPU time (other jobs on a shared machine disturb it less than wall time),
the same for the verifier on that input (``extract_facts`` alone, and the whole gate:
``refusal(source, proposal)``, which also reads the proposal), and the peak RSS each added
above the loaded input (``resource.getrusage``; the Linux high-water mark is reset before each
measurement when ``/proc/self/clear_refs`` allows it), as MB per MB of input. A ``pytest -v`` log
of the same size is measured through the verifier too. Savings: every ``build__`` and ``lint__``
corpus case through the verifier gate, o200k tokens before and after (the capture report counted
as 40 tokens when the text changed), and the facts kept. Exits 1 if a rule or the verifier is
under ``--floor`` MB/s or a must_keep fact is lost.

    .venv/bin/python bench/bench_rules_builds.py --mb 50 --runs 3
    PYTHONPATH=/old/checkout/src .venv/bin/python bench/bench_rules_builds.py   # another version
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import measure_call  # noqa: E402
from tests import corpus  # noqa: E402

from tersh import tokens  # noqa: E402
from tersh.compaction import apply, detect  # noqa: E402
from tersh.compaction.clean import clean  # noqa: E402
from tersh.compaction.verify import holds as verify  # noqa: E402

FIXTURES = ROOT / "tests" / "compact" / "fixtures"
REPORT_TOKENS = 40

# input: (rule module, command, where the sample comes from: a corpus case or fixtures/<tool>/<name>)
SAMPLES = {
    "cc": ("cc", "make", "build__make-lua-success-verbose"),
    "cargobuild": ("cargobuild", "cargo build", "build__cargo-build-semver-errors"),
    "java": ("java", "javac -Xlint:all", "build__javac-xlint-warnings-and-errors"),
    "mypy": ("mypy", "mypy --pretty", "fixtures/mypy/mypy-pretty-many"),
    "tsc": ("tsc", "tsc --noEmit", "build__tsc-ufo-injected-errors"),
    "ruff": ("ruff", "ruff check .", "lint__ruff-boltons-default-full"),
    "flake8": ("flake8", "flake8", "lint__flake8-boltons"),
    "pylint": ("pylint", "pylint src", "fixtures/pylint/pylint-score"),
    "eslint": ("eslint", "eslint .", "lint__eslint-express-no-var-rule"),
    "shellcheck": ("shellcheck", "shellcheck -o all neofetch", "lint__shellcheck-neofetch-all-optional"),
    "golangci": ("golangci", "golangci-lint run", "fixtures/golangci/golangci-v1"),
    "pytest -v": ("pytest", "pytest -v", "test__pytest-click-v-pass"),
}
# Folders renamed per copy, so that every copy names other files.
_FOLDERS = re.compile(r"\b(src|boltons|tests|lib|pkg|cmd|internal)/")


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
        copy = _FOLDERS.sub(rf"\g<1>{index}/", sample)
        copies.append(copy)
        size += len(copy)
        index += 1
    return "".join(copies)





def _paused_compact(rule: Any, text: str, inv: Any) -> str | None:
    """``rule.compact`` with the collector paused, as ``compaction.apply`` calls it."""
    from tersh._startup.collector import paused

    with paused():
        result: str | None = rule.compact(text, inv)
    return result


def child(label: str, megabytes: float, runs: int, verify_runs: int) -> dict[str, float]:
    """Measure one input in this process; the figures as a dict."""
    module, command, source = SAMPLES[label]
    rule = importlib.import_module(f"tersh.compaction.rules.{module}")
    text = synthetic(_sample(source), megabytes)
    size = len(text.encode()) / 1e6
    inv = detect.invocation(command, 1)
    rule_s, rule_mb, out = measure_call(lambda: _paused_compact(rule, text, inv), runs)
    proposal = out if isinstance(out, str) else text[: len(text) // 2]
    extract_s, extract_mb, _ = measure_call(lambda: verify.extract_facts(text, inv), verify_runs)
    gate_s, gate_mb, reason = measure_call(lambda: verify.refusal(text, proposal, inv), verify_runs)
    return {
        "in_mb": size, "out_mb": len(proposal.encode()) / 1e6, "own_proposal": float(out is not None),
        "rule": size / rule_s, "rule_mem": rule_mb / size,
        "extract": size / extract_s, "extract_mem": extract_mb / size,
        "gate": size / gate_s, "gate_mem": gate_mb / size, "refused": float(bool(reason)),
    }  # fmt: skip


def throughput(megabytes: float, runs: int, verify_runs: int, only: str = "") -> dict[str, dict[str, float]]:
    """Every input (or those of ``only``, comma-separated) measured in a fresh process (so that
    peak memory is its own)."""
    rows = {}
    for label in only.split(",") if only else SAMPLES:
        argv = [sys.executable, __file__, "--child", label, "--mb", str(megabytes),
                "--runs", str(runs), "--verify-runs", str(verify_runs)]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        rows[label] = json.loads(done.stdout.splitlines()[-1])
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
    from tersh.compaction import find_rule

    inv = detect.invocation(case.cmd, case.exit_code)
    rule = find_rule(text, inv)
    return apply(rule, text, inv) if rule else type("Kept", (), {"text": text, "applied": False})()


def main(argv: list[str] | None = None) -> int:
    """Print throughput and savings; 1 when a rule is too slow or a fact was lost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--verify-runs", type=int, default=1, help="runs of the verifier")
    parser.add_argument("--floor", type=float, default=20.0, help="minimum MB/s per rule")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--no-savings", action="store_true", help="throughput only")
    parser.add_argument("--only", default="", help="comma-separated inputs, e.g. 'tsc,ruff'")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.mb, args.runs, args.verify_runs)))
        return 0
    print(f"code under test: {Path(verify.__file__).parent}")
    print(f"MB/s by CPU time (median of {args.runs}, verifier {args.verify_runs}); "
          "memory: peak RSS added, MB per MB of input")  # fmt: skip
    print(f"{'input':<11} {'in MB':>6} {'rule':>6} {'mem':>5} {'facts':>6} {'mem':>5} "
          f"{'gate':>6} {'mem':>5} {'out MB':>7}")  # fmt: skip
    failed = False
    for label, row in throughput(args.mb, args.runs, args.verify_runs, args.only).items():
        own = row["own_proposal"] > 0
        rule = f"{row['rule']:6.1f} {row['rule_mem']:5.2f}" if label != "pytest -v" else f"{'-':>6} {'-':>5}"
        flags = [name for name in ("rule", "extract", "gate")
                 if row[name] < args.floor and (name != "rule" or label != "pytest -v")]  # fmt: skip
        failed |= bool(flags)
        note = ("" if own else "  (rule declined: gate fed half the input)") + (
            f"  < floor: {', '.join(flags)}" if flags else "")  # fmt: skip
        print(f"{label:<11} {row['in_mb']:6.1f} {rule} {row['extract']:6.1f} {row['extract_mem']:5.2f} "
              f"{row['gate']:6.1f} {row['gate_mem']:5.2f} {row['out_mb']:7.2f}{note}")  # fmt: skip
    if args.no_savings:
        return 1 if failed else 0
    rows, before, after = savings()
    print(f"\n{'case':<44} {'tokens':>7} {'after':>7} {'saved':>6} applied lost")
    for name, b, a, applied, lost in rows:
        failed |= lost > 0
        print(f"{name:<44} {b:7,} {a:7,} {1 - a / b:6.0%} {applied!s:>7} {lost:>4}")
    print(f"{'all build and lint cases':<44} {before:7,} {after:7,} {1 - after / before:6.0%}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
