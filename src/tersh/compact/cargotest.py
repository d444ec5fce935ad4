"""Compact ``cargo test`` and ``cargo nextest`` output: drop passing tests, keep failures and totals.

``cargo test`` compiles (``Compiling``/``Finished``), then for each test binary prints
``Running path (target/…/name-hash)``, ``running N tests``, one ``test name ... ok`` line per
test, and ``test result: ok. N passed; …``; failures add ``---- name stdout ----`` blocks with
the panic message and location, a ``failures:`` list and ``error: test failed…``. nextest
prints ``PASS [ 0.004s] crate name`` rows and a ``Summary`` line.

Left out: compile progress, ``running N tests``, passing and ignored test lines and nextest
``PASS``/``SKIP`` rows. Kept as written: every binary's ``Running`` line and ``test result``
line, every ``FAILED`` line, panic, warning and error, and everything cargo printed otherwise.
"""

from __future__ import annotations

import re

from tersh.compact._testrun import Output, plural
from tersh.compact.base import Invocation

NAME = "cargotest"
CATEGORY = "tests"
SWITCH = "tests"
PROGRAMS = ("cargo test", "cargo nextest", "cargo-nextest")

_PASSING = re.compile(r"^test .+ \.\.\. (?:ok|ignored(?:, .*)?)$")
_RUNNING_COUNT = re.compile(r"^running \d+ tests?$")
_PROGRESS = re.compile(r"^\s+(?:Compiling|Finished|Fresh|Downloaded|Downloading|Blocking) ")
_NEXTEST_PASS = re.compile(r"^\s+(?:PASS|SKIP) \[\s*[\d.]+s\] ")
_RESULT = re.compile(r"^test result: (?:ok|FAILED)\. \d+ passed; \d+ failed", re.MULTILINE)
_NEXTEST_SUMMARY = re.compile(r"^\s+Summary \[\s*[\d.]+s\] \d+ tests? run", re.MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop compile progress and passing test lines; keep every binary's result and failures."""
    if not (_RESULT.search(text) or _NEXTEST_SUMMARY.search(text) or "running " in text):
        return None  # not test output (a build that failed before any test ran, a --help…)
    out = Output()
    passed = ignored = 0
    for line in text.split("\n"):
        if _PASSING.match(line) or _NEXTEST_PASS.match(line):
            if line.endswith(" ok") or "PASS [" in line:
                passed += 1
                out.omit(line, passing=True)
            else:
                ignored += 1
                out.omit(line)
        elif _RUNNING_COUNT.match(line) or _PROGRESS.match(line):
            out.omit(line)
        elif line.strip():
            out.keep(line)
        else:
            out.keep_blank(line)
    parts = [plural(passed, "passing test")] if passed else []
    if ignored:
        parts.append(f"{ignored:,} ignored")
    parts.append("compile progress" if any(_PROGRESS.match(x) for x in text[:4000].split("\n")) else "")
    what = " and ".join(p for p in parts if p)
    return out.render(lambda omitted: f"{what or plural(omitted, 'line')} omitted", text)


def sniff(text: str) -> float:
    """Sure when libtest's ``test result: ok. N passed; M failed`` line is there."""
    if "test result: " in text and _RESULT.search(text):
        return 0.95
    if "Summary [" in text and _NEXTEST_SUMMARY.search(text):
        return 0.9
    return 0.0
