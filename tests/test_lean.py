"""tersh._startup.lean.NamedTuple behaves like typing.NamedTuple for what tersh uses."""

from __future__ import annotations

import pickle
import typing

import pytest

from tersh._startup.lean import NamedTuple


class Lean(NamedTuple):
    """A lean record."""

    name: str
    size: int = 0
    tags: tuple[str, ...] = ()

    def grown(self) -> int:
        return self.size + 1


class Typed(typing.NamedTuple):
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()


def test_same_shape_as_typing_namedtuple() -> None:
    lean, typed = Lean("a", 2), Typed("a", 2)
    assert tuple(lean) == tuple(typed) and lean == typed
    assert Lean._fields == Typed._fields
    assert Lean._field_defaults == Typed._field_defaults
    assert repr(lean) == "Lean(name='a', size=2, tags=())"
    assert lean._asdict() == typed._asdict()
    assert lean._replace(size=5) == Lean("a", 5)
    assert Lean._make(["b", 1, ("x",)]) == Lean("b", 1, ("x",))
    assert Lean(name="c", tags=("t",)) == Lean("c", 0, ("t",))
    assert lean.grown() == 3 and Lean.__doc__ == "A lean record."
    assert isinstance(lean, tuple) and hash(lean) == hash(("a", 2, ()))
    assert pickle.loads(pickle.dumps(lean)) == lean


def test_errors_like_a_namedtuple() -> None:
    with pytest.raises(TypeError):
        Lean()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Lean("a", 1, (), 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Lean("a", colour="red")  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        Lean("a")._replace(colour="red")
    with pytest.raises(AttributeError):
        Lean("a").name = "b"  # type: ignore[misc]
    with pytest.raises(TypeError):
        Lean._make(["only one"])


def test_pattern_matching() -> None:
    match Lean("m", 7):
        case Lean(name, size):
            assert (name, size) == ("m", 7)
        case _:
            pytest.fail("no match")


def _calls_of(decorate: typing.Callable[[typing.Any], typing.Any]) -> tuple[list[object], object]:
    """(the calls the wrapped function saw, the wrapper) for a cache of two entries."""
    seen: list[object] = []

    def square(value: object) -> object:
        """Square a number."""
        seen.append(value)
        return value * value  # type: ignore[operator]

    wrapped = decorate(square)
    for value in (1, 2, 1, 3, 1, 2, 2.0, 2):
        assert wrapped(value) == value * value
    return seen, wrapped


@pytest.mark.parametrize("typed", [False, True])
@pytest.mark.parametrize("maxsize", [None, 0, 2, -1])
def test_lru_cache_is_functools_own_cache(maxsize: int | None, typed: bool) -> None:
    import functools

    from tersh._startup.lean import lru_cache

    lean_seen, lean = _calls_of(lru_cache(maxsize, typed))
    real_seen, real = _calls_of(functools.lru_cache(maxsize, typed))
    assert lean_seen == real_seen  # the same hits and misses, in the same order
    assert type(lean) is type(real)
    assert tuple(lean.cache_info()) == tuple(real.cache_info())  # type: ignore[attr-defined]
    assert lean.cache_info()._fields == real.cache_info()._fields  # type: ignore[attr-defined]
    assert lean.cache_parameters() == real.cache_parameters()  # type: ignore[attr-defined]
    for name in ("__name__", "__qualname__", "__doc__", "__module__"):
        assert getattr(lean, name) == getattr(real, name)
    assert lean.__wrapped__.__name__ == "square"  # type: ignore[attr-defined]
    lean.cache_clear()  # type: ignore[attr-defined]
    assert lean.cache_info().currsize == 0  # type: ignore[attr-defined]


def test_counted_and_deque_are_the_collections_ones() -> None:
    import collections

    from tersh._startup.lean import counted, deque

    words = ["the", "cat", "and", "the", "hat", "and", "the", "bat"]
    assert counted(words) == dict(collections.Counter(words))
    assert list(counted(words)) == list(collections.Counter(words))  # first-seen order
    assert counted([]) == {}
    assert deque is collections.deque


def test_partial_is_functools_own_partial() -> None:
    import functools

    from tersh._startup.lean import partial

    assert partial is functools.partial
    assert partial(int, base=2)("101") == 5


def test_the_c_operator_and_bisect_functions_are_the_modules_own() -> None:
    import _bisect
    import _operator
    import bisect
    import operator

    for name in ("add", "and_", "attrgetter", "contains", "eq", "floordiv", "is_not",
                 "itemgetter", "methodcaller", "mul", "not_", "or_", "rshift", "sub"):
        assert getattr(_operator, name) is getattr(operator, name), name
    for name in ("bisect_left", "bisect_right"):
        assert getattr(_bisect, name) is getattr(bisect, name), name
