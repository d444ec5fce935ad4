"""Whole-process cost of ``tersh hook claude-code`` and of Claude Code's shell prefix passing a
hook line through, vs. ``python3 -c pass`` and the host's own ``/bin/sh -c``.

Usage: python bench/bench_hook.py [--runs N] [--json OUT]

The baseline is the very interpreter the ``tersh`` script runs on (``sys.executable``, with the
same site-packages), not a PATH shim such as pyenv's, which would flatter the hook. Both are
started the same way (fresh process, stdin from a file), alternated run by run so
machine noise hits both alike; the figure is the ratio of medians (target: <= 1.5). The hook
runs with an enabled profile where a user's is (a temporary HOME, no TERSH_HOME), so it does the full work of
the PostToolUse path (settings, a Read below the trigger: no answer). ``tersh-shell-prefix``
gets the line Claude Code hands it for a hook command and ``exec``s the host's shell with it;
its baseline is that shell started directly.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import user_env

TERSH = Path(sys.executable).with_name("tersh")

PAYLOAD = {
    "session_id": "bench",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "PostToolUse",
    "tool_name": "Read",
    "tool_input": {"file_path": "/tmp/small.py"},
    "tool_response": {"type": "text", "file": {"filePath": "/tmp/small.py", "content": "x = 1\n"}},
}
HOOK_LINE = "true"


# The console scripts pip writes for the entry point tersh.cli:entry (pip's own templates,
# distlib's ScriptMaker): pip 23.2, which Python 3.11 bundles, and pip 24 and later.
ENTRY_POINT_SCRIPTS = {
    "pip 23.2": (
        "# -*- coding: utf-8 -*-\nimport re\nimport sys\nfrom tersh.cli import entry\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(entry())\n"
    ),
    "pip 24+": (
        "import sys\nfrom tersh.cli import entry\nif __name__ == '__main__':\n"
        "    sys.argv[0] = sys.argv[0].removesuffix('.exe')\n    sys.exit(entry())\n"
    ),
}


def _time(argv: list[str], stdin_path: Path, env: dict[str, str]) -> float:
    with stdin_path.open("rb") as stdin:
        started = time.perf_counter()
        subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, env=env, check=True)
        return time.perf_counter() - started


def main() -> int:
    """Print medians (ms) of both commands and their ratio."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tersh-bench-hook-"))
    env = user_env(work)  # the profile where a user's is (~/.local/share/tersh)
    # An installed tersh runs from byte-compiled modules (pip compiles them; an editable install
    # writes them on first import). PYTHONDONTWRITEBYTECODE would make every run recompile the
    # sources, which measures the compiler, not the hook: let the warm-up runs write them.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([str(TERSH), "enable"], env=env, check=True, capture_output=True)
    stdin_path = work / "payload.json"
    stdin_path.write_text(json.dumps(PAYLOAD))
    answer = subprocess.run(
        [str(TERSH), "hook", "claude-code"], stdin=stdin_path.open("rb"), env=env,
        capture_output=True, check=True,
    ).stdout
    assert answer == b"", answer  # below the trigger: the host keeps its output
    commands = {
        "python3 -c pass": [sys.executable, "-c", "pass"],
        # the floor of any hook that parses JSON: the json module (and re, which it imports)
        "python3 -c 'import json'": [sys.executable, "-c", "import json"],
        "tersh hook claude-code": [str(TERSH), "hook", "claude-code"],
        "/bin/sh -c (a hook line)": ["/bin/sh", "-c", HOOK_LINE],
        "tersh-shell-prefix (same)": [str(TERSH.with_name("tersh-shell-prefix")), HOOK_LINE],
    }
    # What an entry-point console script would be, as each pip writes one: the installed
    # script (bin/tersh) is the same whatever pip installed it, these show what it avoids.
    for pip, body in ENTRY_POINT_SCRIPTS.items():
        script = work / pip.replace(" ", "-") / "tersh"  # named as pip names it, in its own bin
        script.parent.mkdir()
        script.write_text(f"#!{sys.executable}\n{body}")
        script.chmod(0o755)
        commands[f"entry point, {pip}"] = [str(script), "hook", "claude-code"]
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(3):  # warm the page cache
        for argv in commands.values():
            _time(argv, stdin_path, env)
    for _ in range(args.runs):
        for name, argv in commands.items():
            samples[name].append(_time(argv, stdin_path, env))
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    base = medians["python3 -c pass"]
    ratio = medians["tersh hook claude-code"] / base
    for name, value in medians.items():
        print(f"{name:<26} median {value:7.2f} ms  ratio {value / base:4.2f}  ({args.runs} runs)")
    print(f"ratio hook / python3 -c pass: {ratio:.2f} (target <= 1.50)")
    extra = medians["tersh-shell-prefix (same)"] - medians["/bin/sh -c (a hook line)"]
    print(f"shell prefix adds {extra:.2f} ms to each hook or MCP server start")
    if args.json:
        figures = {"medians_ms": medians, "ratio": ratio, "prefix_added_ms": extra}
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
