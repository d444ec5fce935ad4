"""Add, replace or remove one ``[a.b]`` table in a TOML file, leaving every other byte alone.

Python's standard library reads TOML but does not write it, and a round trip through a writer
would lose the user's comments and layout. So the edit is textual: the table is the block from
its header line to the next header line; subtables (``[a.b.c]``) belong to it. Every result is
checked with ``tomllib``: it must parse, and apart from the edited table it must hold exactly
the data it held before — otherwise the file is left untouched.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from tersh.errors import TershError

_HEADER = re.compile(r"^\s*\[")


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _basic_string(text: str) -> str:
    out = []
    for char in text:
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def toml_value(value: str | list[str]) -> str:
    """A TOML basic string or array of strings, escaped as the TOML spec requires."""
    if isinstance(value, str):
        return _basic_string(value)
    return "[" + ", ".join(_basic_string(item) for item in value) + "]"


def render_table(dotted: str, values: dict[str, str | list[str]]) -> str:
    """``[dotted]`` followed by one ``key = value`` line per entry."""
    lines = [f"[{dotted}]"] + [f"{key} = {toml_value(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


def _header_names(dotted: str) -> re.Pattern[str]:
    parts = [rf"\s*(?:{re.escape(p)}|\"{re.escape(p)}\")\s*" for p in dotted.split(".")]
    return re.compile(r"^\s*\[" + r"\.".join(parts) + r"(?:\.[^\]]*)?\]\s*(?:#.*)?$")


def _span(lines: list[str], dotted: str) -> tuple[int, int] | None:
    """First and past-last line of the table (with its subtables), or None."""
    own = _header_names(dotted)
    start = next((i for i, line in enumerate(lines) if own.match(line)), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and (not _HEADER.match(lines[end]) or own.match(lines[end])):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # leave the blank lines that separate the next table
    return start, end


def _lookup(data: dict[str, Any], dotted: str) -> object:
    node: object = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _without(data: dict[str, Any], dotted: str) -> dict[str, Any]:
    """A copy of ``data`` without table ``dotted``, and without parents it left empty."""
    parts = dotted.split(".")
    copy: dict[str, Any] = json.loads(json.dumps(data, default=str))
    chain = [copy]
    for part in parts[:-1]:
        child = chain[-1].get(part)
        if not isinstance(child, dict):
            return copy
        chain.append(child)
    chain[-1].pop(parts[-1], None)
    for depth in range(len(parts) - 1, 0, -1):
        if not chain[depth]:
            chain[depth - 1].pop(parts[depth - 1], None)
    return copy


def _parse(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TershError(f"not valid TOML ({exc}); not touching it") from exc


def set_table(text: str, dotted: str, table_text: str | None) -> str:
    """``text`` with table ``dotted`` replaced by ``table_text`` (None removes it)."""
    before = _parse(text)
    lines = text.splitlines(keepends=True)
    span = _span(lines, dotted)
    if span is None and _lookup(before, dotted) is not None:
        raise TershError(f"[{dotted}] is written in a form tersh cannot edit safely; edit it by hand")
    if span is not None:
        start, end = span
        tail = lines[end:]
        head = lines[:start]
        if table_text is None:
            while tail and not tail[0].strip() and (not head or not head[-1].strip()):
                tail = tail[1:]
            while not tail and head and not head[-1].strip():
                head = head[:-1]  # the blank line tersh put before its table
            new_text = "".join(head + tail)
        else:
            new_text = "".join([*head, table_text, *tail])
    elif table_text is None:
        return text
    else:
        body = text if not text or text.endswith("\n") else text + "\n"
        separator = "\n" if body.strip() else ""
        new_text = (body if body.strip() else "") + separator + table_text
    after = _parse(new_text)
    if _without(after, dotted) != _without(before, dotted):
        raise TershError(f"editing [{dotted}] would change other settings; not touching it")
    return new_text


def get_table(text: str, dotted: str) -> object:
    """The parsed value of table ``dotted`` in ``text`` (None when absent)."""
    return _lookup(_parse(text), dotted)
