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
