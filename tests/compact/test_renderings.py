"""The renderer of verify/renderings.py writes only what its readers read back: each grouped
form, as the regrouping rules write it, stands for the very source lines it came from."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tersh.compaction.verify import renderings as r

paths = st.from_regex(r"[a-z]{1,8}(/[a-z_]{1,8}){0,3}\.(py|rs|ts|c)", fullmatch=True)
folders = st.from_regex(r"(\./)?[a-z]{1,8}(/[a-z_.-]{1,8}){0,3}/", fullmatch=True)
name = st.from_regex(r"[A-Za-z0-9_.-]{1,12}(\.[a-z]{1,3})?", fullmatch=True)
names = st.lists(name, min_size=1, max_size=5)
# Text after a search line's prefix, kept byte for byte (leading blanks and tabs too).
texts = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=30)
numbers = st.integers(1, 99_999)
# A finding's message: starts with a letter, names no location of its own.
messages = st.from_regex(r"[A-Z][a-z]{0,6}[0-9]{0,4}( [a-z]{1,8}){0,4}", fullmatch=True)


@given(paths, st.lists(st.tuples(numbers, st.booleans(), texts), min_size=2, max_size=6))
def test_grouped_search_lines_stand_for_their_lines(path: str, rows: list[tuple[int, bool, str]]) -> None:
    # grep / rg / git grep write path:12:text and path-12-text; ag and ack write path:12-text.
    for context_sep in ("-", ":"):
        lines = [f"{path}:{n}:{text}" if match else f"{path}{context_sep}{n}-{text}"
                 for n, match, text in rows]
        entries = [r.search_entry(line, len(path), numbered=True) for line in lines]
        proposal = "\n".join([r.group_header(path, sum(m for _, m, _ in rows)), *entries, r.SEARCH_SEPARATOR])
        held = r._search_held_lines(proposal)
        assert {line.strip(" \t") for line in lines} <= held


@given(paths, st.lists(st.tuples(st.booleans(), texts), min_size=2, max_size=6))
def test_grouped_unnumbered_search_lines_stand_for_their_lines(path: str,
                                                               rows: list[tuple[bool, str]]) -> None:
    lines = [f"{path}{':' if match else '-'}{text}" for match, text in rows]
    entries = [r.search_entry(line, len(path), numbered=False) for line in lines]
    held = r._search_held_lines("\n".join([r.group_header(path), *entries]))
    assert {line.strip(" \t") for line in lines} <= held


@given(folders, names, names)
def test_a_grouped_listing_stands_for_its_paths(folder: str, first: list[str], more: list[str]) -> None:
    proposal = "\n".join([r.listing_group(folder, first), r.listing_entries(more)])
    assert {folder + name for name in [*first, *more]} <= r._listing_held_lines(proposal)


@given(paths, st.lists(st.tuples(numbers, st.integers(1, 200)), min_size=1, max_size=4), messages)
def test_a_grouped_finding_stands_for_the_tools_own_lines(path: str, places: list[tuple[int, int]],
                                                          message: str) -> None:
    locations = [f"{line}:{col}" for line, col in places]
    chunk = "\n".join([r.group_header(path, len(locations)), r.finding_entry(locations, message),
                       r.finding_continuation("  help: see the docs")]) + "\n"
    lines: set[str] = set()
    found: set[str] = set()
    rebuilt: tuple[set[str], set[str]] = (set(), set())
    r._read_groups(chunk, (), lines, found, rebuilt, r._ALL_FORMS)
    tool_lines, entries = rebuilt
    for location in locations:
        assert f"{path}:{location}" in found
        assert f"{path}:{location}: {message}" in tool_lines  # gcc, mypy, ruff's concise form
        assert f"{path}({location.replace(':', ',')}): {message}" in tool_lines  # tsc, MSBuild
        assert f"{location} {message}" in entries  # eslint's stylish entry
        assert f"--> {path}:{location}" in entries  # the arrow of ruff's and rustc's full form
