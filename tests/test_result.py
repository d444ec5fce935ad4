"""Result and CaptureRef: frozen records with a stable JSON shape."""

from __future__ import annotations

import copy
import pickle

import pytest

from tersh.result import CaptureRef, Result


def _result() -> Result:
    ref = CaptureRef("c0123456789ab", "combined", "/x/combined", 12)
    return Result("text", 2, "make", "make", rule="cc", captures=(ref,), details={"a": [1]})


def test_fields_defaults_and_json_shape() -> None:
    data = _result().to_json()
    assert list(data) == ["text", "exit_code", "requested_command", "executed_command", "category",
                          "rule", "input_bytes", "output_bytes", "complete", "measured",
                          "capture_id", "captures", "duration_s", "details"]
    assert data["captures"] == [{"id": "c0123456789ab", "stream": "combined",
                                 "path": "/x/combined", "bytes": 12}]
    assert data["complete"] is True and data["category"] is None and data["details"] == {"a": [1]}


def test_json_is_a_copy_and_records_are_frozen() -> None:
    result = _result()
    result.to_json()["details"]["a"].append(2)
    assert result.details == {"a": [1]}
    with pytest.raises(AttributeError):
        result.text = "changed"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.captures[0].bytes = 0  # type: ignore[misc]


def test_equality_repr_copy_and_pickle() -> None:
    result = _result()
    assert result == _result() and result != Result("text", 3, "make", "make")
    assert copy.deepcopy(result) == result and pickle.loads(pickle.dumps(result)) == result
    assert repr(result).startswith("Result(text='text', exit_code=2,")
    assert hash(result.captures[0]) == hash(CaptureRef("c0123456789ab", "combined", "/x/combined", 12))
    with pytest.raises(TypeError):
        hash(result)  # details is a dict
    assert Result("", 0, "a", "b").details is not Result("", 0, "a", "b").details
