"""The current session's running savings, as the status file's ``savings`` section holds them.

After every call the status file shows the session's savings. Summing the ledger for that would
mean opening SQLite on the per-command path, so each call reads the section's counters, adds its
own figures and writes the section again, under the status lock. Whenever the figures can only
come from the ledger — the first call of another session, retrievals, tokens counted later — the
ledger recomputes them and publishes them (``tersh.recording.ledger.publish``), also under the lock, so the
two never disagree.
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from tersh._startup.lean import NamedTuple


class Savings(NamedTuple):
    """Savings over a set of calls (one group of a breakdown, or the total)."""

    key: str
    calls: int
    measured_calls: int
    input_bytes: int
    output_bytes: int
    removed_bytes: int
    saving: float | None
    retrieved_bytes: int
    net_saving: float | None
    counted_calls: int
    input_tokens: int
    output_tokens: int
    token_saving: float | None

    @property
    def unmeasured_calls(self) -> int:
        """Calls without a complete capture: excluded from every ratio."""
        return self.calls - self.measured_calls


#: The counters a Savings is derived from, in the tally file's order.
COUNTERS = ("calls", "measured_calls", "input_bytes", "output_bytes", "retrieved_bytes",
            "counted_calls", "input_tokens", "output_tokens")


def ratio(part: int, whole: int) -> float | None:
    """``part / whole``, or None when there is nothing to divide by."""
    return part / whole if whole else None


def savings(key: str, calls: int, measured: int, in_bytes: int, out_bytes: int, retrieved: int,
            counted: int, in_tokens: int, out_tokens: int) -> Savings:
    """The figures of a set of calls from its counters."""
    removed = in_bytes - out_bytes
    return Savings(
        key=key,
        calls=calls,
        measured_calls=measured,
        input_bytes=in_bytes,
        output_bytes=out_bytes,
        removed_bytes=removed,
        saving=ratio(removed, in_bytes),
        retrieved_bytes=retrieved,
        net_saving=ratio(removed - retrieved, in_bytes),
        counted_calls=counted,
        input_tokens=in_tokens,
        output_tokens=out_tokens,
        token_saving=ratio(in_tokens - out_tokens, in_tokens),
    )


def counters(figures: Savings) -> tuple[int, ...]:
    """The counters of ``figures`` (see COUNTERS)."""
    return tuple(getattr(figures, name) for name in COUNTERS)


def read() -> tuple[str, tuple[int, ...]] | None:
    """(session, counters) of the published savings; None when absent or not readable as such."""
    from tersh.recording import status

    published = status.section("savings")
    session = published.get("session")
    counted = [published.get(name) for name in COUNTERS]
    if not isinstance(session, str) or not session:
        return None
    numbers = [number for number in counted if type(number) is int and number >= 0]
    return (session, tuple(numbers)) if len(numbers) == len(COUNTERS) else None


def publish(session: str, figures: Savings) -> None:
    """Write the status file's savings section (the caller holds the status lock)."""
    import time

    from tersh.recording import status

    status.write_section("savings", {"session": session, **figures._asdict(), "updated_at": time.time()})
