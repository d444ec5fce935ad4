"""Compact ``python -m unittest`` (and nose2) output: drop passing tests, keep failures and totals.

Default mode prints a row of progress marks (``..F.s``); ``-v`` prints one line per test
(``test_x (pkg.mod.Case.test_x) ... ok``), with the first docstring line on a line of its own
when there is one. Rows of passing or skipped marks and the lines of passing, skipped and
expected-failure tests are left out; everything else (every ``FAIL:``/``ERROR:`` block with its
traceback, printed output, the ``Ran N tests`` line and the ``OK``/``FAILED (...)`` verdict) is
kept as written, except that the ``=``/``-`` rules between blocks are shortened and Python's
``~~^^^`` underlines are left out.
"""

from __future__ import annotations

import re

from tersh.rules._testrun import Output, plural
from tersh.rules.base import Invocation

NAME = "unittest"
CATEGORY = "tests"
SWITCH = "tests"
PROGRAMS = ("unittest", "nose2")

_MARKS_ROW = re.compile(r"^[.sxu]+$")
_NAME_LINE = re.compile(r"^\w+ \([\w.]+\)$")
_PASSING_END = re.compile(
    r"^(?P<head>.*?) \.\.\. (?P<status>ok|skipped(?: .*)?)$"
)
_CARETS = re.compile(r"^\s+[~^]+\s*$")
_RULE = re.compile(r"^(?:={20,}|-{20,})$")
_RAN = re.compile(r"^Ran \d+ tests? in [\d.]+s$", re.MULTILINE)
_VERDICT = re.compile(r"^(?:OK|FAILED)(?: \([\w=, ]+\))?$", re.MULTILINE)

_VERBOSE_ROW = re.compile(r"^\w+ \([\w.]+\)(?: \.\.\. |\n.*? \.\.\. )(?:ok|FAIL|ERROR)$", re.MULTILINE)

_MARK_OUTCOMES = {".": "passed", "s": "skipped", "x": "expected failures", "u": "unexpected"}


def compact(text: str, inv: Invocation) -> str | None:
    """Drop progress marks and passing/skipped test lines; keep every failure and the totals."""
    out = Output()
    counts: dict[str, int] = {}
    pending: str | None = None  # a "name (dotted.id)" line waiting for its docstring line
    for line in text.split("\n"):
        passing = _PASSING_END.match(line)
        if passing:
            outcome = "passed" if passing["status"] == "ok" else "skipped"
            counts[outcome] = counts.get(outcome, 0) + 1
            if pending is not None and not _NAME_LINE.match(passing["head"]):
                out.omit(pending)
            elif pending is not None:
                out.keep(pending)
            pending = None
            out.omit(line, passing=True)
            continue
        if pending is not None:
            out.keep(pending)
            pending = None
        if _NAME_LINE.match(line):
            pending = line
        elif _CARETS.match(line):
            out.omit_marks(line)  # Python's ~~^^^ underline of the failing expression
        elif _RULE.match(line):
            out.keep(line[:3])  # a rule of 70 "=" or "-" between blocks
        elif _MARKS_ROW.match(line):
            for mark, outcome in _MARK_OUTCOMES.items():
                if mark in line:
                    counts[outcome] = counts.get(outcome, 0) + line.count(mark)
            out.omit_marks(line)
        else:
            out.keep(line)
    if pending is not None:
        out.keep(pending)
    tally = ", ".join(f"{count:,} {outcome}" for outcome, count in counts.items())

    def describe(omitted: int) -> str:
        what = f"{plural(omitted, 'line')} of passing/skipped tests omitted"
        return f"{what} ({tally})" if tally else what

    return out.render(describe, text)


def sniff(text: str) -> float:
    """Sure when unittest's ``Ran N tests in Xs`` line and its verdict are both there."""
    if "Ran " in text and _RAN.search(text) and _VERDICT.search(text):
        return 0.95
    if len(_VERBOSE_ROW.findall(text, 0, 20000)) >= 5:
        return 0.9  # a -v run whose footer is beyond the head
    return 0.0
