"""Shared driver of the benches of the grouping rules (search, listing): speed, memory, savings.

Throughput: the rule compacts a synthetic output of about ``--mb`` megabytes made by repeating a
real one (a recorded fixture or a corpus case), each copy under its own path prefix. Prints the
median MB/s over ``--runs`` runs in wall time and in CPU time of this process (the floor is
checked on CPU time), the whole gate's MB/s (``verify.refusal``) on the same input and proposal,
and the peak extra memory of one rule run on a tenth of the input (tracemalloc) as a multiple of
that input. Savings: every fixture and corpus case of the rule, o200k tokens of the cleaned
output against the rule's proposal and against what the gate lets through (plus 40 tokens of
capture report when the text changed), and the must_keep facts lost (corpus). The exit code is
1 when the rule or the gate is under ``--floor`` MB/s or a fact is lost.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import corpus  # noqa: E402

from tersh import tokens  # noqa: E402
from tersh.compaction import apply, detect  # noqa: E402
from tersh.compaction.clean import clean  # noqa: E402
from tersh.compaction.verify import holds as verify  # noqa: E402

REPORT_TOKENS = 40


class Bench(NamedTuple):
    """What one grouping rule's bench measures."""

    rule: ModuleType
    fixtures: Path
    corpus_cases: tuple[str, ...]
    #: label -> (command, sample: a corpus case name or fixtures/<name>)
    samples: dict[str, tuple[str, str]]
    #: Where a line that names a file starts (a copy's prefix goes there; notices are left alone).
    path_start: re.Pattern[str]


class Speed(NamedTuple):
    sample: str
    mb_per_s: float
    cpu_mb_per_s: float
    verify_mb_per_s: float
    peak_ratio: float
    out_bytes: int


class Saving(NamedTuple):
    name: str
    before: int
    proposed: int
    after: int
    applied: bool
    refused: str
    lost: int


def sample_text(bench: Bench, source: str) -> str:
    """The cleaned text of a corpus case or a recorded fixture."""
    if source.startswith("fixtures/"):
        path = bench.fixtures / f"{source.removeprefix('fixtures/')}.out"
        return clean(path.read_bytes().decode("utf-8", "replace"))
    return clean(next(c for c in corpus.cases() if c.name == source).combined)


def synthetic(bench: Bench, sample: str, megabytes: float) -> str:
    """``sample`` repeated to about ``megabytes`` MB, each copy under its own path prefix."""
    target = int(megabytes * 1_000_000)
    copies: list[str] = []
    size = index = 0
    while size < target:
        copy = bench.path_start.sub(lambda found, i=index: f"{found.group(1) or ''}copy{i}/", sample)
        copies.append(copy if copy.endswith("\n") else copy + "\n")
        size += len(copies[-1])
        index += 1
    return "".join(copies)


def speed(bench: Bench, label: str, command: str, text: str, runs: int) -> Speed:
    """Time the rule (and the whole gate on its proposal) on ``text``."""
    inv = detect.invocation(command, 0)
    times, cpu_times, verify_times = [], [], []
    out: str | None = None
    for _ in range(runs):
        start, cpu_start = time.perf_counter(), time.process_time()
        out = bench.rule.compact(text, inv)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    if out is not None:  # the gate is slower: one run
        cpu_start = time.process_time()
        reason = verify.refusal(text, out, inv)
        verify_times.append(time.process_time() - cpu_start)
        if reason:
            print(f"  {label}: gate refused: {reason[:100]}")
    part = text[: len(text) // 10]
    tracemalloc.start()
    bench.rule.compact(part, inv)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    megabytes = len(text.encode()) / 1e6
    verify_speed = megabytes / statistics.median(verify_times) if verify_times else 0.0
    return Speed(label, megabytes / statistics.median(times),
                 megabytes / max(statistics.median(cpu_times), 1e-9), verify_speed,
                 peak / len(part.encode()), len((out or "").encode()))  # fmt: skip


def _saving(bench: Bench, name: str, raw: str, command: str, exit_code: int,
            case: corpus.Case | None) -> Saving:
    text = clean(raw)
    inv = detect.invocation(command, exit_code)
    proposal = bench.rule.compact(text, inv)
    outcome = apply(bench.rule, text, inv)  # type: ignore[arg-type]
    before = tokens.count(raw)
    proposed = tokens.count(proposal) + REPORT_TOKENS if proposal is not None else before
    after = tokens.count(outcome.text) + (REPORT_TOKENS if outcome.text != raw else 0)
    lost = (len(corpus.lost_facts(case, outcome.text)) + len(corpus.lost_facts(case, proposal or text))
            if case else 0)  # fmt: skip
    return Saving(name, before, proposed, after, outcome.applied, (outcome.refused or "")[:40], lost)


def savings(bench: Bench) -> list[Saving]:
    """One row per corpus case of the rule and per fixture."""
    rows = [_saving(bench, case.name, case.combined, case.cmd, case.exit_code, case)
            for case in corpus.cases() if case.name in bench.corpus_cases]  # fmt: skip
    for path in sorted(bench.fixtures.glob("*.out")):
        raw = path.read_bytes().decode("utf-8", "replace")
        command = path.with_suffix(".cmd").read_text().strip()
        exit_code = int(path.with_suffix(".exit").read_text())
        rows.append(_saving(bench, f"fixture {path.stem}", raw, command, exit_code, None))
    return rows


def run(bench: Bench, description: str, argv: list[str] | None = None) -> int:
    """Print throughput and savings; 1 when the rule or gate is too slow or a fact was lost."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor", type=float, default=20.0, help="minimum rule and gate MB/s (CPU)")
    args = parser.parse_args(argv)
    failed = False
    print(f"{'sample':<14} {'wall MB/s':>9} {'CPU MB/s':>9} {'verify MB/s':>11} {'peak/input':>10}"
          f" {'out bytes':>12}   ({args.mb:g} MB input)")  # fmt: skip
    for label, (command, source) in bench.samples.items():
        row = speed(bench, label, command, synthetic(bench, sample_text(bench, source), args.mb),
                    args.runs)
        slow = row.cpu_mb_per_s < args.floor or (row.out_bytes and row.verify_mb_per_s < args.floor)
        flag = "  < floor" if slow else ""
        failed |= bool(flag)
        print(f"{row.sample:<14} {row.mb_per_s:9.1f} {row.cpu_mb_per_s:9.1f} {row.verify_mb_per_s:11.1f}"
              f" {row.peak_ratio:10.2f} {row.out_bytes:12,}{flag}")  # fmt: skip
    rows = savings(bench)
    header = f"{'case':<36} {'tokens':>7} {'rule':>7} {'saved':>6} {'gate':>7} {'saved':>6}"
    print(f"\n{header} applied lost  refused")
    for item in rows:
        failed |= item.lost > 0
        print(f"{item.name:<36} {item.before:7,} {item.proposed:7,} {1 - item.proposed / item.before:6.0%}"
              f" {item.after:7,} {1 - item.after / item.before:6.0%} {item.applied!s:>7} {item.lost:>4}"
              f"  {item.refused}")  # fmt: skip
    before = sum(item.before for item in rows)
    proposed = sum(item.proposed for item in rows)
    after = sum(item.after for item in rows)
    total = f"{'all':<36} {before:7,} {proposed:7,} {1 - proposed / before:6.0%} {after:7,}"
    print(f"{total} {1 - after / before:6.0%}")
    return 1 if failed else 0
