"""Runtime stand-ins that keep ``typing``, ``collections`` and ``functools`` off the start-up path.

``typing`` (and even ``collections``) cost milliseconds to import, a large share of a command
that must start about as fast as a bare Python. Modules on that path write::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from tersh._startup.lean import NamedTuple

Type checkers see ``typing.NamedTuple``; at run time :class:`NamedTuple` builds an equivalent
tuple subclass directly (fields from the annotations, defaults from the class body): indexed
read-only attributes, ``_fields``, ``_field_defaults``, ``_make``, ``_replace``, ``_asdict``, a
``repr`` and pickling — without the code generation of ``collections.namedtuple``.

``functools`` imports ``collections``, so the same modules take their caches from
:func:`lru_cache` (the C wrapper ``functools.lru_cache`` returns, made without the module) and
count with :func:`counted` (``collections.Counter``'s own C loop into a plain dict).
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable
    from typing import TypeVar

    Item = TypeVar("Item", bound=Hashable)

try:  # the C accessor collections.namedtuple uses, without importing collections
    _TUPLEGETTER = getattr(__import__("_collections"), "_tuplegetter", None)
except ImportError:  # pragma: no cover - other Python implementations
    _TUPLEGETTER = None

_MISSING = object()


def _accessor(index: int, doc: str) -> object:
    """A read-only attribute for position ``index`` of the tuple."""
    if _TUPLEGETTER is not None:
        return _TUPLEGETTER(index, doc)
    from operator import itemgetter  # pragma: no cover - fallback

    return property(itemgetter(index), doc=doc)  # pragma: no cover


def _record(name: str, fields: tuple[str, ...], defaults: tuple[object, ...],
            namespace: dict[str, object]) -> type:
    """Build the tuple subclass ``name`` with ``fields`` (the last ones defaulted)."""
    count = len(fields)
    required = count - len(defaults)

    def __new__(cls: type, *args: object, **kwargs: object) -> tuple[object, ...]:
        if len(args) == count and not kwargs:
            return tuple.__new__(cls, args)
        if len(args) > count:
            raise TypeError(f"{name}() takes {count} arguments, {len(args)} were given")
        values = list(args)
        for position in range(len(args), count):
            value = kwargs.pop(fields[position], _MISSING)
            if value is _MISSING:
                if position < required:
                    raise TypeError(f"{name}() missing argument {fields[position]!r}")
                value = defaults[position - required]
            values.append(value)
        if kwargs:
            raise TypeError(f"{name}() got unexpected arguments {sorted(kwargs)}")
        return tuple.__new__(cls, values)

    def _make(cls: type, iterable: Iterable[object]) -> tuple[object, ...]:
        result: tuple[object, ...] = tuple.__new__(cls, iterable)
        if len(result) != count:
            raise TypeError(f"{name} expects {count} values, got {len(result)}")
        return result

    def _replace(self: tuple[object, ...], **changes: object) -> tuple[object, ...]:
        values = [changes.pop(field, value) for field, value in zip(fields, self, strict=True)]
        if changes:
            raise ValueError(f"{name} has no fields {sorted(changes)}")
        return tuple.__new__(type(self), values)

    def _asdict(self: tuple[object, ...]) -> dict[str, object]:
        return dict(zip(fields, self, strict=True))

    def __repr__(self: tuple[object, ...]) -> str:
        shown = ", ".join(f"{field}={value!r}" for field, value in zip(fields, self, strict=True))
        return f"{name}({shown})"

    def __getnewargs__(self: tuple[object, ...]) -> tuple[object, ...]:
        return tuple(self)

    body: dict[str, object] = {
        "__slots__": (),
        "_fields": fields,
        "_field_defaults": dict(zip(fields[required:], defaults, strict=True)),
        "__match_args__": fields,
        "__new__": __new__,
        "_make": classmethod(_make),
        "_replace": _replace,
        "_asdict": _asdict,
        "__repr__": __repr__,
        "__getnewargs__": __getnewargs__,
    }
    for index, field in enumerate(fields):
        body[field] = _accessor(index, f"Field {index}: {field}")
    body.update((key, value) for key, value in namespace.items() if key not in fields)
    return type(name, (tuple,), body)


class _RecordMeta(type):
    """Turn ``class X(NamedTuple): a: int; b: str = ''`` into a record class."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
        if not bases:  # the NamedTuple base class itself
            return super().__new__(mcls, name, bases, namespace)
        annotations = namespace.get("__annotations__", {})
        assert isinstance(annotations, dict)
        fields = tuple(annotations)
        defaults = tuple(namespace[field] for field in fields if field in namespace)
        return _record(name, fields, defaults, namespace)


class NamedTuple(metaclass=_RecordMeta):
    """Base class: subclasses become tuple records (see the module doc)."""


_CACHE_INFO: list[type] = []


def cache_info_type() -> type:
    """The record ``cache_info()`` of a :func:`lru_cache` function answers with (``functools``'
    fields); made on the first cache, as the hook path makes none."""
    if not _CACHE_INFO:

        class CacheInfo(NamedTuple):
            """Hits, misses, bound and size of a cache."""

            hits: int
            misses: int
            maxsize: int | None
            currsize: int

        _CACHE_INFO.append(CacheInfo)
    return _CACHE_INFO[0]


if TYPE_CHECKING:
    from functools import lru_cache as lru_cache
else:
    try:  # the C cache functools.lru_cache wraps a function in, without importing functools
        from _functools import _lru_cache_wrapper
    except ImportError:  # pragma: no cover - other Python implementations
        from functools import lru_cache
    else:

        def lru_cache(maxsize: int | None = 128, typed: bool = False) -> object:
            """``functools.lru_cache(maxsize, typed)`` as a decorator, without the ``functools``
            module (and ``collections``, which it imports): the same C wrapper, with
            ``cache_info``, ``cache_clear``, ``cache_parameters`` and ``__wrapped__``."""
            if maxsize is not None and maxsize < 0:
                maxsize = 0

            def decorating(function: object) -> object:
                wrapper = _lru_cache_wrapper(function, maxsize, typed, cache_info_type())
                wrapper.cache_parameters = lambda: {"maxsize": maxsize, "typed": typed}
                for name in ("__module__", "__name__", "__qualname__", "__doc__"):
                    setattr(wrapper, name, getattr(function, name))
                wrapper.__dict__.update(getattr(function, "__dict__", {}))
                wrapper.__wrapped__ = function
                return wrapper

            return decorating


if TYPE_CHECKING:
    from functools import partial as partial
else:  # the class functools.partial is (its C implementation), without importing functools
    partial = __import__("_functools").partial

if TYPE_CHECKING:
    from collections import deque as deque
else:  # the class collections.deque is, without importing collections
    deque = __import__("_collections").deque

#: The C loop ``collections.Counter`` counts with (None where there is none).
_COUNT_ELEMENTS = getattr(__import__("_collections"), "_count_elements", None)


def counted(items: Iterable[Item]) -> dict[Item, int]:
    """How many times each item occurs, in first-seen order: ``dict(collections.Counter(items))``
    (the same C counting loop when there is one), without importing ``collections``."""
    counts: dict[Item, int] = {}
    if _COUNT_ELEMENTS is not None:
        _COUNT_ELEMENTS(counts, items)
        return counts
    for item in items:  # pragma: no cover - other Python implementations
        counts[item] = counts.get(item, 0) + 1
    return counts

