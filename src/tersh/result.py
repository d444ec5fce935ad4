"""The typed record of one optimised call, shared by the pipeline, the ledger, hosts and the UI.

Both are frozen records of ``tersh._startup.frozen`` (they are built on the start-up path of
every ``tersh run``, where ``dataclasses`` costs more than the rest of the record keeping); they
behave like frozen dataclasses of the same fields.
"""

from __future__ import annotations

from tersh._startup.frozen import Frozen

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import Any


def utf8_len(text: str) -> int:
    """The size of ``text`` in UTF-8 (a lone surrogate as the three bytes ``surrogatepass``
    writes), as the model's text is counted; an ASCII text (a flag of the string, no scan) is
    one byte a character."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class CaptureRef(Frozen):
    """One stored stream of a call: id, which stream, where, and how many bytes."""

    _fields = ("id", "stream", "path", "bytes")
    __slots__ = _fields

    id: str
    stream: str
    path: str
    bytes: int

    def __init__(self, id: str, stream: str, path: str, bytes: int) -> None:
        self._set_fields((id, stream, path, bytes))


class Result(Frozen):
    """What a call produced for the model and what it recorded.

    ``text`` is exactly what the model receives. ``input_bytes`` is the complete captured output
    (after any RTK filtering, before the preview bound); ``output_bytes`` is ``len(text)`` in
    UTF-8. ``complete`` is False when the text leaves anything out (the capture report then says
    where it is). ``measured`` is False when no complete capture exists (savings exclude it).
    """

    _fields = (
        "text", "exit_code", "requested_command", "executed_command", "category", "rule",
        "input_bytes", "output_bytes", "complete", "measured", "capture_id", "captures",
        "duration_s", "details",
    )
    __slots__ = _fields

    text: str
    exit_code: int
    requested_command: str
    executed_command: str
    category: str | None
    rule: str | None
    input_bytes: int
    output_bytes: int
    complete: bool
    measured: bool
    capture_id: str | None
    captures: tuple[CaptureRef, ...]
    duration_s: float
    details: dict[str, Any]

    def __init__(
        self,
        text: str,
        exit_code: int,
        requested_command: str,
        executed_command: str,
        category: str | None = None,
        rule: str | None = None,
        input_bytes: int = 0,
        output_bytes: int = 0,
        complete: bool = True,
        measured: bool = True,
        capture_id: str | None = None,
        captures: tuple[CaptureRef, ...] = (),
        duration_s: float = 0.0,
        details: dict[str, Any] | None = None,
    ) -> None:
        values = (text, exit_code, requested_command, executed_command, category, rule,
                  input_bytes, output_bytes, complete, measured, capture_id, captures,
                  duration_s, {} if details is None else details)
        self._set_fields(values)

    __hash__ = None  # type: ignore[assignment]  # details is a dict: not hashable

    def to_json(self) -> dict[str, Any]:
        """The stable JSON shape of ``tersh compact --format json`` / ``tersh run --format json``."""
        import copy

        data = self.as_dict()
        data["details"] = copy.deepcopy(self.details)
        data["captures"] = [ref.as_dict() for ref in self.captures]
        return data
