"""When a tool output is long enough to be considered at all: the trigger, cheaply.

Hooks run this on every tool call, so it imports nothing beyond ``os``: an output at or below
the trigger is left to the host before the compressor is loaded.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

#: The usual rule of thumb for English and code: about four characters per token.
CHARS_PER_TOKEN = 4

#: Environment variables that win over the settings file (name -> settings key).
ENV_OVERRIDES = {
    "TERSH_TRIGGER_TOKENS": "tools.trigger_tokens",
    "TERSH_TARGET_TOKENS": "tools.target_tokens",
    "TERSH_MAX_OUTPUT_CHARS": "tools.max_output_chars",
}


def env_int(name: str) -> int | None:
    """The positive integer in environment variable ``name`` (``_`` separators allowed), or None."""
    raw = os.environ.get(name, "").strip().replace("_", "")
    if not raw.isdigit():
        return None
    value = int(raw)
    return value if value > 0 else None


def trigger_tokens(settings: Mapping[str, Any]) -> int:
    """``tools.trigger_tokens`` with its environment override applied."""
    override = env_int("TERSH_TRIGGER_TOKENS")
    return override if override is not None else int(settings["tools.trigger_tokens"])


def below_trigger(text: str, settings: Mapping[str, Any]) -> bool:
    """True when ``text`` is too short for any compression (at or below the trigger)."""
    return len(text) <= trigger_tokens(settings) * CHARS_PER_TOKEN
