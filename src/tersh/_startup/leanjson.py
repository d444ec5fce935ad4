"""JSON for the hooks' start-up path, through CPython's C accelerator ``_json`` directly.

A hook runs before every tool call of the agent. ``import json`` also imports ``re`` (and with it
``enum``, ``functools``, ``collections``), which costs more than everything else the hook does,
yet the parsing and string escaping that matter are done in C by ``_json`` either way. These two
functions give the results of ``json.loads`` and ``json.dumps`` (default options) for JSON text
and plain values — ``dict`` with ``str`` keys, ``list``, ``tuple``, ``str``, ``int``, ``float``,
``bool``, ``None`` — and fall back to the ``json`` module wherever ``_json`` is missing or an
error needs its full report.
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - Python implementations without the accelerator
    _json = None  # type: ignore[assignment]

_BLANKS = " \t\n\r"
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class _Context:
    """What ``_json.make_scanner`` reads from a ``json.JSONDecoder`` (its defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan: list[Any] = []


def loads(data: bytes | str) -> Any:
    """The value of the JSON document ``data`` (UTF-8 when bytes), as ``json.loads`` gives it.

    Raise ValueError (``json.JSONDecodeError``) when ``data`` is not one JSON document.
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            return _slow_loads(data)  # UTF-16/32 with a BOM, or the json module's own error
    if _json is None:
        return _slow_loads(data)
    if not _scan:
        context: Any = _Context()  # duck-typed: the C scanner reads only the attributes above
        _scan.append(_json.make_scanner(context))
    start = len(data) - len(data.lstrip(_BLANKS))
    try:
        value, end = _scan[0](data, start)
    except StopIteration:
        return _slow_loads(data)
    if data[end:].strip(_BLANKS):
        return _slow_loads(data)  # extra data: let json word the error
    return value


def dumps(value: Any) -> str:
    """``value`` as JSON text, exactly as ``json.dumps(value)`` writes it (ASCII, ", " and ": ")."""
    if _json is None:
        import json

        return json.dumps(value)
    parts: list[str] = []
    _encode(value, parts)
    return "".join(parts)


def _encode(value: Any, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(_json.encode_basestring_ascii(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, float):
        parts.append(_float(value))
    elif isinstance(value, dict):
        parts.append("{")
        for index, (key, item) in enumerate(value.items()):
            if not isinstance(key, str):
                raise TypeError(f"keys must be str, not {type(key).__name__}")
            parts.append(", " if index else "")
            parts.append(_json.encode_basestring_ascii(key))
            parts.append(": ")
            _encode(item, parts)
        parts.append("}")
    elif isinstance(value, (list, tuple)):
        parts.append("[")
        for index, item in enumerate(value):
            parts.append(", " if index else "")
            _encode(item, parts)
        parts.append("]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _slow_loads(data: bytes | str) -> Any:
    import json

    return json.loads(data)
