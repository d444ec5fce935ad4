"""Compact ``node --test`` output (TAP and spec reporters): drop passing tests, keep failures.

TAP (the default when stdout is not a terminal): ``# Subtest: name`` announces a test, then
``ok N - name`` or ``not ok N - name`` closes it, each followed by a YAML block (``---`` …
``...``). Passing and skipped tests are left out with their YAML block; the subtest
announcements and plan lines (``1..N``) go too. Every ``not ok`` with its YAML (error, expected,
actual, stack) and the ``# tests``/``# pass``/``# fail`` totals are kept (zero counts of the other totals and
the duration go).

spec: ``▶ suite`` titles, ``✔ name (1ms)`` rows, ``✖ name`` rows with the error below, ``ℹ`` totals
and a ``✖ failing tests:`` section. Passing/skipped rows and the suite titles leading only to them
are left out; the rest is kept.
"""

from __future__ import annotations

from tersh._startup.lazyre import IGNORECASE, MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import plural
from tersh.compaction.kit.testrun import Output, read_lines

NAME = "nodetest"
CATEGORY = "tests"
PROGRAMS = ("node",)
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("# tests ", "ℹ tests ", "# Subtest: ")

_TAP_OK = lazy(r"^\s*ok \d+ - ")
_TAP_NOT_OK = lazy(r"^\s*not ok \d+ - ")
_TAP_SKIP = lazy(r"# (?:SKIP|TODO)\b", IGNORECASE)
_TAP_CHATTER = lazy(r"^\s*(?:# Subtest: |\d+\.\.\d+\s*$|TAP version \d+\s*$)")
_YAML_START = lazy(r"^\s+---\s*$")
_YAML_END = lazy(r"^\s+\.\.\.\s*$")
_SPEC_PASS = lazy(r"^\s*(?:✔|﹣) ")
_SPEC_FAIL = lazy(r"^\s*✖ ")
_SPEC_SUITE = lazy(r"^\s*▶ ")
_SPEC_SUITE_DONE = lazy(r"^\s*▶ .* \([\d.]+m?s\)\s*$")
# Totals that say nothing: a zero count besides tests/pass/fail, and the run's duration.
_IDLE_TOTAL = lazy(r"^(?:ℹ|#) (?:suites|cancelled|skipped|todo) 0$|^(?:ℹ|#) duration_ms [\d.]+$")
_DURATION = lazy(r"^\s+duration_ms: [\d.]+$")
_INTERNAL_FRAME = lazy(r"^\s+(?:at )?(?:async )?[\w.<>$]+ \((?:node:[\w/]+:\d+:\d+|index \d+)\)$")
_TAP_TOTALS = lazy(r"^# (?:tests|pass|fail) \d+$", MULTILINE)
_SPEC_TOTALS = lazy(r"^ℹ (?:tests|pass|fail) \d+$", MULTILINE)


# A run of passing TAP tests (each line ending in "\n") that ``compact`` leaves out one by one: each
# its subtest lines, its ``ok`` line (not a skipped or todo one) and its YAML block, none of whose
# lines has the shape of an ``ok`` line or of the block's end.
_PASSING_TESTS = lazy(
    r"(?:(?:[^\S\n]*+# Subtest: .*\n)*"
    r"[^\S\n]*+ok \d+ - (?!.*# (?i:skip|todo)\b).*\n"
    r"[^\S\n]++---[^\S\n]*+\n"
    r"(?:(?![^\S\n]++\.\.\.[^\S\n]*+\n|[^\S\n]*+ok \d+ - ).*\n)*+"
    r"[^\S\n]++\.\.\.[^\S\n]*+\n)+"
)
# A run of lines (each ending in "\n") that ``compact`` keeps one by one outside a passing test's
# YAML block: none opens (after white space) with a character a line it does more with opens with
# ("#", "ok", a digit, "TAP", a spec mark, "duration_ms"), none holds "(" (node-internal frames).
_PLAIN_KEPT = lazy(r"(?:[^\S\n]*+(?:(?!duration_ms)[^\s#o\dT▶✔﹣✖ℹ(][^(\n]*)?\n)+")
_TAP_OK_AT = lazy(r"[^\S\n]*+ok \d+ - ")
_TAP_OK_AFTER_BREAK = lazy(r"\n[^\S\n]*+ok \d+ - ")


def _is_tap_ok(line: str) -> bool:
    return _TAP_OK.match(line) is not None


def _runs_tests(inv: Invocation, text: str) -> bool:
    return "--test" in inv.args or inv.program != "node" or sniff(text) >= 0.9


def compact(text: str, inv: Invocation, bulk: bool = True) -> str | None:
    """Drop passing/skipped tests (TAP blocks or spec rows); keep failures and the totals
    (``bulk``: runs of passing TAP tests read at once, the same as line by line)."""
    if not _runs_tests(inv, text):
        return None
    out = Output()
    passed = skipped = 0
    in_ok_yaml = False  # inside the YAML block of a passing TAP test
    titles: list[str] = []
    failing_section = False
    after_ok = False  # the previous line was a passing TAP "ok" line that was left out
    # The spec reporter prints each failure's details twice: under its row, and again under
    # "✖ failing tests:" at the end. The first copy is left out when the second is there.
    repeated_below = "\n✖ failing tests:" in text
    detail_indent: int | None = None  # indentation of the failing row whose details follow
    copies = 0
    internal = 0  # durations and node-internal stack frames of failing tests left out
    def feed(line: str) -> None:
        nonlocal in_ok_yaml, failing_section, after_ok, detail_indent, copies, internal, passed, skipped
        was_after_ok, after_ok = after_ok, False
        if detail_indent is not None:
            indent = len(line) - len(line.lstrip())
            if not line.strip() or indent > detail_indent:
                out.omit_copy(line)
                copies += 1
                return
            detail_indent = None
        if in_ok_yaml:
            out.omit(line)
            in_ok_yaml = not _YAML_END.match(line)
            return
        if line[:1] == " " and (
            ("duration_ms" in line and _DURATION.match(line))
            or (("(node:" in line or "(index " in line) and _INTERNAL_FRAME.match(line))
        ):
            internal += 1
            out.omit(line)  # a frame with a location the verifier protects comes back in place
            return
        if failing_section:
            out.keep(line)
            return
        if _TAP_OK.match(line):
            if _TAP_SKIP.search(line):
                skipped += 1
            else:
                passed += 1
            out.omit(line, passing=True)
            after_ok = True
            return
        if was_after_ok and _YAML_START.match(line):
            in_ok_yaml = True
            out.omit(line)
            return
        if _TAP_CHATTER.match(line) or _IDLE_TOTAL.match(line):
            out.omit(line)
            return
        if _SPEC_PASS.match(line) or _SPEC_SUITE_DONE.match(line):
            for title in titles:
                out.omit(title)
            titles.clear()
            if _SPEC_PASS.match(line):
                if "# SKIP" in line or "# TODO" in line:
                    skipped += 1
                else:
                    passed += 1
            out.omit(line, passing=line.lstrip().startswith("✔"))
            return
        if _SPEC_SUITE.match(line):
            titles.append(line)
            return
        for title in titles:
            out.keep(title)
        titles.clear()
        failing_section = line.startswith("✖ failing tests:")
        if repeated_below and not failing_section and _SPEC_FAIL.match(line):
            detail_indent = len(line) - len(line.lstrip())
        out.keep(line)

    def read_bulk(text: str, position: int) -> int:
        """Leave out a run of passing TAP tests (their subtest lines, ``ok`` lines and YAML
        blocks) at once, as ``feed`` would one by one; -1 when none starts here."""
        nonlocal passed
        if in_ok_yaml or after_ok or failing_section or detail_indent is not None:
            return -1
        run = passing_tests(text, position)
        if run is None:
            kept = plain_kept(text, position)
            if kept is None:
                return -1
            for title in titles:
                out.keep(title)
            titles.clear()
            out.kept.extend(text[position : kept.end() - 1].split("\n"))
            return kept.end()
        end = run.end()
        passed += _TAP_OK_AT.match(text, position) is not None
        passed += len(_TAP_OK_AFTER_BREAK.findall(text, position, end - 1))
        out.omit_lines(text[position : end - 1], text.count("\n", position, end), _is_tap_ok)
        return end

    if bulk:
        passing_tests, plain_kept = _PASSING_TESTS.match, _PLAIN_KEPT.match
        read_lines(text, feed, read_bulk)
    else:
        for line in text.split("\n"):
            feed(line)
    for title in titles:
        out.keep(title)
    parts = [f"{passed:,} passing tests/suites"] if passed else []
    if internal:
        parts.append(f"{plural(internal, 'duration/node-internal stack line')} of failures")
    if skipped:
        parts.append(f"{skipped:,} skipped/todo")
    if copies:
        parts.append(f"{plural(copies, 'line')} of failure details repeated under ✖ failing tests")
    return out.render(lambda omitted: f"{', '.join(parts) or plural(omitted, 'line')} omitted", text)


def sniff(text: str) -> float:
    """Sure when the test runner's totals (``# tests N`` or ``ℹ tests N``) are there."""
    if ("# tests " in text and _TAP_TOTALS.search(text)) or (
        "ℹ tests " in text and _SPEC_TOTALS.search(text)
    ):
        return 0.9
    if text.startswith("TAP version") and "# Subtest: " in text:
        return 0.9  # node's TAP reporter; the totals are beyond the head
    return 0.0
