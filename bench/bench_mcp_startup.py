"""`tersh mcp` start-up as a host sees it: spawn the server, send `initialize`, time the answer.

Usage: python bench/bench_mcp_startup.py [--rounds 21] [-- COMMAND ...]
Default command: the venv's `tersh mcp` console script. Each round is one whole process:
spawn -> one `initialize` line on stdin -> its answer line on stdout (the figure a host waits
for before it lists tools), then `tools/list` answered, then stdin closed and the exit awaited.
Rounds alternate with `python -c pass` of the same interpreter (the process floor); medians.
Target (issue 13): `initialize` answered in <= 0.5 s, median.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import VENV_BIN, time_process

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
TARGET_SECONDS = 0.5


def _line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def one_round(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawn to the `initialize` answer, and to the `tools/list` answer."""
    started = time.perf_counter()
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(_line(INITIALIZE))
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    initialized = time.perf_counter() - started
    assert answer.get("id") == 1 and "result" in answer, answer
    server.stdin.write(_line(INITIALIZED) + _line(LIST_TOOLS))
    server.stdin.flush()
    tools = json.loads(server.stdout.readline())
    listed = time.perf_counter() - started
    assert tools.get("id") == 2 and tools["result"]["tools"], tools
    server.stdin.close()
    server.wait(timeout=30)
    return initialized, listed


def report(command: list[str], rounds: int, home: str) -> None:
    """Time ``rounds`` whole server processes against ``python -c pass``; print the medians."""
    env = {**os.environ, "TERSH_HOME": home}
    one_round(command, env)  # warm the page cache and .pyc files
    ready, listed, floor = [], [], []
    for _ in range(rounds):
        first, second = one_round(command, env)
        ready.append(first)
        listed.append(second)
        floor.append(time_process([sys.executable, "-c", "pass"]))
    base = statistics.median(floor)
    print(f"tersh mcp start-up: {' '.join(command)} (median of {rounds} processes)")
    print(f"  python -c pass (floor)         {base * 1000:8.1f} ms   1.00x")
    for name, values in (("initialize answered", ready), ("tools/list answered", listed)):
        value = statistics.median(values)
        print(f"  {name:30s} {value * 1000:8.1f} ms  {value / base:5.2f}x")
    verdict = "meets" if statistics.median(ready) <= TARGET_SECONDS else "MISSES"
    print(f"  target initialize <= {TARGET_SECONDS * 1000:.0f} ms: {verdict}")


def main() -> None:
    """Print the medians and whether the target holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("command", nargs="*", help="server command (default: tersh mcp)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        report(args.command or [str(VENV_BIN / "tersh"), "mcp"], args.rounds, home)


if __name__ == "__main__":
    main()
