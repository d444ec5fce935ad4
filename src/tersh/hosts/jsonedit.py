"""Edit a host's settings file safely: keep its style, back it up, replace it atomically.

JSON settings are parsed, changed in memory and written back in the file's own style (indent
width or tabs, trailing newline, non-ASCII kept as is, key order kept), so a file that was
written by its host comes back identical except for tersh's entries. A file that does not parse
is never touched. Every write first copies the old file to ``<name>.tersh-backup`` (0600) and
then replaces the file atomically, keeping its permission bits.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tersh.errors import TershError

BACKUP_SUFFIX = ".tersh-backup"


@dataclass(frozen=True)
class JsonStyle:
    """How a JSON file is laid out: indent unit and whether it ends with a newline."""

    indent: str | int | None = 2
    trailing_newline: bool = True


def detect_style(text: str) -> JsonStyle:
    """Guess the indent unit (first indented line) and the final newline of ``text``."""
    if not text.strip():
        return JsonStyle()
    indent: str | int | None = None
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            indent = lead if "\t" in lead else len(lead)
            break
    if indent is None and "\n" not in text.strip():
        indent = None  # a one-line document stays on one line
    elif indent is None:
        indent = 2
    return JsonStyle(indent=indent, trailing_newline=text.endswith("\n"))


def render(data: Any, style: JsonStyle) -> str:
    """``data`` as JSON text in ``style``."""
    separators = (",", ": ") if style.indent is not None else (", ", ": ")
    text = json.dumps(data, indent=style.indent, ensure_ascii=False, separators=separators)
    return text + ("\n" if style.trailing_newline else "")


def read_text(path: Path) -> str | None:
    """The file's text, None when it does not exist; refuses symlinks and non-files."""
    if path.is_symlink():
        raise TershError(f"refusing to edit {path}: it is a symbolic link")
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise TershError(f"cannot read {path}: {exc}") from exc


def load_json(path: Path) -> tuple[dict[str, Any], JsonStyle, str | None]:
    """The settings object, its style and its original text (None when the file is new)."""
    text = read_text(path)
    if text is None or not text.strip():
        return {}, JsonStyle(), text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TershError(f"{path} is not valid JSON ({exc}); not touching it") from exc
    if not isinstance(data, dict):
        raise TershError(f"{path} does not hold a JSON object; not touching it")
    return data, detect_style(text), text


def backup_path(path: Path) -> Path:
    """Where the copy of ``path`` taken before tersh's edit goes."""
    return path.with_name(path.name + BACKUP_SUFFIX)


def replace_file(path: Path, new_text: str, old_text: str | None) -> Path | None:
    """Back up the old file (if any), then write ``new_text`` atomically; return the backup."""
    from tersh.fsutil import atomic_write

    mode = 0o600
    backup = None
    if old_text is not None:
        mode = stat.S_IMODE(path.stat().st_mode)
        backup = backup_path(path)
        atomic_write(backup, old_text.encode("utf-8"))
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, new_text.encode("utf-8"))
    os.chmod(path, mode)
    return backup


def edit_json(
    path: Path,
    change: Callable[[dict[str, Any]], tuple[dict[str, Any], list[str]]],
    dry_run: bool,
    verb: str,
) -> list[str]:
    """Apply ``change`` to the JSON object in ``path``; return what changed, one line each.

    ``change`` returns the new object and a description per edit. Nothing is written when the
    new text equals the old one (idempotence), or when ``dry_run`` is set.
    """
    data, style, old_text = load_json(path)
    new_data, edits = change(data)
    shown = display(path)
    if not edits or (old_text is not None and render(new_data, style) == old_text):
        return [f"{shown}: unchanged (tersh {'already' if verb == 'add' else 'not'} installed)"]
    if old_text is None and not new_data:
        return [f"{shown}: unchanged (no file)"]
    lines = [f"{shown}: {verb} {edit}" for edit in edits]
    if dry_run:
        return [f"(dry run) {line}" for line in lines]
    if old_text is not None and render(data, style) != old_text:
        lines.append(
            f"{shown}: note: the file's hand-made layout was normalised to {style.indent!r}-"
            "indented JSON (same settings; see the backup)"
        )
    backup = replace_file(path, render(new_data, style), old_text)
    if backup is not None:
        lines.append(f"{shown}: previous version saved as {display(backup)}")
    elif old_text is None:
        lines.append(f"{shown}: created")
    return lines


def display(path: Path) -> str:
    """``path`` with the home folder shown as ``~`` (for messages)."""
    home = os.path.expanduser("~")
    text = str(path)
    return "~" + text[len(home) :] if home not in ("", "/") and text.startswith(home + "/") else text
