"""The user data folder ``platformdirs`` names on Linux, without importing ``platformdirs``.

``platformdirs`` pulls in ``pathlib``, ``re``, ``urllib.parse``, ``tempfile``, ``shutil`` and
``random`` when it is imported: about 44M instructions, more than the rest of a short
``tersh run``. Every call of a user without ``$TERSH_HOME`` needs the profile folder, so
:func:`quick_user_data_dir` answers the common Linux case itself: an absolute
``$XDG_DATA_HOME``, or none set and an absolute ``$HOME``. Anything else (another system, a
relative variable, no usable home) returns None and the caller asks ``platformdirs``, whose
releases differ in exactly those cases. Where it answers, the answer equals
``platformdirs.user_data_dir(app, appauthor=False)`` (tests/test_userdirs.py).
"""

from __future__ import annotations

import os
import sys


def quick_user_data_dir(app: str) -> str | None:
    """``platformdirs.user_data_dir(app, appauthor=False)`` in the common Linux case, else None."""
    if sys.platform != "linux":
        return None
    data = os.environ.get("XDG_DATA_HOME", "")
    if data.startswith("/"):
        return os.path.join(data, app)
    if data.strip():
        return None  # a relative value: some platformdirs releases use it, newer ones ignore it
    home = os.environ.get("HOME", "")
    if not home.startswith("/"):
        return None  # unset or relative: platformdirs asks the password database
    return os.path.join(home.rstrip("/") + "/.local/share", app)
