"""Frozen records for the ``tersh run`` path, written without ``dataclasses``.

``tersh.result`` builds its records (``Result``, ``CaptureRef``) on every ``tersh run``; importing
``dataclasses`` (and ``inspect``, ``re``, ``enum`` behind it) made ``tersh run -- true`` cost
about 1.6 times the CPU (bench/bench_run.py --startup-only, both built side by side). A
subclass of :class:`Frozen` behaves like a ``@dataclass(frozen=True)`` of the same fields:
keyword or positional construction (its own ``__init__``), read-only fields, equality, hash and
repr over the fields, pickling; tests/test_frozen.py holds the two equal.
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import Any


class Frozen:
    """Base of a record with read-only fields; ``_fields`` names them in order."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def _set_fields(self, values: tuple[object, ...]) -> None:
        """Set every field from ``values`` (in ``_fields`` order); for ``__init__`` only."""
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

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
