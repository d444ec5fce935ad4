"""`tersh run` starts lean: the per-command path imports none of the heavy modules."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.clihelp import enable

HEAVY = ("argparse", "dataclasses", "inspect", "typing", "pathlib", "tomllib", "subprocess",
         "selectors", "threading", "shlex", "secrets", "tersh.compaction", "tersh.compaction.preview")


def test_run_of_a_silent_command_imports_nothing_heavy() -> None:
    enable()
    probe = (
        "import sys\n"
        "from tersh.cli import main\n"
        "code = main(['run', '--', 'true'])\n"
        f"print(sorted(set({HEAVY!r}) & set(sys.modules)), code, file=sys.stderr)\n"
    )
    for _ in range(2):  # the first run creates the store and the ledger; the second is the usual
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              env=os.environ, timeout=60, check=False)
    assert done.stderr.strip().splitlines()[-1] == "[] 0", done.stderr
    assert done.stdout == ""
