"""The bulk readings of the build and lint rules, held equal to their per-line definitions.

Each rule reads its tool's output a block or a run of findings at a time (compiled regexes over
the whole text, ``str.count``), not a Python step per line; the readable per-line reading stays
beside it (or here) as the definition. Outputs assembled from real lines of each tool, mixed
with lines of the shapes where the two readings could part, must give the same result.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.rules import cargobuild, eslint, flake8, golangci, mypy, pylint, ruff, tsc
from tersh.compaction.verify import holds as verify
from tests.compact import support


def _bulk_text(lines: list[str], newline_at_end: bool) -> str:
    """An output of ``lines``; only those a rule reads in bulk (no line break but "\\n": a text
    with others is read a line at a time)."""
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    assume(not any(mark in text for mark in _diag.OTHER_BREAKS))
    return text


_PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Lines where a reading a block at a time could part from one a line at a time: findings hidden
# in hint or gutter shapes, grouped files and entries, frames of every shape, other line breaks.
_RUFF_EDGES = [
    "help:3: F401 [*] `os` imported but unused", "|a.py:3:1: E501 Line too long", "|a.b:",
    "src/x.py:", "  12:5  F401 [*] `os` imported but unused", "  12:5 F401", "12:3: F401 x",
    "> 12 | x = 1", "12 | raise ValueError('error')", "   |     ^^^^ here", "   |", "...",
    "..:3: F401 x", "-" * 19, "-" * 20, "-" * 25, "-" * 25 + "x", "--- a.py", "│ x", "12 + fixed", "12 - old",
    "   - old", "note: This is an unsafe fix", "note[x]: y", "hint: z", "help[x]: w",
    "info: see src/a.py:3", "F401 [*] `os` imported but unused", "  --> src/a.py:1:8",
    "   --> a.py:12:30  ", "unformatted: File would be reformatted", "E501 Line too long",
    "Found 3 errors.", "[*] 2 fixable with the `--fix` option.", "  deadbeef1 commit",
    "12 | see lib/b.py:4", "   12 | warning: quoted", "", " ", "\t",
    "  1\t2", "1 2 | x", "12", "12 |", "h", "n", "note", "helper: x", "nothing: 1:2",
]  # fmt: skip
_RUFF_LINES = st.one_of(
    st.sampled_from(support.fragment_lines("lint__ruff", "ruff")), st.sampled_from(_RUFF_EDGES)
)


def _ruff_reading(text: str, bulk: bool) -> tuple[list[_diag.Finding | str], dict[str, int], str | None]:
    reading = ruff._Reading(ruff._newline_lines(text))
    if bulk:
        reading.read_bulk(text)
    else:
        reading.read_each()
    return reading.items, reading.dropped, reading.group


# Findings as ruff writes them: a heading, its arrow, a frame; or a line of any shape.
_RUFF_FINDING = st.tuples(
    st.sampled_from(
        ("F401 [*] `os` imported but unused", "E501 Line too long", "unformatted: File", "help: x")
    ),
    st.sampled_from(("  --> src/a.py:1:8", "   --> a b.py:12:30  ", " --> x:1:2:3", "  -> src/a.py:1:8")),
    st.lists(st.one_of(st.sampled_from(_RUFF_EDGES), _RUFF_LINES), max_size=6),
).map(lambda parts: [parts[0], parts[1], *parts[2]])
_RUFF_OUTPUTS = st.lists(
    st.one_of(_RUFF_FINDING, st.lists(_RUFF_LINES, max_size=3)), min_size=1, max_size=25
).map(lambda blocks: [line for block in blocks for line in block])


@_PROPERTY
@given(st.one_of(st.lists(_RUFF_LINES, min_size=1, max_size=150), _RUFF_OUTPUTS), st.booleans())
def test_ruff_reads_blocks_as_it_reads_lines(lines: list[str], newline_at_end: bool) -> None:
    text = _bulk_text(lines, newline_at_end)
    assume(text.replace("\n", ""))
    assert _ruff_reading(text, bulk=True) == _ruff_reading(text, bulk=False)


@_PROPERTY
@given(_RUFF_LINES)
def test_frame_fact_kind_says_what_frame_line_carries_fact_needs(line: str) -> None:
    kind = _diag.frame_fact_kind(line)
    if kind == _diag.BLANK:
        assert not line.strip()
        return
    for quoted in ([line, "   |"], [line]):  # quoted code (a gutter under it), or not
        expected = _diag.frame_line_carries_fact(quoted, 0)
        if kind == _diag.NO_FACT:
            assert expected is False
        elif kind == _diag.FACT:
            assert expected is True


# ---------------------------------------------------------------- cargo build: the per-line readings

_CARGO_EDGES = [
    "", " ", "   |", "  |   ^^^^ expected `u32`", "  |_____^", "25 |     + x as u32", "71 +     return x;",
    "71 -     return y;", "...", "error[E0308]: mismatched types", "warning: unused import: `x`",
    "  --> src/lib.rs:4:5", "   --> src/a.rs:10:1  ", "  ::: src/b.rs:1:1", "   = note: `#[warn(x)]` on",
    "   = help: for further information visit https://rust-lang.github.io/x", "help: try this",
    "note: see here", "   Compiling semver v1.0.27 (/home/dev/semver)", "   Compiling bad error v1",
    "    Finished `dev` profile", "     Running `target/debug/x`", "src/lib.rs:7:9: error[E0308]: bad",
    "src/lib.rs:8:1: warning: unused", "error: could not compile `x`", "hello from the program",
    "  Downloaded serde v1.0", "e", "w", "warning", "error[E0308]: mismatched types  ",
]  # fmt: skip
_CARGO_LINES = st.one_of(
    st.sampled_from(support.fragment_lines("build__cargo", "cargobuild")), st.sampled_from(_CARGO_EDGES)
)


def _cargo_read_each(lines: list[str]) -> tuple[list[str], dict[str, int], dict[str, None], int, int, int]:
    """What the cargo build rule reads of each line in turn (its definition before the bulk reading)."""
    out: list[str] = []
    dropped = {"progress line": 0, "code-frame line": 0}
    paths: dict[str, None] = {}
    recognised = other = 0
    short = 0
    for line in lines:
        if (": error" in line or ": warning" in line) and cargobuild._SHORT.match(line):
            recognised += 1
            short += 1
            out.append(line)
        elif cargobuild._PROGRESS.match(line) and not verify.is_diagnostic(line):
            recognised += 1
            dropped["progress line"] += 1
            if "/" in line or "." in line:
                paths.update(dict.fromkeys(verify.iter_paths(line)))
        elif _diag.is_frame_line(line):
            recognised += 1
            reduced = _diag.reduce_frame_line(line)
            if reduced is None:
                dropped["code-frame line"] += 1
            else:
                out.append(reduced)
        else:
            if cargobuild._HEADER.match(line) or cargobuild._OUTCOME.match(line):
                recognised += 1
            elif line.strip():
                other += 1
            out.append(line)
    return out, dropped, paths, recognised, other, short


def _cargo_merge_each(lines: list[str]) -> tuple[list[str], int]:
    """The cargo build rule's merge of repeated diagnostic blocks, a line and a block at a time."""
    blocks: list[list[str]] = []
    for line in lines:
        starts = line[:1] in "ew" and cargobuild._BLOCK_START.match(line) is not None
        if starts or not blocks or not line.strip() or not blocks[-1][-1].strip():
            blocks.append([line])
        else:
            blocks[-1].append(line)
    first: dict[tuple[str, ...], list[str]] = {}
    keep: list[tuple[list[str], tuple[str, ...] | None]] = []
    merged = 0
    for block in blocks:
        key = _cargo_block_key(block)
        if key is None:
            keep.append((block, None))
        elif key in first:
            first[key].append(next(match[1] for match in map(cargobuild._ARROW.match, block) if match))
            merged += 1
        else:
            first[key] = []
            keep.append((block, key))
    out: list[str] = []
    for block, key in keep:
        out.extend(block)
        if key is not None and first[key]:
            out.append(f"{core.MARK} same diagnostic also at: {' '.join(first[key])}")
    return _squeeze_each(out), merged


def _cargo_block_key(block: list[str]) -> tuple[str, ...] | None:
    if not cargobuild._BLOCK_START.match(block[0]):
        return None
    for index, line in enumerate(block):
        if "-->" in line and cargobuild._ARROW.match(line):
            rest = map(str.strip, block[:index] + block[index + 1 :])
            return tuple(cargobuild._EDIT_NUMBER.sub("", x, count=1) if x[:1].isdigit() else x for x in rest)
    return None


def _squeeze_each(lines: list[str]) -> list[str]:
    squeezed: list[str] = []
    for line in lines:
        if line.strip() or (squeezed and squeezed[-1].strip()):
            squeezed.append(line)
    return squeezed


def _help_links_each(lines: list[str]) -> tuple[list[str], int]:
    seen: set[str] = set()
    kept: list[str] = []
    for line in lines:
        if "for further information visit" in line and cargobuild._HELP_LINK.match(line):
            link = line.strip()
            if link in seen:
                continue
            seen.add(link)
        kept.append(line)
    return kept, len(lines) - len(kept)


@_PROPERTY
@given(st.lists(_CARGO_LINES, min_size=1, max_size=150), st.booleans())
def test_cargo_reads_distinct_lines_as_it_reads_each(lines: list[str], newline_at_end: bool) -> None:
    text = _bulk_text(lines, newline_at_end)
    assert cargobuild._read_bulk(text) == _cargo_read_each(text.splitlines())
    assert cargobuild._read_lines(text.splitlines()) == _cargo_read_each(text.splitlines())


# Diagnostic blocks that repeat (the same message at two places), with and without blank lines.
_CARGO_BLOCK = st.tuples(
    st.sampled_from(("error[E0308]: mismatched types", "warning: unused import: `x`", "note: x")),
    st.sampled_from(("  --> src/a.rs:4:5", "  --> src/b.rs:9:1", "   |", "")),
    st.lists(st.sampled_from(("   |", "4 -     x", "9 -     x", "  = help: y", "", " ")), max_size=3),
).map(lambda parts: [parts[0], parts[1], *parts[2]])
_CARGO_BLOCKS = st.lists(st.one_of(_CARGO_BLOCK, st.lists(_CARGO_LINES, max_size=3)), max_size=30).map(
    lambda blocks: [line for block in blocks for line in block]
)


@_PROPERTY
@given(st.one_of(st.lists(_CARGO_LINES, max_size=150), _CARGO_BLOCKS))
def test_cargo_merges_blocks_as_it_did_a_line_at_a_time(lines: list[str]) -> None:
    assert cargobuild._squeeze_blank(lines) == _squeeze_each(lines)
    assert cargobuild._merge_repeated(lines) == _cargo_merge_each(lines)
    assert cargobuild._first_help_links(lines) == _help_links_each(lines)


# ---------------------------------------------------------------- eslint: a file's block of entries at once

_ESLINT_EDGES = [
    "", " ", "\t", "/home/dev/app/index.js", "src/a.js", "lib/b.ts", "not a path at all",
    "   7:1  error  Unexpected var, use let or const instead  no-var",
    "  12:5  warning  'x' is defined but never used  no-unused-vars", "  3:1 error x", "  3:1  error",
    "\t4:2\terror\tTabs  rule", "  9:9  info  not an entry", "  10:1  errors  plural",
    "src/a.js:1:2: Unexpected var [Error/no-var]", "✖ 3 problems (3 errors, 0 warnings)",
    "  2 errors and 0 warnings potentially fixable with the `--fix` option.",
]  # fmt: skip
_ESLINT_LINES = st.one_of(
    st.sampled_from(support.fragment_lines("lint__eslint", "eslint")), st.sampled_from(_ESLINT_EDGES)
)


def _eslint_reading(text: str, bulk: bool) -> tuple[list[object], bool]:
    reading = eslint._Reading()
    if bulk:
        reading.read_bulk(text)
    else:
        reading.read_lines(text.splitlines())
    return list(reading.items), reading.seen_eslint


@_PROPERTY
@given(st.lists(_ESLINT_LINES, min_size=1, max_size=150), st.booleans())
def test_eslint_reads_blocks_as_it_reads_lines(lines: list[str], newline_at_end: bool) -> None:
    text = _bulk_text(lines, newline_at_end)
    assert _eslint_reading(text, bulk=True) == _eslint_reading(text, bulk=False)


# ---------------------------------------------------------------- tsc: errors as plain tuples

_TSC_EDGES = [
    "", " ", "src/a.ts(1,2): error TS2345: Argument of type 'string'.", "src/a.ts(3,4): warning TS1: w",
    "src/a.ts:42:7 - error TS2322: Type 'string' is not assignable", "  Type 'number' is not 'string'.",
    "42   timeout: options.timeout,", "     ~~~~~~~", "  ~", "12 see src/b.ts:3",
    "Found 7 errors in 2 files.",
    "Errors  Files", "     6  src/api/client.ts:42", "[12:00:00 PM] Starting compilation in watch mode...",
    "a b(1,2): error TS1: x", "src/a.ts(1,2): error TS2345:", "\tindented with a tab",
    "~~x", "~", "~~ ~~", "7 x", "7", "\u3000", "\u3000indented", "src/b.ts:1:2 - warning TS9: w",
]  # fmt: skip
_TSC_LINES = st.one_of(
    st.sampled_from(support.fragment_lines("build__tsc", "tsc")), st.sampled_from(_TSC_EDGES)
)


def _tsc_read_each(lines: list[str]) -> tuple[list[_diag.Finding | str], dict[str, int], bool]:
    """The tsc rule's reading before errors became plain tuples (its readable definition)."""
    items: list[_diag.Finding | str] = []
    dropped = {"quoted source or marker line": 0}
    run = _diag.FindingRun(items)
    recognised = False
    for line in lines:
        match = tsc._PLAIN.match(line) or tsc._PRETTY.match(line)
        if match:
            run.close()
            location = f"{match['line']}:{match['col']}"
            run.current, recognised = (
                _diag.make_finding((match["path"], location, match["text"], line, ())),
                True,
            )
            continue
        if not line.strip():
            continue
        if run.current is not None and tsc._PRETTY.match(run.current.source_line) and tsc._QUOTED.match(line):
            if core.carries_fact(line, paths=True) and "~" not in line:
                run.extra.append(line)
            else:
                dropped["quoted source or marker line"] += 1
        elif run.current is not None and line[:1].isspace():
            run.extra.append(line)
        else:
            run.close()
            items.append(line)
    run.close()
    return items, dropped, recognised


@_PROPERTY
@given(st.lists(_TSC_LINES, max_size=150))
def test_tsc_reads_errors_as_it_did_with_finding_records(lines: list[str]) -> None:
    items, dropped, recognised = tsc._read(lines)
    expected = _tsc_read_each(lines)
    assert (list(items), dropped, recognised) == (list(expected[0]), *expected[1:])


@_PROPERTY
@given(st.text(alphabet="ab\n ", max_size=40), st.integers(0, 40))
def test_eslint_blocks_are_the_text_split_at_empty_lines(text: str, size: int) -> None:
    assert list(eslint._blocks(text, size)) == text[:size].split("\n\n")


# ---------------------------------------------------------------- kit.diag: group heads and groups in bulk

_PATH_PIECES = st.sampled_from(
    ("a", "src", "/", "//", ".", "..", "-", "_", "1", "py", "kB/s", "/sec", "N/A", "I/O", "and/or",
     "w/o", "/s", "x.py", "\u00e9", "\u00b2", " ", ":", "\t", "@", "~", "+", "\n")
)  # fmt: skip
_PATHS = st.lists(_PATH_PIECES, max_size=6).map("".join)


@_PROPERTY
@given(st.lists(_PATHS, max_size=40), st.booleans())
def test_heading_paths_are_those_heads_group_accepts(paths: list[str], strict: bool) -> None:
    assert _diag.heading_paths(paths, strict) == {path for path in paths if _diag._heads_group(path, strict)}



# ---------------------------------------------------------------- line-per-finding linters: one regex

_LINE_EDGES = [
    "", " ", "\t", "src/a.py:1:2: E501 line too long", "src/a.py:1: E501 x", "src/a.py:1:2 E501 x",
    "src/a.py:1:2:  E501 x", "src/a.py:1:2: ", "a b.py:1:2: E1 x", "(a).py:1:2: E1 x", ":1:2: E1 x",
    " src/a.py:1:2: E1 x", "src/a.py:12a: E1 x", "src/a.py:1:2:3: E1 x", "src:a.py:1:2: E1 x",
    "x:1:2: C0114: Missing module docstring (missing-module-docstring)",
    "x:3: [C0114(missing-module-docstring), ] Missing module docstring",
    "************* Module app.models", "************* Module src/app/models.py", "-" * 12, "-" * 9,
    "Your code has been rated at 7.12/10", "12", "\u00e9/a.py:1:2: E1 \u00e9", "a.py:1:2: \u3000x",
]  # fmt: skip


def _line_texts(prefix: str, tool: str) -> st.SearchStrategy[tuple[list[str], bool]]:
    lines = st.one_of(st.sampled_from(support.fragment_lines(prefix, tool)), st.sampled_from(_LINE_EDGES))
    return st.tuples(st.lists(lines, min_size=1, max_size=150), st.booleans())


@_PROPERTY
@given(_line_texts("lint__flake8", "flake8"))
def test_flake8_reads_the_whole_text_as_it_reads_lines(drawn: tuple[list[str], bool]) -> None:
    text = _bulk_text(*drawn)
    expected = flake8._read_lines(text.splitlines())
    assert flake8._read_bulk(text) == expected
    assert _in_small_chunks(flake8._read_bulk, text) == expected


def _in_small_chunks(read: Callable[[str], object], text: str) -> object:
    """``read(text)`` with the kit's chunks a few characters long (every chunk boundary tried)."""
    size = _diag.CHUNK_CHARS
    _diag.CHUNK_CHARS = 5  # type: ignore[misc]
    try:
        return read(text)
    finally:
        _diag.CHUNK_CHARS = size  # type: ignore[misc]


@_PROPERTY
@given(_line_texts("lint__pylint", "pylint"))
def test_pylint_reads_the_whole_text_as_it_reads_lines(drawn: tuple[list[str], bool]) -> None:
    text = _bulk_text(*drawn)
    each = pylint._Reading()
    each.read_lines(text.splitlines())
    bulk = pylint._Reading()
    bulk.read_bulk(text)
    assert (bulk.items, bulk.dropped, bulk.seen_pylint) == (each.items, each.dropped, each.seen_pylint)
    chunked = pylint._Reading()
    _in_small_chunks(chunked.read_bulk, text)
    assert (chunked.items, chunked.dropped) == (each.items, each.dropped)
    assert chunked.seen_pylint == each.seen_pylint


@_PROPERTY
@given(_line_texts("lint__flake8", "flake8"))
def test_line_rows_are_line_finding_on_each_line(drawn: tuple[list[str], bool]) -> None:
    text = _bulk_text(*drawn)
    expected = []
    for line in text.splitlines():
        finding = _diag.line_finding(line)
        if finding is not None:
            expected.append((line, finding.path, finding.location, finding.text, ""))
        elif line.strip():
            expected.append(("", "", "", "", line))
    assert _diag.line_rows(text) == expected


_ARROW_EDGES = st.sampled_from(("  --> a.rs:1:2 x", "-->  a.rs:1:2", " --> a:1:2 \u3000", "-->a:1:2"))


@_PROPERTY
@given(st.lists(st.one_of(_CARGO_LINES, _ARROW_EDGES)))
def test_cargo_block_lines_read_at_once_as_each(lines: list[str]) -> None:
    said = cargobuild._block_lines(lines)
    for line in lines:
        starts, blank, key, place = cargobuild._block_line(line)
        assert said[line] == (starts, blank, key, place or None)


# ---------------------------------------------------------------- golangci: a finding with its quoted source

_GO_EDGES = [
    "", " ", "\t", " \t", "\tdefer rows.Close()", "\t          ^", "   ^", "^", "^ x", "\t^",
    "internal/a.go:48:12: Error return value of `rows.Close` is not checked (errcheck)",
    "internal/a.go:48: x (vet)", "a.go:1:2:3: x", "a b.go:1:2: x", "go: downloading example.com/x v1.0.0",
    "go: finding x", "# example.com/pkg", "3 issues:", "* errcheck: 1", "\tsee lib/b.go:3",
    "level=warning msg=\"x\"", "x.go: y", "src/a.py:1:2: E1 .go: x",
]  # fmt: skip


_GO_LINES = _GO_EDGES + [
    line for path in sorted((support.FIXTURES / "golangci").glob("*.txt"))
    for line in path.read_text(encoding="utf-8").splitlines()
]  # fmt: skip


def _go_reading(text: str, bulk: bool) -> tuple[object, ...]:
    reading = golangci._Reading()
    if bulk:
        reading.read_bulk(text)
    else:
        for line in text.splitlines():
            reading.step(line)
    reading.run.close()
    return reading.items, reading.dropped, reading.paths, reading.recognised


# A download line does not end the finding before it: the tab-led line after it is still under
# that finding (a reading of the bulk form once skipped it).
_GO_DOWNLOAD_BETWEEN = [
    "internal/a.go:48:12: Error return value of `rows.Close` is not checked (errcheck)",
    "go: downloading example.com/x v1.0.0", "\t", "\tsee lib/b.go:3", "   ^",
]


@_PROPERTY
@given(st.tuples(st.lists(st.sampled_from(_GO_LINES), min_size=1, max_size=100), st.booleans()))
@example((_GO_DOWNLOAD_BETWEEN, False))
@example((_GO_DOWNLOAD_BETWEEN, True))
def test_golangci_reads_findings_with_their_source_as_it_reads_lines(drawn: tuple[list[str], bool]) -> None:
    text = _bulk_text(*drawn)
    assert _go_reading(text, bulk=True) == _go_reading(text, bulk=False)


# ---------------------------------------------------------------- mypy: findings rebuilt without _replace

_MYPY_LINES = st.one_of(
    st.sampled_from(support.fragment_lines("build__mypy", "mypy")),
    st.sampled_from(("  a.py:1: error: x", "a.py:1: note: y", "a:1:2:3:4: error: z", "  a.py:1: error: w")),
)


@_PROPERTY
@given(_MYPY_LINES, st.sampled_from(("", "  [arg-type]", "more words")))
def test_mypy_findings_are_what_replace_made(line: str, tail: str) -> None:
    finding = mypy._finding(line)
    plain = _diag.line_finding(line.lstrip())
    if plain is not None and mypy._SEVERITY_TEXT.match(plain.text):
        assert finding == plain._replace(source_line=line)
        assert type(finding) is _diag.Finding
        joined = mypy._joined(finding, tail)
        assert joined == finding._replace(
            text=f"{finding.text} {tail.strip()}", source_line=f"{finding.source_line} {tail.strip()}"
        )
        assert type(joined) is _diag.Finding


def test_both_tsc_forms_capture_path_line_col_text_in_that_order() -> None:
    # tsc._read takes an error's groups by position
    order = {"path": 1, "line": 2, "col": 3, "text": 4}
    assert tsc._PLAIN.groupindex == order
    assert tsc._PRETTY.groupindex == order
    assert tsc._PLAIN.groups == tsc._PRETTY.groups == 4
