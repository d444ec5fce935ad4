"""Edit a host's settings file safely: keep its style, back it up, replace it atomically.

JSON settings are parsed, changed in memory and written back in the file's own style (indent
width or tabs, trailing newline, non-ASCII kept as is, key order kept), so a file that was
written by its host comes back identical except for tersh's entries. A file that does not parse
is never touched. Files are replaced atomically, keeping their permission bits.

One backup per original: the first time tersh changes a user's file, its bytes are copied to
``<name>.tersh-backup`` (0600), and no later ``init`` or ``uninit`` overwrites that copy. When
``uninit`` leaves the same settings as that original (nothing else changed since), it puts the
original bytes back — hand-made layout and all — and drops the backup; otherwise the backup
stays for the user. A file ``init`` created gets a ``<name>.tersh-created`` marker instead, and
``uninit`` removes the file when nothing but tersh's entries was ever in it.
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
CREATED_SUFFIX = ".tersh-created"


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


def created_marker(path: Path) -> Path:
    """The empty file that says tersh created ``path`` (so ``uninit`` may remove it)."""
    return path.with_name(path.name + CREATED_SUFFIX)


def replace_file(path: Path, new_text: str, old_text: str | None) -> Path | None:
    """Write ``new_text`` atomically; return the backup of the original when made by this call.

    The user's original is copied once (never over an existing backup, never for a file tersh
    created); a new file gets its :func:`created_marker`.
    """
    from tersh.fsutil import atomic_write

    mode = 0o600
    backup = None
    if old_text is not None:
        mode = stat.S_IMODE(path.stat().st_mode)
        target = backup_path(path)
        if not os.path.lexists(target) and not os.path.lexists(created_marker(path)):
            atomic_write(target, old_text.encode("utf-8"))
            backup = target
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(created_marker(path), b"")
    atomic_write(path, new_text.encode("utf-8"))
    os.chmod(path, mode)
    return backup


def write_removal(path: Path, new_text: str, same_as: Callable[[str], bool], empty: bool) -> list[str]:
    """Write ``path`` after tersh's entries left it; return the note lines.

    ``same_as(original_text)`` says whether the original holds the same settings as
    ``new_text``; ``empty`` whether nothing is left. A file tersh created and nothing else
    filled is removed; an original with the same settings comes back byte for byte.
    """
    from tersh.fsutil import atomic_write

    shown = display(path)
    marker, backup = created_marker(path), backup_path(path)
    mode = stat.S_IMODE(path.stat().st_mode)
    if os.path.lexists(marker) and not marker.is_symlink():
        if empty:
            path.unlink()
            marker.unlink()
            return [f"{shown}: removed (tersh had created it and nothing else is in it)"]
        atomic_write(path, new_text.encode("utf-8"))
        marker.unlink()
        return []
    original = read_text(backup) if os.path.lexists(backup) else None
    if original is not None and same_as(original):
        atomic_write(path, original.encode("utf-8"))
        os.chmod(path, mode)
        backup.unlink()
        return [f"{shown}: restored your original file byte for byte (nothing else changed since)"]
    atomic_write(path, new_text.encode("utf-8"))
    os.chmod(path, mode)
    if original is not None:
        return [f"{shown}: settings changed since init, so your original stays in {display(backup)}"]
    return []


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
    if verb == "remove" and old_text is not None:
        same = _same_json(new_data)
        return lines + write_removal(path, render(new_data, style), same, empty=not new_data)
    original_kept = os.path.lexists(backup_path(path))
    if old_text is not None and render(data, style) != old_text:
        lines.append(
            f"{shown}: note: the file's hand-made layout was normalised to {style.indent!r}-"
            "indented JSON (same settings; the original is kept in the backup, and uninit puts"
            " it back when nothing else changed)"
        )
    if original_kept and old_text is not None:
        lines.append(f"{shown}: your original stays in {display(backup_path(path))} (kept once)")
    backup = replace_file(path, render(new_data, style), old_text)
    if backup is not None:
        lines.append(f"{shown}: original saved as {display(backup)} (no later init or uninit overwrites it)")
    elif old_text is None:
        lines.append(f"{shown}: created")
    return lines


def _same_json(data: dict[str, Any]) -> Callable[[str], bool]:
    def same(original: str) -> bool:
        try:
            return bool(json.loads(original) == data) if original.strip() else not data
        except ValueError:
            return False

    return same


def display(path: Path) -> str:
    """``path`` with the home folder shown as ``~`` (for messages)."""
    home = os.path.expanduser("~")
    text = str(path)
    return "~" + text[len(home) :] if home not in ("", "/") and text.startswith(home + "/") else text
