"""The contract every host module meets (module-level functions, as in a pre-commit language).

Kept apart from ``tersh.hosts`` so that the hook's hot path never imports ``typing``.
"""

from __future__ import annotations

from typing import Any, Protocol


class Host(Protocol):
    """What a host module provides (module-level functions, as in a pre-commit language)."""

    NAME: str

    def answer(self, payload: dict[str, Any], tersh: str) -> dict[str, Any] | None:
        """The host's JSON answer to one hook call, or None to leave the call unchanged."""

    def install(self, scope: str, tersh: str, dry_run: bool) -> list[str]:
        """Add tersh to the host's settings; return one line per change made (or planned)."""

    def uninstall(self, scope: str, dry_run: bool) -> list[str]:
        """Remove tersh from the host's settings; return one line per change."""

    def show(self) -> list[str]:
        """One line per settings file: where it is and whether tersh is installed there."""
