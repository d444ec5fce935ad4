"""`tersh tool` and `tersh serve --stdio` as real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TERSH = [sys.executable, "-m", "tersh"]


def run(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TERSH, *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_tool_command_reads_text_and_prints_json() -> None:
    text = "\n".join(f"{i + 1}: # c\n{i + 1}: x = {i}" for i in range(2000))
    done = run(["tool", "--name", "read", "--metadata", '{"filePath": "a.py"}'], text)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["changed"] and answer["metadata"]["filePath"] == "a.py"
    assert answer["metadata"]["tersh"]["strategy"].startswith("minimal")


def test_tool_command_accepts_envelopes_and_mcp_lists() -> None:
    envelope = {"output": "z " * 10000, "metadata": {"outputPath": "/h/p"}}
    answer = json.loads(run(["tool", "--name", "webfetch"], json.dumps(envelope)).stdout)
    assert answer["changed"] and "/h/p" in answer["output"]
    mcp = [{"type": "text", "text": "q " * 10000}, {"type": "image", "data": "AA==", "mimeType": "image/png"}]
    answer = json.loads(run(["tool", "--name", "mcp__a__b"], json.dumps(mcp)).stdout)
    assert answer["changed"] and answer["output"][1] == mcp[1]
    as_text = json.loads(run(["tool", "--name", "x", "--text"], json.dumps(mcp)).stdout)
    assert isinstance(as_text["output"], str)


def test_tool_command_rejects_bad_metadata() -> None:
    done = run(["tool", "--name", "read", "--metadata", "[1]"], "x")
    assert done.returncode == 2 and "JSON object" in done.stderr


def test_serve_answers_every_line_in_order(tersh_home: Path) -> None:
    assert run(["enable"], "").returncode == 0
    seq = "".join(f"{i}\n" for i in range(1, 9001))
    requests = [
        {"id": 1, "type": "ping"},
        "not json",
        {"id": 2, "tool": "task", "output": "w " * 10000},
        {"id": 3, "tool": "grep", "output": "small"},
        {"id": 4, "type": "shell", "command": "seq 1 9000", "exit_code": 2, "output": seq},
        {"id": 5, "type": "rewrite", "command": "ls -la", "via": "run"},
        {"id": 6, "type": "bogus"},
        {"id": 7, "tool": "x", "output": 12},
        [1, 2],
    ]
    lines = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in requests) + "\n"
    done = run(["serve", "--stdio"], lines)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(requests)
    assert answers[0] == {"id": 1, "ok": True}
    assert answers[1]["id"] is None and "not JSON" in answers[1]["error"]
    assert answers[2]["changed"] and answers[2]["metadata"]["tersh"]["applied"]
    assert answers[3] == {"id": 3, "output": "small", "changed": False, "metadata": answers[3]["metadata"]}
    assert answers[4]["changed"] and "[tersh] full output" in answers[4]["output"]
    assert answers[4]["output"].rstrip().split("\n")[-2] == "9000"
    assert "unknown request type" in answers[5]["error"]  # no command rewrite, ever
    assert "unknown request type" in answers[6]["error"]
    assert "output must be" in answers[7]["error"]
    assert answers[8]["id"] is None


def test_serve_reads_lines_longer_than_a_read_and_a_last_line_without_newline(
    tersh_home: Path,
) -> None:
    """A request line of megabytes arrives in many reads; the last line needs no newline."""
    assert run(["enable"], "").returncode == 0
    long_text = "".join(f"line {i} of a long tool result\n" for i in range(60_000))  # ~1.9 MB
    requests = [
        {"id": 1, "tool": "task", "output": long_text},
        {"id": 2, "type": "ping"},
        {"id": 3, "tool": "grep", "output": "é ünïcode ✓"},
    ]
    lines = "\n".join(json.dumps(r, ensure_ascii=False) for r in requests)  # no final newline
    done = run(["serve", "--stdio"], lines)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert answers[0]["metadata"]["tersh"]["chars_before"] == len(long_text)
    assert answers[1] == {"id": 2, "ok": True}
    assert answers[2]["output"] == "é ünïcode ✓"


def test_serve_follows_enable_and_disable_without_restart(tersh_home: Path) -> None:
    proc = subprocess.Popen(
        [*TERSH, "serve", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdin and proc.stdout

    def ask(request: dict[str, object]) -> dict[str, object]:
        assert proc.stdin and proc.stdout
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        answer: dict[str, object] = json.loads(proc.stdout.readline())
        return answer

    try:
        big = {"id": 1, "tool": "task", "output": "v " * 10000}
        assert ask(big)["changed"] is False  # a new profile is disabled
        assert run(["enable"], "").returncode == 0
        assert ask(big)["changed"] is True
        assert run(["disable"], "").returncode == 0
        assert ask(big)["changed"] is False
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0


def test_serve_shell_reads_only_the_hosts_saved_file(tersh_home: Path, tmp_path: Path) -> None:
    assert run(["enable"], "").returncode == 0
    folder = tmp_path / "tool-output"
    folder.mkdir()
    saved = folder / "tool_1"
    saved.write_text("".join(f"row {i}\n" for i in range(6000)) + "FAILED test_x at t.py:9\n")
    (folder / "tool_link").symlink_to(saved)
    (tmp_path / "elsewhere").write_text(saved.read_text())
    short = "row 5999\nFAILED test_x at t.py:9\n"
    base = {"type": "shell", "command": "pytest", "exit_code": 1, "output": short}
    requests = [
        {**base, "id": 1, "full_output_path": str(saved)},
        {**base, "id": 2, "full_output_path": str(folder / "tool_link")},
        {**base, "id": 3, "full_output_path": str(tmp_path / "elsewhere")},
        {**base, "id": 4, "full_output_path": str(saved), "exit_code": None},
        {**base, "id": 5, "full_output_path": str(saved), "limits": {"max_lines": 50}},
    ]
    done = run(["serve", "--stdio"], "".join(json.dumps(r) + "\n" for r in requests))
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0]["metadata"]["tersh"]["source"] == "host file"
    assert "FAILED test_x at t.py:9" in answers[0]["output"] and "row 0" in answers[0]["output"]
    for refused in answers[1:3]:  # a symlink, a file outside the host's folder: the text only
        assert refused["metadata"]["tersh"]["source"] == "host text"
    assert answers[3] == {**answers[3], "output": short, "changed": False}
    assert len(answers[4]["output"].splitlines()) <= 50
    assert "FAILED test_x at t.py:9" in answers[4]["output"]
