"""The mypy rule (mypy, dmypy, pyright) on real and recorded type-checker output."""

from __future__ import annotations

import json

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import mypy as rule
from tests.compact import support

FIXTURES = {  # name: (command, exit code, applied)
    "mypy-pretty-many": ("mypy --pretty --strict bad.py", 1, True),
    "pyright-errors": ("npx pyright", 1, False),
    "mypy-crash": ("mypy src", 2, False),
    # mypy --strict --disallow-any-expr --show-column-numbers --show-error-context --show-error-end
    "mypy-context-end": ("mypy --strict --show-error-context --show-error-end platformdirs", 1, True),
}


@pytest.mark.parametrize("name", FIXTURES)
def test_recorded_output(name: str, snapshot: SnapshotAssertion) -> None:
    cmd, exit_code, applied = FIXTURES[name]
    outcome = support.check_text_fixture(rule, "mypy", name, cmd, exit_code)
    assert outcome.applied is applied, outcome.refused
    assert outcome.text == snapshot


def test_wrapped_messages_are_joined_and_quoted_source_dropped() -> None:
    case = support.case("build__mypy-click-injected-errors")
    text = support.run(rule, case.combined, case.cmd, case.exit_code).text
    assert (
        'src/click/_compat.py:537: error: Argument 1 to "strip_ansi" has incompatible type "bytes";'
        ' expected "str"  [arg-type]'
    ) in text
    assert "^~~~" not in text and "return len(strip_ansi(x.encode()))" not in text
    assert "Found 5 errors in 3 files (checked 28 source files)" in text


def test_many_errors_are_grouped_by_file() -> None:
    text = support.check_text_fixture(rule, "mypy", "mypy-pretty-many", "mypy --pretty", 1).text
    assert text.startswith("bad.py (61)\n")
    assert "    note: Possible overload variants:" in text
    assert "Found 61 errors in 1 file (checked 1 source file)" in text


def test_many_pyright_findings_are_grouped_with_their_continuations() -> None:
    head, body = support.text_fixture("mypy", "pyright-errors").split("pyright 1.1.389\n", 1)
    findings = body.rsplit("\n3 errors", 1)[0]
    text = head + findings * 15 + "\n45 errors, 15 warnings, 0 informations \n"
    outcome = support.run(rule, text, "pyright", 1)
    assert outcome.applied, outcome.refused
    assert "/home/dev/work/app/src/app/models.py (30)" in outcome.text
    # the rule that ends the last continuation line is moved onto the finding's own line
    entry = ' - error: Type "str | None" is not assignable to return type "str" (reportReturnType)\n'
    assert entry in outcome.text
    assert '    "None" is not assignable to "str"\n' in outcome.text
    assert "Searching for source files" not in outcome.text
    assert "45 errors, 15 warnings, 0 informations" in outcome.text


def test_empty_input() -> None:
    assert rule.compact("", detect.invocation("mypy .", 0)) is None


def test_registry_and_sniffer() -> None:
    assert rule_for_program(detect.invocation("uv run mypy src", 1)) is rule
    assert rule_for_program(detect.invocation("npx pyright", 1)) is rule
    assert rule.sniff(support.case("build__mypy-marshmallow-clean").combined) >= 0.9
    assert rule.sniff(support.text_fixture("mypy", "pyright-errors")) >= 0.9
    assert rule.sniff("ok\n") == 0.0


def test_error_end_positions_and_context_lines_when_grouped() -> None:
    raw = support.text_fixture("mypy", "mypy-context-end")
    outcome = support.run(rule, raw, "mypy --show-error-context --show-error-end platformdirs", 1)
    assert outcome.applied, outcome.refused
    assert "platformdirs/_android.py (10)" in outcome.text
    assert "  17:2 error: " in outcome.text  # "path:17:2:17:24: error:" read with its start
    assert ": note: In member" not in outcome.text and "error-context lines" in outcome.text
    assert "error end positions omitted" in outcome.text
    assert "Found 57 errors in 9 files (checked 15 source files)" in outcome.text
    assert support.token_saving(raw, outcome.text) >= 0.4


def test_a_context_line_whose_path_reads_as_a_severity_stays() -> None:
    finding = 'click/exceptions.py:{n}:12:{n}:15: error: Expression has type "Any"  [misc]\n'
    context = 'click/exceptions.py: note: In member "show" of class "ClickException":\n'
    text = context + "".join(finding.format(n=n) for n in range(10, 60)) + "Found 50 errors in 1 file\n"
    outcome = support.run(rule, text, "mypy --show-error-context --show-error-end click", 1)
    assert outcome.applied, outcome.refused
    assert context.strip() in outcome.text
    assert "  10:12 11:12 12:12" in outcome.text


def test_few_findings_with_end_positions_stay_as_they_are() -> None:
    line = 'a/b.py:{n}:1:{n}:9: error: Name "x" is not defined  [name-defined]\n'
    text = "".join(line.format(n=n) for n in range(1, 9))
    assert rule.compact(text + "Found 8 errors in 1 file\n", detect.invocation("mypy a", 1)) is None


def _entry_blocks(text: str) -> dict[str, list[str]]:
    """The grouped form read back: per file header, each entry with its continuation lines."""
    blocks: dict[str, list[str]] = {}
    path = ""
    for line in text.splitlines():
        if line.startswith("    ") and path:
            blocks[path][-1] += "\n" + line
        elif line.startswith("  ") and path:
            blocks[path].append(line)
        elif line.endswith(")") and " (" in line and not line.startswith("["):
            path = line.rsplit(" (", 1)[0]
            blocks.setdefault(path, [])
        else:
            path = ""
    return blocks


def test_real_pyright_output_keeps_each_diagnostic_with_its_rule() -> None:
    """pyright 1.1.414 indents continuation lines with no-break spaces: each stays under its
    finding, no file heading is joined onto a finding, and every diagnostic of the run's JSON
    report is in its file's group, at its place, with its rule."""
    text = support.text_fixture("mypy", "pyright-nbsp-pytest")
    report = json.loads((support.FIXTURES / "mypy" / "pyright-nbsp-pytest.json").read_text())
    outcome = support.run(rule, text, "pyright _pytest", 1)
    assert outcome.applied, outcome.refused
    blocks = _entry_blocks(outcome.text)
    for path, place, name in report["diagnostics"]:
        assert any(place in entry.split(" - ", 1)[0].split() and f"({name})" in entry
                   for entry in blocks[path]), (path, place, name)
    assert not [line for line in outcome.text.splitlines() if line.startswith("  ") and line.endswith(".py")]
    assert "171 errors, 0 warnings, 0 informations" in outcome.text


def test_pyright_rule_moves_onto_its_finding_unless_the_line_is_protected() -> None:
    text = "/src/app/models.py\n" + "".join(
        f'  /src/app/models.py:{n}:5 - error: Type "int" is not assignable to "str"\n'
        '    "int" is not assignable to "str" (reportAssignmentType)\n'
        f'  /src/app/models.py:{n}:9 - error: Argument of type "X" cannot be assigned\n'
        '    "StopTest" is not assignable to "Exception" (reportArgumentType)\n'
        for n in range(1, 31)
    ) + "60 errors, 0 warnings, 0 informations\n"
    outcome = support.run(rule, text, "pyright", 1)
    assert outcome.applied, outcome.refused
    assert ' 30:5 - error: Type "int" is not assignable to "str" (reportAssignmentType)\n' in outcome.text
    assert '    "int" is not assignable to "str"\n' in outcome.text
    # the verifier protects a line that reads as an error report: it stays whole
    assert '    "StopTest" is not assignable to "Exception" (reportArgumentType)' in outcome.text
