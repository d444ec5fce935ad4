"""What the settings page shows, as plain JSON-ready data (no HTTP here).

Every reader is read-only: a missing ledger or capture index is shown as empty, never created.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator
from typing import Any

from tersh import settings
from tersh.recording import status

CLASS_LABELS = {
    "file_reads": "File reads",
    "git": "Git",
    "containers": "Containers",
    "github": "GitHub",
    "tests": "Tests",
    "builds": "Builds & type checks",
    "packages": "Package managers",
    "other": "Other commands",
}

#: The budgets the page edits: key -> (label, unit, minimum, maximum).
BUDGETS: dict[str, tuple[str, str, float, float]] = {
    "preview.max_lines": ("Preview lines", "lines", 1, 1_000_000),
    "preview.max_bytes": ("Preview size", "bytes", 1024, 1 << 30),
    "tools.trigger_tokens": ("Tool output trigger", "tokens", 1, 10_000_000),
    "tools.target_tokens": ("Tool output target", "tokens", 1, 10_000_000),
    "tools.max_output_chars": ("Tool output ceiling", "characters", 1, 100_000_000),
    "tools.min_saving": ("Minimum saving to apply", "fraction", 0.0, 1.0),
    "captures.ttl_days": ("Keep captures for", "days", 1, 3650),
    "captures.total_bytes": ("Capture store cap", "bytes", 1 << 20, 1 << 50),
}

DAY_SECONDS = 86400


def overview() -> dict[str, Any]:
    """Toggle, switches, budgets, RTK status and the session's savings."""
    from tersh.execution.rewrite.rtk_probe import rtk_status

    conf, problem = settings.load_or_defaults()
    published = status.read()
    return {
        "enabled": conf.flag("enabled"),
        "settings_problem": problem,
        "switches": [
            {"key": f"classes.{name}", "name": name, "label": CLASS_LABELS.get(name, name),
             "on": conf.class_enabled(name)}
            for name in settings.CLASSES
        ],
        "budgets": [
            {"key": key, "label": label, "unit": unit, "min": low, "max": high,
             "value": conf[key], "default": settings.DEFAULTS[key],
             "description": settings.DESCRIPTIONS.get(key, "")}
            for key, (label, unit, low, high) in BUDGETS.items()
        ],
        "rtk": rtk_status(published),
        "savings": session_savings(published),
    }


def session_savings(published: dict[str, Any]) -> dict[str, Any]:
    """The status file's savings section; without one, the latest session's figures from the ledger."""
    section = published.get("savings")
    if isinstance(section, dict) and section:
        return {**section, "source": "status file"}
    with _ledger() as db:
        if db is None:
            return {"source": "none", "calls": 0}
        from tersh.recording import ledger

        sessions = ledger.recent_sessions(db, 1)
        if not sessions:
            return {"source": "ledger", "calls": 0}
        session = sessions[0][0]
        figures = ledger.totals(db, session=session)._asdict()
        return {**figures, "session": session, "source": "ledger"}


def daily(days: int = 30, now: float | None = None) -> list[dict[str, Any]]:
    """Savings per local day over the last ``days`` days, oldest first (days without calls too)."""
    import datetime as dt

    moment = time.time() if now is None else now
    today = dt.datetime.fromtimestamp(moment).date()
    first = today - dt.timedelta(days=days - 1)
    since = dt.datetime.combine(first, dt.time()).timestamp()
    found: dict[str, dict[str, Any]] = {}
    with _ledger() as db:
        if db is not None:
            from tersh.recording import ledger

            for row in ledger.breakdown(db, "day", ledger.Filter(since=since)):
                found[row.key] = _day(row.key, row.calls, row.input_bytes, row.output_bytes)
    return [
        found.get(day, _day(day, 0, 0, 0))
        for day in ((first + dt.timedelta(days=n)).isoformat() for n in range(days))
    ]


def _day(day: str, calls: int, input_bytes: int, output_bytes: int) -> dict[str, Any]:
    saved = input_bytes - output_bytes
    return {
        "day": day,
        "calls": calls,
        "input_bytes": input_bytes,
        "output_bytes": output_bytes,
        "saved_bytes": saved,
        "saving": saved / input_bytes if input_bytes else None,
    }


RESULT_COLUMNS = (
    "id", "ts", "program", "klass", "arguments", "category", "rule", "measured", "complete",
    "exit_code", "input_bytes", "output_bytes", "capture_id", "rtk_outcome",
)


def recent_results(limit: int = 30) -> list[dict[str, Any]]:
    """The newest recorded calls with requested and executed command, sizes and saving."""
    with _ledger() as db:
        if db is None:
            return []
        available = {row[1] for row in db.execute("PRAGMA table_info(calls)")}
        columns = [c for c in RESULT_COLUMNS if c in available]
        executed = "executed" in available
        query = f"SELECT {', '.join(columns + (['executed'] if executed else []))} FROM calls"
        rows = db.execute(query + " ORDER BY ts DESC, id DESC LIMIT ?", (limit,)).fetchall()
    names = columns + (["executed"] if executed else [])
    calls = [dict(zip(names, row, strict=True)) for row in rows]
    commands = _capture_commands()
    return [_result(call, commands) for call in calls]


def _result(call: dict[str, Any], commands: dict[str, str]) -> dict[str, Any]:
    requested = commands.get(call.get("capture_id") or "") or call.get("arguments") or call["program"]
    saved = call["input_bytes"] - call["output_bytes"]
    return {
        **call,
        "requested": requested,
        "executed": call.get("executed") or requested,
        "rewritten": bool(call.get("executed")) and call.get("executed") != requested,
        "saved_bytes": saved,
        "saving": saved / call["input_bytes"] if call["measured"] and call["input_bytes"] else None,
        "capture_available": call.get("capture_id") in commands,
    }


def _capture_commands(limit: int = 500) -> dict[str, str]:
    """capture id -> the requested command, for the newest captures still stored."""
    from tersh.recording import captures as capture

    try:
        rows = capture.list_recent(limit)
    except (OSError, sqlite3.Error):
        return {}
    return {str(row["id"]): str(row["command"]) for row in rows}


def recent_captures(limit: int = 50) -> list[dict[str, Any]]:
    """The newest captures (id, command, exit code, sizes, time), newest first."""
    from tersh.recording import captures as capture

    try:
        rows = capture.list_recent(limit)
    except (OSError, sqlite3.Error):
        return []
    keys = ("id", "created", "command", "cwd", "exit_code", "combined_bytes", "stdout_bytes",
            "stderr_bytes")
    return [{key: row.get(key) for key in keys} for row in rows]


@contextlib.contextmanager
def _ledger() -> Iterator[sqlite3.Connection | None]:
    """A read connection to the ledger, or None when there is no ledger yet (never creates one)."""
    from tersh.recording import ledger

    if not ledger.ledger_path().exists():
        yield None
        return
    db = ledger.connect()
    try:
        yield db
    finally:
        db.close()
