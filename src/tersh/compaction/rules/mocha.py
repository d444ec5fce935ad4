"""Compact mocha output: drop passing and pending tests, keep failures and the totals.

The spec reporter prints a tree of describe titles with ``✔ title (12ms)`` rows for passing
tests, ``- title`` for pending ones and ``1) title`` for failing ones, then ``N passing (4s)``,
``N pending``, ``N failing`` and one numbered block per failure. The dot reporter prints rows of
``․`` (``,`` pending, ``!`` failing) instead of the tree; the TAP reporter ``ok N title`` lines.
Passing and pending rows are left out, with the describe titles that lead only to them; when
numbered failure blocks follow the totals (they repeat each failing test's title path), the
tree's failing rows and their titles go too. Everything from the totals on is kept as written.
"""

from __future__ import annotations

import re

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import plural
from tersh.compaction.kit.testrun import Output

NAME = "mocha"
CATEGORY = "tests"
PROGRAMS = ("mocha", "_mocha")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (" passing (", " failing", "✔ ", "✓ ")

_PASS_ROW = lazy(r"^\s+[✔✓√]\s")
_PENDING_ROW = lazy(r"^\s+- \S")
_FAIL_ROW = lazy(r"^\s+\d+\) \S")
_PASS_ROW_M = lazy(r"^ {2,}[✔✓] .*$", MULTILINE)
_TAP_OK = lazy(r"^ok \d+ ")
_TAP_ANY = lazy(r"^(?:not )?ok \d+ ", MULTILINE)
_TAP_PLAN = lazy(r"^\d+\.\.\d+$")
_DOT_ROW = lazy(r"^\s*[․.,!]+\s*$")
_TITLE = lazy(r"^ {2,}\S")
_PASSING_TOTAL = lazy(r"^\s+\d+ passing \(\d+(?:\.\d+)?m?s\)\s*$", MULTILINE)
_FAILING_TOTAL = lazy(r"^\s+\d+ failing\s*$", MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop passing/pending rows and the titles leading only to them; keep the rest."""
    out = Output()
    passed = pending = 0
    titles: list[str] = []
    totals_seen = False
    # With numbered failure blocks below (each with its full title path), the tree's failing
    # rows and their titles only repeat them.
    repeated_below = " failing" in text and _FAILING_TOTAL.search(text) is not None
    repeated = 0
    tap = _TAP_ANY.search(text) is not None
    for line in text.split("\n"):
        if totals_seen:
            out.keep(line)
            continue
        if _PASSING_TOTAL.match(line):
            totals_seen = True
        elif tap and _TAP_OK.match(line):
            if "# SKIP" in line:
                pending += 1
                out.omit(line)
            else:
                passed += 1
                out.omit(line, passing=True)
            continue
        elif tap and _TAP_PLAN.match(line):
            out.omit(line)
            continue
        elif tap:  # a TAP run: everything but the passing lines and the plan is kept
            pass
        elif repeated_below and _FAIL_ROW.match(line):
            for title in titles:
                out.omit(title)
            titles.clear()
            repeated += 1
            out.omit(line)
            continue
        elif _PASS_ROW.match(line) or _PENDING_ROW.match(line):
            for title in titles:
                out.omit(title)
            titles.clear()
            if _PASS_ROW.match(line):
                passed += 1
                out.omit(line, passing=True)
            else:
                pending += 1
                out.omit(line)
            continue
        elif _DOT_ROW.match(line) and "!" not in line:
            passed += line.count("․") + line.count(".")
            pending += line.count(",")
            out.omit_marks(line)
            continue
        elif _TITLE.match(line) and not _FAIL_ROW.match(line) and len(line) < 200:
            titles.append(line)
            continue
        for title in titles:
            out.keep(title)
        titles.clear()
        if line.strip():
            out.keep(line)
        else:
            out.keep_blank(line)
    for title in titles:
        out.keep(title)
    parts = [plural(passed, "passing test")] if passed else []
    if pending:
        parts.append(plural(pending, "pending test"))
    if repeated:
        parts.append(f"{plural(repeated, 'failing row')} of the tree (numbered blocks below)")
    return out.render(lambda omitted: f"{' and '.join(parts) or plural(omitted, 'line')} omitted", text)


def sniff(text: str) -> float:
    """Sure when mocha's ``N passing (Xs)`` total is there."""
    if " passing (" in text and _PASSING_TOTAL.search(text):
        return 0.9
    if _FAILING_TOTAL.search(text) and re.search(r"^\s+1\) \S", text, MULTILINE):
        return 0.7
    if "ℹ " not in text and "▶ " not in text and len(_PASS_ROW_M.findall(text, 0, 20000)) >= 5:
        return 0.7  # a spec tree whose totals are beyond the head (node --test uses ▶ and ℹ)
    return 0.0
