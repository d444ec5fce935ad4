"""Coverage tables re-spaced: real jest and pytest-cov runs, every path and number kept.

The fixtures are real runs recorded for these tests (jest 30 with ``--coverage`` on a small
project with three failing tests; pytest 9 + pytest-cov over boltons 24.0.0's own suite). Their
facts come from each tool's machine-readable report of the same run: istanbul's
``coverage-summary.json`` and ``coverage json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tersh
from tersh import tokens
from tersh.compaction import compact_text, coverage
from tersh.compaction.clean import clean
from tersh.compaction.detect import invocation

FIXTURES = Path(__file__).parent / "fixtures" / "coverage"
CASES = ["jest-coverage", "pytest-cov-boltons"]


def _case(name: str) -> tuple[str, dict[str, object]]:
    text = (FIXTURES / f"{name}.out").read_text(encoding="utf-8")
    facts = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return text, facts


@pytest.mark.parametrize("name", CASES)
def test_every_fact_of_the_machine_readable_report_is_kept(name: str) -> None:
    text, facts = _case(name)
    result = tersh.compact(str(facts["command"]), int(str(facts["exit_code"])), combined=text.encode())
    missing = [fact for fact in facts["must_keep"] if fact not in result.text]  # type: ignore[attr-defined]
    assert missing == []


@pytest.mark.parametrize("name", CASES)
def test_each_row_keeps_its_cells_in_order_on_one_line(name: str) -> None:
    text, facts = _case(name)
    out = compact_text(clean(text), invocation(str(facts["command"]), int(str(facts["exit_code"])))).text
    lines = out.split("\n")
    for row in facts["rows"]:  # type: ignore[attr-defined]
        name_cell = Path(row[0]).name if name.startswith("jest") else row[0]
        holding = [line for line in lines if line.split()[:1] == [name_cell]]
        assert len(holding) == 1, (row, holding)
        assert holding[0].split()[: len(row)] == [name_cell, *row[1:]]


def test_a_jest_table_loses_its_borders_and_padding_and_costs_fewer_tokens() -> None:
    text, facts = _case("jest-coverage")
    out = compact_text(clean(text), invocation(str(facts["command"]), 1)).text
    assert "|---------|" not in out
    assert coverage.NOTE in out
    assert "  debounce.js 50 36.36 100 50 3,8-11,16-17" in out.split("\n")
    # Before the capture report: whether the report's cost is paid is the pipeline's floor.
    assert tokens.count(out) <= 0.85 * tokens.count(text)


def test_the_missing_lines_of_a_python_report_are_kept_verbatim() -> None:
    text, _ = _case("pytest-cov-boltons")
    out = coverage.compact(text)
    assert out is not None
    for line in text.split("\n"):
        if line.startswith("boltons/") and "%" in line:
            cells = line.split(None, 4)
            if len(cells) == 5:
                assert cells[4].rstrip() in out


ISTANBUL = """\
-----------------|---------|----------|---------|---------|-------------------
File             | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s
-----------------|---------|----------|---------|---------|-------------------
All files        |   91.66 |       75 |     100 |   91.66 |
 src             |   91.66 |       75 |     100 |   91.66 |
  my module.js   |   83.33 |       50 |     100 |   83.33 | 7
  index.js       |     100 |      100 |     100 |     100 |
-----------------|---------|----------|---------|---------|-------------------"""


def test_istanbul_rows_keep_indentation_and_a_name_with_a_space_keeps_its_bars() -> None:
    out = coverage.compact("before\n" + ISTANBUL + "\nafter")
    assert out is not None
    assert out.split("\n") == [
        "before",
        coverage.NOTE,
        "File|% Stmts|% Branch|% Funcs|% Lines|Uncovered Line #s",
        "All files|91.66|75|100|91.66",
        " src 91.66 75 100 91.66",
        "  my module.js|83.33|50|100|83.33|7",
        "  index.js 100 100 100 100",
        "after",
    ]


def test_text_without_a_table_or_with_a_header_alone_is_left_alone() -> None:
    assert coverage.compact("Stmts and Cover are words here\nnothing else") is None
    assert coverage.compact("File | % Stmts | % Lines\nno rows follow") is None
    assert coverage.compact("Name    Stmts   Miss  Cover\nsrc/a py 1 2 3\n") is None
