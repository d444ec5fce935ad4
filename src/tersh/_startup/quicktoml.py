"""Read the plain subset of TOML that tersh's own settings file uses, without ``tomllib``.

``tomllib`` costs several milliseconds to import (it compiles regular expressions and pulls in
``string``, ``datetime`` and ``typing``), more than the rest of ``tersh run``'s start-up. The
settings file tersh writes holds only ``[table]`` headers and ``key = value`` lines whose values
are booleans, plain integers, plain decimals and strings without escapes; :func:`parse_plain`
reads exactly that and returns None for anything else, so the caller falls back to ``tomllib``.
For every document it accepts, the result equals ``tomllib.loads``.
"""

from __future__ import annotations

_BARE_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_DIGITS = frozenset("0123456789")
#: Control characters TOML forbids outside strings too (tab and newline are allowed).
_FORBIDDEN = frozenset(chr(code) for code in (*range(0, 9), *range(11, 32), 127))

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    Value = bool | int | float | str
    Table = dict[str, "Value | Table"]


def parse_plain(text: str) -> dict[str, object] | None:
    """The document ``text`` as nested dicts, or None when it uses more than the plain subset."""
    if not _FORBIDDEN.isdisjoint(text):
        return None
    root: dict[str, object] = {}
    table = root
    headers: set[str] = set()
    for raw_line in text.split("\n"):
        line = raw_line.strip(" \t")
        if not line or line[0] == "#":
            continue
        if line[0] == "[":
            found = _table(root, line, headers)
            if found is None:
                return None
            table = found
            continue
        key, eq, raw_value = line.partition("=")
        key = key.strip(" \t")
        value = _value(raw_value.strip(" \t"))
        if not eq or not _is_bare_key(key) or value is None or key in table:
            return None
        table[key] = value
    return root


def _is_bare_key(key: str) -> bool:
    return bool(key) and _BARE_KEY.issuperset(key)


def _table(root: dict[str, object], line: str, headers: set[str]) -> dict[str, object] | None:
    """The table a ``[a.b]`` header opens (created as needed); None if not plain or repeated."""
    if not line.endswith("]") or line.startswith("[["):
        return None
    name = line[1:-1]
    parts = name.split(".")
    if name in headers or not all(_is_bare_key(part) for part in parts):
        return None
    headers.add(name)
    node = root
    for part in parts:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            return None
        node = child
    return node


def _value(text: str) -> bool | int | float | str | None:
    """A plain scalar: true/false, an integer, a decimal, or a string without escapes."""
    if text == "true":
        return True
    if text == "false":
        return False
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        inner = text[1:-1]
        return None if '"' in inner or "\\" in inner else inner
    sign = text[:1] if text[:1] in ("+", "-") else ""
    whole, dot, fraction = text[len(sign):].partition(".")
    if not _plain_digits(whole) or (dot and not (fraction and _DIGITS.issuperset(fraction))):
        return None
    return float(text) if dot else int(text)


def _plain_digits(text: str) -> bool:
    """Digits without a leading zero (TOML forbids ``01``), or a single ``0``."""
    return bool(text) and _DIGITS.issuperset(text) and (text == "0" or text[0] != "0")
