"""What recording costs: `tersh run` with the ledger on vs off, side by side, and record() alone.

Usage: python bench/bench_ledger.py [--runs N] [--json OUT]

Two profiles, both enabled, identical except ``ledger.enabled``. The whole `tersh run -- CMD`
process is timed, alternating on/off so drift hits both equally; medians, their difference and
ratio are printed, for wall time and for CPU time (user + system of the child: steadier on a
loaded machine). Then the direct insert of one call (``ledger.add_row`` of its
``calls.call_row``: the way a call goes when it cannot be spooled) in-process (no interpreter
start-up) on a ledger that already holds a few thousand rows, and ``count_deferred`` per call
(the deferred token counting that `tersh gain` does). Budget (issue 5): recording adds at most
5 ms median to `tersh run`.

This machine sets PYTHONDONTWRITEBYTECODE, so every run would compile tersh from source (several
ms per module) — not what an installed tersh does. The bench compiles the sources once into a
private PYTHONPYCACHEPREFIX (nothing is written into the tree) and times with that cache.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TERSH = [sys.executable, "-m", "tersh"]
PYCACHE = tempfile.mkdtemp(prefix="tersh-bench-pycache-")
COMMAND = ["run", "--", "git", "-C", str(ROOT), "log", "-n", "20", "--stat"]


def profile(ledger_on: bool) -> dict[str, str]:
    """A fresh enabled profile with the ledger on or off; returns the environment to use."""
    home = tempfile.mkdtemp(prefix=f"tersh-bench-ledger-{'on' if ledger_on else 'off'}-")
    env = {**os.environ, "TERSH_HOME": home, "TERSH_SESSION": "bench", "PYTHONPYCACHEPREFIX": PYCACHE}
    for args in (["enable"], ["settings", "set", "ledger.enabled", str(ledger_on).lower()]):
        subprocess.run([*TERSH, *args], env=env, check=True, capture_output=True)
    return env


def time_run(env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds for one whole `tersh run` process and its child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([*TERSH, *COMMAND], env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def side_by_side(runs: int) -> dict[str, float]:
    """Median whole-process times with the ledger on and off, interleaved."""
    on, off = profile(True), profile(False)
    for env in (on, off):  # warm caches and create the ledger outside the timing
        time_run(env)
    times: dict[str, list[tuple[float, float]]] = {"on": [], "off": []}
    for _ in range(runs):
        times["on"].append(time_run(on))
        times["off"].append(time_run(off))
    figures = {}
    for index, kind in enumerate(("wall", "cpu")):
        med_on = statistics.median(t[index] for t in times["on"])
        med_off = statistics.median(t[index] for t in times["off"])
        figures[f"{kind}_ms_ledger_on"] = med_on * 1000
        figures[f"{kind}_ms_ledger_off"] = med_off * 1000
        figures[f"{kind}_added_ms"] = (med_on - med_off) * 1000
        figures[f"{kind}_ratio_on_off"] = med_on / med_off
    return figures


def in_process(runs: int) -> dict[str, float]:
    """Median direct-insert time on a ledger of 5,000 rows, and ``count_deferred`` per call."""
    os.environ["TERSH_HOME"] = tempfile.mkdtemp(prefix="tersh-bench-ledger-inproc-")
    sys.path.insert(0, str(ROOT / "src"))
    from tersh.hosts import savings as hostview
    from tersh.recording import calls, ledger
    from tersh.result import CaptureRef, Result

    def record(result: Result, session: str) -> None:
        ledger.add_row(calls.call_row(result, session=session, host="cli", program="pytest",
                                      klass="tests", with_arguments=False))

    home = Path(os.environ["TERSH_HOME"])
    capture = home / "captures" / "c0123456789ab" / "combined"
    capture.parent.mkdir(parents=True)
    source = "".join(f"tests/test_{n}.py::test_case PASSED\n" for n in range(2000))
    capture.write_text(source)
    result = Result(
        text="2000 passed (2000 passing lines omitted)\n",
        exit_code=0,
        requested_command="pytest -v",
        executed_command="pytest -v",
        input_bytes=len(source),
        output_bytes=41,
        capture_id="c0123456789ab",
        captures=(CaptureRef("c0123456789ab", "combined", str(capture), len(source)),),
    )
    for n in range(5000):
        record(result, f"s{n % 50}")
    samples, cpu_samples = [], []
    for _ in range(runs):
        start, cpu_start = time.perf_counter(), time.process_time()
        record(result, "s1")
        samples.append(time.perf_counter() - start)
        cpu_samples.append(time.process_time() - cpu_start)
    with ledger.connect() as db:
        ledger.count_deferred(db, limit=1, views=hostview.HOSTS)  # load the tokenizer outside the timing
        start = time.perf_counter()
        done = ledger.count_deferred(db, limit=200, views=hostview.HOSTS)
        per_call = (time.perf_counter() - start) / max(done, 1)
    return {
        "record_ms_median": statistics.median(samples) * 1000,
        "record_cpu_ms_median": statistics.median(cpu_samples) * 1000,
        "count_ms_per_call": per_call * 1000,
    }


def main() -> int:
    """Run both measurements and print them (and optionally write JSON)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "src")],
        env={**os.environ, "PYTHONPYCACHEPREFIX": PYCACHE},
        check=True,
    )
    figures = {**side_by_side(args.runs), **in_process(args.runs * 5)}
    for key, value in figures.items():
        print(f"{key:>22}: {value:8.3f}")
    for kind in ("wall", "cpu"):
        added = figures[f"{kind}_added_ms"]
        verdict = "within" if added <= 5.0 else "OVER"
        print(f"recording adds {added:.2f} ms median ({kind}) to `tersh run` ({verdict} 5 ms)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
