"""Lines for ``tersh init --show``: each settings file and the tersh entries it holds."""

from __future__ import annotations

from pathlib import Path

from tersh.errors import TershError


def json_hooks(host: str, paths: list[Path]) -> list[str]:
    """One line per JSON settings file: missing, unreadable, or the tersh hooks present."""
    from tersh.hosts import hookconfig, jsonedit

    lines = []
    for path in paths:
        shown = jsonedit.display(path)
        try:
            data, _, text = jsonedit.load_json(path)
        except TershError as exc:
            lines.append(f"{shown}: {exc}")
            continue
        if text is None:
            lines.append(f"{shown}: no file")
            continue
        hooks = hookconfig.installed_commands(data, host)
        status = f"tersh hooks {', '.join(hooks)}" if hooks else "tersh not installed"
        lines.append(f"{shown}: {status}")
    return lines
