"""Tool-output budgets: when to compress (trigger), how small (target), and a hard ceiling.

Token figures on this hot path are estimates (four characters per token, the usual rule of
thumb for English and code); exact o200k counts are reported in metrics only where cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from tersh.tools.trigger import CHARS_PER_TOKEN, ENV_OVERRIDES, env_int


class Budgets(NamedTuple):
    """Effective limits for one compression."""

    trigger_tokens: int
    target_tokens: int
    max_output_chars: int
    min_saving: float
    entry_bytes: int

    @property
    def trigger_chars(self) -> int:
        """Outputs longer than this many characters are considered for compression."""
        return self.trigger_tokens * CHARS_PER_TOKEN

    @property
    def limit_chars(self) -> int:
        """The most characters a compressed payload (header and footer included) may have."""
        return max(1, min(self.target_tokens * CHARS_PER_TOKEN, self.max_output_chars))


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: characters / 4, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def from_settings(settings: Mapping[str, Any]) -> Budgets:
    """Budgets from ``settings`` with the ``TERSH_*`` environment overrides applied."""
    values = {key: settings[key] for key in ENV_OVERRIDES.values()}
    for env_name, key in ENV_OVERRIDES.items():
        override = env_int(env_name)
        if override is not None:
            values[key] = override
    return Budgets(
        trigger_tokens=int(values["tools.trigger_tokens"]),
        target_tokens=int(values["tools.target_tokens"]),
        max_output_chars=int(values["tools.max_output_chars"]),
        min_saving=float(settings["tools.min_saving"]),
        entry_bytes=int(settings["cache.entry_bytes"]),
    )
