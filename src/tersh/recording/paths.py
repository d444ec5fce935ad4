"""Where the ledger of the current profile lives, and the spool of calls waiting beside it.

Kept apart from ``tersh.recording.ledger`` (which imports ``sqlite3``): the per-call path only
needs the spool folder's name.
"""

from __future__ import annotations

import os

LEDGER_FILE = "ledger.db"
#: Calls written by `tersh run` wait in this folder beside the ledger until it is next opened.
SPOOL_SUFFIX = ".spool"


def ledger_file() -> str:
    """The ledger database of the current profile, as a plain path."""
    from tersh import settings

    return os.path.join(settings.profile_root(), LEDGER_FILE)


def spool_folder() -> str:
    """Where `tersh run` spools its calls for the current profile's ledger."""
    return ledger_file() + SPOOL_SUFFIX
