"""Shared helpers of the build/lint rules, and properties of every such rule on real fragments."""

from __future__ import annotations

from types import ModuleType

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tersh.compaction import apply, detect
from tersh.compaction.clean import clean
from tersh.compaction.kit import diag as _diag
from tersh.compaction.rules import (
    cargobuild,
    cc,
    eslint,
    flake8,
    golangci,
    java,
    mypy,
    pylint,
    ruff,
    shellcheck,
    tsc,
)
from tersh.compaction.verify import facts, renderings
from tersh.compaction.verify import holds as verify
from tests import corpus
from tests.compact import support

RULES: tuple[ModuleType, ...] = (
    cc, cargobuild, java, mypy, tsc, ruff, flake8, pylint, eslint, shellcheck, golangci,
)  # fmt: skip


def _sources() -> list[str]:
    texts = [clean(c.combined) for c in corpus.cases() if c.family in {"build", "lint"}]
    texts += [path.read_text(encoding="utf-8") for path in sorted(support.FIXTURES.glob("*/*.txt"))
              if path.parent.name in {r.NAME for r in RULES}]  # fmt: skip
    return texts


SOURCES = _sources()
LINES = sorted({line for text in SOURCES for line in text.splitlines()[:400]})


def test_findings_sharing_a_message_share_an_entry() -> None:
    findings = [
        _diag.Finding("a/b.py", "3:1", "E501 too long", "a/b.py:3:1: E501 too long"),
        _diag.Finding("a/c.py", "1:1", "F401 unused", "a/c.py:1:1: F401 unused"),
        _diag.Finding("a/b.py", "9:4", "E501 too long", "a/b.py:9:4: E501 too long"),
        _diag.Finding("my file.py", "2", "W1 spaced", "my file.py:2: W1 spaced"),
    ]
    assert _diag.render_grouped(findings) == [
        "a/b.py (2)", "  3:1 9:4 E501 too long", "a/c.py (1)", "  1:1 F401 unused",
        "my file.py:2: W1 spaced",
    ]  # fmt: skip


def test_frame_lines_keep_labels_and_edits_only() -> None:
    assert _diag.reduce_frame_line("25 |     + self.pre.len() as u32") is None
    assert _diag.reduce_frame_line("   |        ^^^^^ expected `u64`") == "   | expected `u64`"
    assert _diag.reduce_frame_line("   |") is None
    assert _diag.reduce_frame_line("71 +     return x;") == "71 +     return x;"
    assert _diag.reduce_frame_line("12 |     raise Error('x')") == "12 |     raise Error('x')"


def test_notes_say_what_was_dropped() -> None:
    note = _diag.omission_note({"compiler command": 3, "progress line": 1, "helper command": 0})
    assert note == "[tersh] omitted: 3 compiler commands, 1 progress line"
    assert _diag.omission_note({}, "grouped") == "[tersh] grouped"


def _check(rule: ModuleType, text: str, exit_code: int) -> None:
    inv = detect.invocation(rule.PROGRAMS[0], exit_code)
    rule.compact(text, inv)  # never raises
    assert 0.0 <= rule.sniff(text) <= 1.0
    outcome = apply(rule, text, inv)  # type: ignore[arg-type]
    if outcome.applied:
        assert verify.missing_facts(text, outcome.text, inv) == []
        assert len(outcome.text) < len(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(LINES), max_size=120),
    st.sampled_from(RULES),
    st.sampled_from([0, 1, 2]),
)
def test_rules_on_shuffled_real_lines(lines: list[str], rule: ModuleType, exit_code: int) -> None:
    _check(rule, "\n".join(lines) + "\n", exit_code)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(RULES), st.sampled_from([0, 1]))
def test_rules_on_real_slices(data: st.DataObject, rule: ModuleType, exit_code: int) -> None:
    source = data.draw(st.sampled_from(SOURCES)).splitlines()
    start = data.draw(st.integers(0, max(len(source) - 1, 0)))
    length = data.draw(st.integers(1, 300))
    cut = data.draw(st.booleans())  # a crash or an interrupted run: the last line cut short
    lines = source[start : start + length]
    if cut and lines:
        lines[-1] = lines[-1][: len(lines[-1]) // 2]
    _check(rule, "\n".join(lines) + "\n", exit_code)


def test_every_rule_meets_the_contract() -> None:
    for rule in RULES:
        assert rule.__name__.rsplit(".", 1)[1] == rule.NAME
        assert rule.CATEGORY in {"builds", "linters"}
        assert all(p == p.lower() for p in rule.PROGRAMS)
        assert rule.sniff("") == 0.0
        assert rule.compact("", detect.invocation(rule.PROGRAMS[0], 0)) is None


@given(path=st.text(alphabet="ab./_-~+@:1 \u00e9\u00b2", max_size=12))
@example(path="a/b.")
@example(path="./a.py")
@example(path="1/2")
@example(path="\u00e9/x")
@example(path="-a/b")
@example(path="kB/s")
def test_a_group_header_is_a_path_the_verifier_reads_whole(path: str) -> None:
    expected = bool(path) and " " not in path and not path.endswith(":") and list(
        facts.iter_paths(path)
    ) == [path[2:] if path.startswith("./") else path]
    assert _diag._heads_group(path, strict=True) is expected


def _grouped_simply(findings: list[_diag.Finding]) -> list[str]:
    """``render_grouped`` as first written: one (text, continuation lines) key per message."""
    files: dict[str, dict[tuple[str, tuple[str, ...]], list[str]]] = {}
    loose: list[str] = []
    for finding in findings:
        if not _diag._heads_group(finding.path, True):
            loose.extend((finding.source_line, *finding.extra))
            continue
        own = f"{finding.path}:{finding.location}:"
        extra = tuple(line.removeprefix(own).strip() for line in finding.extra)
        files.setdefault(finding.path, {}).setdefault((finding.text, extra), []).append(finding.location)
    out: list[str] = []
    for path, messages in files.items():
        out.append(renderings.group_header(path, sum(map(len, messages.values()))))
        for (text, extra), locations in messages.items():
            out.append(renderings.finding_entry(locations, text))
            out.extend(map(renderings.finding_continuation, extra))
    return out + loose


_FINDINGS = st.builds(
    _diag.Finding,
    st.sampled_from(("src/a.py", "src/b.py", "a b.py", "lib/c.ts")),
    st.sampled_from(("1", "2:3", "10:1")),
    st.sampled_from(("E1 bad", "W2 odd", "E1 bad ")),
    st.just("src/a.py:1: E1 bad"),
    st.lists(st.sampled_from(("  note: here", "src/a.py:1:  more", "x")), max_size=2).map(tuple),
)


@given(st.lists(_FINDINGS, max_size=30))
def test_grouping_matches_the_simple_grouping(findings: list[_diag.Finding]) -> None:
    assert _diag.render_grouped(findings) == _grouped_simply(findings)
