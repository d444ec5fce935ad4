"""The ``hooks`` table shared by Claude Code, Codex and Gemini CLI settings, edited in memory.

All three hosts use the same layout: ``{"hooks": {EVENT: [{"matcher": M, "hooks": [HANDLER…]}]}}``
where a handler is ``{"type": "command", "command": "…"}``. tersh's handlers are recognised by
their command (``… tersh… hook HOST``); everything else in the table is left exactly as it was.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, NamedTuple


class HookSpec(NamedTuple):
    """One hook tersh installs: the event, the tool matcher and the handler object."""

    event: str
    matcher: str
    handler: dict[str, Any]


def is_tersh_handler(handler: object, host: str) -> bool:
    """True for a handler that runs ``tersh hook HOST`` (any tersh path)."""
    if not isinstance(handler, dict):
        return False
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    words = command.split()
    return len(words) >= 3 and words[-2:] == ["hook", host] and any("tersh" in word for word in words[:-2])


def without_tersh(settings: dict[str, Any], host: str) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``settings`` with every tersh handler for ``host`` removed, and what went.

    A matcher group left with no handler is dropped, then an event left with no group, then a
    ``hooks`` table left empty — but only the parts tersh emptied.
    """
    result = copy.deepcopy(settings)
    removed: list[str] = []
    table = result.get("hooks")
    if not isinstance(table, dict):
        return result, removed
    for event in list(table):
        groups = table[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [h for h in handlers if not is_tersh_handler(h, host)]
            for handler in handlers:
                if is_tersh_handler(handler, host):
                    removed.append(f"{event} [{group.get('matcher', '')}]: {handler['command']}")
            if kept or len(kept) == len(handlers):
                group["hooks"] = kept
                kept_groups.append(group)
        if groups and not kept_groups:
            del table[event]
        else:
            table[event] = kept_groups
    if not table and removed:
        del result["hooks"]
    return result, removed


def with_tersh(
    settings: dict[str, Any], host: str, specs: list[HookSpec]
) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``settings`` whose tersh handlers for ``host`` are exactly ``specs``.

    When the settings already hold exactly these handlers the copy equals the input (so a
    second ``init`` changes nothing); otherwise old tersh handlers are replaced.
    """
    if _installed_specs(settings, host) == specs:
        return copy.deepcopy(settings), []
    result, _ = without_tersh(settings, host)
    table = result.setdefault("hooks", {})
    if not isinstance(table, dict):
        from tersh.errors import TershError

        raise TershError("the settings' 'hooks' entry is not an object; not touching it")
    added = []
    for spec in specs:
        table.setdefault(spec.event, []).append({"matcher": spec.matcher, "hooks": [spec.handler]})
        added.append(f"{spec.event} [{spec.matcher}]: {spec.handler['command']}")
    return result, added


def _installed_specs(settings: dict[str, Any], host: str) -> list[HookSpec]:
    table = settings.get("hooks")
    found: list[HookSpec] = []
    if not isinstance(table, dict):
        return found
    for event, groups in table.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                if is_tersh_handler(handler, host):
                    found.append(HookSpec(event, str(group.get("matcher", "")), handler))
    return found


def installed_commands(settings: dict[str, Any], host: str) -> list[str]:
    """``EVENT [matcher]`` for each tersh handler present (for ``init --show``)."""
    return [f"{spec.event} [{spec.matcher}]" for spec in _installed_specs(settings, host)]


def install(path: Path, host: str, specs: list[HookSpec], dry_run: bool) -> list[str]:
    """Add ``specs`` to the JSON settings file at ``path`` (idempotent); say what changed."""
    from tersh.hosts import jsonedit

    return jsonedit.edit_json(path, lambda data: with_tersh(data, host, specs), dry_run, "add")


def uninstall(path: Path, host: str, dry_run: bool) -> list[str]:
    """Remove ``host``'s tersh hooks from the JSON settings file at ``path``; keep the rest."""
    from tersh.hosts import jsonedit

    return jsonedit.edit_json(path, lambda data: without_tersh(data, host), dry_run, "remove")
