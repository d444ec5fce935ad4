"""The order of stdout and stderr: `tersh run` keeps the order the command wrote.

A command's stdout and stderr share one pipe (as in a terminal and in the hosts' shell tools),
so the model's text and the combined capture hold back-to-back writes in write order; such a
capture has no separate stream files, and retrieving one says so. A command whose stdout is a
document keeps its own byte-exact stdout capture.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tersh.recording import captures as capture
from tests.clihelp import enable, tersh

#: Shell builtins writing both streams microseconds apart.
LOOP = "for i in 1 2 3; do echo out$i; echo err$i >&2; done"
IN_ORDER = b"out1\nerr1\nout2\nerr2\nout3\nerr3\n"


def _run_json(command: str) -> dict[str, object]:
    done = tersh(["run", "--format", "json", "-c", command])
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_model_text_and_the_capture_keep_the_order_the_command_wrote() -> None:
    enable()
    done = tersh(["run", "-c", LOOP])
    assert done.returncode == 0 and done.stdout == IN_ORDER
    spaced = "for i in $(seq 300); do echo out$i; sleep 0.0005; echo err$i >&2; done; exit 4"
    result = _run_json(spaced)
    assert result["exit_code"] == 4
    captures = result["captures"]
    assert isinstance(captures, list) and [ref["stream"] for ref in captures] == ["combined"]
    combined = Path(captures[0]["path"])
    assert combined.read_bytes() == b"".join(b"out%d\nerr%d\n" % (i, i) for i in range(1, 301))
    assert sorted(os.listdir(combined.parent)) == ["combined", capture.META_FILE]


def test_retrieving_a_stream_of_a_merged_run_says_why_there_is_none() -> None:
    enable()
    capture_id = str(_run_json(LOOP)["capture_id"])
    for stream in ("stdout", "stderr"):
        done = tersh(["retrieve", capture_id, "--stream", stream])
        assert done.returncode != 0 and done.stdout == b""
        message = done.stderr.decode()
        assert message.count("\n") == 1 and f"no separate {stream}" in message
        assert "--stream combined" in message
    whole = tersh(["retrieve", capture_id])
    assert whole.returncode == 0
    assert whole.stdout.decode().splitlines()[:2] == ["1: out1", "2: err1"]


def test_a_document_on_stdout_keeps_its_own_byte_exact_capture() -> None:
    enable()
    result = _run_json(
        "python3 -c 'print(list(range(50)))' | python3 -m json.tool --indent 2; echo 'jq: warning' >&2"
    )
    refs = {ref["stream"]: Path(ref["path"]) for ref in result["captures"]}  # type: ignore[attr-defined]
    document = json.dumps(list(range(50)), indent=2).encode() + b"\n"
    assert refs["stdout"].read_bytes() == document
    assert refs["stderr"].read_bytes() == b"jq: warning\n"
    text = str(result["text"])
    assert text.startswith(document.decode()) and "jq: warning" in text
    done = tersh(["retrieve", str(result["capture_id"]), "--stream", "stderr"])
    assert done.returncode == 0 and done.stdout == b"1: jq: warning\n"


def test_a_merged_writer_keeps_only_the_combined_file() -> None:
    writer = capture.start("cmd", merged=True)
    writer.write("combined", b"out\n")
    writer.write("combined", b"err\n")
    cap = writer.finish(0)
    assert cap.sizes == {"combined": 8, "stdout": 0, "stderr": 0}
    assert [ref.stream for ref in cap.refs()] == ["combined"]
    assert sorted(os.listdir(cap.folder)) == ["combined", capture.META_FILE]
    assert capture.load(cap.id).sizes == cap.sizes
