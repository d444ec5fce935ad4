"""Issue 2 benchmarks: start-up of `tersh run`, capture throughput, compaction of a big log.

Usage: python bench/bench_run.py [--big-gib 1.0] [--rounds 21] [--startup-only] [--against SRC]
Prints medians and ratios measured side by side in one run.

Start-up: the whole process of `tersh run` (the console script; with --against, this checkout's
bin/tersh on each tree's sources) (enabled profile: capture, index, ledger, status) on
`true`, `echo hello`, `ls /usr/bin`, `git status` (in a clean repository and in one with
changes: staged, modified and untracked files, as mid-work) and two short outputs of tools with a
rule (recorded real runs of `pytest -v` with failures, 22 KB, and of `cargo build` with errors,
4 KB, printed by a stand-in program of that name) against `python -c pass` on the same
interpreter (and `git status` and the stand-ins against themselves plus `python -c pass`), runs
interleaved. Sources are
byte-compiled first (this machine sets PYTHONDONTWRITEBYTECODE, so an uncompiled tree would be
recompiled on every start). Wall time and CPU time (user+sys of the child, from RUSAGE_CHILDREN)
are reported side by side: on a shared, loaded machine the wall figure also counts waiting.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import VENV_BIN, peak_rss_mb, user_env


def _make_big(path: Path, size: int) -> None:
    block = b"".join(b"2026-11-30 01:02:03 worker-%02d processed item %09d ok\n" % (i % 16, i)
                     for i in range(20000))
    with open(path, "wb") as handle:
        written = 0
        while written < size:
            handle.write(block)
            written += len(block)
        handle.write(b"src/app.py:42: error: something failed at the very end\n")


def _wall_and_cpu(argv: list[str], env: dict[str, str],
                  cwd: Path | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds user+sys) of one run of ``argv``, output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True,
                   cwd=cwd)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=bench@example.com",
                    *args], check=True, stdout=subprocess.DEVNULL)


def _made_repo(with_changes: bool) -> Path:
    """A new repository with a few commits; ``with_changes``: what a user mid-work sees (a
    staged, two modified and two untracked files, one of them in a subfolder)."""
    repo = Path(tempfile.mkdtemp(prefix="tersh-bench-repo-"))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "src").mkdir()
    for step in range(3):
        for name in ("README.md", "setup.py", "src/app.py", "src/util.py", "src/cli.py"):
            with open(repo / name, "a") as handle:
                handle.write(f"{name} line {step}\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", f"step {step}")
    if with_changes:
        for name in ("setup.py", "src/app.py", "src/util.py"):
            with open(repo / name, "a") as handle:
                handle.write("changed\n")
        _git(repo, "add", "setup.py")
        (repo / "notes.txt").write_text("todo\n")
        (repo / "src" / "new_module.py").write_text("x = 1\n")
    return repo


def _git_repos() -> dict[str, Path]:
    """The trees `git status` runs in: a clean one (this checkout when it is a clean repository,
    else a new one) and one with changes."""
    here = Path(__file__).resolve().parents[1]
    probe = subprocess.run(["git", "-C", str(here), "status", "--porcelain"], capture_output=True,
                           check=False)
    clean = here if probe.returncode == 0 and not probe.stdout else _made_repo(with_changes=False)
    return {"clean": clean, "changes": _made_repo(with_changes=True)}


def _medians(commands: dict[str, list[str]], rounds: int, env: dict[str, str],
             cwds: dict[str, Path], extra_env: dict[str, dict[str, str]] | None = None,
             ) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU milliseconds of each command, runs interleaved (3 warm-ups each), in
    the folder ``cwds`` names for it (else the current one); ``extra_env`` adds variables to the
    environment of the commands it names."""
    envs = {name: {**env, **(extra_env or {}).get(name, {})} for name in commands}
    for name, argv in commands.items():  # warm-up: page cache, first capture folder, ledger file
        for _ in range(3):
            _wall_and_cpu(argv, envs[name], cwds.get(name))
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            seconds, cpu_seconds = _wall_and_cpu(argv, envs[name], cwds.get(name))
            wall[name].append(seconds)
            cpu[name].append(cpu_seconds)
    return ({name: statistics.median(v) * 1000 for name, v in wall.items()},
            {name: statistics.median(v) * 1000 for name, v in cpu.items()})


def startup(rounds: int, env: dict[str, str], against: str | None = None) -> None:
    """Median wall and CPU of `tersh run` on commands with and without output against
    `python -c pass` (and the bare command), interleaved; print each ratio. With ``against``
    (another source tree), the same commands run from it too, as `base: …` rows."""
    src = Path(__file__).resolve().parents[1] / "src"
    for tree in (str(src), *([against] if against else [])):
        subprocess.run([sys.executable, "-m", "compileall", "-q", tree], check=True,
                       stdout=subprocess.DEVNULL)
    tersh = [str(VENV_BIN / "tersh"), "run", "--"]
    repos = _git_repos()
    commands = {"python -c pass": [sys.executable, "-c", "pass"]}
    cwds: dict[str, Path] = {}
    for tree, repo in repos.items():
        commands[f"git status ({tree})"] = ["git", "status"]
        cwds[f"git status ({tree})"] = repo
    stand_ins = _stand_ins(Path(tempfile.mkdtemp(prefix="tersh-bench-tools-")))
    for name, argv in stand_ins.items():
        commands[name] = argv
    trees: list[tuple[str, list[str], dict[str, str]]] = [("", tersh, {})]
    if against:  # both trees through this checkout's console script (bin/tersh, what users
        # start; `python -m tersh` would add runpy's imports to both), sources from PYTHONPATH
        script = [sys.executable, str(src.parent / "bin" / "tersh"), "run", "--"]
        trees = [(prefix, script, {"PYTHONPATH": tree})
                 for prefix, tree in (("", str(src)), ("base: ", against))]
    extra_env: dict[str, dict[str, str]] = {}
    for prefix, runner, tree_env in trees:
        rows = {
            f"{prefix}tersh run -- true": [*runner, "true"],
            f"{prefix}tersh run -- echo hello": [*runner, "echo", "hello"],
            f"{prefix}tersh run -- ls /usr/bin": [*runner, "ls", "/usr/bin"],
        }
        for tree, repo in repos.items():
            rows[f"{prefix}tersh run -- git status ({tree})"] = [*runner, "git", "status"]
            cwds[f"{prefix}tersh run -- git status ({tree})"] = repo
        for name, argv in stand_ins.items():
            rows[f"{prefix}tersh run -- {name}"] = [*runner, *argv]
        commands.update(rows)
        extra_env.update(dict.fromkeys(rows, tree_env))
    wall, cpu = _medians(commands, rounds, env, cwds, extra_env)
    base = "python -c pass"
    where = ", ".join(f"{tree}: {repo.name}" for tree, repo in repos.items())
    print(f"start-up ({rounds} rounds, medians, ms; git status in {where}):")
    print(f"  {'command':<42} {'wall':>7} {'CPU':>7} {'wall x':>7} {'CPU x':>7}")
    for name in commands:
        against = base
        tree = next((tree for tree in repos if name.endswith(f"tersh run -- git status ({tree})")), None)
        alone = f"git status ({tree})" if tree else next(
            (tool for tool in stand_ins if name.endswith(f"tersh run -- {tool}")), None)
        if alone:
            against = f"{alone} + python -c pass"
            wall[against] = wall[alone] + wall[base]
            cpu[against] = cpu[alone] + cpu[base]
        print(f"  {name:<42} {wall[name]:7.1f} {cpu[name]:7.1f} "
              f"{wall[name] / wall[against]:7.2f} {cpu[name] / max(cpu[against], 1e-6):7.2f}"
              + (f"  (vs {against})" if against != base else ""))
    print("  targets: echo hello CPU x <= 2.0; git status x (git status + python -c pass) <= 1.5,"
          " clean and with changes (the stand-ins: no target, shown for what a rule's path costs)")
    for repo in repos.values():
        if repo.name.startswith("tersh-bench-repo-"):
            shutil.rmtree(repo, ignore_errors=True)
    shutil.rmtree(Path(next(iter(stand_ins.values()))[0]).parent, ignore_errors=True)


#: Recorded real outputs of tools with a rule (tests/compact/fixtures/regression/<case>/combined),
#: printed by a stand-in program of the tool's name: (program, arguments, case).
STAND_INS = (
    ("pytest", ("-v", "toolz"), "test__pytest-toolz-v-failures"),
    ("cargo", ("build",), "build__cargo-build-intervals-errors"),
)


def _stand_ins(folder: Path) -> dict[str, list[str]]:
    """Row name -> argv of a program in ``folder`` named as the tool that prints its recorded
    output (``cat`` of the file: the registry picks the tool's rule by the program's name)."""
    fixtures = Path(__file__).resolve().parents[1] / "tests" / "compact" / "fixtures" / "regression"
    found: dict[str, list[str]] = {}
    for program, arguments, case in STAND_INS:
        output = fixtures / case / "combined"
        size = output.stat().st_size
        tool = folder / program
        tool.write_text(f"#!/bin/sh\nexec cat '{output}'\n")
        tool.chmod(0o755)
        found[f"{program} {' '.join(arguments)} ({size // 1000} KB)"] = [str(tool), *arguments]
    return found


def main() -> int:
    """Run the three measurements and print them."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--big-gib", type=float, default=1.0)
    parser.add_argument("--log-mb", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--startup-only", action="store_true",
                        help="measure only the start-up of `tersh run` on short commands")
    parser.add_argument("--against", help="start-up also from this source folder (`base:` rows)")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="tersh-bench-home-")
    env = user_env(home)  # the profile where a user's is (~/.local/share/tersh), found as theirs is
    profile = Path(home) / ".local" / "share" / "tersh"
    tersh = str(VENV_BIN / "tersh")
    subprocess.run([tersh, "enable"], check=True, capture_output=True, env=env)

    startup(args.rounds, env, args.against)
    if args.startup_only:
        shutil.rmtree(home, ignore_errors=True)
        return 0

    work = Path(tempfile.mkdtemp(prefix="tersh-bench-data-"))
    try:
        big = work / "big.log"
        size = int(args.big_gib * (1 << 30))
        _make_big(big, size)
        actual = big.stat().st_size
        cat_seconds, _, _ = peak_rss_mb(["sh", "-c", f"cat {big} > {work / 'copy'}"])
        (work / "copy").unlink()
        seconds, rss, rc = peak_rss_mb([tersh, "run", "--", "cat", str(big)], env=env)
        mbps = actual / seconds / 1e6
        print(f"run -- cat {actual / 1e6:.0f} MB: {seconds:.2f} s = {mbps:.0f} MB/s (target >= 200),"
              f" peak RSS {rss:.1f} MB (target <= 64), exit {rc}; cat > file {cat_seconds:.2f} s,"
              f" ratio {seconds / cat_seconds:.2f}")
        shutil.rmtree(profile / "captures", ignore_errors=True)

        log = work / "log.txt"
        _make_big(log, int(args.log_mb * 1e6))
        log_size = log.stat().st_size
        seconds, rss, rc = peak_rss_mb([tersh, "compact", "--command", "./service --verbose",
                                        "--exit-code", "1", "--combined", str(log)], env=env)
        print(f"compact {log_size / 1e6:.0f} MB log: {seconds:.2f} s = {log_size / seconds / 1e6:.0f}"
              f" MB/s (target >= 50), peak RSS {rss:.1f} MB (target <= 128), exit {rc}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
