"""The forms a compaction may use to restate a fact, and how the verifier reads them back.

A rule may regroup findings instead of printing the tool's lines as they are. The verifier knows
these renderings by construction: each form below is read back into the lines it stands for, and
a source line a proposal restates so keeps its facts.

- **Grouped findings** (every rule that regroups by file): a *folder header*, a line that is not
  indented holding just a path, optionally ending with ``:`` or followed by `` (…)``
  (``src/a.py (3)``), heads the indented entries after it. An entry starting with ``line[:col]``
  (several places may share one message: ``  7:1 9:4  msg``) carries ``path:line[:col]`` for
  each place, and stands for these source lines of the same finding:
  ``path:line[:col]: message`` (the colon form of gcc, mypy, ruff's concise form…),
  ``path(line,col): message`` (tsc, MSBuild), ``line:col message`` (a linter's own grouped
  entry, eslint's stylish form), the message alone and ``--> path:line:col`` (the heading and
  the arrow of ruff's and rustc's full form). ``_read_entry`` builds them; ``_rebuilt_forms``
  says which a header allows.
- **Grouped search output** (grep, rg, ag, ack, ``git grep``): under a path header, ``NUM:text``
  is the match line ``path:NUM:text``, ``NUM-text`` the context line ``path-NUM-text`` (and
  ``path:NUM-text``, as ag and ack print context), an entry starting with ``:`` or ``-`` the
  line ``path`` + entry (``_search_held_lines``).
- **Grouped listing** (find, fd, locate, ``git ls-files``): an indented entry under a line ending
  with ``/`` stands for that header + entry (``_listing_held_lines``).

- **Brace groups** (the generic compactor's folds, ``folds``): a line holding ``{a,b,c}``
  stands for the line written once with each of ``a``, ``b``, ``c`` in the braces' place
  (``[warn] src/{a,b}.js`` for ``[warn] src/a.js`` and ``[warn] src/b.js``; ``L: {9,12} | P: 1 |
  msg`` for the entries at lines 9 and 12); each group of a line is read on its own, the other
  braces of the line kept as written (``brace_expansions``). A source line stands so only
  as a whole, white space collapsed (``_brace_held_lines``).

A rebuilt line counts only when it equals a source line (spaces and tabs around it aside, or,
for entries, once white space is collapsed); whitespace differences never matter otherwise.

Rules write these forms only through the renderer below (``group_header``, ``finding_entry``,
``finding_continuation``, ``search_entry``, ``SEARCH_SEPARATOR``, ``listing_group``,
``listing_entries``, ``brace_group``): ``kit.diag.render_grouped``, the generic compactor and
its folds, ``rules.search`` and ``rules.listing`` decide what goes in a group, never how it is
written.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh._startup.lean import lru_cache
from tersh.compaction.linestarts import LineStarts
from tersh.compaction.verify.facts import (
    _PATH_CHARS,
    _TRIM,
    _colon_location_path,
    _norm_path,
    iter_paths,
)
from tersh.compaction.verify.scan import (
    _COLON_DIGIT,
    _PAREN_LOCATION_MARK,
    CHUNK_CHARS,
    _chunk_lines,
)

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterable

# ---------------------------------------------------------------- the renderer (write side)

#: What starts a grouped finding entry (``  7:1 msg``) and each of its continuation lines.
FINDING_INDENT = "  "
CONTINUATION_INDENT = "    "
#: What starts a search or listing entry (one space: two cost 7% more tokens on a ``grep -rn``).
ENTRY_INDENT = " "
#: A search's ``--`` between two hunks of one file, inside the file's group.
SEARCH_SEPARATOR = ENTRY_INDENT + "--"
_LISTING_BREAK = "\n" + ENTRY_INDENT


def group_header(path: str, count: int = 0) -> str:
    """The header of a group of findings or search lines: ``path (count)``, or ``path`` alone
    when ``count`` is 0 (read back by ``_group_header``)."""
    return f"{path} ({count})" if count else path


def finding_entry(locations: Iterable[str], message: str) -> str:
    """The entry of the findings at ``locations`` (``line[:col]`` each) that share ``message``:
    ``  7:1 9:4 message`` (read back by ``_read_entry``)."""
    return f"{FINDING_INDENT}{' '.join(locations)} {message}"


def finding_continuation(line: str) -> str:
    """A line that belongs to the finding entry above it, indented under it."""
    return CONTINUATION_INDENT + line.strip()


def search_entry(line: str, path_end: int, numbered: bool) -> str:
    """The entry of the search line ``line`` under the header ``line[:path_end]`` (read back by
    ``_search_held_lines``): a numbered line loses its path and the separator after it
    (``path:12:text`` is `` 12:text``; ``path-12-text`` and ag's and ack's ``path:12-text`` are
    `` 12-text``), an unnumbered one its path only (``path:text`` is `` :text``)."""
    return ENTRY_INDENT + line[path_end + 1 if numbered else path_end :]


def listing_group(folder: str, names: list[str]) -> str:
    """The header ``folder`` (ending with ``/``) and its ``names`` as one text, a name a line:
    header + name is each listed path (read back by ``_listing_held_lines``)."""
    return folder + _LISTING_BREAK + _LISTING_BREAK.join(names)


def listing_entries(names: list[str]) -> str:
    """``names`` as entries under the folder header already in force, as one text."""
    return ENTRY_INDENT + _LISTING_BREAK.join(names)


#: What separates the alternatives of a brace group (none of them holds it, nor a brace).
BRACE_SEPARATOR = ","
_BRACE_BREAKERS = frozenset("{},\n")


def brace_group(prefix: str, alternatives: list[str], suffix: str) -> str | None:
    """The line ``prefix{a,b,...}suffix`` that stands for ``prefix + a + suffix`` for each of
    ``alternatives`` (read back by ``brace_expansions``); None when an alternative holds a brace,
    a comma or a line break, or the prefix or suffix a brace (the line would read otherwise)."""
    if any(_BRACE_BREAKERS.intersection(alternative) for alternative in alternatives):
        return None
    if "{" in prefix or "}" in prefix or "{" in suffix or "}" in suffix:
        return None
    return f"{prefix}{{{BRACE_SEPARATOR.join(alternatives)}}}{suffix}"


# ---------------------------------------------------------------- the readers

# A brace group: "{a,b}" (no brace inside; at least one separator).
_BRACE_GROUP = lazy(r"\{([^{}\n]*,[^{}\n]*)\}")
#: What every line with a brace group holds (a cheap test of a whole chunk).
BRACE_MARK = "{"


def brace_expansions(line: str) -> list[str]:
    """The lines each brace group of ``line`` stands for, in order: for the group ``{a,b}``, the
    line with ``a`` in its place, then with ``b``, the line's other braces as written."""
    found: list[str] = []
    for group in _BRACE_GROUP.finditer(line):
        head, tail = line[: group.start()], line[group.end() :]
        found.extend(head + alternative + tail for alternative in group[1].split(BRACE_SEPARATOR))
    return found


def _brace_held_lines(proposal: str) -> set[str]:
    """The lines the brace groups of the proposal stand for, white space collapsed."""
    found: set[str] = set()
    if BRACE_MARK not in proposal:
        return found
    for line in _chunk_lines(proposal):
        if BRACE_MARK in line:
            for expanded in brace_expansions(line):
                found.add(" ".join(expanded.split()))
    return found


_GROUP_HEADER = lazy(r"^(?P<path>\S+?)(?::)?(?: \(.*\))?\s*$")
# A grouped entry may list several locations that share one message: "  7:1 8:1 12:3  msg".
_ENTRY_LOCATION = lazy(r"\s*(?P<line>\d+)(?::(?P<col>\d+))?(?=\s|$)")
# Every _ENTRY_LOCATION match in a row from the start of an entry, as one match.
_ENTRY_LOCATIONS = lazy(r"(?:\s*\d+(?::\d+)?(?=\s|$))*")
# One place among them: its line and, when it has one, ``:`` and its column.
_PLACE = lazy(r"(\d+)(:\d+)?")
# How a finding entry of a grouped proposal starts ("  12:4 …").
_PATH_WORD_ONLY = lazy(rf"{_PATH_CHARS}+")
_PAREN_PATH_ONLY = lazy(rf"{_PATH_CHARS}+\.\w+")
_ENTRY_HEAD = lazy(r"[^\S\n]+\d+(?::\d+)?\b")
_LEADING_ENTRY_LOCATIONS = lazy(r"^(?:\d+(?::\d+)?\s+)+")


def _search_held_lines(proposal: str) -> set[str]:
    """The search lines the proposal's grouped entries stand for, rebuilt exactly.

    Under a header that is a path (``path`` or ``path (N)``), an indented entry ``NUM:text`` is
    the match line ``path:NUM:text``, ``NUM-text`` the context line ``path-NUM-text``, and an
    entry starting with ``:`` or ``-`` (no line numbers) the line ``path`` + entry. Only the
    indentation before the entry goes; the text after the separator is kept byte for byte, so a
    rebuilt line equals its source line or stands for none.
    """
    found: set[str] = set()
    header: str | None = None
    for line in _chunk_lines(proposal):
        if not line[:1].isspace():
            group = _GROUP_HEADER.match(line)
            header = group["path"].rstrip(":") if group and _group_header(line) else None
            continue
        entry = line.lstrip(" \t")
        if header is None or not entry:
            continue
        if entry[0] in ":-":
            found.add((header + entry).strip(" \t"))
            continue
        digits = len(entry) - len(entry.lstrip("0123456789"))
        separator = entry[digits : digits + 1]
        if digits and separator in (":", "-"):
            found.add((header + separator + entry).strip(" \t"))
            if separator == "-":  # ag and ack print context lines as path:NUM-text
                found.add((header + ":" + entry).strip(" \t"))
    return found


def _listing_held_lines(proposal: str) -> set[str]:
    """The listed paths the proposal's grouped entries stand for, rebuilt exactly.

    A line that is not indented and ends with ``/`` heads the indented lines after it: each is
    the path header + entry, the entry's indentation removed and the rest kept byte for byte,
    so a rebuilt line equals its source line or stands for none. Any other line that is not
    indented ends the group.
    """
    found: set[str] = set()
    header = ""
    add = found.add
    for line in _chunk_lines(proposal):
        if line[:1] not in (" ", "\t"):
            header = line if line.endswith("/") else ""
        elif header:
            entry = line.lstrip(" \t")
            if entry:
                add((header + entry).rstrip(" \t"))
    return found


# The lines a grouped entry stands for: a tool's own lines, and entry lines as ``line:col message``
# (white space collapsed), see ``_read_entry``.
_Rebuilt = tuple[set[str], set[str]]


def _read_groups(
    chunk: str,
    headers: tuple[str, ...],
    lines: set[str],
    locations: set[str],
    rebuilt: _Rebuilt,
    wanted: frozenset[str] = frozenset(),
) -> tuple[str, ...]:
    """Read the grouped entries of ``chunk`` under ``headers``; the headers in force after.

    A line that is not indented (an empty one too) decides the headers of the entries after it
    (one path, or a path's brace group: ``_group_headers``); an indented line is an entry of each
    when ``line[:col]`` starts it, else it changes nothing. ``rebuilt`` gets the
    ``path:line[:col]: message`` line of each simple entry (see ``_read_entry``).
    """
    rows = chunk.split("\n")
    if chunk.endswith("\n"):
        rows.pop()
    pending: str | None = None  # the last line that is not indented, not yet read as a header
    entry = _ENTRY_HEAD.match
    forms = [_rebuilt_forms(header).intersection(wanted) for header in headers]
    for raw in rows:
        if not raw[:1].isspace():
            pending = raw
        elif entry(raw) is not None:
            if pending is not None:
                headers, pending = _group_headers(pending), None
                forms = [_rebuilt_forms(header).intersection(wanted) for header in headers]
            for header, header_forms in zip(headers, forms, strict=True):
                _read_entry(raw, header, lines, locations, rebuilt, header_forms)
    if pending is not None:
        headers = _group_headers(pending)
    return headers


def _group_headers(raw: str) -> tuple[str, ...]:
    """The paths a line that is not indented heads a group with: the one ``_group_header``
    reads, or, for a line with one brace group (``src/{a,b}.py (3)``), the one of each line the
    group stands for when each is a header (``brace_expansions``); else none."""
    if BRACE_MARK in raw:
        expanded = brace_expansions(raw)
        if expanded:
            found = [header for header in map(_group_header, expanded) if header is not None]
            return tuple(found) if len(found) == len(expanded) else ()
    header = _group_header(raw)
    return () if header is None else (header,)


def _read_entry(
    raw: str, header: str, lines: set[str], locations: set[str], rebuilt: _Rebuilt, forms: frozenset[str]
) -> None:
    """Record an entry's locations and message, and in ``rebuilt`` the lines that stand for the
    same findings when such a line yields no fact the entry does not give (a message with no
    location in it that starts with no digit): the tool's own line per finding (``forms``, checked
    against the header by ``_rebuilt_forms``: ``header:line[:col]: message``, ``header(line,col):
    message``), and, white space collapsed, ``line:col message`` (a linter's own grouped entry),
    the message alone and ``--> header:line:col`` (the heading and arrow of ruff's full form).
    """
    run = _ENTRY_LOCATIONS.match(raw)
    end = run.end() if run else 0
    # (row, ":col" or "") of each place
    places = _PLACE.findall(raw, 0, end)
    message = raw[end:]
    flat = " ".join(message.split())
    lines.add(flat.strip(_TRIM))
    at = header + ":"
    add = locations.add
    for row, col in places:
        add(at + row)
        if col:
            add(at + row + col)
    # (white space never makes or breaks a location mark, but 'File "' may only show in ``flat``)
    if not places or not flat or flat[0].isdigit() or _holds_location(flat):
        return
    if not forms:
        return
    message = message.strip()
    tool_lines, entries = rebuilt
    if "message" in forms:
        entries.add(flat)  # the message alone (ruff's full form heads a finding with it)
    entry, arrow, colon, paren = (form in forms for form in ("entry", "arrow", "colon", "paren"))
    flat_tail, colon_tail, paren_head, paren_tail = " " + flat, ": " + message, header + "(", "): " + message
    for row, col in places:
        if colon:
            tool_lines.add(at + row + col + colon_tail)
        if col:  # (a bare line number would stay in the line's message: only line:col reads as a place)
            if entry:
                entries.add(row + col + flat_tail)
            if arrow:  # the arrow under ruff's and rustc's headings
                entries.add("--> " + at + row + col)
            if paren:
                tool_lines.add(paren_head + row + "," + col[1:] + paren_tail)


def _holds_location(text: str) -> bool:
    """Whether ``text`` may hold a location of any form (cheap literal tests)."""
    return (
        (":" in text and _COLON_DIGIT.search(text) is not None)
        or ("(" in text and _PAREN_LOCATION_MARK.search(text) is not None)
        or 'File "' in text
    )


@lru_cache(maxsize=1 << 12)
def _rebuilt_forms(header: str | None) -> frozenset[str]:
    """The line forms an entry under ``header`` may stand for: ``entry`` (``line:col message``)
    and ``message`` (the message alone) always; with ``header``, as it is, read back as their
    location's path and only path word, ``colon`` (``header:line:col: …``), ``arrow``
    (``--> header:line:col``) and ``paren`` (``header(line,col): …``)."""
    forms = {"entry", "message"}
    if header is not None and _PATH_WORD_ONLY.fullmatch(header) is not None:
        if _colon_location_path(header) == header:
            forms.update(("colon", "arrow"))
        if _PAREN_PATH_ONLY.fullmatch(header) and _norm_path(header) == header:
            forms.add("paren")
    return frozenset(forms)


# Each rebuilt form, with a mark of it to look for at the head of a source (``_source_forms``).
# (each tried at the line starts only)
_FORM_MARKS = (
    ("colon", LineStarts(r"[^\s:]+:\d+(?::\d+)?: ")),
    ("paren", LineStarts(r"[^\s(]+\(\d+,\d+\): ")),
    ("entry", LineStarts(r"[^\S\n]+\d+:\d+\s")),
    ("arrow", LineStarts(r"[^\S\n]*--> ")),
)
_ALL_FORMS = frozenset(("colon", "paren", "entry", "arrow", "message"))


def _source_forms(source: str) -> frozenset[str]:
    """The rebuilt forms the start of ``source`` shows (a guide for speed and memory only; an
    arrow comes under a heading that is the message alone)."""
    head = source[:CHUNK_CHARS]
    found = {name for name, mark in _FORM_MARKS if mark.holds(head)}
    return frozenset(found | {"message"} if "arrow" in found else found)


def _group_header(raw: str) -> str | None:
    """The path a line that is not indented heads a group with, or None."""
    group = _GROUP_HEADER.match(raw)
    if group and not raw[:1].isspace() and next(iter_paths(group["path"]), None):
        return _norm_path(group["path"].rstrip(":"))
    return None
