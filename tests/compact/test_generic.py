"""The generic compactor, on real outputs of tools no rule was written for (fixtures/generic).

Each case folder holds `cmd`, `exit_code`, `combined` (as recorded on a real run) and
`facts.json`, whose facts come from the tool's machine-readable output or the program's source,
never from tersh.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tersh import settings, tokens
from tersh.compaction import compact_text
from tersh.compaction import generic as _generic
from tersh.compaction.clean import strip_ansi
from tersh.compaction.detect import invocation
from tersh.compaction.verify.holds import contradiction, missing_facts
from tersh.execution import pipeline

GENERIC = Path(__file__).parent / "fixtures" / "generic"
CASES = sorted(p for p in GENERIC.iterdir() if p.is_dir())


def _case(folder: Path) -> tuple[str, int, bytes, list[str]]:
    facts = json.loads((folder / "facts.json").read_text(encoding="utf-8"))
    return (
        (folder / "cmd").read_text().strip(),
        int((folder / "exit_code").read_text()),
        (folder / "combined").read_bytes(),
        list(facts["must_keep"]),
    )


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_recorded_output_keeps_every_fact_and_never_grows(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERSH_HOME", str(tmp_path))
    command, exit_code, raw, must_keep = _case(folder)
    result = pipeline.compact(command, exit_code, combined=raw, conf=settings.Settings())
    text = _with_grouped_locations(strip_ansi(result.text))
    assert [fact for fact in must_keep if fact not in text] == []
    assert tokens.count(result.text) <= tokens.count(raw.decode("utf-8", "replace"))


_GROUP = re.compile(r"^(?P<path>[^\s:]+?)(?: \(\d+\))?$")
_PLACE = re.compile(r"\d+(?::\d+)?")
_BRACES = re.compile(r"\{([^{}\n]*,[^{}\n]*)\}")


def _collapsed(text: str) -> str:
    """``text`` with the white space of each line collapsed (no fact depends on padding)."""
    return "\n".join(" ".join(line.split()) for line in text.split("\n"))


def _read_back(text: str) -> list[str]:
    """The lines of ``text``, a line with a brace group (``all/{a,b}.js``) read as the lines it
    stands for (``all/a.js``, ``all/b.js``), here without the verifier's reader."""
    lines: list[str] = []
    for line in text.split("\n"):
        group = _BRACES.search(line)
        if group is None:
            lines.append(line)
        else:
            lines += [line[: group.start()] + part + line[group.end() :] for part in group[1].split(",")]
    return lines


def _with_grouped_locations(text: str) -> str:
    """``text`` read back (``_read_back``) and, after it, the ``path:line[:col]`` of every entry
    of its grouped findings (``lib/a.rb (2)`` over ``  3:1 7:2 C: msg``; a linter's own
    ``lib/a.rb`` over ``  3:1  msg``; headers in a row share the entries under the last), read
    here without the verifier's reader."""
    found: list[str] = []
    paths: list[str] = []
    after_header = False
    lines = _read_back(text)
    for line in lines:
        header = _GROUP.match(line)
        if header is not None:
            paths = [*paths, header["path"]] if after_header else [header["path"]]
            after_header = True
            continue
        after_header = False
        if paths and line.startswith("  "):
            for word in line.split():
                if not _PLACE.fullmatch(word):
                    break
                found += [f"{path}:{word}" for path in paths]
        else:
            paths = []
    return "\n".join([*lines, *found])


# What the generic compactor saves on a recorded case at least (o200k tokens of the text the
# model gets, report line included). luacheck's output is one line per file it read (each naming
# its file): it is recorded to prove that nothing is lost and nothing grows. Dense findings
# (prettier, perlcritic, sqlfluff, yamllint, jshint) save by their folds (``folds``).
SAVES = {
    "ant-junit-cart-failure": 0.7,
    "bandit-pytest-code-config": 0.45,
    "biome-lint-eslint-rules": 0.6,
    "bun-test-units-failure": 0.8,
    "codespell-hypothesis": 0.5,
    "cppcheck-mypyc-lib-rt": 0.6,
    "ctest-geom-one-failure": 0.8,
    "jshint-commander-lib": 0.55,
    "junit4-orders-failure": 0.7,
    "junit5-console-ledger-failure": 0.9,
    "perlcritic-git-modules": 0.25,
    "prettier-check-many": 0.25,
    "rubocop-ruby-stdlib-files": 0.55,
    "sqlfluff-postgres-contrib": 0.35,
    "sqlfluff-postgres-extensions": 0.3,
    "stylelint-source-highlight-css": 0.3,
    "vulture-robot-running-model": 0.3,
    "yamllint-gcloud-memorystore": 0.45,
    "yamllint-gcloud-schemas": 0.55,
}


@pytest.mark.parametrize("name", sorted(SAVES))
def test_recorded_output_saves_what_it_should(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERSH_HOME", str(tmp_path))
    command, exit_code, raw, _ = _case(GENERIC / name)
    result = pipeline.compact(command, exit_code, combined=raw, conf=settings.Settings())
    assert tokens.count(result.text) <= (1 - SAVES[name]) * tokens.count(raw.decode("utf-8", "replace"))


def test_code_frames_of_a_linter_with_no_rule_are_counted_unless_they_name_something() -> None:
    command, exit_code, raw, _ = _case(GENERIC / "biome-lint-eslint-rules")
    source = raw.decode()
    outcome = compact_text(source, invocation(command, exit_code))
    assert outcome.applied and outcome.rule == "generic"
    assert '\u2502 "use strict";' in source and '\u2502 "use strict";' not in outcome.text
    assert '    9 \u2502 const astUtils = require("./utils/ast-utils");' in outcome.text  # names a path
    assert " code-frame lines omitted]" in outcome.text


@pytest.mark.parametrize("name", ["java-logging-exception", "cargo-run-panic", "ant-junit-cart-failure",
                                  "ctest-geom-one-failure", "bun-test-units-failure"])  # fmt: skip
def test_failing_runs_are_compacted_without_reading_as_success(name: str) -> None:
    command, exit_code, raw, _ = _case(Path(__file__).parent / "fixtures" / "generic" / name)
    source = raw.decode()
    outcome = compact_text(source, invocation(command, exit_code))
    assert outcome.applied and outcome.rule == "generic"
    assert contradiction(source, outcome.text, exit_code) is None
    assert missing_facts(source, outcome.text) == []
    assert len(outcome.text) < len(source) // 2


def test_log_chatter_is_counted_where_it_stood_and_the_error_kept() -> None:
    text = "\n".join(
        [
            "starting",
            *(
                f"2024-05-01 10:00:{i % 60:02d} INFO worker - handled job {i} in {i % 7}ms"
                for i in range(200)
            ),
            "2024-05-01 10:01:00 ERROR worker - job 201 failed: disk quota exceeded",
            *(f"test_case_{i} PASSED" for i in range(30)),
            "done",
        ]
    )
    out = _generic.compact(text, invocation("worker --run", 1))
    assert out is not None
    lines = out.split("\n")
    assert lines[0] == "starting"
    assert lines[1] == "[tersh: 200 log lines omitted]"
    assert "2024-05-01 10:01:00 ERROR worker - job 201 failed: disk quota exceeded" in lines
    assert "[tersh: 30 passing-test lines omitted]" in lines and lines[-1] == "done"


def test_progress_lines_between_findings_are_counted_and_the_files_they_name_listed() -> None:
    progress: list[str] = []
    for i in range(1, 41):
        progress += [f"Checking src/mod_{i}.c ...", f"Checking src/mod_{i}.c: __linux__...",
                     f"{i}/40 files checked {i * 100 // 40}% done"]  # fmt: skip
    finding = "src/mod_20.c:12:5: error: Unmatched '{'. [syntaxError]"
    text = "\n".join([*progress[:60], finding, *progress[60:], "Checking src/broken.c ... failed"])
    out = _generic.compact(text, invocation("cppcheck src", 1))
    assert out is not None
    lines = out.split("\n")
    assert lines[0].startswith("[tersh: 120 progress lines omitted; they name: src/mod_1.c, src/mod_2.c")
    assert all(f"src/mod_{i}.c" in lines[0] for i in range(1, 41))
    assert finding in lines and "Checking src/broken.c ... failed" in lines  # not a progress line
    assert not any(line.startswith(("Checking src/mod_", "20/40 files")) for line in lines)


def test_same_shape_runs_keep_first_last_and_the_paths_they_name() -> None:
    text = "\n".join(["header", *(f"copied build/out/file_{i}.bin 120 bytes" for i in range(50)), "end"])
    out = _generic.compact(text, invocation("copy-tool", 0))
    assert out is not None
    assert "copied build/out/file_0.bin 120 bytes" in out and "copied build/out/file_49.bin 120 bytes" in out
    assert "48 lines of the same shape omitted" in out
    assert all(f"build/out/file_{i}.bin" in out for i in range(50))
    assert missing_facts(text, out) == []


def test_findings_are_grouped_by_file_and_verified() -> None:
    findings = [
        f"lib/{name}.rb:{n}:{n % 9 + 1}: C: Style/StringLiterals: Prefer single quotes."
        for name in ("a", "b")
        for n in range(1, 30)
    ]
    text = "\n".join(["Inspecting 2 files", *findings, "2 files inspected, 58 offenses detected"])
    out = _generic.compact(text, invocation("rubocop --format emacs", 1))
    # the two files' entries are the same: one header names both (``folds``)
    assert out is not None and "{lib/a.rb,lib/b.rb} (29)\n  1:2 2:3 3:4 " in out
    assert " C: Style/StringLiterals" in out and missing_facts(text, out) == []
    read = _with_grouped_locations(out)
    assert all(f"lib/{name}.rb:{n}:{n % 9 + 1}" in read for name in "ab" for n in range(1, 30))
    other = "\n".join([*findings[:29], *(finding.replace("single", "double") for finding in findings[29:])])
    out = _generic.compact(other, invocation("rubocop --format emacs", 1))
    assert out is not None and "lib/a.rb (29)\n  1:2 2:3 3:4 " in out
    assert "lib/b.rb (29)\n  1:2 2:3 3:4 " in out
    assert missing_facts(other, out) == []


def test_few_findings_stay_as_the_tool_wrote_them_while_their_frames_are_counted() -> None:
    """Up to FEW_FINDINGS findings are directly usable lines (as the linter rules keep them)."""
    findings = [
        line
        for n in range(1, 9)
        for line in (
            f"lib/a.rb:{n}:3: C: Layout/ExtraSpacing: Unnecessary spacing detected.",
            f"  value_{n} = compute  # note",
            "                       ^",
        )
    ]
    text = "\n".join(["Offenses:", "", *findings, "", "1 file inspected, 8 offenses detected"])
    out = _generic.compact(text, invocation("rubocop lib", 1))
    assert out is not None and "[tersh: 16 code-frame lines omitted]" in out
    for n in range(1, 9):
        assert f"lib/a.rb:{n}:3: C: Layout/ExtraSpacing: Unnecessary spacing detected." in out
    assert missing_facts(text, out) == []


def test_protected_lines_are_never_collapsed() -> None:
    for count in (40, 60):  # (not findings about a file: never folded either)
        text = "\n".join(f"warning: deprecated option --fast-{i} used" for i in range(count))
        assert _generic.compact(text, invocation("tool", 0)) is None


def test_small_or_plain_text_is_left_alone() -> None:
    assert _generic.compact("", invocation("tool", 0)) is None
    assert _generic.compact("one\ntwo\nthree", invocation("tool", 0)) is None
    assert (
        _generic.compact("\n".join(f"distinct line about {w}" for w in "abcdefgh"), invocation("t", 0))
        is None
    )


def test_identical_lines_are_one_line_and_a_repeat_count() -> None:
    text = "\n".join(["start", *["retrying connection..."] * 50, "", "", "", "end"])
    out = _generic.compact(text, invocation("some-daemon", 0))
    assert out == "start\nretrying connection...\n[tersh: previous line repeated 49 more times]\n\n\n\nend"


def test_caret_frames_are_counted_and_their_findings_grouped_unless_the_quote_names_something() -> None:
    findings = [
        line
        for n in range(1, 43)
        for line in (
            f"lib/a.rb:{n}:3: C: Layout/ExtraSpacing: Unnecessary spacing detected.",
            f"  value_{n} = compute  # note",
            "                       ^",
        )
    ]
    named = ["lib/a.rb:99:1: C: Style/Require: Use require_relative.", "require 'lib/b.rb'", "^^^^^^^"]
    text = "\n".join(["Offenses:", "", *findings, *named, "", "1 file inspected, 43 offenses detected"])
    out = _generic.compact(text, invocation("rubocop lib", 1))
    assert out is not None
    assert "[tersh: 84 code-frame lines omitted]" in out and "  value_1 = compute" not in out
    assert "lib/a.rb (43)\n  1:3 2:3 3:3 4:3 5:3 6:3 7:3 " in out and "C: Layout/ExtraSpacing" in out
    assert "require 'lib/b.rb'\n^^^^^^^" in out  # its quoted line names a path: it stays
    assert missing_facts(text, out) == []


def test_entries_of_one_file_that_share_a_message_are_merged_and_verified() -> None:
    mark = "\u2716"
    entries = [f"  {n}:{n % 7 + 1}  {mark}  Too many declarations, maximum 1  max" for n in range(3, 40, 3)]
    text = "\n".join(["", "css/a.css", *entries, f"  50:2  {mark}  Unknown property  no-unknown", "",
                      "css/b.css", f"  1:1  {mark}  Expected lower case  type-case", "",
                      f"{mark} 15 problems"])  # fmt: skip
    out = _generic.compact(text, invocation("stylelint 'css/*.css'", 2))
    assert out is not None
    places = " ".join(f"{n}:{n % 7 + 1}" for n in range(3, 40, 3))
    assert f"css/a.css (14)\n  {places} \u2716 Too many declarations, maximum 1 max" in out
    assert "  50:2 \u2716 Unknown property no-unknown" in out
    assert "css/b.css\n  1:1  \u2716  Expected lower case  type-case" in out  # nothing shared: as written
    assert missing_facts(text, out) == []
    assert all(f"css/a.css:{n}:{n % 7 + 1}" in _with_grouped_locations(out) for n in range(3, 40, 3))


def test_places_written_without_a_path_are_never_folded_into_a_run() -> None:
    entries = [f"  {n}:1  \u2716  Expected indentation of {n + 2} spaces  indentation" for n in range(10, 60)]
    sqlfluff = [f"L:  {n} | P:   1 | LT02 | Expected indent of 4 spaces. [layout]" for n in range(10, 60)]
    for lines in (entries, sqlfluff):
        text = "\n".join(["src/a.css", *lines, "done"])
        out = _generic.compact(text, invocation("lint src", 1)) or text
        read = set(_collapsed("\n".join(_read_back(out))).split("\n"))
        assert all(_collapsed(line) in read for line in lines)
        assert missing_facts(text, out) == []
        assert _generic._codes(text, text.split("\n"), _generic._fact_flags(text)) == _generic._line_codes(
            text.split("\n")
        )


def test_numbered_excerpts_and_repeated_links_under_findings_are_counted() -> None:
    command, exit_code, raw, _ = _case(GENERIC / "bandit-pytest-code-config")
    source = raw.decode()
    out = _generic.compact(source, invocation(command, exit_code))
    assert out is not None and missing_facts(source, out) == []
    lines = out.split("\n")
    quoted = "174\t        f_locals.update(vars)"
    assert quoted in source and quoted not in lines
    assert "333\t            except Exception:" in lines  # it reports something: it stays
    link = "   More Info: https://bandit.readthedocs.io/en/1.9.4/plugins/b101_assert_used.html"
    assert source.split("\n").count(link) > 20 and lines.count(link) == 1
    assert any(line.startswith("[tersh: ") and " repeated link lines omitted" in line for line in lines)
    assert sum(line.startswith("   Location: ") for line in lines) == source.count("   Location: ")


def test_an_excerpt_needs_a_finding_right_above_it() -> None:
    body = ["12\tvalue = compute(1)", "13\tother = compute(2)", "14\treturn value"]
    loose = "\n".join(["summary of the run", *body, "", "next", "more", "end"])
    assert _generic.compact(loose, invocation("tool", 0)) is None
    under = "\n".join(["   Location: src/a.py:13:4", *body, "", "next", "more", "end"])
    out = _generic.compact(under, invocation("tool", 1))
    assert out is not None and "[tersh: 3 code-frame lines omitted]" in out and "12\tvalue" not in out


def test_lines_whose_columns_are_padded_to_other_widths_are_one_shape() -> None:
    rows = [f"  task-{i * 7:<6} {i * 37:>7} ms  done" for i in range(60)]
    text = "\n".join(["header", *rows, "end"])
    out = _generic.compact(text, invocation("timings", 0))
    assert out is not None and "58 lines of the same shape omitted" in out
    assert rows[0] in out and rows[-1] in out
    assert missing_facts(text, out) == []


def test_lines_in_a_cycle_of_shapes_keep_their_first_and_last_cycles_and_what_they_name() -> None:
    pairs = [line for n in range(1, 41) for line in (
        f"        Start {n:3}: area_{n}",
        f"{n:3}/41 Test {'#' + str(n):>4}: area_{n} {'.' * (20 - len(str(n)))} Passed  0.0{n % 10} sec",
    )]  # fmt: skip
    failed = " 41/41 Test  #41: area_41 ..................***Failed    0.00 sec"
    text = "\n".join(["Test project build", *pairs, "        Start  41: area_41", failed, "", "done"])
    out = _generic.compact(text, invocation("ctest", 8))
    assert out is not None
    lines = out.split("\n")
    assert lines[1:3] == pairs[:2]  # the first cycle, and the last (its line before the failure)
    assert lines[3] == "[tersh: 77 lines of the same 2 shapes in turn omitted]"
    assert lines[4:7] == [pairs[-1], "        Start  41: area_41", failed]  # the failure ends the cycle
    assert missing_facts(text, out) == [] and contradiction(text, out, 8) is None
    named = [line for n in range(30) for line in (f"copy src/m{n}.c", f"  into build/m{n}.o: {n} bytes")]
    out = _generic.compact("\n".join(["start", *named, "end"]), invocation("copier", 0))
    assert out is not None and "56 lines of the same 2 shapes in turn omitted; they name: src/m1.c" in out
    assert all(f"src/m{n}.c" in out and f"build/m{n}.o" in out for n in range(30))


def test_a_cycle_is_made_of_lines_of_one_mask_and_comes_round_min_run_times() -> None:
    few = [line for n in range(3) for line in (f"Start {n}: a", f"Test {n} ok-ish done")]
    assert _generic.compact("\n".join(["head", *few, "tail"]), invocation("t", 0)) is None
    mixed = [line for n in range(12) for line in (f"Start {n}: a", f"Test {n} {'yn'[n % 2]}es done")]
    out = _generic.compact("\n".join(["head", *mixed, "tail"]), invocation("t", 0))
    assert out is None or "shapes in turn" not in out  # "yes" and "nes" are two shapes: no cycle
    words = [line for n in range(1, 51) for line in (f"out{n}", f"err{n}")]  # stdout and stderr in turn
    assert _generic.compact("\n".join(words), invocation("sh -c 'echo ...'", 0)) is None


def test_bun_passing_tests_are_counted_and_its_failures_kept() -> None:
    text = "\n".join(["test/a.test.ts:", *(f"(pass) units > case {n} [0.0{n % 9}ms]" for n in range(40)),
                     "(fail) units > case 40 [0.26ms]", "", " 40 pass", " 1 fail"])  # fmt: skip
    out = _generic.compact(text, invocation("bun test", 1))
    assert out is not None and "[tersh: 40 passing-test lines omitted]" in out
    assert "(fail) units > case 40 [0.26ms]" in out and "(pass)" not in out
