"""Retry for RTK: the one small adapter between the page and the rewrite provider's probe.

The page runs no shell commands: it calls ``tersh.execution.rewrite.rtk.retry`` in-process (the same
re-probe as ``tersh rtk retry``). A failed probe keeps its reason and changes nothing else
(settings, switches and execution stay as they were); this adapter only reports what it found.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

FIELDS = ("found", "version", "path", "verified", "reason", "checked_at")


def retry() -> dict[str, Any]:
    """Re-probe RTK now and return its status (``found``, ``verified``, ``reason``…)."""
    from tersh import settings

    conf, _ = settings.load_or_defaults()
    try:
        from tersh.execution.rewrite import rtk

        probe = rtk.retry(conf)
    except Exception as exc:  # a crashing probe is a failed probe, never a broken page
        return failed(f"the RTK probe raised {type(exc).__name__}: {exc}")
    found = probe._asdict()
    return {**{key: found.get(key) for key in FIELDS}, "source": "retry"}


def failed(reason: str) -> dict[str, Any]:
    """The status of a probe that could not run, with its reason."""
    return {"found": False, "version": None, "path": None, "verified": False, "reason": reason,
            "checked_at": datetime.now(UTC).isoformat(timespec="seconds"), "source": "retry"}
