"""Finding RTK and reading its cached probe: the part of the RTK provider every command needs.

``tersh run`` asks the rewrite stage about every command. When no RTK is installed — the common
case — the answer must cost little: :func:`known_absence` looks on ``PATH`` and in the probe cache
without importing the provider (``tersh.execution.rewrite.rtk``), its verification or its runner.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    from tersh.settings import Settings
else:
    from tersh._startup.lean import NamedTuple

PROBE_FILE = "rtk-probe.json"


class Probe(NamedTuple):
    """The result of looking for a usable RTK."""

    found: bool
    version: str
    path: str  # the resolved real path ('' when not found)
    verified: bool
    reason: str
    checked_at: str  # ISO 8601, UTC


def _executable_names() -> tuple[str, ...]:
    if sys.platform == "win32":  # pragma: no cover - Windows only
        extensions = os.environ.get("PATHEXT", ".EXE;.CMD;.BAT").split(os.pathsep)
        return tuple(f"rtk{ext.lower()}" for ext in extensions if ext)
    return ("rtk",)


def locate(settings: Settings) -> tuple[str, str]:
    """``(candidate path, '')`` for the RTK to probe, or ``('', reason)`` when there is none."""
    configured = str(settings["rtk.path"]).strip()
    if configured:
        path = os.path.expanduser(configured)
        if not os.path.isabs(path):
            return "", f"rtk.path must be an absolute path, not {configured!r}"
        if not os.path.exists(path):
            return "", f"rtk.path {configured} does not exist"
        return path, ""
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder or not os.path.isabs(folder):
            continue  # a relative PATH entry would depend on the working folder
        for name in _executable_names():
            path = os.path.join(folder, name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path, ""
    return "", "rtk not found on PATH (set rtk.path to use one elsewhere)"


def fingerprint(candidate: str, settings: Settings) -> str:
    """What a cached probe is valid for: the pinning settings and the executable's identity.

    Hex-encoded, so the cache can be matched as bytes without parsing JSON.
    """
    parts = [
        str(settings["rtk.path"]),
        str(settings["rtk.min_version"]),
        str(settings["rtk.max_version"]),
        str(settings["rtk.sha256"]).lower(),
        candidate,
    ]
    if candidate:
        real = os.path.realpath(candidate)
        try:
            info = os.stat(real)
            parts += [real, str(info.st_size), str(info.st_mtime_ns), str(info.st_ino),
                      str(info.st_mode)]
        except OSError:
            parts.append("")
    return "\0".join(parts).encode("utf-8", "surrogateescape").hex()


def probe_path() -> str:
    """Where the probe of the current profile is cached (``state/rtk-probe.json``)."""
    from tersh.settings import profile_root

    return os.path.join(profile_root(), "state", PROBE_FILE)


def cached(key: str, why_missing: str) -> Probe | None:
    """The cached probe when it was made for ``key``, else None."""
    try:
        with open(probe_path(), "rb") as handle:
            raw = handle.read(65536)
    except OSError:
        return None
    if f'"key": "{key}"'.encode() not in raw:
        return None
    if raw.startswith(b'{"found": false'):  # nothing to read back: no json import needed
        return Probe(False, "", "", False, why_missing, "")
    import json

    try:
        data = json.loads(raw)
        return Probe(*(data[field] for field in Probe._fields))
    except (ValueError, KeyError, TypeError):
        return None


def known_absence(settings: Settings) -> str:
    """Why no RTK can be used, when none is found and the cached probe already says so (so
    there is nothing to probe or publish); '' otherwise."""
    candidate, why = locate(settings)
    if candidate:
        return ""
    probe = cached(fingerprint(candidate, settings), why)
    return why if probe is not None and not probe.found else ""


def rtk_status(published: dict[str, Any]) -> dict[str, Any]:
    """RTK as ``published`` in the status file, else as cached by the last probe, else unknown
    (what ``tersh status`` and the settings page show)."""
    section = published.get("rtk")
    if isinstance(section, dict) and section:
        return {**_pick(section), "source": "status file"}
    probe = _read_json(probe_path())
    if probe:
        return {**_pick(probe), "source": "probe cache"}
    return {"found": None, "reason": "not probed yet (tersh rtk retry)", "source": None}


def _pick(data: dict[str, Any]) -> dict[str, Any]:
    return {key: data.get(key) for key in Probe._fields}


def _read_json(path: str) -> dict[str, Any]:
    import json

    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
