"""Pause Python's cyclic garbage collector while a rule or the verifier walks a large text.

Rules and the verifier build hundreds of thousands of small records (``Finding``, ``Fact``:
tuple subclasses, which the collector never untracks) and create no reference cycles. With the
collector on, every full collection walks all of them again, which doubled the run time on a
50 MB log. Reference counting still frees everything at once; only cycle detection waits.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block; restore its previous state after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def without_gc(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate ``func`` so that it runs with the cyclic collector paused."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with gc_paused():
            return func(*args, **kwargs)

    return wrapper
