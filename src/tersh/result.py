"""The typed record of one optimised call, shared by the pipeline, the ledger, hosts and the UI.

Both records are written out by hand rather than with ``dataclasses``: they are built on the
start-up path of every ``tersh run``, where importing ``dataclasses`` (and ``inspect`` behind it)
would cost more than the whole rest of the record keeping. They behave like frozen dataclasses:
keyword or positional construction, read-only fields, equality and repr over the fields.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import …`: keeps `typing` off the start-up path
if TYPE_CHECKING:
    from typing import Any


class _Frozen:
    """Base of a record with read-only fields; ``_fields`` names them in order."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return type(self), self._values()  # pickle and copy rebuild through __init__

    def as_dict(self) -> dict[str, Any]:
        """The fields as a new dict (nested records are left as they are)."""
        return {name: getattr(self, name) for name in self._fields}


class CaptureRef(_Frozen):
    """One stored stream of a call: id, which stream, where, and how many bytes."""

    _fields = ("id", "stream", "path", "bytes")
    __slots__ = _fields

    id: str
    stream: str
    path: str
    bytes: int

    def __init__(self, id: str, stream: str, path: str, bytes: int) -> None:
        for name, value in zip(self._fields, (id, stream, path, bytes), strict=True):
            object.__setattr__(self, name, value)


class Result(_Frozen):
    """What a call produced for the model and what it recorded.

    ``text`` is exactly what the model receives. ``input_bytes`` is the complete captured output
    (after any RTK filtering, before the preview bound); ``output_bytes`` is ``len(text)`` in
    UTF-8. ``complete`` is False when the text leaves anything out (the capture report then says
    where it is). ``measured`` is False when no complete capture exists (savings exclude it).
    """

    _fields = (
        "text", "exit_code", "requested_command", "executed_command", "category", "rule",
        "input_bytes", "output_bytes", "complete", "measured", "capture_id", "captures",
        "duration_s", "details",
    )
    __slots__ = _fields

    text: str
    exit_code: int
    requested_command: str
    executed_command: str
    category: str | None
    rule: str | None
    input_bytes: int
    output_bytes: int
    complete: bool
    measured: bool
    capture_id: str | None
    captures: tuple[CaptureRef, ...]
    duration_s: float
    details: dict[str, Any]

    def __init__(
        self,
        text: str,
        exit_code: int,
        requested_command: str,
        executed_command: str,
        category: str | None = None,
        rule: str | None = None,
        input_bytes: int = 0,
        output_bytes: int = 0,
        complete: bool = True,
        measured: bool = True,
        capture_id: str | None = None,
        captures: tuple[CaptureRef, ...] = (),
        duration_s: float = 0.0,
        details: dict[str, Any] | None = None,
    ) -> None:
        values = (text, exit_code, requested_command, executed_command, category, rule,
                  input_bytes, output_bytes, complete, measured, capture_id, captures,
                  duration_s, {} if details is None else details)
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

    __hash__ = None  # type: ignore[assignment]  # details is a dict: not hashable

    def to_json(self) -> dict[str, Any]:
        """The stable JSON shape of ``tersh compact --format json`` / ``tersh run --format json``."""
        import copy

        data = self.as_dict()
        data["details"] = copy.deepcopy(self.details)
        data["captures"] = [ref.as_dict() for ref in self.captures]
        return data
