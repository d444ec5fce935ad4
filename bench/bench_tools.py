"""Tool-output compression speed: `tersh serve --stdio` throughput and a 1 MiB read.

Usage: python bench/bench_tools.py [--small N] [--rounds R] [--json OUT] [--against SRC]

1. Small results through one `tersh serve --stdio` child (enabled profile), both pipelined
   (many requests in flight, as concurrent tool calls) and ping-pong (one at a time, as one
   agent's sequential calls); the median of three serve children. Target: >= 10,000 results/s.
   ``--against SRC`` also runs a serve child from another source tree, interleaved with this
   one's, and prints both.
2. A 1 MiB `read` output (OpenCode's `N: ` format, real Python source from the corpus)
   compressed in process and through the serve child, medians side by side. Each round's text
   differs by one line so every round stores a new cache entry. Target: <= 50 ms median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MIB = 1 << 20
#: Small results per second a serve child must answer (issue figure: keep >= 10,000).
SMALL_TARGET = 10_000


def one_mib_read() -> str:
    """About 1 MiB (never more) of numbered source lines, as OpenCode's read tool prints them."""
    source = ROOT.parent / "shared" / "corpus" / "other__cat-large-source" / "stdout"
    lines = source.read_text(encoding="utf-8").split("\n")
    out = ["<path>/repo/src/click/core.py</path>", "<type>file</type>", "<content>"]
    size = sum(len(x) + 1 for x in out)
    number = 0
    while True:
        line = f"{number + 1}: {lines[number % len(lines)]}"
        if size + len(line.encode()) + 1 > MIB - 200:
            break
        out.append(line)
        size += len(line.encode()) + 1
        number += 1
    return "\n".join(out) + "\n</content>"


def start_serve(env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tersh", "serve", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        bufsize=1,
    )


def ask(proc: subprocess.Popen[str], request: dict[str, object]) -> dict[str, object]:
    assert proc.stdin and proc.stdout
    proc.stdin.write(json.dumps(request) + "\n")
    proc.stdin.flush()
    answer: dict[str, object] = json.loads(proc.stdout.readline())
    return answer


def small_requests(count: int) -> list[dict[str, object]]:
    tools = ["read", "grep", "glob", "task", "webfetch", "mcp__docs__search"]
    return [
        {
            "id": i,
            "tool": tools[i % len(tools)],
            "output": f"src/module_{i}.py:{i}:    def handler_{i}(self, event):\n" * 4,
            "metadata": {"title": f"call {i}"},
        }
        for i in range(count)
    ]


def bench_serve_small(env: dict[str, str], count: int) -> dict[str, float]:
    proc = start_serve(env)
    assert proc.stdin and proc.stdout
    ask(proc, {"id": -1, "type": "ping"})  # start-up is not part of the rate
    requests = small_requests(count)
    started = time.perf_counter()
    for request in requests:
        ask(proc, request)
    ping_pong = count / (time.perf_counter() - started)
    payload = "".join(json.dumps(r) + "\n" for r in requests)
    stdin = proc.stdin

    def write_all() -> None:  # a thread, so neither pipe fills up while the other waits
        stdin.write(payload)
        stdin.flush()

    started = time.perf_counter()
    writer = threading.Thread(target=write_all)
    writer.start()
    for _ in requests:
        proc.stdout.readline()
    writer.join()
    pipelined = count / (time.perf_counter() - started)
    proc.stdin.close()
    proc.wait()
    return {"ping_pong_per_s": ping_pong, "pipelined_per_s": pipelined}


def bench_big_read(env: dict[str, str], rounds: int) -> dict[str, float]:
    from tersh.settings import Settings
    from tersh.tools import compress

    text = one_mib_read()
    settings = Settings({"enabled": True, "cache.total_bytes": 1 << 30})
    metadata = {"filePath": "/repo/src/click/core.py"}
    in_process, through_serve = [], []
    proc = start_serve(env)
    ask(proc, {"id": -1, "type": "ping"})
    last: dict[str, object] = {}
    for round_number in range(rounds):
        variant = f"{text}\n{round_number}: # round {round_number}"
        started = time.perf_counter()
        result = compress("read", variant, metadata, settings)
        in_process.append(time.perf_counter() - started)
        assert result.changed, result.metrics
        last = result.metrics
        request = {"id": round_number, "tool": "read", "output": variant + " serve", "metadata": metadata}
        started = time.perf_counter()
        answer = ask(proc, request)
        through_serve.append(time.perf_counter() - started)
        assert answer["changed"], answer
    assert proc.stdin
    proc.stdin.close()
    proc.wait()
    return {
        "input_bytes": len(text.encode()),
        "output_chars": float(str(last["chars_after"])),
        "in_process_ms": statistics.median(in_process) * 1000,
        "through_serve_ms": statistics.median(through_serve) * 1000,
    }


def main() -> int:
    """Run both benchmarks and print the figures beside their targets."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--against", help="also run a serve child from this source folder")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="tersh-bench-tools-")
    os.environ["TERSH_HOME"] = home
    env = {**os.environ, "TERSH_HOME": home}
    subprocess.run([sys.executable, "-m", "tersh", "enable"], env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(
        [sys.executable, "-m", "tersh", "settings", "set", "cache.total_bytes", str(1 << 30)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    trees = {"this tree": env}
    if args.against:
        trees["--against"] = {**env, "PYTHONPATH": args.against}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(3):
        for name, tree_env in trees.items():
            runs[name].append(bench_serve_small(tree_env, args.small))
    for name, measured in runs.items():
        ping_pong = statistics.median(run["ping_pong_per_s"] for run in measured)
        pipelined = statistics.median(run["pipelined_per_s"] for run in measured)
        print(
            f"serve --stdio ({name}), {args.small} small results, median of 3 children: "
            f"{ping_pong:,.0f}/s one at a time, {pipelined:,.0f}/s pipelined "
            f"(target >= {SMALL_TARGET:,}/s)"
        )
    small = {
        key: statistics.median(run[key] for run in runs["this tree"])
        for key in ("ping_pong_per_s", "pipelined_per_s")
    }
    big = bench_big_read(env, args.rounds)
    print(
        f"1 MiB read ({big['input_bytes']:,} bytes -> {big['output_chars']:,.0f} chars), "
        f"median of {args.rounds}: {big['in_process_ms']:.1f} ms in process, "
        f"{big['through_serve_ms']:.1f} ms through serve (target <= 50 ms)"
    )
    ok = min(small.values()) >= SMALL_TARGET and big["in_process_ms"] <= 50
    if args.json:
        args.json.write_text(json.dumps({"small": small, "big": big, "ok": ok}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
