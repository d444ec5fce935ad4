"""Throughput and peak memory of the streaming preview (digest first) on 50 MB outputs.

Usage: python bench/bench_digest.py [--mb 50] [--rounds 3] [--shapes tsc,git-log]
       [--against SRC]   (also run `python -m tersh` from another source tree, side by side)

Each shape is a file of about ``--mb`` MB: a real output of a tool repeated, each copy naming
other files (a folder renamed per copy, commit ids changed per copy), as users meet it when a
type checker, linter, build, git log or verbose test run prints far more than the bounds; a
service log with an error every thousand lines; and fact-free log lines. A folder renamed with
a number leaves each line's shape as it was (digits are read alike), so the copies repeat the
first copy's shapes; in the ``-distinct`` shapes the folder is renamed with letters, so every
line that names a file is a new shape, as in a real run over thousands of files. Each file goes through
the whole `tersh run -- cat FILE` process (the installed console script after `tersh enable`,
with a private TERSH_HOME; `cat` maps to no rule and the output is over compact.max_input_bytes,
so it reaches the streaming preview: the call's record, with no rule and no category, is checked
for every tree). Runs are interleaved across trees; the table gives medians of CPU MB/s (user +
sys of the process tree), wall MB/s and the peak RSS of the tree's largest process.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import VENV_BIN, clear_captures, measure  # noqa: E402
from tests import corpus  # noqa: E402

# shape: the corpus case repeated (None: generated)
SHAPES: dict[str, str | None] = {
    "tsc": "build__tsc-ufo-injected-errors",
    "eslint": "lint__eslint-express-no-var-rule",
    "ruff": "lint__ruff-boltons-default-full",
    "cargo-build": "build__cargo-build-semver-errors",
    "git-log": "git__log-default-huge",
    "pytest-v": "test__pytest-click-v-pass",
    "tsc-distinct": "build__tsc-ufo-injected-errors",
    "ruff-distinct": "lint__ruff-boltons-default-full",
    "mixed-log": None,
    "fact-free": None,
}
# Folders renamed per copy, so that every copy names other files.
_FOLDERS = re.compile(r"\b(src|boltons|tests|lib|pkg|cmd|internal|examples|test)/")
_COMMIT_ID = re.compile(r"\b[0-9a-f]{40}\b")


def _case_text(name: str) -> str:
    return next(case for case in corpus.cases() if case.name == name).combined


def _letters(index: int) -> str:
    """``index`` written in the letters a to z (0: "a", 26: "ba")."""
    word = ""
    while True:
        index, digit = divmod(index, 26)
        word = chr(ord("a") + digit) + word
        if not index:
            return word


def _vary(sample: str, index: int, distinct: bool = False) -> str:
    """One copy of ``sample`` under its own folders (named with letters when ``distinct``), with
    its own commit ids."""
    tag = f"_{_letters(index)}" if distinct else str(index)
    copy = _FOLDERS.sub(rf"\g<1>{tag}/", sample)
    if "commit " in copy:
        salt = str(index).encode()
        copy = _COMMIT_ID.sub(lambda m: hashlib.sha1(salt + m[0].encode()).hexdigest(), copy)
    return copy


def _repeated(name: str, distinct: bool) -> Callable[[int], str]:
    sample = _case_text(name)
    if not sample.endswith("\n"):
        sample += "\n"
    return lambda index: _vary(sample, index, distinct)


def _mixed_log(index: int) -> str:
    """A thousand lines of a service's log, one of them an error with a location."""
    rows = [
        f"2026-12-01 10:{index % 60:02d}:{i % 60:02d}.{i:03d} INFO worker-{i % 16:02d} "
        f"handled request {index * 1000 + i:08d} in {i % 97} ms status=200"
        for i in range(999)
    ]
    rows.insert(
        index % 999,
        f"2026-12-01 10:{index % 60:02d}:00.000 ERROR worker-03 request "
        f"{index:08d} failed: ValueError at app/handlers/h{index % 400}.py:{index % 900 + 1}",
    )
    return "\n".join(rows) + "\n"


def _fact_free(index: int) -> str:
    rows = [
        f"2026-12-01 10:11:12 worker-{i % 16:02d} handled request {index * 1000 + i:08d} status=ok"
        for i in range(1000)
    ]
    return "\n".join(rows) + "\n"


def make_file(path: Path, shape: str, size: int) -> int:
    """Write about ``size`` bytes of ``shape`` to ``path``; the bytes written."""
    case = SHAPES[shape]
    distinct = shape.endswith("-distinct")
    piece = _repeated(case, distinct) if case else _mixed_log if shape == "mixed-log" else _fact_free
    written = index = 0
    with open(path, "wb") as handle:
        while written < size:
            data = piece(index).encode("utf-8")
            handle.write(data)
            written += len(data)
            index += 1
    return written


def _last_record(home: Path) -> dict[str, object]:
    """The newest call record of ``home``: the spool's newest entry, else the ledger's last row."""
    spool = home / "ledger.db.spool"
    entries = sorted(spool.iterdir(), key=lambda p: p.stat().st_mtime) if spool.is_dir() else []
    if entries:
        return ast.literal_eval(entries[-1].read_text())  # type: ignore[no-any-return]
    with sqlite3.connect(home / "ledger.db") as db:
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT * FROM calls ORDER BY id DESC LIMIT 1").fetchone()
    return dict(row)


def _streamed(tree: tuple[list[str], dict[str, str]], data: Path, home: Path) -> bool:
    """Whether `tersh run -- cat data` went to the streaming preview (its record names no rule
    and no category: every other path records one)."""
    tersh, env = tree
    subprocess.run(
        [*tersh, "run", "--", "cat", str(data)],
        stdout=subprocess.DEVNULL,
        env={**os.environ, **env},
        check=True,
    )
    record = _last_record(home)
    _clear(home)
    return record.get("rule") is None and record.get("category") is None


def _clear(home: Path) -> None:
    clear_captures(home)
    shutil.rmtree(home / "ledger.db.spool", ignore_errors=True)


def main() -> int:
    """Measure every shape and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shapes", help="comma-separated subset of " + ",".join(SHAPES))
    parser.add_argument("--against", help="also run `python -m tersh` from this source folder")
    args = parser.parse_args()
    shapes = args.shapes.split(",") if args.shapes else list(SHAPES)
    home = Path(tempfile.mkdtemp(prefix="tersh-bench-home-"))
    work = Path(tempfile.mkdtemp(prefix="tersh-bench-digest-"))
    env = {"TERSH_HOME": str(home)}
    tersh = [str(VENV_BIN / "tersh")]
    subprocess.run([*tersh, "enable"], check=True, capture_output=True, env={**os.environ, **env})
    trees = [(tersh, env)]
    names = ["this"]
    if args.against:
        trees.append(([sys.executable, "-m", "tersh"], {**env, "PYTHONPATH": args.against}))
        names.append("other")
    header = f"{'shape':<12} {'MB':>5}"
    for name in names:
        header += f" {name + ' cpu':>10} {'wall':>7} {'RSS MB':>7}"
    print(f"MB/s by CPU (user+sys) and wall time, medians of {args.rounds}; peak RSS of the largest process")
    print(header + ("  speed-up (other cpu / this cpu)" if args.against else ""))
    try:
        for shape in shapes:
            data = work / f"{shape}.txt"
            size = make_file(data, shape, int(args.mb * 1_000_000))
            for name, tree in zip(names, trees, strict=True):
                if not _streamed(tree, data, home):
                    print(f"{shape}: {name} did not take the streaming preview", file=sys.stderr)
                    return 1
            cpu: list[list[float]] = [[] for _ in trees]
            wall: list[list[float]] = [[] for _ in trees]
            peak: list[list[float]] = [[] for _ in trees]
            for _ in range(args.rounds):
                for number, (runner, tree_env) in enumerate(trees):
                    run = measure([*runner, "run", "--", "cat", str(data)], env=tree_env)
                    _clear(home)
                    cpu[number].append(run.cpu)
                    wall[number].append(run.wall)
                    peak[number].append(run.peak_mb)
            row = f"{shape:<12} {size / 1e6:5.1f}"
            cpus = [statistics.median(c) for c in cpu]
            for number in range(len(trees)):
                row += (
                    f" {size / cpus[number] / 1e6:10.1f} {size / statistics.median(wall[number]) / 1e6:7.1f}"
                    f" {max(peak[number]):7.1f}"
                )
            if args.against:
                row += f"  {cpus[1] / cpus[0]:14.2f}x"
            print(row, flush=True)
            data.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
