"""Agent hosts: lookup by name, and where the tersh executable lives.

Each host is a module (``tersh.hosts.claude_code`` …) that meets ``tersh.hosts.contract.Host``
with module-level functions. Only the module asked for is imported, so ``tersh hook HOST`` stays lean.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `from typing import …`: typing stays off the hook's hot path
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


def tersh_command() -> str:
    """A shell-ready prefix that starts this tersh: an absolute executable path when known.

    The hook is started by the host as ``/abs/tersh hook HOST``, so ``sys.argv[0]`` is that
    path; otherwise the ``tersh`` on PATH; otherwise ``python -m tersh`` with this interpreter.
    """
    from tersh.command.quoting import quote

    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0).startswith("tersh") and not argv0.endswith(".py"):
        candidate = os.path.abspath(argv0)
        if os.path.basename(candidate) != "tersh":  # e.g. tersh-shell-prefix: its sibling tersh
            candidate = os.path.join(os.path.dirname(candidate), "tersh")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return quote(candidate)
    import shutil

    found = shutil.which("tersh")
    if found:
        return quote(os.path.abspath(found))
    return f"{quote(sys.executable)} -m tersh"
