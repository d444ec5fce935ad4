"""Compress one text tool output: trigger, strategy, budgets, the 10% gate, recovery.

The order matters for safety. Nothing happens below the trigger. A strategy proposes a body;
the complete payload (header + body + recovery footer) must fit the target and the ceiling and
save more than the minimum share of the original, or the original stays. Only then is the
original stored for recovery (unless the host already saved it); if storing fails, the
original stays too. Any exception inside returns the original (fail open).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, NamedTuple

from tersh.tools import strategies
from tersh.tools.budgets import Budgets, estimate_tokens

#: Keys under which hosts report where they saved the complete output themselves.
HOST_PATH_KEYS = ("outputPath", "output_path", "savedOutputPath", "saved_output_path")


class Compressed(NamedTuple):
    """The text to hand back and the metrics that explain it."""

    text: str
    changed: bool
    metrics: dict[str, Any]


def host_saved_path(metadata: Mapping[str, Any]) -> str:
    """The host's own saved-output path, when it reports one."""
    for key in HOST_PATH_KEYS:
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _unchanged(text: str, tool: str, reason: str, started: float, **extra: Any) -> Compressed:
    metrics = {
        "applied": False,
        "reason": reason,
        "tool": tool,
        "chars_before": len(text),
        "chars_after": len(text),
        "ms": round((time.perf_counter() - started) * 1000, 3),
        **extra,
    }
    return Compressed(text, False, metrics)


def compress_text(
    tool: str,
    text: str,
    metadata: Mapping[str, Any],
    budgets: Budgets,
    cache: Any,
    room: int | None = None,
) -> Compressed:
    """Compress ``text`` from ``tool`` within ``room`` characters (default: the budget limit).

    ``cache`` is a :class:`tersh.recording.tool_cache.Cache` (or None: no cache, host path only).
    """
    started = time.perf_counter()
    try:
        return _compress(tool, text, metadata, budgets, cache, room, started)
    except Exception as exc:  # fail open: a bug here costs the saving, never the output
        return _unchanged(text, tool, f"error: {type(exc).__name__}: {exc}", started)


def _compress(
    tool: str,
    text: str,
    metadata: Mapping[str, Any],
    budgets: Budgets,
    cache: Any,
    room: int | None,
    started: float,
) -> Compressed:
    strategy = strategies.strategy_for(tool)
    if strategy == "skip":
        return _unchanged(text, tool, "shell output is handled by `tersh run`", started)
    if len(text) <= budgets.trigger_chars:
        return _unchanged(text, tool, "below trigger", started)
    host_path = host_saved_path(metadata)
    raw = text.encode("utf-8", "surrogatepass")
    if not host_path and len(raw) > budgets.entry_bytes:
        return _unchanged(text, tool, "larger than a cache entry; left to the host", started)
    from tersh.compaction.ansi import strip_ansi

    clean = strip_ansi(text)
    limit = min(budgets.limit_chars, room if room is not None else budgets.limit_chars)
    entry_id = _entry_id(raw) if not host_path else ""
    footer = _footer(host_path, entry_id, cache)
    header_room = 160 + len(tool)
    for _attempt in range(3):
        body_budget = max(0, limit - len(footer) - header_room)
        proposal, used = _shrink(strategy, tool, clean, metadata, body_budget)
        if proposal is None:
            return _unchanged(text, tool, "no strategy could shorten it", started, strategy=used)
        shrunk = proposal
        payload = f"{_header(tool, used, shrunk.notes, text)}\n{shrunk.text}"
        if shrunk.lossy:
            payload = f"{payload}\n{footer}"
        if len(payload) <= limit:
            break
        header_room += len(payload) - limit + 32
    saving = 1.0 - len(payload) / len(text)
    if len(payload) > limit:
        return _unchanged(text, tool, "payload over budget", started, strategy=used)
    if saving <= budgets.min_saving:
        return _unchanged(text, tool, f"saving {saving:.0%} not above minimum", started,
                          strategy=used)
    recovery: dict[str, Any] | None = None
    if shrunk.lossy:
        recovery = _recover(host_path, entry_id, raw, tool, cache)
        if "error" in recovery:
            return _unchanged(text, tool, recovery["error"], started, strategy=used)
    metrics = {
        "applied": True,
        "reason": "compressed",
        "tool": tool,
        "strategy": used,
        "notes": list(shrunk.notes),
        "chars_before": len(text),
        "chars_after": len(payload),
        "tokens_before_est": estimate_tokens(text),
        "tokens_after_est": estimate_tokens(payload),
        "saving": round(saving, 4),
        "recovery": recovery,
        "ms": round((time.perf_counter() - started) * 1000, 3),
    }
    return Compressed(payload, True, metrics)


def _entry_id(raw: bytes) -> str:
    from tersh.recording.tool_cache import entry_id_for

    return entry_id_for(raw)


def _shrink(
    strategy: str, tool: str, text: str, metadata: Mapping[str, Any], budget: int
) -> tuple[strategies.Shrunk | None, str]:
    """Run the tool's strategy, falling back to a middle cut when it is not enough."""
    if strategy == "minimal":
        path = strategies.source_path(text, metadata)
        shrunk = strategies.minimal_then_middle(text, path, budget)
        if len(shrunk.text) >= len(text) or not shrunk.lossy:
            return None, "minimal"
        cut = any("middle" in note for note in shrunk.notes)
        return shrunk, "minimal+middle" if cut else "minimal"
    if strategy == "tail":
        unit = strategies.TAIL_UNITS.get(tool.strip().lower(), "line")
        shortened = strategies.tail(text, budget, unit)
        if shortened is not None:
            return shortened, "tail"
        return strategies.middle(text, budget), "middle"
    value = strategies.json_document(text)
    if value is not None:
        return strategies.compact_json(text, budget, value), "json"
    return strategies.middle(text, budget), "middle"


def _header(tool: str, strategy: str, notes: tuple[str, ...], original: str) -> str:
    detail = "; ".join(notes) if notes else "shortened"
    return (
        f"[tersh: {tool} output compressed ({strategy}): {detail}; original "
        f"{len(original):,} chars ≈ {estimate_tokens(original):,} tokens]"
    )


def _footer(host_path: str, entry_id: str, cache: Any) -> str:
    """Where the whole output is: the host's own file, or tersh's entry (its file, for the
    host's file tools, and the retrieve command spelled with the running tersh, which works
    from the agent's shell whether or not ``tersh`` is on PATH)."""
    if host_path:
        return f"[tersh: full output saved by the host at {host_path}]"
    from tersh.command.quoting import tersh_command

    where = f"{cache.future_path(entry_id)}; " if cache is not None else ""
    return (
        f"[tersh: full output: {where}`{tersh_command()} retrieve {entry_id}` "
        f"(--offset N --limit M to page, --query TEXT to search)]"
    )


def _recover(host_path: str, entry_id: str, raw: bytes, tool: str, cache: Any) -> dict[str, Any]:
    if host_path:
        return {"kind": "host", "path": host_path}
    if cache is None:
        return {"error": "no recovery cache"}
    from tersh.errors import TershError

    try:
        stored = cache.put(raw, tool)
    except (TershError, OSError) as exc:
        return {"error": f"not cached: {exc}"}
    return {"kind": "cache", "id": stored, "path": str(cache.path(stored))}
