"""Agent hosts: lookup by name (and ``tersh_command``: how a host starts this tersh).

Each host is a module (``tersh.hosts.claude_code`` …) that meets ``tersh.hosts.contract.Host``
with module-level functions. Only the module asked for is imported, so ``tersh hook HOST`` stays lean.
"""

from __future__ import annotations

import sys

from tersh.command.quoting import tersh_command as tersh_command  # re-exported for the hosts

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import Any

    from tersh.hosts.contract import Host

#: Host name (as typed on the command line) -> module under ``tersh.hosts``.
HOST_MODULES: dict[str, str] = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
    "opencode": "opencode",
}

#: Other spellings users type.
ALIASES: dict[str, str] = {
    "claude": "claude-code",
    "claude_code": "claude-code",
    "claudecode": "claude-code",
    "codex-cli": "codex",
    "gemini-cli": "gemini",
    "open-code": "opencode",
}

SCOPES = ("global", "project")


def canonical_name(name: str) -> str | None:
    """The host's canonical name for ``name`` (case-insensitive), or None if unknown."""
    lowered = name.strip().lower()
    if lowered in HOST_MODULES:
        return lowered
    return ALIASES.get(lowered)


def load(name: str) -> Host:
    """Import and return the host module for ``name``; raise LookupError if unknown."""
    canonical = canonical_name(name)
    if canonical is None:
        raise LookupError(f"unknown host {name!r} (known: {', '.join(HOST_MODULES)})")
    qualified = f"tersh.hosts.{HOST_MODULES[canonical]}"
    __import__(qualified)  # not importlib.import_module: importlib costs more than the import
    module: Any = sys.modules[qualified]
    return module  # type: ignore[no-any-return]
