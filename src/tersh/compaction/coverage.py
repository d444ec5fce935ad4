"""Coverage tables without their borders and padding; every path and every number stays.

Two table forms cover most runs:

- istanbul's ``text`` reporter (jest, vitest, c8, nyc): ``File | % Stmts | … | Uncovered Line #s``
  between rows of ``-`` and ``|``, each cell padded to its column's width, folders as indented
  rows above their files;
- coverage.py's terminal report (``coverage report``, pytest-cov): ``Name  Stmts  Miss  Cover
  Missing`` under a ``----`` rule, numbers right-aligned, then ``TOTAL``.

Borders, rules and padding are most of such a table's tokens and carry nothing. An istanbul row
keeps its indentation (so the nesting of folders reads as before) and its trimmed cells, one
space apart (``|`` apart where a cell holds a space); a coverage.py row becomes its cells joined
by single spaces. Rows, their order and every cell's text are kept; one note line says the table
was re-spaced.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy

NOTE = "[tersh] coverage table re-spaced: borders and padding removed, every row and cell kept"

_ISTANBUL_HEADER = lazy(r"^[^|\n]*\|\s*% Stmts\s*\|")
_ISTANBUL_BORDER = lazy(r"^-+(?:\|-+)+\s*$")
_PY_HEADER = lazy(r"^Name(?P<columns>(?:\s+(?:Stmts|Miss|Branch|BrPart|Cover|Missing|Excluded))+)\s*$")
_PY_RULE = lazy(r"^-{8,}\s*$")
_PY_BANNER = lazy(r"^[-_]{3,} (?P<title>coverage: .*?) [-_]{3,}\s*$")
_NUMBER = lazy(r"^\d+(?:\.\d+)?%?$")


def has_table(text: str) -> bool:
    """Whether ``text`` may hold a coverage table this module re-spaces (a cheap literal test)."""
    return "% Stmts" in text or ("Stmts" in text and "Cover" in text)


def compact(text: str) -> str | None:
    """``text`` with its coverage tables re-spaced, or None when it holds none worth it."""
    lines = text.split("\n")
    out: list[str] = []
    changed = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if _ISTANBUL_HEADER.match(line):
            end, rows = _istanbul(lines, index)
        elif _PY_HEADER.match(line):
            end, rows = _coverage_py(lines, index)
        else:
            end, rows = index + 1, None
        if rows is None:
            out.append(line)
        else:
            if out and _ISTANBUL_BORDER.match(out[-1]):
                while out and _ISTANBUL_BORDER.match(out[-1]):
                    out.pop()  # the borders above the header
            if out and _PY_BANNER.match(out[-1]):
                out[-1] = _PY_BANNER.sub(r"\g<title>", out[-1])
            out.append(NOTE)
            out.extend(rows)
            changed = True
        index = end
    if not changed:
        return None
    result = "\n".join(out)
    return result if len(result) < len(text) else None


def _istanbul(lines: list[str], start: int) -> tuple[int, list[str] | None]:
    """Rows of the istanbul table whose header is ``lines[start]``; (end index, rows)."""
    width = lines[start].count("|")
    rows = [_cells(lines[start], header=True)]
    index = start + 1
    while index < len(lines):
        line = lines[index]
        if _ISTANBUL_BORDER.match(line):
            index += 1
            continue
        if line.count("|") != width:
            break
        rows.append(_cells(line))
        index += 1
    if len(rows) < 2:
        return start + 1, None
    return index, rows


def _cells(line: str, header: bool = False) -> str:
    first, *rest = line.split("|")
    cells = [first.rstrip(), *(cell.strip() for cell in rest)]
    while len(cells) > 1 and not cells[-1]:
        cells.pop()  # the empty last column (no uncovered lines) reads the same without it
    if header or " " in first.strip() or not all(cells[1:]):
        return "|".join(cells)
    return " ".join(cells)  # a row's cells hold no space: one space apart reads unambiguously


def _coverage_py(lines: list[str], start: int) -> tuple[int, list[str] | None]:
    """Rows of the coverage.py report whose header is ``lines[start]``; (end index, rows)."""
    columns = lines[start].split()[1:]
    numeric = [name for name in columns if name != "Missing"]
    rows = [" ".join(["Name", *columns])]
    index = start + 1
    while index < len(lines):
        line = lines[index]
        if _PY_RULE.match(line):
            index += 1
            continue
        row = _py_row(line, len(numeric))
        if row is None:
            break
        rows.append(row)
        index += 1
    if len(rows) < 2:
        return start + 1, None
    return index, rows


def _py_row(line: str, numeric: int) -> str | None:
    """A coverage.py row as single-spaced cells, or None when ``line`` is not one."""
    parts = line.split(None, numeric + 1)
    if len(parts) < numeric + 1 or not all(_NUMBER.match(cell) for cell in parts[1 : numeric + 1]):
        return None
    if len(parts) == numeric + 2:
        missing = parts[-1].rstrip()
        return " ".join([*parts[: numeric + 1], missing])
    return " ".join(parts)
