"""Throughput and peak memory of the generic compactor and of the in-memory step around it.

The generic compactor (``tersh.compaction.generic``) takes every output no rule was written
for. Each input is built from real outputs (recorded fixtures of tools with no rule, corpus
cases) repeated to ``--sizes`` (1 MB and 50 MB by default), each copy under its own folder
prefix so that the copies name other files:

- ``logs``: a dpkg log with its few fact lines left out (no diagnostic, no location);
- ``chatter``: JVM logging runs, a JUnit run, pip's download lines and cargo's compile lines
  (INFO lines, ``Downloading``, progress bars, ``PASSED``-like dots), one failure per copy;
- ``findings``: codespell, prettier, biome and bandit reports (``path:line:col: message``
  findings, code frames);
- ``mixed``: all of the above and the other recorded no-rule outputs, interleaved.

The corpus is read from ``TERSH_CORPUS`` (as the tests read it).

Two measures per input, each in its own process: ``generic`` is ``generic.compact(text, inv)``
alone; ``step`` is what the pipeline does with a no-rule output it holds in memory (clean-up,
``compact_text``: the rule lookup, the sniffer, the generic compactor and the verifier,
the repeat collapse when nothing applied, and the bound). Figures: median MB/s of CPU time over
``--runs`` runs and the peak RSS added above the loaded input, in MB per MB of input (the
Linux high-water mark is reset before the runs when ``/proc/self/clear_refs`` allows it).

    .venv/bin/python bench/bench_generic.py --sizes 1,50 --runs 3
    .venv/bin/python bench/bench_generic.py --against /old/checkout/src   # side by side
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import measure_call  # noqa: E402

GENERIC = ROOT / "tests" / "compact" / "fixtures" / "generic"
# Folders renamed per copy, so that every copy names other files.
_FOLDERS = re.compile(r"\b(src|all|hypothesis|_code|config|lib|bin|target|ledger|out|tmp)/")
INPUTS = ("logs", "chatter", "findings", "mixed")
# input -> (command, parts: fixtures/generic/<case> or corpus:<case>)
_CHATTER = ("java-logging-exception", "corpus:pkg__pip-install-fresh-venv", "junit4-orders-failure",
            "cargo-run-panic")  # fmt: skip
_FINDINGS = ("codespell-hypothesis", "prettier-check-many", "biome-lint-eslint-rules",
             "bandit-pytest-code-config")  # fmt: skip
_MIXED = ("java-logging-exception", "codespell-hypothesis", "corpus:other__cat-dpkg-log", "npm-pack-dry-run",
          "biome-lint-eslint-rules", "junit4-orders-failure", "git-rev-list-objects", "prettier-check-many",
          "corpus:pkg__pip-install-fresh-venv", "bandit-pytest-code-config", "cargo-run-panic")  # fmt: skip
SOURCES = {
    "logs": ("cat /var/log/dpkg.log", ("corpus:other__cat-dpkg-log",)),
    "chatter": ("gradle test", _CHATTER),
    "findings": ("check-all", _FINDINGS),
    "mixed": ("ci-job", _MIXED),
}


def _part(source: str) -> str:
    from tersh.compaction.clean import clean

    if source.startswith("corpus:"):
        from tests import corpus

        raw = (corpus.ROOT / source.removeprefix("corpus:") / "combined").read_bytes()
    else:
        raw = (GENERIC / source / "combined").read_bytes()
    return clean(raw.decode("utf-8", "replace")).rstrip("\n") + "\n"


def sample(label: str) -> str:
    """One copy of input ``label``: its parts, one after the other (the log without fact lines)."""
    text = "".join(map(_part, SOURCES[label][1]))
    if label == "logs":
        from tersh.compaction.verify.scan import fact_lines

        lines = text.split("\n")
        facts = set(fact_lines(text))
        text = "\n".join(line for index, line in enumerate(lines) if index not in facts)
    return text


def synthetic(text: str, megabytes: float) -> str:
    """``text`` repeated to about ``megabytes`` MB, each copy under its own folder prefix."""
    target = int(megabytes * 1_000_000)
    copies: list[str] = []
    size = index = 0
    while size < target:
        copy = _FOLDERS.sub(rf"\g<1>{index}/", text) if index else text
        copies.append(copy)
        size += len(copy)
        index += 1
    return "".join(copies)[:target].rsplit("\n", 1)[0]


def _measure(func: Callable[[str], object], text: str, runs: int) -> tuple[float, float, object]:
    """``measure_call`` of ``func(text)``, after one call on the first 100 KB (patterns compiled,
    modules imported: the figures are of the work)."""
    func(text[:100_000])
    return measure_call(lambda: func(text), runs)


def _step(text: str, command: str, exit_code: int) -> str:
    """The pipeline's in-memory step for an output no rule claims (``pipeline._compacted``
    without the capture files): clean, compact_text, the repeat collapse, the bound."""
    from tersh import settings
    from tersh.compaction import clean as cleaning
    from tersh.compaction import compact_text
    from tersh.compaction.detect import invocation
    from tersh.execution import pipeline

    conf = settings.Settings()
    cleaned = cleaning.clean(text)
    inv = invocation(command, exit_code)
    outcome = compact_text(cleaned, inv, float(conf["tools.min_saving"]))
    body = outcome.text
    if not outcome.applied:
        lines, removed = pipeline._collapse_repeats(body.split("\n"))
        body = "\n".join(lines) if removed else body
    max_lines, max_bytes = pipeline._bounds(conf, reserve=True)
    bounded = pipeline._bound_text(body, max_lines, max_bytes, filler_bytes=conf.int("preview.filler_bytes"),
                                   whole_text=not outcome.applied)  # fmt: skip
    return f"{outcome.rule}:{outcome.applied}:{len(outcome.text)}:{len(bounded.text)}"


def child(label: str, measure: str, megabytes: float, runs: int) -> dict[str, float | str]:
    """Measure one input in this process; the figures as a dict."""
    from tersh.compaction import generic
    from tersh.compaction.detect import invocation

    command = SOURCES[label][0]
    exit_code = 1 if label != "logs" else 0
    text = synthetic(sample(label), megabytes)
    size = len(text.encode()) / 1e6
    inv = invocation(command, exit_code)
    if measure == "generic":
        seconds, peak, out = _measure(lambda given: generic.compact(given, inv), text, runs)
        what = "declined" if out is None else f"{len(out.encode()) / 1e6:.2f} MB out"  # type: ignore[attr-defined]
    else:
        seconds, peak, out = _measure(lambda given: _step(given, command, exit_code), text, runs)
        rule, applied, _, bounded = str(out).split(":")
        what = f"{rule} applied, bound {int(bounded):,} chars" if applied == "True" else "kept, bound"
    return {"in_mb": size, "mbps": size / seconds, "mem": peak / size, "what": what}


def _run_child(
    python_path: str | None, label: str, measure: str, megabytes: float, runs: int
) -> dict[str, float]:
    env = dict(os.environ)
    if python_path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [python_path, env.get("PYTHONPATH")]))
    argv = [sys.executable, __file__, "--child", label, "--measure", measure, "--size", str(megabytes),
            "--runs", str(runs)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"child {label}/{measure} failed:\n{done.stderr}")
    row: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return row


def main(argv: list[str] | None = None) -> int:
    """Print one table: per input, size and measure, MB/s and memory of this tree (and another)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,50", help="comma-separated sizes in MB")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated inputs: " + ",".join(INPUTS))
    parser.add_argument("--measures", default="generic,step")
    parser.add_argument("--against", help="another tree's src/ measured side by side (PYTHONPATH)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.measure, args.size, args.runs)))
        return 0
    from tersh.compaction import generic

    trees = {"this": None} if not args.against else {"this": None, "other": args.against}
    print(f"this tree: {Path(generic.__file__).parent.parent.parent}" +
          (f"; other: {args.against}" if args.against else ""))  # fmt: skip
    print(f"MB/s by CPU time (median of {args.runs}); mem: peak RSS added, MB per MB of input")
    head = f"{'input':<9} {'MB':>4} {'measure':<8}"
    for name in trees:
        head += f" {name + ' MB/s':>10} {'mem':>5}"
    print(head + "  outcome (this tree)")
    for label in args.only.split(",") if args.only else INPUTS:
        for megabytes in map(float, args.sizes.split(",")):
            for measure in args.measures.split(","):
                rows = {name: _run_child(path, label, measure, megabytes, args.runs)
                        for name, path in trees.items()}  # fmt: skip
                line = f"{label:<9} {megabytes:4g} {measure:<8}"
                for row in rows.values():
                    line += f" {row['mbps']:10.1f} {row['mem']:5.2f}"
                print(f"{line}  {rows['this']['what']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
