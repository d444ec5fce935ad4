"""The library API: tersh.run, tersh.compact and tersh.retrieve, typed results, any call order."""

from __future__ import annotations

import os
import subprocess
import sys


def test_the_api_works_in_any_order_and_after_the_rules_are_loaded() -> None:
    probe = (
        "import tersh\n"
        "first = tersh.compact('pytest -q', 1, combined=b'F\\n' + b'ok\\n' * 3000)\n"
        "again = tersh.compact('pytest -q', 1, combined=b'F\\n' + b'ok\\n' * 3000)\n"
        "ran = tersh.run(['sh', '-c', 'seq 1 5000; exit 3'])\n"
        "page = tersh.retrieve(ran.capture_id, offset=4990, limit=5)\n"
        "assert isinstance(first, tersh.Result) and isinstance(page, tersh.Page)\n"
        "print(first.exit_code, again.exit_code, ran.exit_code, ran.complete, [t for _, t in page.lines])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=os.environ, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1 1 3 False ['4991', '4992', '4993', '4994', '4995']"
