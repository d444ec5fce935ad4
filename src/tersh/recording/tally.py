"""The current session's running savings, as the status file's ``savings`` section holds them.

After every call the status file shows the session's savings. Summing the ledger for that would
mean opening SQLite on the per-command path, so each call reads the section's counters, adds its
own figures and writes the section again, under the status lock. Whenever the figures can only
come from the ledger — the first call of another session, retrievals, tokens counted later — the
ledger recomputes them and publishes them (``tersh.recording.ledger.publish``), also under the lock, so the
two never disagree.

Agents often run side by side (two terminals, two hosts), so their calls alternate. The status
file therefore also keeps the counters of the last few sessions (its ``sessions`` section): a call
of a session listed there adds to its counters without the ledger, as a call of the shown session
does. Every entry is one the ledger published or a call added to since; when the ledger's figures
change for every session at once (tokens counted later), it recomputes every listed entry.
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


#: The status file's section with the counters of the sessions published last, by session.
SESSIONS = "sessions"
#: How many sessions' counters it keeps.
MAX_SESSIONS = 8


def _counters(values: object) -> tuple[int, ...] | None:
    """``values`` as counters (COUNTERS, each a non-negative int), or None."""
    if not isinstance(values, list) or len(values) != len(COUNTERS):
        return None
    return tuple(values) if all(type(v) is int and v >= 0 for v in values) else None


def _published(document: dict[str, object]) -> tuple[str, tuple[int, ...]] | None:
    published = document.get("savings")
    if not isinstance(published, dict):
        return None
    session = published.get("session")
    if not isinstance(session, str) or not session:
        return None
    counted = _counters([published.get(name) for name in COUNTERS])
    return (session, counted) if counted is not None else None


def _listed(document: dict[str, object]) -> dict[str, tuple[int, ...]]:
    listed = document.get(SESSIONS)
    if not isinstance(listed, dict):
        return {}
    found = {name: _counters(values) for name, values in listed.items()}
    return {name: values for name, values in found.items() if values is not None}


def read() -> tuple[str, tuple[int, ...]] | None:
    """(session, counters) of the published savings; None when absent or not readable as such."""
    from tersh.recording import status

    return _published(status.read())


def session_counters(session: str) -> tuple[int, ...] | None:
    """The counters of ``session``: the published savings when they are its, else its entry among
    the listed sessions; None when the status file holds neither (the ledger must say)."""
    from tersh.recording import status

    document = status.read()
    published = _published(document)
    if published is not None and published[0] == session:
        return published[1]
    return _listed(document).get(session)


def listed_sessions() -> list[str]:
    """The sessions whose counters the status file holds, the published one first."""
    from tersh.recording import status

    document = status.read()
    published = _published(document)
    names = list(_listed(document))
    if published is not None:
        names = [published[0], *(name for name in names if name != published[0])]
    return names[:MAX_SESSIONS]


def publish(session: str, figures: Savings, others: dict[str, Savings] | None = None, *,
            keep_listed: bool = True) -> None:
    """Write the status file's savings section for ``session`` and list its counters first among
    the sessions', then ``others``' (their figures recomputed), then (``keep_listed``) the other
    entries the file holds, up to MAX_SESSIONS (the caller holds the status lock)."""
    import time

    from tersh.recording import status

    document = status.read()  # read once: the kept entries and the other sections
    listed = {session: list(counters(figures))}
    for name, values in (others or {}).items():
        listed.setdefault(name, list(counters(values)))
    for name, kept in (_listed(document) if keep_listed else {}).items():
        if len(listed) >= MAX_SESSIONS:
            break
        listed.setdefault(name, list(kept))
    status.write_sections({
        "savings": {"session": session, **figures._asdict(), "updated_at": time.time()},
        SESSIONS: listed,
    }, document)
