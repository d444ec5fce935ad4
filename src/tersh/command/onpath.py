"""Where a program is on ``PATH``: ``shutil.which`` for a bare name, without importing shutil.

``shutil`` imports ``re``, ``fnmatch``, ``bz2``, ``lzma`` and ``zlib`` (tens of millions of
instructions, more than bounding a megabyte of output); the capture report of ``python -m tersh``
asks where ``tersh`` is on every call that leaves something out.
"""

from __future__ import annotations

import os
import sys


def _search_path() -> str:
    """The ``PATH`` that ``shutil.which`` searches: the environment's, else the system's (''
    when it has none: nothing is found)."""
    path = os.environ.get("PATH")
    if path is not None:
        return path
    try:
        return os.confstr("CS_PATH") or ""
    except (AttributeError, ValueError):  # no confstr, or no CS_PATH
        return os.defpath


def which(name: str) -> str | None:
    """``shutil.which(name)``: the first executable file ``name`` in the folders of ``PATH``
    (a name with a folder part: itself, when it is one), else None."""
    if sys.platform == "win32":  # PATHEXT and the current folder first: shutil's own rules
        import shutil

        return shutil.which(name)
    if os.path.dirname(name):
        return name if _executable_file(name) else None
    path = _search_path()
    if not path:  # PATH='' finds nothing (PATH=':' searches the current folder)
        return None
    seen: set[str] = set()
    for folder in path.split(os.pathsep):
        if folder in seen:
            continue
        seen.add(folder)
        candidate = os.path.join(folder, name)
        if _executable_file(candidate):
            return candidate
    return None


def _executable_file(path: str) -> bool:
    return os.path.exists(path) and os.access(path, os.F_OK | os.X_OK) and not os.path.isdir(path)
