"""Throughput, peak memory and token saving of the search rule (grep, rg, git grep, ag, ack).

What is measured and printed: see bench/grouping_bench.py.

    .venv/bin/python bench/bench_rules_search.py --mb 50 --runs 3
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grouping_bench import ROOT, Bench, run

from tersh.compaction.rules import search

BENCH = Bench(
    rule=search,
    fixtures=ROOT / "tests" / "compact" / "fixtures" / "search",
    corpus_cases=("other__grep-rn-def-large", "other__rg-unsafe"),
    samples={
        "grep -rn": ("grep -rn 'def ' .", "fixtures/grep-rn-def"),
        "rg (no -n)": ("rg 'def '", "fixtures/rg-def"),
        "git grep -C1": ("git grep -n -C1 'class '", "fixtures/gitgrep-C1"),
        "ag -C1": ("ag -C1 'self\\.' json", "fixtures/ag-C1-big"),
        "corpus grep": ("grep -rn 'def ' src", "other__grep-rn-def-large"),
    },
    # The start of a line that names a file (not a notice such as "grep: x: binary file matches").
    path_start=re.compile(r"^(?!(?:grep|rg|git|Binary file)\b)(\./)?(?=[\w.])", re.MULTILINE),
)

if __name__ == "__main__":
    raise SystemExit(run(BENCH, (__doc__ or "").splitlines()[0]))
