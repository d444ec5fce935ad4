"""Throughput, peak memory and token saving of the listing rule (find, fd, locate, git ls-files).

What is measured and printed: see bench/grouping_bench.py.

    .venv/bin/python bench/bench_rules_listing.py --mb 50 --runs 3
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grouping_bench import ROOT, Bench, run

from tersh.compaction.rules import listing

BENCH = Bench(
    rule=listing,
    fixtures=ROOT / "tests" / "compact" / "fixtures" / "listing",
    corpus_cases=("other__find-large-tree",),
    samples={
        "find corpus": ("find . -path ./.git -prune -o -type f -print", "other__find-large-tree"),
        "find include": ("find include -maxdepth 2 -name '*.h'", "fixtures/find-include-maxdepth-name"),
        "find . (dirs)": ("find . -maxdepth 3 -not -name '*.pyc'", "fixtures/find-dirs-and-files"),
        "fdfind -t d": ("fdfind -t d", "fixtures/fdfind-type-d"),
        "git ls-files": ("git ls-files", "fixtures/git-ls-files"),
        "locate": ("locate /usr/lib/python3.11/lib2to3/", "fixtures/locate-lib2to3"),
    },
    # Where a listed path starts (a notice such as "find: '/x': Permission denied" is left alone).
    path_start=re.compile(r"^(?!(?:find|fd|locate):)(\./|/)?", re.MULTILINE),
)

if __name__ == "__main__":
    raise SystemExit(run(BENCH, (__doc__ or "").splitlines()[0]))
