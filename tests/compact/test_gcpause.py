"""The collector pause used by rules and the verifier restores the collector's state."""

from __future__ import annotations

import gc

import pytest

from tersh._startup import gcpause as _gcpause


def test_the_collector_is_off_inside_and_back_on_after() -> None:
    assert gc.isenabled()
    with _gcpause.gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_exception_still_restores_the_collector() -> None:
    @_gcpause.without_gc
    def boom() -> None:
        assert not gc.isenabled()
        raise ValueError("x")

    with pytest.raises(ValueError):
        boom()
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with _gcpause.gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_decorated_function_keeps_its_name_and_result() -> None:
    @_gcpause.without_gc
    def double(value: int) -> int:
        """Twice ``value``."""
        return value * 2

    assert double(21) == 42
    assert double.__name__ == "double" and double.__doc__ == "Twice ``value``."
