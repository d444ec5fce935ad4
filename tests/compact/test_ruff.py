"""The ruff rule on real ruff output: full format, concise, statistics, clean runs."""

from __future__ import annotations

import json

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import ruff as rule
from tersh.compaction.verify import facts
from tersh.compaction.verify import holds as verify
from tests.compact import support

FIXTURES = {  # name: (command, exit code, applied)
    "ruff-full-all": ("ruff check --select ALL bad.py", 1, True),
    "ruff-full-few": ("ruff check --select F,E bad.py", 1, True),
    "ruff-concise-all": ("ruff check --output-format concise --select ALL bad.py", 1, True),
    # ruff check --select ALL on mdurl (48 findings), in two more output formats
    "ruff-grouped-mdurl": ("ruff check --select ALL --output-format grouped mdurl", 1, True),
    "ruff-pylint-format-mdurl": ("ruff check --select ALL --output-format pylint mdurl", 1, True),
    # ruff 0.17 format --check on 45 unformatted files: a diff per file
    "ruff-format-check-diff": ("ruff format --check .", 1, True),
    # ruff 0.17 check --select ALL on pytest's warnings.py and recwarn.py: code frames and fix
    # diffs quoting "warn", "fail", "Exception" (the findings are in the .json next to it)
    "ruff-full-frames-pytest": ("ruff check --select ALL warnings.py recwarn.py", 1, True),
}


@pytest.mark.parametrize("name", FIXTURES)
def test_recorded_output(name: str, snapshot: SnapshotAssertion) -> None:
    cmd, exit_code, applied = FIXTURES[name]
    outcome = support.check_text_fixture(rule, "ruff", name, cmd, exit_code)
    assert outcome.applied is applied, outcome.refused
    assert outcome.text == snapshot


def test_full_format_becomes_concise_lines_when_few() -> None:
    text = support.check_text_fixture(rule, "ruff", "ruff-full-few", "ruff check", 1).text
    assert "bad.py:1:1: E401 [*] Multiple imports on one line" in text
    assert "bad.py:1:12: F401 [*] `sys` imported but unused" in text
    assert "help: Split imports" not in text and " --> bad.py" not in text
    assert text.splitlines()[-2].startswith("[*] ") or "Found" in text


def test_many_findings_are_grouped_with_summary_kept() -> None:
    case = support.case("lint__ruff-boltons-default-full")
    text = support.run(rule, case.combined, case.cmd, case.exit_code).text
    assert "boltons/cacheutils.py (" in text
    assert "  66:1 I001 [*] Import block is un-sorted or un-formatted" in text
    assert "Found 540 errors." in text
    assert "[*] 192 fixable with `--fix` (198 unsafe fixes available with `--fix --unsafe-fixes`)." in text


def test_quoted_code_with_a_protected_fact_stays_under_its_finding() -> None:
    case = support.case("lint__ruff-boltons-default-full")
    text = support.run(rule, case.combined, case.cmd, case.exit_code).text
    # quoted code naming a path stays, once, under the first finding whose frame shows it
    assert (
        "  1:1 I001 [*] Import block is un-sorted or un-formatted\n    3 |   sys.path.append('/home/" in text
    )
    assert text.count("3 |   sys.path.append('/home/mahmoud/projects/lithoxyl/')") == 1
    # quoted code whose only protected-looking word is the file's own text ("Exception") goes
    assert "  73:8 BLE001 Do not catch blind exception: `Exception`\n  " in text
    assert "73 | except Exception:" not in text


def test_code_frames_are_kept_only_with_a_fact_and_once() -> None:
    """On real output, every finding of ruff's JSON form is kept; no frame line is kept for
    the words "error"/"warn"/"fail" of the code it quotes, and none twice."""
    name = "ruff-full-frames-pytest"
    text = support.check_text_fixture(rule, "ruff", name, FIXTURES[name][0], 1).text
    findings = json.loads((support.FIXTURES / "ruff" / f"{name}.json").read_text(encoding="utf-8"))
    index = verify._Index(text)
    for found in findings:
        assert index.holds("location", f"{found['filename']}:{found['row']}:{found['column']}"), found
        assert f" {found['code']} " in text and found["message"] in text, found
    source = support.text_fixture("ruff", name)
    quoted = [line for line in source.splitlines() if facts.may_be_quoted_source(line)]
    severe = [line for line in quoted if facts.is_diagnostic(line) and not list(facts.iter_paths(line))]
    assert len(severe) > 20  # the fixture shows the case: quoted code holding severity words
    kept = text.splitlines()
    assert not [line for line in kept if line.strip() in {x.strip() for x in severe}]
    extra = [" ".join(line.split()) for line in kept if line.startswith("    ")]
    assert len(extra) == len(set(extra))


def test_empty_and_foreign_input() -> None:
    inv = detect.invocation("ruff check .", 0)
    assert rule.compact("", inv) is None
    assert rule.compact("All checks passed!\n", inv) is None


def test_registry_and_sniffer() -> None:
    assert rule_for_program(detect.invocation("uv run ruff check src", 1)) is rule
    assert rule.sniff(support.case("lint__ruff-boltons-default-full").combined) >= 0.9
    assert rule.sniff("hello\n") == 0.0


def test_grouped_format_entries_are_findings_regrouped_when_many() -> None:
    text = support.text_fixture("ruff", "ruff-grouped-mdurl")
    entries = text.split("\n\n", 1)[1].rsplit("\n\nFound", 1)[0]
    bigger = "\n\n".join(entries.replace("mdurl/", f"mdurl{n}/") for n in range(3))
    outcome = support.run(rule, bigger + "\n\nFound 144 errors.\n", "ruff check --output-format grouped", 1)
    assert outcome.applied, outcome.refused
    assert "mdurl0/_decode.py (" in outcome.text and "\nmdurl0/_decode.py:\n" not in outcome.text
    assert "Found 144 errors." in outcome.text
    assert support.token_saving(bigger, outcome.text) >= 0.12


def test_pylint_format_findings_are_recognised() -> None:
    cmd = "ruff check --output-format pylint"
    outcome = support.check_text_fixture(rule, "ruff", "ruff-pylint-format-mdurl", cmd, 1)
    assert outcome.applied, outcome.refused
    assert "mdurl/_decode.py (" in outcome.text
    assert "\n  1 [D104] Missing docstring in public package\n" in outcome.text


def test_format_check_keeps_every_file_and_the_summary_and_counts_the_diffs() -> None:
    text = support.check_text_fixture(rule, "ruff", "ruff-format-check-diff", "ruff format --check .", 1).text
    assert all(f"mod_{n}.py" in text for n in range(1, 46))
    assert "45 files would be reformatted" in text
    assert "return a + b" not in text and "code-frame or fix-hint line" in text
