"""Pause Python's cyclic garbage collector while a rule or the verifier walks a large text.

Rules and the verifier build hundreds of thousands of small records (``Finding``, ``Fact``:
tuple subclasses, which the collector never untracks) and create no reference cycles. With the
collector on, every full collection walks all of them again, which doubled the run time on a
50 MB log. Reference counting still frees everything at once; only cycle detection waits.
"""

from __future__ import annotations

import functools
import gc

TYPE_CHECKING = False  # not `from typing import …` nor contextlib: both cost start-up time
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType
    from typing import ParamSpec, TypeVar

    _P = ParamSpec("_P")
    _R = TypeVar("_R")


class gc_paused:  # lower case: used like the function it was, ``with gc_paused():``
    """Disable the cyclic collector inside the block; restore its previous state after."""

    def __enter__(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._was_enabled:
            gc.enable()


def without_gc(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate ``func`` so that it runs with the cyclic collector paused."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return func(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return wrapper
