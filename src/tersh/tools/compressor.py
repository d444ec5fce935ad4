"""The compressor of non-shell tool outputs (SPEC §2): one output in, a :class:`ToolResult` out.

Nothing raised inside ever reaches the caller: on any problem the original comes back.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tersh.recording.tool_cache import Cache
    from tersh.settings import Settings
    from tersh.tools.budgets import Budgets


@dataclass(frozen=True)
class ToolResult:
    """What the host should hand to the model, and why.

    ``metadata`` is the host's metadata with ``metadata["tersh"]`` holding the metrics
    (applied, reason, strategy, sizes before and after, saving, recovery pointer, time).
    """

    output: str | list[dict[str, Any]]
    changed: bool
    metadata: dict[str, Any]

    @property
    def metrics(self) -> dict[str, Any]:
        """The ``tersh`` entry of :attr:`metadata`."""
        value = self.metadata.get("tersh", {})
        return value if isinstance(value, dict) else {}


def compress(
    tool: str,
    output: str | list[dict[str, Any]],
    metadata: dict[str, Any] | None = None,
    settings: Settings | None = None,
    *,
    cache: Cache | None = None,
    limits: Budgets | None = None,
    exact_tokens: bool = False,
) -> ToolResult:
    """Compress one tool output, or return it unchanged when that is not worth it or unsafe.

    ``cache`` overrides the profile's recovery cache; ``limits`` the budgets read from
    ``settings`` and the environment (a long-lived caller reads them once per settings);
    ``exact_tokens`` adds exact o200k counts to the metrics (slow for large outputs: off on
    hot paths).
    """
    started = time.perf_counter()
    host_metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
    try:
        changed_output, changed, metrics = _compress(
            str(tool or ""), output, host_metadata, settings, cache, limits
        )
    except Exception as exc:  # fail open
        changed_output, changed = output, False
        metrics = {"applied": False, "reason": f"error: {type(exc).__name__}: {exc}"}
    if exact_tokens and changed:
        metrics.update(_exact_counts(output, changed_output))
    metrics.setdefault("ms", round((time.perf_counter() - started) * 1000, 3))
    return ToolResult(changed_output if changed else output, changed, {**host_metadata, "tersh": metrics})


def _compress(
    tool: str,
    output: Any,
    metadata: dict[str, Any],
    settings: Settings | None,
    cache: Cache | None,
    limits: Budgets | None,
) -> tuple[Any, bool, dict[str, Any]]:
    from tersh.tools import budgets, engine

    if settings is None:
        from tersh.settings import load_or_defaults

        settings = load_or_defaults()[0]
    if limits is None:
        limits = budgets.from_settings(settings)
    if cache is None:
        from tersh.recording.tool_cache import Cache

        cache = Cache.from_settings(settings)
    if isinstance(output, str):
        result = engine.compress_text(tool, output, metadata, limits, cache)
        return result.text, result.changed, result.metrics
    if isinstance(output, list):
        from tersh.tools import mcp

        return mcp.compress_items(tool, output, metadata, limits, cache)
    return output, False, {"applied": False, "reason": f"unsupported output type {type(output).__name__}"}


def _exact_counts(before: Any, after: Any) -> dict[str, int]:
    try:
        from tersh import tokens
    except ImportError:
        return {}

    def text_of(value: Any) -> str:
        if isinstance(value, str):
            return value
        from tersh.tools.mcp import text_slots

        return "\n".join(text for _, text in text_slots(value))

    return {"tokens_before": tokens.count(text_of(before)), "tokens_after": tokens.count(text_of(after))}
