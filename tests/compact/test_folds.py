"""Dense findings folded into brace groups (compaction.folds, compaction.wrapped), and the
verifier reading every folded line back (verify.renderings, verify.holds)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.compaction import folds, generic, wrapped
from tersh.compaction.detect import invocation
from tersh.compaction.verify.facts import place_line, place_lines
from tersh.compaction.verify.holds import missing_facts, refusal
from tersh.compaction.verify.renderings import brace_expansions, brace_group

GENERIC = Path(__file__).parent / "fixtures" / "generic"
_GROUP = re.compile(r"\{([^{}\n]*,[^{}\n]*)\}")


def _flat(line: str) -> str:
    return " ".join(line.split())


def _read_back(text: str) -> list[str]:
    """Each line of ``text``, a brace group read as the lines it stands for (white space
    collapsed), here without the verifier's reader."""
    found: list[str] = []
    for line in text.split("\n"):
        group = _GROUP.search(line)
        parts = [line]
        if group is not None:
            parts = [line[: group.start()] + part + line[group.end() :] for part in group[1].split(",")]
        found += map(_flat, parts)
    return found


def _without_one_alternative(text: str) -> list[str]:
    """Proposals made of ``text`` with one alternative of one brace group left out, each way."""
    return [proposal for proposal, _ in _dropping_one_alternative(text)]


def _dropping_one_alternative(text: str) -> list[tuple[str, str]]:
    """``(proposal, the line left out, white space collapsed)`` for each alternative of each
    brace group of ``text``."""
    made: list[tuple[str, str]] = []
    for group in _GROUP.finditer(text):
        parts = group[1].split(",")
        start = text.rfind("\n", 0, group.start()) + 1
        end = text.find("\n", group.end()) % (len(text) + 1)
        for drop in range(len(parts)):
            kept = ",".join(parts[:drop] + parts[drop + 1 :])
            dropped = text[start : group.start()] + parts[drop] + text[group.end() : end]
            made.append((text[: group.start()] + "{" + kept + "}" + text[group.end() :], _flat(dropped)))
    return made


def test_a_brace_group_stands_for_each_of_its_lines_and_refuses_what_would_read_otherwise() -> None:
    line = brace_group("[warn] all/", ["a", "b-c", "d.test"], ".js")
    assert line == "[warn] all/{a,b-c,d.test}.js"
    assert brace_expansions(line) == ["[warn] all/a.js", "[warn] all/b-c.js", "[warn] all/d.test.js"]
    assert brace_group("x ", ["1,2", "3"], "") is None and brace_group("x {", ["1", "2"], "") is None
    assert brace_expansions("code {a, b} and {c}") == ["code a and {c}", "code  b and {c}"]
    assert brace_expansions("nothing {here}") == []


def test_lines_that_differ_only_in_the_file_they_name_are_one_line_of_whole_paths() -> None:
    names = [f"all/rule-{first}{second}.js" for first in "abcdef" for second in "xyzuv"]
    lines = ["Checking formatting...", *(f"[warn] {name}" for name in names), "[warn] lib/x.ts",
             "[warn] Code style issues found in 31 files. Run Prettier with --write to fix."]  # fmt: skip
    text = "\n".join(lines)
    inv = invocation("prettier --check all lib", 1)
    out = generic.compact(text, inv)
    assert out is not None and f"[warn] {{{','.join(names)}}}" in out and "\n[warn] lib/x.ts\n" in out
    assert all(name in out for name in names)  # every path stays whole
    assert sorted(_read_back(out)) == sorted(lines)
    assert refusal(text, out, inv) is None
    for proposal, dropped in _dropping_one_alternative(out):
        assert "path" in {fact.kind for fact in missing_facts(text, proposal)}, dropped


def test_a_path_is_never_split_from_its_place_and_a_bare_list_of_paths_is_left_alone() -> None:
    located = [f"src/m{n}.py:3:1: E501 line too long" for n in range(9)]
    assert folds.fold("\n".join(located)) is None
    assert folds.fold("\n".join(f"src/m{name}.py" for name in "abcdefgh")) is None  # no shorter


def _perlcritic(lines: int) -> list[str]:
    return [
        f"Git.pm: Always unpack @_ first at line {n}, column 1.  See page 178 of PBP.  (Severity: 4)"
        for n in range(100, 100 + 3 * lines, 3)
    ]


def test_the_same_message_at_many_places_is_written_once_with_its_places() -> None:
    places = _perlcritic(44)
    other = (
        'Git.pm: "local" variable not initialized at line 272, column 3.  See page 78 of PBP.  (Severity: 3)'
    )
    text = "\n".join([places[0], other, *places[1:], "Git/I18N.pm source OK"])
    out = generic.compact(text, invocation("perlcritic Git.pm Git", 2))
    assert out is not None
    numbers = ",".join(str(n) for n in range(100, 232, 3))
    assert out.split("\n") == [
        f"Git.pm: Always unpack @_ first at line {{{numbers}}}, column 1.  See page 178 of PBP."
        "  (Severity: 4)",
        other, "Git/I18N.pm source OK",
    ]  # fmt: skip
    assert sorted(_read_back(out)) == sorted(map(_flat, text.split("\n")))
    assert missing_facts(text, out) == []
    lost = _without_one_alternative(out)
    assert len(lost) == 44
    for proposal in lost:  # a place left out is a place lost: the verifier refuses
        assert [fact.kind for fact in missing_facts(text, proposal)] == ["place"]


def test_few_places_stay_as_the_tool_wrote_them() -> None:
    assert folds.FEW_PLACES == generic.FEW_FINDINGS
    assert folds.fold("\n".join(_perlcritic(folds.FEW_PLACES))) is None
    assert folds.fold("\n".join(_perlcritic(folds.FEW_PLACES + 1))) is not None


def test_places_with_two_numbers_that_vary_fold_on_the_one_that_groups_most() -> None:
    pairs = [(10, 32), (11, 32), (12, 32), (13, 20), (14, 20)]
    lines = [f"L: {n:3} | P: {p:3} | CP01 | Keywords must be consistently upper case." for n, p in pairs]
    filler = [f"L: {n:3} | P:   1 | LT0{n % 3} | Rule {n}." for n in range(100, 140)]
    out = folds.fold("\n".join([*lines, *filler]))
    assert out is not None and out.split("\n")[:2] == [
        "L:  {10,11,12} | P:  32 | CP01 | Keywords must be consistently upper case.",
        "L:  {13,14} | P:  20 | CP01 | Keywords must be consistently upper case.",
    ]  # fmt: skip
    assert missing_facts("\n".join([*lines, *filler]), out) == []


def test_wrapped_cells_are_merged_onto_their_row_and_their_places_folded() -> None:
    rows = []
    for n in range(10, 60):
        rows += [f"L:  {n} | P:   1 | CP05 | Datatypes must be consistently lower case.",
                 "                       | [capitalisation.types]"]  # fmt: skip
    text = "\n".join(["== [sql/a.sql] FAIL", *rows, "All Finished!"])
    merged = wrapped.merge_continuations(text.split("\n"))
    assert merged is not None and merged[1] == (
        "L:  10 | P:   1 | CP05 | Datatypes must be consistently lower case. [capitalisation.types]"
    )
    out = folds.fold(text)
    numbers = ",".join(map(str, range(10, 60)))
    assert out is not None and out.split("\n")[1] == (
        f"L:  {{{numbers}}} | P:   1 | CP05 | Datatypes must be consistently lower case."
        " [capitalisation.types]"
    )
    assert missing_facts(text, out) == []
    for proposal in _without_one_alternative(out):
        assert {fact.kind for fact in missing_facts(text, proposal)} == {"place"}
    # a bar under no bar of the line above, or under prose with one bar, is no wrapped cell
    assert wrapped.merge_continuations(["a | b", "    | c"]) is None
    assert wrapped.merge_continuations(["x | y | z", "     | more"]) is None


def test_blocks_with_the_same_entries_share_one_header() -> None:
    entry = '  1:1       warning  missing document start "---"  (document-start)'
    names = ["schemas/v1/Alpha.yaml", "schemas/v1/Beta.yaml", "other/Gamma.yaml"]
    blocks = [[name, entry, ""] for name in names]
    other = ["schemas/v1/Delta.yaml", entry, "  7:1       error    wrong indentation  (indentation)", ""]
    text = "\n".join([*blocks[0], *other, *blocks[1], *blocks[2]])
    out = folds.fold(text)
    assert out is not None and out.split("\n")[:3] == ["{" + ",".join(names) + "}", entry, ""]
    assert "\n".join(other) in out
    assert missing_facts(text, out) == []
    for proposal in _without_one_alternative(out):
        assert [fact.kind for fact in missing_facts(text, proposal)] == ["path"]


def test_grouped_findings_under_a_brace_header_are_read_as_each_files_locations() -> None:
    findings = [f"lib/{name}.rb:{n}:2: C: Style/StringLiterals: Prefer single quotes." for name in "abc"
                for n in range(1, 20)]  # fmt: skip
    text = "\n".join(["Inspecting 3 files", *findings, "3 files inspected, 57 offenses detected"])
    out = generic.compact(text, invocation("rubocop --format emacs", 1))
    assert out is not None and out.split("\n")[1] == "{lib/a.rb,lib/b.rb,lib/c.rb} (19)"
    assert missing_facts(text, out) == []
    for proposal in _without_one_alternative(out):
        assert {fact.kind for fact in missing_facts(text, proposal)} >= {"location"}


def test_lines_with_braces_notes_or_indentation_are_never_folded() -> None:
    assert folds.fold("\n".join(f"x = {{a: {n}}} in a/b.py" for n in range(50))) is None
    assert folds.fold("\n".join(f"[tersh: {n} lines omitted] a/b.py" for n in range(50))) is None
    assert folds.fold("\n".join(f"  [warn] all/{n}a.js" for n in range(50))) is None
    # a line written again is left to the count of repeated lines
    assert folds.fold("\n".join(["[warn] all/a.js"] * 50)) is None


def _case(name: str) -> tuple[str, str, list[str]]:
    folder = GENERIC / name
    facts = json.loads((folder / "facts.json").read_text(encoding="utf-8"))["must_keep"]
    return (folder / "cmd").read_text().strip(), (folder / "combined").read_text(), facts


def test_recorded_dense_outputs_fold_and_every_alternative_is_needed() -> None:
    for name in ("prettier-check-many", "perlcritic-git-modules", "sqlfluff-postgres-extensions",
                 "yamllint-gcloud-schemas"):  # fmt: skip
        command, source, _ = _case(name)
        inv = invocation(command, 1)
        out = generic.compact(source, inv)
        assert out is not None and "{" in out, name
        assert refusal(source, out, inv) is None, name
        lost = _dropping_one_alternative(out)
        assert lost, name
        written = Counter(map(_flat, source.split("\n")))
        for proposal, dropped in lost[:: max(1, len(lost) // 40)]:  # a sample of each case's groups
            if written[dropped] == 1:  # (a place with no path may be written under two files)
                assert missing_facts(source, proposal, inv), (name, dropped)


_WORDS = st.sampled_from(["a", "b", "lib", "src", "x-y", "Git.pm:", "L:", "[warn]", "a.py:3"])
_LINE = st.one_of(
    st.builds(lambda head, n, m: f"{head} message at line {n}, column {m}.", _WORDS,
              st.integers(0, 40), st.integers(0, 3)),
    st.builds(lambda head, folder, name, ext: f"{head} {folder}/{name}{ext}", _WORDS,
              st.sampled_from(["all", "src/lib"]), _WORDS, st.sampled_from([".js", ".py", ""])),
    st.builds(lambda n: f"L:  {n} | P:   1 | LT02 | Expected indent.", st.integers(1, 30)),
    st.sampled_from(["", "done", "x = {a,b}"]),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, min_size=2, max_size=80))
def test_folded_lines_read_back_as_the_lines_they_stand_for(lines: list[str]) -> None:
    text = "\n".join(lines)
    out = folds.fold(text)
    if out is None:
        return
    assert Counter(_read_back(out)) == Counter(_read_back(text))
    assert missing_facts(text, out) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_LINE, st.sampled_from(["  3:10  x", "\t12:1 y", "a line 3, col 4 z", "L:1|P:2"])),
                min_size=1, max_size=30))  # fmt: skip
def test_place_lines_are_the_lines_place_line_accepts(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert place_lines(text) == [index for index, line in enumerate(lines) if place_line(line)]


def test_a_code_frames_gutter_is_no_wrapped_cell() -> None:
    frame = ["12 |     value = a | b", "   |     ^^^^^ unused"]
    assert wrapped.merge_continuations(frame) is None
    row = "L:   9 | P:  31 | LT02 | Expected line break and indent of 4 spaces before"
    rows = [row, "                       | 'relation'. [layout.indent]", "                       | more"]
    assert wrapped.merge_continuations(rows) == [f"{row} 'relation'. [layout.indent] more"]


def test_no_line_of_a_log_or_of_a_files_text_moves() -> None:
    log = [f"GET /api/{n} 200" if n % 2 else f"POST /api/{n} 201" for n in range(90)]
    assert folds.fold("\n".join(log)) is None
    compiled = ["Compiling src/a.rs", "Compiling src/b.rs", "error in src/b.rs", "Compiling src/c.rs",
                "Compiling src/d.rs", "Compiling src/e.rs"]  # fmt: skip
    folded = "Compiling {src/c.rs,src/d.rs,src/e.rs}"
    assert folds.fold("\n".join(compiled)) == "\n".join([*compiled[:3], folded])
