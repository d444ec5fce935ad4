"""The content sniffer's hints: a rule whose hints are absent from a text could never have been
picked for it, so skipping its import changes no decision; and the plain path of the pipeline
answers exactly as the full path would."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh import compaction as registry
from tersh.command import parsed, policy
from tersh.compaction import SNIFF_HEAD_CHARS, SNIFF_THRESHOLD, clean, generic, load_rule
from tersh.compaction._mapping import RULES, SNIFF_HINTS, SNIFF_LINES
from tersh.compaction.kit.base import Rule
from tersh.execution import pipeline
from tersh.recording import captures as capture_store
from tersh.settings import Settings
from tests import corpus

ROOT = Path(__file__).resolve().parents[1]


def _every_rule_sniffs(text: str) -> Rule | None:
    """The sniffer as it was before hints: every rule imported and asked."""
    head = text[:SNIFF_HEAD_CHARS]
    best: tuple[float, Rule | None] = (SNIFF_THRESHOLD, None)
    for name in RULES:
        rule = load_rule(name)
        score = registry._safe_sniff(rule, head)
        if score >= 1.0:
            return rule
        if score > best[0]:
            best = (score, rule)
    return best[1]


def _check_hints_hold(text: str) -> None:
    head = text[:SNIFF_HEAD_CHARS]
    for name in RULES:
        if not registry.may_claim(name, head):
            score = registry._safe_sniff(load_rule(name), head)
            assert score <= SNIFF_THRESHOLD, f"{name} scores {score} without any of its hints"
    assert registry.sniff_rule(text) is _every_rule_sniffs(text)


def test_every_rule_has_hints_in_the_generated_map() -> None:
    assert set(SNIFF_HINTS) == set(RULES)
    result = subprocess.run(
        [sys.executable, "scripts/gen_rules.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout


@pytest.mark.skipif(not corpus.cases(), reason="the shared corpus is not there")
@pytest.mark.parametrize("case", corpus.cases(), ids=lambda c: c.name)
def test_hints_hold_on_every_corpus_output(case: corpus.Case) -> None:
    for text in (case.combined, case.stdout, case.stderr):
        _check_hints_hold(clean.clean(text))


def _corpus_lines() -> list[str]:
    lines: set[str] = set()
    for case in corpus.cases():
        lines.update(clean.clean(case.combined).split("\n")[:400])
    return sorted(lines) or ["test result: ok. 1 passed; 0 failed", "src/a.py:1:2: E501 long"]


_LINES = _corpus_lines()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_LINES), min_size=1, max_size=40), st.data())
def test_hints_hold_on_mixed_corpus_lines(lines: list[str], data: st.DataObject) -> None:
    text = "\n".join(lines)
    _check_hints_hold(text)
    # Cutting a hint out of the text must drop the rule's score to the threshold or below.
    name = data.draw(st.sampled_from([n for n in RULES if SNIFF_HINTS[n]]))
    hint = data.draw(st.sampled_from(SNIFF_HINTS[name]))
    _check_hints_hold(text.replace(hint, hint[:-1] + "\x00"))
    # Cutting a rule's line form out of every line must do so too.
    formed = data.draw(st.sampled_from(sorted(SNIFF_LINES)))
    _check_hints_hold(re.sub(SNIFF_LINES[formed], lambda m: m[0][:-1] + "\x00", text, flags=re.MULTILINE))


def test_the_search_rules_line_form_keeps_dated_logs_from_importing_it() -> None:
    from tersh.compaction.rules import search

    log = "".join(f"2026-12-01 10:11:{n % 60:02d} worker-{n % 16:02d} handled request {n:08d}\n"
                  for n in range(300))
    assert any(hint in log for hint in SNIFF_HINTS["search"])  # the hints alone would import it
    assert not registry.may_claim("search", log)
    grep = "src/a.py-11-    x = 1\nsrc/a.py:12:    y = 2\nsrc/a.py-13-    z = 3\n"
    assert registry.may_claim("search", grep) and search.sniff(grep) > SNIFF_THRESHOLD
    assert search._SNIFF_MATCH.pattern == SNIFF_LINES["search"] == search.SNIFF_LINE


# --- the plain path (short ASCII output no rule claims) answers as the full path does -------

_PLAIN_LINE = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60)


def _both_paths(data: bytes, command: str, conf: Settings) -> tuple[object, object]:
    cap = capture_store.store_files(command, {"combined": io.BytesIO(data)}, 0)
    found = parsed.parse(command)
    decision = policy.decide(command, script=found.script)
    base = {
        "exit_code": 0,
        "requested_command": command,
        "executed_command": command,
        "duration_s": 0.0,
        "details": {},
    }
    plain = pipeline._plain(cap, conf, {**base, "details": {}}, decision.bypass, found)
    full = pipeline._compacted(cap, conf, {**base, "details": {}}, decision.bypass, found)
    return plain, full


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(_PLAIN_LINE, st.sampled_from(_LINES[:2000])), max_size=30),
    st.sampled_from(["echo hi", "./tool --flag", "git status", "cat notes.txt", "make"]),
    st.booleans(),
)
def test_the_plain_path_gives_the_full_paths_answer(
    lines: list[str], command: str, final_newline: bool
) -> None:
    data = "\n".join(lines).encode("utf-8") + (b"\n" if final_newline and lines else b"")
    plain, full = _both_paths(data, command, Settings())
    assert plain is None or plain == full


def test_the_plain_path_leaves_to_the_full_path_what_the_generic_compactor_shortens() -> None:
    assert pipeline.PLAIN_MAX_LINES < generic.MIN_RUN  # fewer lines: generic proposes nothing
    for data, command in (
        (b"".join(b"%d\n" % i for i in range(1, 801)), "seq 1 800"),
        (b"".join(b"ok %d - test number %d\n" % (i, i) for i in range(1, 60)), "./t"),
        (b"".join(b"INFO step %d done\n" % i for i in range(1, 60)), "./t"),
    ):
        plain, full = _both_paths(data, command, Settings())
        assert plain is None and full.rule == "generic" and len(full.text) < len(data), command


def test_the_plain_path_takes_short_output_no_rule_claims() -> None:
    plain, full = _both_paths(b"hello\n", "echo hello", Settings())
    assert plain is not None and plain == full
    for data, command in (
        (b"a\x1b[1mb\n", "echo"),
        (b"x\n" * 5, "echo"),
        ("é\n".encode(), "echo"),
        (b"On branch main\nnothing to commit\n", "sh x"),
        (b"M a.py\n", "git status"),
        (b"a" * 9000, "echo"),
    ):
        plain, _ = _both_paths(data, command, Settings())
        assert plain is None, (data, command)


def test_constants_copied_to_keep_imports_lazy_match_their_sources() -> None:
    from tersh.compaction.kit import omit
    from tersh.compaction.rules import git_status

    assert registry.GENERIC_MIN_LINES == generic.MIN_RUN  # fewer lines: generic is not asked
    assert registry.GENERIC_LONG_LINE == generic.LONG_LINE  # a line this long: generic is not asked
    assert git_status.SNIFF_CHARS == omit.SNIFF_CHARS


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_LINES[:2000]), min_size=1, max_size=3))
def test_the_generic_compactor_leaves_texts_shorter_than_its_minimum_alone(lines: list[str]) -> None:
    from tersh.compaction.kit.base import Invocation

    text = "\n".join(lines)
    if text.count("\n") < registry.GENERIC_MIN_LINES - 1:
        assert generic.compact(text, Invocation("./tool", "tool", (), 0)) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_LINES[:2000]), st.integers(3900, 9000).map("x".__mul__)),
                min_size=1, max_size=12))
def test_the_generic_compactor_is_skipped_only_for_texts_it_declines(lines: list[str]) -> None:
    from tersh.compaction.kit.base import Invocation

    text = "\n".join(lines)
    if not registry._generic_may_propose(text):
        assert generic.compact(text, Invocation("./tool", "tool", (), 0)) is None
        assert text.count("\n") < registry.GENERIC_MIN_LINES - 1 or max(map(len, lines)) >= generic.LONG_LINE


def test_line_forms_are_the_sniffers_own_patterns() -> None:
    from tersh.compaction.rules import flake8, mypy, npm, shellcheck

    assert flake8._SNIFF_LINE.pattern == SNIFF_LINES["flake8"] == flake8.SNIFF_LINE
    assert mypy._SNIFF.pattern == SNIFF_LINES["mypy"] == mypy.SNIFF_LINE
    assert shellcheck._SNIFF.pattern == SNIFF_LINES["shellcheck"] == shellcheck.SNIFF_LINE
    assert SNIFF_LINES["npm"].startswith(npm._OUTCOME.pattern)
    from tersh.compaction.rules import cargobuild, cc, golangci, ruff, tsc

    for rule in (cargobuild, cc, golangci, ruff, tsc):
        stem = rule.__name__.rsplit(".", 1)[1]
        assert rule._SNIFF.pattern == SNIFF_LINES[stem] == rule.SNIFF_LINE


def test_prose_with_the_hints_words_imports_no_rule() -> None:
    """Words like "error", "passed", "package" or a parenthesis import no rule to be asked."""
    prose = (
        "This release fixes an error in the parser (reported twice) and a warning about the\n"
        "package cache; 12 tests passed and 1 failed before the fix. Found 3 issues in the\n"
        "docs, see line 4 of the guide. Ran the checks again ... all good.\n"
    )
    assert any(hint in prose for name in SNIFF_LINES for hint in SNIFF_HINTS[name])
    assert [name for name in RULES if name in SNIFF_LINES and registry.may_claim(name, prose)] == []


_BLAME_ROW = "^1a2b3c4d (Ada Lovelace 2026-11-30 10:11:12 +0100 {n}) code {n}"


@given(st.lists(st.sampled_from(["\n", "\r", "\r\n", "\x1c", "\x0b", "\u2028", "\x85"]),
                min_size=4, max_size=4), st.sampled_from(["", " tail", "\x1c"]))
def test_blame_rows_ended_by_any_line_separator_keep_their_line_form(
        separators: list[str], after: str) -> None:
    from tersh.compaction.rules import git_blame

    rows = [_BLAME_ROW.format(n=n) for n in range(1, 6)]
    text = "".join(row + sep for row, sep in zip(rows, [*separators, ""], strict=True)) + after
    if git_blame.sniff(text) > SNIFF_THRESHOLD:
        assert registry.may_claim("git_blame", text[:SNIFF_HEAD_CHARS])
    plain = "\n".join(rows)
    assert git_blame.sniff(plain) > SNIFF_THRESHOLD and registry.may_claim("git_blame", plain)
