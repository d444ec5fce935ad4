"""Strategies: minimal reads keep line prefixes, tail cuts keep whole lines, JSON stays valid."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from tersh.tools import strategies


def numbered(lines: list[str]) -> str:
    return "\n".join(f"{i + 1}: {line}" for i, line in enumerate(lines))


def test_minimal_keeps_prefixes_and_line_numbers() -> None:
    text = numbered(["# header", "import os", "", "", "", "# why", "x = 1  # set"])
    result = strategies.minimal(text, "/repo/a.py")
    assert result.text == "2: import os\n3: \n7: x = 1  # set"
    assert result.lossy
    assert result.notes == ("2 comment lines removed", "2 repeated blank lines removed")


def test_minimal_handles_cat_n_and_arrow_prefixes() -> None:
    text = "     1\t// c\n     2\tint x;\n     3→// d\n     4→int y;"
    assert strategies.minimal(text, "a.c").text == "     2\tint x;\n     4→int y;"


def test_minimal_leaves_unknown_types_alone() -> None:
    text = numbered(["# not a comment in markdown-ish text"] * 3)
    assert strategies.minimal(text, "notes.txt") == strategies.Shrunk(text, False, ())


def test_source_path_from_metadata_or_tag() -> None:
    assert strategies.source_path("", {"args": {"filePath": "/a/b.py"}}) == "/a/b.py"
    assert strategies.source_path("", {"tool_input": {"file_path": "c.rs"}}) == "c.rs"
    assert strategies.source_path("<path>/x/Dockerfile</path>\n", {}) == "/x/Dockerfile"


def test_tail_never_breaks_a_line_and_counts_what_it_dropped() -> None:
    rows = [f"src/m{i % 7}.py:{i}:def f{i}():" for i in range(500)]
    result = strategies.tail("\n".join(rows), 2000)
    assert result is not None and result.lossy
    body, footer = result.text.rsplit("\n", 1)
    assert all(line in rows for line in body.split("\n"))
    kept = len(body.split("\n"))
    assert footer == f"[… tersh: {500 - kept} lines in 7 files omitted at the end …]"


def test_tail_gives_up_when_no_whole_line_fits() -> None:
    assert strategies.tail("x" * 5000 + "\nshort", 100) is None


def test_middle_keeps_head_and_tail_and_says_what_it_dropped() -> None:
    text = "\n".join(f"line {i}" for i in range(1000))
    result = strategies.middle(text, 1000)
    assert len(result.text) <= 1000
    assert result.text.startswith("line 0\n") and result.text.endswith("line 999")
    assert "lines (" in result.text and "omitted here" in result.text


@given(st.text(min_size=1, max_size=3000), st.integers(min_value=60, max_value=2000))
def test_middle_respects_its_budget(text: str, budget: int) -> None:
    result = strategies.middle(text, budget)
    assert len(result.text) <= max(budget, 0) or not result.lossy


def test_json_minified_when_that_is_enough_and_shortened_validly_otherwise() -> None:
    doc = {"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(300)]}
    text = json.dumps(doc, indent=4)
    value = strategies.json_document(text)
    loose = strategies.compact_json(text, 100_000, value)
    assert not loose.lossy and json.loads(loose.text) == doc
    tight = strategies.compact_json(text, 3000, value)
    assert tight.lossy and len(tight.text) <= 3000
    shortened = json.loads(tight.text)
    assert shortened["items"][0] == doc["items"][0]
    assert "more items" in shortened["items"][-1]
    assert tight.notes[0].startswith("JSON shortened:")


def test_minify_keeps_strings_and_numbers_byte_exact() -> None:
    text = '{ "a b" : 1.50e3 , "s" : "x  \\"  y" , "u": "\\u00e9" }'
    assert strategies.minify_json(text) == '{"a b":1.50e3,"s":"x  \\"  y","u":"\\u00e9"}'


def test_strategy_lookup() -> None:
    assert strategies.strategy_for("Read") == "minimal"
    assert strategies.strategy_for("grep") == "tail"
    assert strategies.strategy_for("glob") == "tail"
    assert strategies.strategy_for("task") == "middle"
    assert strategies.strategy_for("webfetch") == "middle"
    assert strategies.strategy_for("mcp__github__list_issues") == "middle"
    assert strategies.strategy_for("bash") == "skip"


def _big_python(lines: int) -> list[str]:
    return [f"# comment {i}" if i % 4 == 0 else f"value_{i} = {i}" for i in range(lines)]


def test_large_reads_strip_both_ends_and_account_for_every_line() -> None:
    rows = _big_python(20_000)
    text = numbered(rows)
    result = strategies.minimal_then_middle(text, "big.py", 8000)
    assert len(result.text) <= 8000 and result.lossy
    body = result.text.split("\n")
    assert not any(": # comment" in line for line in body)
    assert body[0] == "2: value_1 = 1" and body[-1] == "20000: value_19999 = 19999"
    comments_note = next(n for n in result.notes if "comment" in n)
    marker = next(line for line in body if "omitted here" in line)
    removed = int(comments_note.split()[0].replace(",", ""))
    omitted = int(marker.split("tersh: ")[1].split(" ")[0].replace(",", ""))
    kept = len(body) - 1
    assert kept + removed + omitted == 20_000


def test_tail_window_inside_a_string_is_left_as_it_is() -> None:
    rows = _big_python(20_000)
    rows[100] = 'DOC = """'  # opens a string that runs to the end of the file
    text = numbered(rows)
    result = strategies.minimal_then_middle(text, "big.py", 8000)
    tail = result.text.split("omitted here")[1]
    assert ": # comment 19996" in tail  # inside the string: not a comment, kept


MARKER = re.compile(r"\[… tersh: ([\d,]+) lines? \(([\d,]+) chars\) omitted here …\]")


def log_with_errors(count: int = 3000) -> tuple[str, list[str]]:
    errors = {
        700: "ERROR worker-4: job 137 failed: connection reset (src/net/pool.py:237)",
        1500: "WARNING disk almost full on /var",
        2200: 'Traceback (most recent call last):\n  File "app/main.py", line 88, in run',
    }
    lines = [errors.get(i, f"INFO request {i} served in {i % 17} ms") for i in range(count)]
    return "\n".join(lines), [line for e in errors.values() for line in e.split("\n")]


def test_middle_keeps_every_protected_line_before_filler_and_counts_the_rest() -> None:
    text, protected = log_with_errors()
    result = strategies.middle(text, 4000)
    assert len(result.text) <= 4000 and result.lossy
    for line in protected:
        assert line in result.text.split("\n"), line
    assert result.text.startswith("INFO request 0 ")
    assert result.text.endswith("INFO request 2999 served in 7 ms")
    kept = [line for line in result.text.split("\n") if not MARKER.fullmatch(line)]
    omitted = sum(int(m.group(1).replace(",", "")) for m in MARKER.finditer(result.text))
    assert len(kept) + omitted == text.count("\n") + 1  # every line is shown or counted
    assert "error, warning or location line" in " ".join(result.notes)


def test_middle_keeps_protected_lines_only_within_its_budget() -> None:
    lines = [f"ERROR {i}: {'x' * 80}" for i in range(500)]
    result = strategies.middle("\n".join(lines), 3000)
    assert len(result.text) <= 3000 and result.lossy


@given(
    st.lists(st.sampled_from(["ok line", "ERROR bad", "a.py:3: boom", "", "x" * 300]), max_size=200),
    st.integers(min_value=60, max_value=3000),
)
def test_middle_with_protected_lines_respects_its_budget(rows: list[str], budget: int) -> None:
    text = "\n".join(rows)
    result = strategies.middle(text, budget)
    assert len(result.text) <= budget or not result.lossy
