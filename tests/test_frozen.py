"""_startup.frozen's records behave as frozen dataclasses of the same fields (tersh.result's)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh._startup.frozen import Frozen
from tersh.result import CaptureRef, Result


def _twin(record: type[Frozen]) -> Any:
    """The ``@dataclass(frozen=True)`` of ``record``'s fields, defaults and name."""
    parameters = inspect.signature(record.__init__).parameters
    fields = []
    for name in record._fields:
        default = parameters[name].default
        if default is inspect.Parameter.empty:
            fields.append((name, Any))
        elif name == "details":  # None in the record's __init__ means a new {} each time
            fields.append((name, Any, dataclasses.field(default_factory=dict)))
        else:
            fields.append((name, Any, dataclasses.field(default=default)))
    return dataclasses.make_dataclass(record.__name__, fields, frozen=True)


REF_TWIN = _twin(CaptureRef)
RESULT_TWIN = _twin(Result)
words = st.text(max_size=8)
refs = st.builds(lambda *values: values, words, words, words, st.integers(0, 1 << 40))


@given(refs, refs)
def test_a_capture_ref_is_a_frozen_dataclass(first: tuple[Any, ...], second: tuple[Any, ...]) -> None:
    ours, twin = CaptureRef(*first), REF_TWIN(*first)
    other, other_twin = CaptureRef(*second), REF_TWIN(*second)
    assert repr(ours) == repr(twin)
    assert (ours == other) == (twin == other_twin)
    assert (hash(ours) == hash(other)) == (hash(twin) == hash(other_twin))
    assert ours.as_dict() == dataclasses.asdict(twin)
    assert CaptureRef(**ours.as_dict()) == ours
    assert pickle.loads(pickle.dumps(ours)) == ours and copy.copy(ours) == ours
    for change in (lambda r: setattr(r, "bytes", 0), lambda r: delattr(r, "id")):
        with pytest.raises(AttributeError):
            change(ours)
        with pytest.raises(AttributeError):
            change(twin)


@given(words, st.integers(-255, 255), st.dictionaries(words, st.integers(), max_size=3),
       st.booleans(), refs)
def test_a_result_is_a_frozen_dataclass(text: str, code: int, details: dict[str, int], complete: bool,
                                        ref: tuple[Any, ...]) -> None:
    captures = (CaptureRef(*ref),)
    ours = Result(text, code, "make", "make", complete=complete, captures=captures, details=details)
    twin = RESULT_TWIN(text, code, "make", "make", complete=complete, captures=captures, details=details)
    assert repr(ours) == repr(twin)
    assert ours.as_dict() == {field.name: getattr(twin, field.name) for field in dataclasses.fields(twin)}
    assert Result(**ours.as_dict()) == ours
    assert repr(Result("", 0, "a", "b")) == repr(RESULT_TWIN("", 0, "a", "b"))  # the same defaults
    assert copy.deepcopy(ours) == ours and pickle.loads(pickle.dumps(ours)) == ours
    for record in (ours, twin):
        with pytest.raises(TypeError):
            hash(record)  # details is a dict
        with pytest.raises(AttributeError):
            record.text = "changed"
