"""The settings page's API on a 50 MB capture: median latency per request, and the server's peak RSS.

Usage: python bench/bench_ui.py [--rounds N]
Starts the real `tersh ui --no-open` on a temporary profile holding one 50 MB capture and times
each request over HTTP, all kinds interleaved per round (so machine noise hits all alike). A static
file is the baseline. The peak RSS (VmHWM) of the server shows that no page loads the capture.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINES = 1_000_000


def _make_capture() -> tuple[str, int]:
    from tersh.recording import captures as capture

    body = bytearray()
    for number in range(1, LINES + 1):
        body += b"%07d [build] compiling unit, nothing to see here ...\n" % number
    body[len(body) // 2 : len(body) // 2 + 12] = b"error: BENCH"
    cap = capture.store_bytes("make all", {"combined": bytes(body)}, 0)
    return cap.id, len(body)


def _get(base: str, path: str, token: str) -> float:
    request = urllib.request.Request(base + path, headers={"X-Tersh-Token": token})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
    return time.perf_counter() - started


def _peak_rss_mb(pid: int) -> float:
    text = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    match = re.search(r"VmHWM:\s+(\d+) kB", text)
    return int(match.group(1)) / 1024 if match else float("nan")


def main() -> int:
    """Print one row per request kind: median and ratio to the static baseline."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    os.environ["TERSH_HOME"] = tempfile.mkdtemp(prefix="tersh-bench-ui-")
    capture_id, size = _make_capture()
    server = subprocess.Popen([sys.executable, "-m", "tersh", "ui", "--no-open"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None
        match = re.search(r"(http://127\.0\.0\.1:\d+)/#token=(\S+)", server.stdout.readline())
        assert match, "tersh ui printed no URL"
        base, token = match.group(1), match.group(2)
        kinds = {
            "static /app.css (baseline)": "/app.css",
            "overview": "/api/overview",
            "bytes page 64 KiB @0": f"/api/captures/{capture_id}?mode=bytes",
            "bytes page 64 KiB @end": f"/api/captures/{capture_id}?mode=bytes&offset={size - 65536}",
            "lines page 200 @line 900k": f"/api/captures/{capture_id}?mode=lines&offset=900000",
            "search whole 50 MB": f"/api/captures/{capture_id}?query=error:%20bench",
        }
        _get(base, "/app.css", token)
        samples: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(args.rounds):
            for name, path in kinds.items():
                samples[name].append(_get(base, path, token))
        medians = {name: statistics.median(values) for name, values in samples.items()}
        baseline = medians["static /app.css (baseline)"]
        print(f"capture: {size:,} bytes; {args.rounds} rounds, medians")
        for name, value in medians.items():
            print(f"  {name:<30} {value * 1000:8.2f} ms   x{value / baseline:7.1f}")
        print(f"  server peak RSS (VmHWM): {_peak_rss_mb(server.pid):.1f} MB")
    finally:
        server.terminate()
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
