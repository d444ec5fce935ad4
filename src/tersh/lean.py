"""Runtime stand-ins that keep ``typing`` off the start-up path of quick commands.

``typing`` alone costs milliseconds to import, a large share of a command that must start about
as fast as a bare Python. Modules on that path write::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from tersh.lean import NamedTuple

Type checkers see ``typing.NamedTuple``; at run time :class:`NamedTuple` builds the same record
with ``collections.namedtuple`` (fields from the annotations, defaults from the class body).
"""

from __future__ import annotations

from collections import namedtuple


class _RecordMeta(type):
    """Turn ``class X(NamedTuple): a: int; b: str = ''`` into a namedtuple subclass."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
        if not bases:  # the NamedTuple base class itself
            return super().__new__(mcls, name, bases, namespace)
        annotations = namespace.get("__annotations__", {})
        assert isinstance(annotations, dict)
        fields = list(annotations)
        defaults = [namespace[field] for field in fields if field in namespace]
        module = namespace.get("__module__")
        base = namedtuple(name, fields, defaults=defaults, module=str(module))  # type: ignore[misc]
        body = {key: value for key, value in namespace.items() if key not in fields}
        body["__slots__"] = ()
        return type(name, (base,), body)


class NamedTuple(metaclass=_RecordMeta):
    """Base class: subclasses become ``collections.namedtuple`` records (see the module doc)."""
