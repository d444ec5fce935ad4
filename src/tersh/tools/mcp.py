"""MCP tool results: compress text items and textual resources in their own slots.

Images, audio, resource links, binary resources and every other field keep their place and
their bytes; only ``text`` of a text item or ``resource.text`` of an embedded resource may be
replaced, each with its own recovery footer. The minimum saving applies to the whole result.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping
from typing import Any

from tersh.tools import engine
from tersh.tools.budgets import Budgets

#: Resource MIME types treated as text besides ``text/*``.
_TEXTUAL = ("json", "xml", "yaml", "toml", "javascript", "typescript", "csv", "markdown", "sql")
#: The smallest share of the budget a large slot is given.
MIN_SLOT_ROOM = 600
#: Slots shorter than this are never cut: a header and footer would eat the saving.
MIN_SLOT_CHARS = 2000


def _is_textual(mime: object) -> bool:
    if not isinstance(mime, str) or not mime:
        return True
    mime = mime.lower()
    return mime.startswith("text/") or any(word in mime for word in _TEXTUAL)


def text_slots(items: list[Any]) -> list[tuple[int, str]]:
    """(index, text) of every slot whose text may be compressed."""
    slots = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "text" and isinstance(item.get("text"), str):
            slots.append((index, item["text"]))
        elif item.get("type") == "resource":
            resource = item.get("resource")
            if (
                isinstance(resource, Mapping)
                and isinstance(resource.get("text"), str)
                and _is_textual(resource.get("mimeType"))
            ):
                slots.append((index, resource["text"]))
    return slots


def _put(item: dict[str, Any], text: str) -> None:
    if item.get("type") == "text":
        item["text"] = text
    else:
        item["resource"]["text"] = text


def compress_items(
    tool: str,
    items: list[Any],
    metadata: Mapping[str, Any],
    budgets: Budgets,
    cache: Any,
) -> tuple[list[Any], bool, dict[str, Any]]:
    """(items, changed, metrics) for one MCP content list."""
    started = time.perf_counter()
    slots = text_slots(items)
    before = sum(len(text) for _, text in slots)
    base = {"tool": tool, "chars_before": before, "slots": len(slots)}

    def unchanged(reason: str) -> tuple[list[Any], bool, dict[str, Any]]:
        elapsed = round((time.perf_counter() - started) * 1000, 3)
        return items, False, {**base, "applied": False, "reason": reason,
                              "chars_after": before, "ms": elapsed}

    if before <= budgets.trigger_chars:
        return unchanged("below trigger")
    total_bytes = sum(len(text.encode("utf-8", "surrogatepass")) for _, text in slots)
    if total_bytes > budgets.entry_bytes and not engine.host_saved_path(metadata):
        return unchanged("larger than a cache entry; left to the host")
    out = copy.deepcopy(items)
    slot_budgets = budgets._replace(trigger_tokens=0)
    details = []
    after = before
    for index, text in slots:
        room = max(MIN_SLOT_ROOM, budgets.limit_chars * len(text) // before)
        if len(text) <= max(room, MIN_SLOT_CHARS):
            continue
        result = engine.compress_text(tool, text, metadata, slot_budgets, cache, room)
        details.append({"slot": index, **result.metrics})
        if result.changed:
            _put(out[index], result.text)
            after += len(result.text) - len(text)
    saving = 1.0 - after / before
    if after == before:
        return unchanged("no slot could be shortened")
    if saving <= budgets.min_saving:
        return unchanged(f"saving {saving:.0%} not above minimum")
    metrics = {
        **base,
        "applied": True,
        "reason": "compressed",
        "strategy": "mcp",
        "chars_after": after,
        "saving": round(saving, 4),
        "items": details,
        "ms": round((time.perf_counter() - started) * 1000, 3),
    }
    return out, True, metrics
