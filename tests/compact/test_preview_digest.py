"""The index a cut preview opens with: every fact-carrying part of an output far over the bound.

Outputs are assembled from real fragments (lines of recorded linter, type checker and test runner
outputs) between real filler; whatever the verifier reads on them — each location's file, each
path, each diagnostic code, each failing test, each summary line — must be in the preview.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction import detect, preview, preview_read
from tersh.compaction.rules import ruff
from tersh.compaction.verify import holds as verify
from tersh.compaction.verify.facts import is_diagnostic, iter_locations, iter_paths
from tersh.compaction.verify.scan import extract_facts

FIXTURES = Path(__file__).parent / "fixtures"
FRAGMENTS = [
    (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    for name in (
        "eslint/eslint-unix-many.txt",
        "pylint/pylint-parseable-idna.txt",
        "mypy/mypy-pretty-many.txt",
        "pytest/mixed-failures-v.out",
    )
]
FILLER = (FIXTURES / "generic" / "npm-pack-dry-run" / "combined").read_text(encoding="utf-8").splitlines()
MAX_LINES, MAX_BYTES = 600, 16 * 1024


def _expected(source: list[str]) -> set[str]:
    """What the index must show of the fact lines of ``source``."""
    expected: set[str] = set()
    digest = preview.Digest()
    for line in source:
        locations = preview.fact_locations(line)
        if locations is None:
            continue
        expected.update(path for path, _, _ in locations)
        expected.update(iter_paths(line))
        digest.add(line, locations)
    expected.update(digest.codes)
    expected.update(digest.failing)
    return expected


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(
        st.tuples(st.integers(0, len(FRAGMENTS) - 1), st.integers(0, 400), st.integers(1, 60)),
        min_size=1,
        max_size=12,
    ),
    filler_rounds=st.integers(40, 120),
)
def test_every_fact_of_an_output_far_over_the_bound_is_in_the_preview(
    parts: list[tuple[int, int, int]], filler_rounds: int
) -> None:
    source: list[str] = []
    for fragment, start, count in parts:
        lines = FRAGMENTS[fragment]
        source += FILLER * (filler_rounds // len(parts) + 1)
        source += lines[start % len(lines) : start % len(lines) + count]
    source += FILLER
    assert sum(map(len, source)) > 4 * MAX_BYTES
    shown = preview.bound_lines(source, MAX_LINES, MAX_BYTES)
    assert len(shown.text.encode()) <= MAX_BYTES and shown.text.count("\n") < MAX_LINES
    missing = sorted(fact for fact in _expected(source) if fact not in shown.text)
    assert missing == []
    if any(preview.fact_locations(line) is not None for line in source) and shown.digest_lines:
        assert shown.text.startswith("[tersh] index of the ")
    for fact in extract_facts("\n".join(source)):
        if fact.kind == "location":
            assert fact.text.split(":")[0] in shown.text


def test_the_python_and_grep_scans_find_the_same_lines(tmp_path: Path) -> None:
    source = []
    for round_ in range(30):
        for lines in FRAGMENTS:
            source += (
                FILLER
                + lines
                + [
                    f"Date: round {round_}",
                    "",
                    f"    subject {round_}",
                    "Title",
                    "=====",
                    f"src/dir_{round_}/",
                    " entry",
                ]
            )
    path = tmp_path / "out.txt"
    path.write_text("\n".join(source) + "\n", encoding="utf-8")
    text = preview._File(path, len(source), path.stat().st_size, False)
    by_python = sorted(preview._python_candidates(text))
    by_grep = preview._grep_candidates(text)
    assert by_grep is not None
    found = sorted(set(by_grep))
    facts = {item for item in by_python if item[0] == "shape"}
    assert facts == {item for item in found if item[0] == "shape"}

    # grep may offer more candidates; the fact lines among them are the same
    def fact_lines(items: list[tuple[str, int, str]]) -> set[int]:
        return {n for kind, n, line in items if kind == "candidate" and preview.is_fact_line(line)}

    assert fact_lines(by_python) == fact_lines(found)
    # a text in memory is searched by grep through a private temporary file: the same lines
    in_memory = preview._grep_candidates(preview._Text("\n".join(source)))
    assert in_memory is not None
    assert sorted(set(in_memory)) == found


#: Lines of real outputs and any text.
REAL_OR_ANY_LINE = (
    st.sampled_from([line for f in FRAGMENTS for line in f] + FILLER),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=80),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(*REAL_OR_ANY_LINE), max_size=40))
def test_the_bulk_candidate_search_misses_no_fact_line(lines: list[str]) -> None:
    chunk = "".join(f"{line}\n" for line in lines)
    starts = set(preview.candidate_starts(chunk))
    position = 0
    for line in lines:
        if is_diagnostic(line) or next(iter_locations(line), None) is not None:
            assert position in starts, line
        position += len(line) + 1


RUFF_FINDINGS = json.loads((FIXTURES / "ruff" / "ruff-full-frames-pytest.json").read_text(encoding="utf-8"))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    copies=st.integers(160, 240),  # the 20 shortest findings 160 times: 58.6 KB grouped, over 3 * MAX_BYTES
    picks=st.lists(st.integers(0, len(RUFF_FINDINGS) - 1), min_size=20, max_size=40, unique=True),
)
def test_a_rules_grouped_findings_far_over_the_bound_are_all_in_the_index(
    copies: int, picks: list[int]
) -> None:
    """ruff's real findings (its JSON form) under many files, through the rule and the preview:
    every file with its first location and count, every code with its count, is in the index."""
    findings = [RUFF_FINDINGS[i] for i in picks]
    source: list[str] = []
    expected_codes: dict[str, int] = {}
    firsts: dict[str, str] = {}
    for copy in range(copies):
        for found in findings:
            path = f"pkg{copy}/{found['filename']}"
            source += [
                f"{found['code']} {found['message']}",
                f" --> {path}:{found['row']}:{found['column']}",
                "  |",
            ]
            source += [f"{found['row']} |     x = 1  # fails with an error", "  |     ^", ""]
            expected_codes[found["code"]] = expected_codes.get(found["code"], 0) + 1
            firsts.setdefault(path, f"{path}:{found['row']}:{found['column']}")
    text = "\n".join(source) + "\n"
    inv = detect.invocation("ruff check --select ALL .", 1)
    grouped = ruff.compact(text, inv)
    assert grouped is not None and verify.missing_facts(text, grouped, inv) == []
    assert len(grouped.encode()) > 3 * MAX_BYTES  # the preview below has 2 * MAX_BYTES
    shown = preview.bound_text(grouped, MAX_LINES * 4, MAX_BYTES * 2, whole_text=False)
    assert shown.text.startswith("[tersh] index of the ") and "index cut" not in shown.text
    assert [first for first in firsts.values() if first not in shown.text] == []
    counts = {m[1]: int(m[2].replace(",", "")) for m in re.finditer(r"([A-Z]+\d+) ×([\d,]+)", shown.text)}
    assert {code: counts.get(code, 0) for code in expected_codes} == expected_codes


def test_the_index_of_a_full_format_ruff_output_counts_every_code() -> None:
    """ruff's full format names a finding's code on the line before the arrow that locates it:
    far over the bound (as when it is streamed, with no rule), every code is still counted."""
    raw = (FIXTURES / "ruff" / "ruff-full-frames-pytest.txt").read_text(encoding="utf-8")
    copies = 20
    text = "".join(raw.replace("--> ", f"--> pkg{copy}/") for copy in range(copies))
    shown = preview.bound_text(text, MAX_LINES, MAX_BYTES)
    counts = {m[1]: int(m[2].replace(",", "")) for m in re.finditer(r"([A-Z]+\d+) ×([\d,]+)", shown.text)}
    expected: dict[str, int] = {}
    for found in RUFF_FINDINGS:
        expected[found["code"]] = expected.get(found["code"], 0) + copies
    assert {code: counts.get(code, 0) for code in expected} == expected


def _digit_variants(line: str, seed: int) -> list[str]:
    """``line`` with its ASCII digits changed (same shape of line, other numbers)."""
    return [re.sub("[0-9]", lambda m, k=k: str((int(m[0]) + seed + k) % 10), line) for k in range(3)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            *REAL_OR_ANY_LINE,
            st.text(st.sampled_from("aZ09 :./()[]-_\"'FILEoknt×✗"), max_size=60),
        ),
        max_size=30,
    ),
    st.integers(0, 9),
)
def test_lines_of_one_shape_are_read_as_each_one_alone(lines: list[str], seed: int) -> None:
    # The scan reads a line's facts once per shape (digits aside) and finds them on each line of
    # that shape at the same places: what it counts must be what reading each line alone counts.
    varied = [variant for line in lines for variant in _digit_variants(line, seed)]
    alone, by_shape = preview.Digest(), preview.Digest()
    reader = preview.LineReader()
    for line in varied:
        locations = preview.fact_locations(line)
        read = reader.read(line)
        if read is None:
            continue
        assert read.fact == (locations is not None), line
        if locations is None:
            head = re.match(r"([A-Z]{1,4}\d{3,5})(?: \[[*-]\])? \S", line)
            assert (line[read.head] if read.head else None) == (head[1] if head else None)
            continue
        assert preview.read_locations(line, read) == locations, line
        alone.add(line, locations)
        by_shape.add_read(line, read, preview.read_locations(line, read))

    def state(digest: preview.Digest) -> dict[str, object]:  # dicts in their order
        return {
            name: list(value.items()) if isinstance(value, dict) else value
            for name, value in vars(digest).items()
        }

    assert state(by_shape) == state(alone)


def test_a_grouped_entry_is_no_summary_and_its_one_word_rule_is_a_code() -> None:
    """A linter's grouped entry (``  12:5 30:1 error message  rule``) ends a place with a number
    before the severity word: that is no summary (``3 errors``), and a rule id of one word
    (eslint's ``complexity``) after the two-space gap is counted as a code, as ``no-var`` is."""
    entries: list[str] = []
    for n in range(400):
        entries += [f"src/lib/module_{n}.js (3)",
                    f"  {n + 1}:1 {n + 9}:5 error Unexpected var, use let or const instead  no-var",
                    f"  {n + 3}:1 error Function 'f{n}' has a complexity of 24. Maximum is 20  complexity"]
    entries.append("\u2716 1200 problems (1200 errors, 0 warnings)")
    digest = preview.Digest()
    for line in entries:
        locations = preview.fact_locations(line)
        if locations is not None:
            digest.add(line, locations)
    assert list(digest.summaries) == ["\u2716 1200 problems (1200 errors, 0 warnings)"]
    assert digest.codes == {"no-var": 400, "complexity": 400}
    shown = preview.bound_lines(entries, MAX_LINES, MAX_BYTES).text
    assert "codes: no-var ×800, complexity ×400\n" in shown  # a grouped entry counts each place
    assert "1200 problems (1200 errors, 0 warnings)" in shown


def test_the_places_of_a_grouped_entry_without_columns_are_no_summary() -> None:
    """``  19 52 59 error: …`` (mypy's grouped entries: lines only) counts no errors; an
    indented summary line still is one."""
    assert not preview_read.summary_on("  19 52 59 error: Function is missing a type annotation")
    assert not preview_read.summary_on("  7:1 8:3 error Unexpected var  no-var")
    assert preview_read.summary_on("Found 1690 errors in 73 files (checked 103 source files)")
    assert preview_read.summary_on("  856 errors and 0 warnings potentially fixable with the `--fix` option.")
    assert preview_read.summary_on("3 errors, 1 warning, 0 informations")
