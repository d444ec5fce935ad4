"""Eight `tersh run` processes writing into one store at once lose or mix nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.clihelp import enable


def test_eight_processes_into_one_store() -> None:
    enable()
    procs = []
    for worker in range(8):
        script = (
            "import sys\n"
            f"for i in range(20000): sys.stdout.write(f'worker {worker} line {{i}}\\n')\n"
            f"sys.stderr.write('worker {worker} done\\n'); sys.exit({worker})\n"
        )
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "tersh", "run", "--format", "json", "--", sys.executable, "-c",
             script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ))
    ids = set()
    for worker, proc in enumerate(procs):
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == worker, err.decode()
        result = json.loads(out)
        ids.add(result["capture_id"])
        combined = Path(result["captures"][0]["path"]).read_text()
        expected = "".join(f"worker {worker} line {i}\n" for i in range(20000))
        assert combined == expected + f"worker {worker} done\n"  # one channel: in write order
        assert not (Path(result["captures"][0]["path"]).parent / "stdout").exists()
        assert f"worker {worker} done" in result["text"]
    assert len(ids) == 8
