"""`tersh mcp` benchmarks: server start-up, per-call latency of `run`, and the search index.

Usage: python bench/bench_mcp.py [--rounds 15] [--index-mib 8]
Prints medians side by side, measured in one run on a throw-away TERSH_HOME.

- start-up: spawn `python -m tersh mcp` -> `initialize` answered -> `tools/list` answered,
  against `python -c pass` (process floor); see bench_mcp_startup.py.
- run: one warm server; `run {"command": "true"}` round trips vs the whole `tersh run -c true`
  process (enabled profile) vs `sh -c true`, interleaved.
- search: one capture of --index-mib MiB of log lines; first FTS5 search (indexes it), the same
  search again (indexed), and the substring scan `retrieve --query` does, side by side.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_mcp_startup
from common import VENV_BIN, time_process


def _params(home: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "tersh", "mcp"], env={"TERSH_HOME": home}
    )


def bench_startup(home: str, rounds: int) -> None:
    """Whole-process start-up, as a host sees it (bench_mcp_startup.py)."""
    bench_mcp_startup.report([sys.executable, "-m", "tersh", "mcp"], rounds, home)


async def _run_calls(home: str, rounds: int) -> list[float]:
    samples = []
    with open(os.devnull, "w", encoding="utf-8") as log:
        async with (
            stdio_client(_params(home), errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.call_tool("run", {"command": "true"})  # warm imports
            for _ in range(rounds):
                started = time.perf_counter()
                await session.call_tool("run", {"command": "true"})
                samples.append(time.perf_counter() - started)
    return samples


def bench_run(home: str, rounds: int) -> None:
    env = {"TERSH_HOME": home}
    subprocess.run(
        [str(VENV_BIN / "tersh"), "enable"], env={**os.environ, **env}, capture_output=True, check=True
    )
    mcp = statistics.median(anyio.run(_run_calls, home, rounds))
    cli = statistics.median(
        time_process([str(VENV_BIN / "tersh"), "run", "-c", "true"], env=env) for _ in range(rounds)
    )
    bare = statistics.median(time_process(["sh", "-c", "true"]) for _ in range(rounds))
    print(f"run `true` (median of {rounds})")
    print(f"  sh -c true                     {bare * 1000:8.1f} ms")
    print(f"  tersh run -c true (process)    {cli * 1000:8.1f} ms")
    print(f"  MCP run round trip (warm)      {mcp * 1000:8.1f} ms   {mcp / cli:5.2f}x of the CLI")


def bench_search(home: str, mib: int, rounds: int) -> None:
    os.environ["TERSH_HOME"] = home
    from tersh.execution import pipeline
    from tersh.retrieval import pages as retrieval
    from tersh.retrieval import search_index

    lines = [
        f"2026-11-30 01:02:{i % 60:02d} worker-{i % 16:02d} processed item {i:09d} ok\n"
        for i in range(200_000)
    ]
    block = "".join(lines).encode()
    data = (block * (mib * (1 << 20) // len(block) + 1))[: mib << 20]
    data += b"src/app.py:42: error: frobnicated the widget at the very end\n"
    result = pipeline.compact("bench-log", 1, combined=data)
    assert result.capture_id
    source = search_index.Source(result.capture_id, "bench-log", time.time(), len(data))
    path = Path(home) / "captures" / result.capture_id / "combined"

    started = time.perf_counter()
    first = search_index.search("frobnicated widget", [source], 20)
    indexing = time.perf_counter() - started
    assert [hit.text for hit in first.hits] and first.engine == "fts5"
    again, scan = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        search_index.search("frobnicated widget", [source], 20)
        again.append(time.perf_counter() - started)
        started = time.perf_counter()
        retrieval.search(path, "frobnicated the widget", 20)
        scan.append(time.perf_counter() - started)
    size = (Path(home) / "search" / "index.db").stat().st_size
    count = data.count(b"\n")
    print(f"search one capture of {len(data) / (1 << 20):.1f} MiB ({count:,} lines)")
    print(
        f"  first search (indexes it)      {indexing * 1000:8.1f} ms   index file {size / (1 << 20):.1f} MiB"
    )
    print(f"  FTS5 search, indexed (median)  {statistics.median(again) * 1000:8.1f} ms")
    print(f"  substring scan (median)        {statistics.median(scan) * 1000:8.1f} ms")


def main() -> None:
    """Run the three benchmarks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--index-mib", type=int, default=8)
    args = parser.parse_args()
    source_tree = str(Path(__file__).parents[1] / "src")
    subprocess.run([sys.executable, "-m", "compileall", "-q", source_tree], check=False)
    with tempfile.TemporaryDirectory() as home:
        bench_startup(home, args.rounds)
        bench_run(home, args.rounds)
        bench_search(home, args.index_mib, max(3, args.rounds // 3))


if __name__ == "__main__":
    main()
