"""The typed record of one optimised call, shared by the pipeline, the ledger, hosts and the UI."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class CaptureRef:
    """One stored stream of a call: id, which stream, where, and how many bytes."""

    id: str
    stream: str
    path: str
    bytes: int


@dataclass(frozen=True)
class Result:
    """What a call produced for the model and what it recorded.

    ``text`` is exactly what the model receives. ``input_bytes`` is the complete captured output
    (after any RTK filtering, before the preview bound); ``output_bytes`` is ``len(text)`` in
    UTF-8. ``complete`` is False when the text leaves anything out (the capture report then says
    where it is). ``measured`` is False when no complete capture exists (savings exclude it).
    """

    text: str
    exit_code: int
    requested_command: str
    executed_command: str
    category: str | None = None
    rule: str | None = None
    input_bytes: int = 0
    output_bytes: int = 0
    complete: bool = True
    measured: bool = True
    capture_id: str | None = None
    captures: tuple[CaptureRef, ...] = ()
    duration_s: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The stable JSON shape of ``tersh compact --format json`` / ``tersh run --format json``."""
        data = asdict(self)
        data["captures"] = [asdict(c) for c in self.captures]
        return data
