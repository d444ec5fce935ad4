"""The regression corpus (tests/compact/fixtures/regression) through the real `tersh compact` CLI.

Usage: python bench/bench_regression.py [--json OUT] [--case SUBSTRING]
Per case: facts kept / total, o200k tokens raw combined -> model `text`, saving. The outputs were
recorded after the rules were written (other projects, flags and modes of the same tools).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from common import corpus_bench_setup, print_corpus_totals  # noqa: E402


def main() -> int:
    """Run every regression-corpus case and print one row per case plus the aggregate."""
    args, enc = corpus_bench_setup("the regression corpus through the tersh compact CLI")
    from tests.compact.regression_corpus import lost_facts, model_text, regression_cases

    rows = []
    for case in regression_cases():
        if args.case not in case.name:
            continue
        text = model_text(case)
        tin = len(enc.encode(case.combined.read_bytes().decode("utf-8", "replace")))
        tout = len(enc.encode(text))
        rows.append({"case": case.name, "tokens_in": tin, "tokens_out": tout,
                     "saving": round(1 - tout / tin, 3) if tin else 0.0,
                     "facts": len(case.must_keep), "lost": lost_facts(case, text)})
    width = max((len(r["case"]) for r in rows), default=10)
    for r in rows:
        kept = r["facts"] - len(r["lost"])
        flag = f"LOST {r['lost'][:3]}" if r["lost"] else "ok"
        grew = " GREW" if r["tokens_out"] > r["tokens_in"] else ""
        print(f"{r['case']:<{width}} {kept:>3}/{r['facts']:<3} {r['tokens_in']:>7} -> {r['tokens_out']:>6}"
              f"  {r['saving']:>6.1%}  {flag}{grew}")
    print_corpus_totals(rows, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
