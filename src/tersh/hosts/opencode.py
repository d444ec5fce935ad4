"""OpenCode: install or remove tersh's plugin file (``opencode.ts``, shipped in this package).

OpenCode loads every ``.js``/``.ts`` file of its plugin folders at start-up
(https://opencode.ai/docs/plugins): ``.opencode/plugins/`` in the project and
``~/.config/opencode/plugins/`` (``$XDG_CONFIG_HOME/opencode/plugins/``) for the user. Older
OpenCode releases and guides use the singular ``plugin/``; uninstall cleans both. Installing
writes ``tersh.ts`` with the command that starts this tersh filled in; running it twice
changes nothing; a different file already at that place is backed up first.
OpenCode has no stdin hook: everything runs inside the plugin (see opencode.ts).
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tersh.errors import TershError

if TYPE_CHECKING:
    from tersh.hosts.shell_rewrite import Decision

NAME = "opencode"
PLUGIN_FILE = "tersh.ts"
PLACEHOLDER = '"__TERSH_ARGV__"'
#: A line every file written by tersh carries (so uninstall never removes a user's file).
SIGNATURE = "tersh for OpenCode: installed by `tersh init opencode`"


def plugin_dirs(scope: str) -> list[Path]:
    """The plugin folders of ``scope`` ("project" or "global"), the documented one first."""
    if scope == "project":
        base = Path.cwd() / ".opencode"
    elif scope == "global":
        config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        base = Path(config) / "opencode"
    else:
        raise TershError(f"unknown scope {scope!r} (project or global)")
    return [base / "plugins", base / "plugin"]


def template() -> str:
    """The plugin source shipped inside the package."""
    return resources.files("tersh.hosts").joinpath("opencode.ts").read_text(encoding="utf-8")


def argv_for(tersh: str | None) -> list[str]:
    """The argv that starts tersh (from a shell-ready ``tersh`` prefix when given)."""
    if tersh:
        return shlex.split(tersh)
    try:
        from tersh.hosts import tersh_command

        return shlex.split(tersh_command())
    except ImportError:
        return [sys.executable, "-m", "tersh"]


def render(argv: list[str]) -> str:
    """The plugin source with ``argv`` as the command that starts tersh."""
    source = template()
    if PLACEHOLDER not in source:
        raise TershError("the packaged OpenCode plugin has no command placeholder")
    return source.replace(PLACEHOLDER, json.dumps(json.dumps(argv)), 1)


def _is_ours(path: Path) -> bool:
    try:
        return SIGNATURE in path.read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError:
        return False


def _backup(path: Path) -> Path:
    """Copy the user's own file at ``path`` aside: the first copy is the one ``uninstall`` puts
    back (``<name>.tersh-backup``, as for the hosts' settings files); later ones are dated."""
    from tersh.fsutil import atomic_write
    from tersh.hosts.jsonedit import backup_path

    backup = backup_path(path)
    counter = 0
    while os.path.lexists(backup):
        counter += 1
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = path.with_name(f"{path.name}.bak-{stamp}" + (f"-{counter}" if counter > 1 else ""))
    atomic_write(backup, path.read_bytes())
    os.chmod(backup, stat.S_IMODE(path.stat().st_mode))  # what uninstall puts back is as it was
    return backup


def install(scope: str = "project", tersh: str | None = None, dry_run: bool = False) -> list[str]:
    """Write the plugin into ``scope``'s plugin folder; one line per change (none if current)."""
    from tersh.fsutil import atomic_write, refuse_symlink

    target = plugin_dirs(scope)[0] / PLUGIN_FILE
    source = render(argv_for(tersh))
    refuse_symlink(target)
    changes: list[str] = []
    if target.exists():
        if target.read_text(encoding="utf-8", errors="replace") == source:
            return []
        if not _is_ours(target):
            if dry_run:
                return [f"would back up {target} and replace it with tersh's plugin"]
            changes.append(f"backed up {target} to {_backup(target)}")
        verb = "updated"
    else:
        verb = "installed"
    if dry_run:
        return [f"would write {target} (tersh's OpenCode plugin)"]
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, source.encode("utf-8"))
    os.chmod(target, 0o644)  # a plugin OpenCode reads; it holds no secret
    changes.append(f"{verb} {target} (tersh's OpenCode plugin; restart OpenCode to load it)")
    folder = target.parent.parent
    if not (folder / "node_modules" / "@opencode-ai" / "plugin").is_dir():
        changes.append(OFFLINE_NOTE.format(folder=folder))
    return changes


#: OpenCode 1.18 installs its plugin package into a config folder holding any plugin at every
#: start until one install succeeds (measured: about 100 s per start with no registry); tersh's
#: plugin imports nothing from it, and faking the install would break a user's own plugins.
OFFLINE_NOTE = (
    "note: OpenCode installs @opencode-ai/plugin into {folder} at its next start (tersh's plugin "
    "does not need it); without access to the npm registry every start waits about 100 s until "
    "one install succeeds (see docs/hosts.md, OpenCode)"
)


def uninstall(scope: str = "project", dry_run: bool = False) -> list[str]:
    """Remove tersh's plugin file from ``scope`` (never a file tersh did not write)."""
    changes: list[str] = []
    for folder in plugin_dirs(scope):
        target = folder / PLUGIN_FILE
        if target.is_symlink() or not target.is_file():
            continue
        if not _is_ours(target):
            changes.append(f"left {target} alone: it was not written by tersh")
            continue
        if dry_run:
            changes.append(f"would remove {target}")
            continue
        target.unlink()
        changes.append(f"removed {target}")
        changes.extend(_restore_original(target))
    return changes


def _restore_original(target: Path) -> list[str]:
    """Put back the user's own file that ``install`` copied aside, if it is still there."""
    from tersh.hosts.jsonedit import backup_path

    backup = backup_path(target)
    if backup.is_symlink() or not backup.is_file():
        return []
    os.replace(backup, target)
    return [f"restored your own {target} (tersh had set it aside)"]


def show() -> list[str]:
    """Where the plugin would live, and whether it is there."""
    lines = []
    for scope in ("project", "global"):
        target = plugin_dirs(scope)[0] / PLUGIN_FILE
        state = "installed" if target.is_file() and _is_ours(target) else "not installed"
        lines.append(f"opencode ({scope}): {target}: {state}")
    return lines


def shell_decision(command: str) -> Decision:
    """What happens to a bash command under OpenCode (for ``tersh rewrite --host``)."""
    from tersh.hosts.shell_rewrite import Decision, leave

    for scope in ("project", "global"):
        target = plugin_dirs(scope)[0] / PLUGIN_FILE
        if target.is_file() and _is_ours(target):
            return Decision(
                "after the fact",
                None,
                "the command runs unchanged (OpenCode judges its permission.bash rules on it); the"
                " plugin's tool.execute.after hands its output to tersh and the model gets the"
                " compacted text",
            )
    return leave(f"tersh's OpenCode plugin is not installed (tersh init {NAME})")


def answer(payload: dict[str, Any], tersh: str) -> dict[str, Any] | None:
    """OpenCode has no stdin hook (its plugin talks to `tersh serve`): nothing to answer."""
    return None
