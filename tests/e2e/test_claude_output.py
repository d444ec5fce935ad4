"""What the model receives inside the real Claude Code, with tersh installed and without.

One ``claude -p`` run per side makes the same calls: a huge ``seq``, a failing pytest run, a
Bash call that hits its timeout, a state-changing ``cd``, and a Read of a commented file. The
assertions are on the follow-up requests the model server recorded.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.e2e import anthropic, anthropic_claude
from tests.e2e.anthropic_claude import ClaudeRun

SLEEP = "sleep 23.456"  # a duration nothing else on the machine uses: its process is findable
#: 3,000 located errors with random text (~250 KB): no compaction may drop one, tersh's default
#: preview (50 KiB) would be over the host's inline limit; under the prefix it must stay within it.
NOISE = (
    f'{sys.executable} -c "import random; r = random.Random(1); '
    "[print(f'src/m{i}.py:{i}:1: error: E{i} {r.getrandbits(200)}') for i in range(3000)]\""
)
SOURCE = "".join(
    f"# step {i}: what the next function does, said at length\n# and a second comment line\n"
    f"def func_{i}(x):\n    return x + {i}  # trailing comments stay\n\n"
    for i in range(400)
)
TESTS = "".join(f"def test_ok_{i}():\n    assert True\n\n" for i in range(120)) + (
    "def test_broken():\n    assert 2 + 2 == 5, 'arithmetic is off'\n"
)


def calls(workdir: Path) -> list[anthropic.ToolCall]:
    pytest_run = f"{sys.executable} -m pytest -p no:cacheprovider test_sample.py"
    return [
        anthropic.bash("seq 1 300000"),
        anthropic.bash(pytest_run),
        anthropic.bash(f"{SLEEP}; echo done", timeout=3000),
        anthropic.bash(f"cd sub && {pytest_run.replace('test_sample.py', '../test_sample.py -q')}"),
        anthropic.bash("pwd"),
        anthropic.ToolCall("Read", {"file_path": str(workdir / "module.py")}),
        anthropic.bash(NOISE),
    ]


def claude_run(root: Path, tersh: bool) -> ClaudeRun:
    workdir = root / ("with" if tersh else "without") / "work"
    (workdir / "sub").mkdir(parents=True)
    (workdir / "module.py").write_text(SOURCE)
    (workdir / "test_sample.py").write_text(TESTS)
    run = anthropic_claude.run_claude(
        workdir,
        calls(workdir),
        settings={"permissions": {"defaultMode": "bypassPermissions"}},
        tersh=tersh,
        home=workdir.parent / "home",
    )
    assert run.code == 0, run.stderr[-2000:]
    assert len(run.results()) == len(calls(workdir))
    return run


def test_what_the_model_receives(tmp_path: Path) -> None:
    """One run per side serves every check (two runs, not two per check: CI time)."""
    runs = claude_run(tmp_path, tersh=False), claude_run(tmp_path, tersh=True)
    for check in CHECKS:
        check(runs)


def check_the_history_holds_the_requested_commands(runs: tuple[ClaudeRun, ClaudeRun]) -> None:
    without, with_tersh = runs
    assert with_tersh.asked() == without.asked()
    scripted = [call.input for call in calls(Path("/unused")) if call.name == "Bash"]
    bash_inputs = [
        u["input"] for u in anthropic.conversation_tool_uses(with_tersh.last) if u["name"] == "Bash"
    ]
    assert bash_inputs == scripted  # command, description and timeout exactly as the model sent them


def check_a_huge_output_arrives_compacted_within_the_hosts_inline_limit(
    runs: tuple[ClaudeRun, ClaudeRun],
) -> None:
    without, with_tersh = runs
    assert "Output too large" in without.results()[0]  # the host's own 30,000-character limit
    seq = with_tersh.results()[0]
    assert "Output too large" not in seq and "persisted-output" not in seq
    assert len(seq) <= 30_000
    assert seq.startswith("1\n2\n3\n") and "\n300000\n" in seq  # the first and last lines
    assert "tersh retrieve" in seq  # the capture report


def check_the_preview_bound_is_the_hosts_inline_limit(runs: tuple[ClaudeRun, ClaudeRun]) -> None:
    without, with_tersh = runs
    assert "Output too large" in without.results()[6]
    noise = with_tersh.results()[6]
    assert "Output too large" not in noise and 25_000 < len(noise) <= 30_000
    assert "src/m0.py:0:1: error: E0 " in noise and noise.startswith("[tersh] index of the 3,000")
    assert "tersh retrieve" in noise.rsplit("\n", 1)[-1]


def check_a_failing_test_run_arrives_compacted_with_its_exit_code(runs: tuple[ClaudeRun, ClaudeRun]) -> None:
    without, with_tersh = runs
    before, after = without.results()[1], with_tersh.results()[1]
    assert before.startswith("Exit code 1\n") and after.startswith("Exit code 1\n")
    for fact in ["test_broken", "arithmetic is off", "test_sample.py:", "1 failed, 120 passed"]:
        assert fact in before and fact in after, fact
    assert len(after) < len(before)


def check_a_timeout_ends_the_command_as_without_tersh(runs: tuple[ClaudeRun, ClaudeRun]) -> None:
    without, with_tersh = runs
    assert with_tersh.results()[2] == without.results()[2]
    assert "timed out" in without.results()[2] and "done" not in with_tersh.results()[2]
    assert with_tersh.seconds < without.seconds + 15  # not waited out (the sleep is 23 s)
    left = subprocess.run(["pgrep", "-f", SLEEP], capture_output=True, text=True)
    assert left.stdout == "", "the timed-out command outlived the host's kill"


def check_state_changing_commands_work_as_without_tersh(runs: tuple[ClaudeRun, ClaudeRun]) -> None:
    without, with_tersh = runs
    before, after = without.results()[3], with_tersh.results()[3]
    assert "1 failed, 120 passed" in before and "1 failed, 120 passed" in after
    assert with_tersh.results()[4].replace("/with/", "/") == without.results()[4].replace("/without/", "/")


def numbered(result: str) -> dict[int, str]:
    rows = {}
    for line in result.split("\n"):
        match = re.match(r"\s*(\d+)\t(.*)", line)
        if match:
            rows[int(match.group(1))] = match.group(2)
    return rows


def check_read_never_shifts_a_line_number(runs: tuple[ClaudeRun, ClaudeRun]) -> None:
    without, with_tersh = runs
    file_lines = SOURCE.split("\n")
    assert numbered(without.results()[5])[1203] == file_lines[1202]  # the host numbers from 1
    shown = numbered(with_tersh.results()[5])
    assert len(with_tersh.results()[5]) < len(without.results()[5])
    emptied = 0
    for number, line in enumerate(file_lines[:-1], start=1):
        assert shown[number] in (line, ""), (number, shown[number], line)
        emptied += shown[number] != line
        if not line.startswith("#"):
            assert shown[number] == line, number
    assert emptied == 800
    assert "comment lines shown empty" in shown[len(file_lines)]


def texts(value: object) -> list[str]:
    """Every string inside a JSON value (the deferred tools are named in a system reminder)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in texts(item)]
    return []


def check_the_post_tool_use_matcher_names_only_tools_this_version_has(
    runs: tuple[ClaudeRun, ClaudeRun],
) -> None:
    from tersh.hosts import claude_code

    body = runs[1].last
    offered = set(anthropic.offered_tools(body))
    system = "\n".join(texts([body.get("system"), body.get("messages")]))
    assert not {"Grep", "Glob", "Task"} & offered
    for name in claude_code.POST_MATCHER.split("|"):
        if not name.startswith("mcp__"):
            assert name in offered or re.search(rf"\b{name}\b", system), name


CHECKS = (
    check_the_preview_bound_is_the_hosts_inline_limit,
    check_the_history_holds_the_requested_commands,
    check_a_huge_output_arrives_compacted_within_the_hosts_inline_limit,
    check_a_failing_test_run_arrives_compacted_with_its_exit_code,
    check_a_timeout_ends_the_command_as_without_tersh,
    check_state_changing_commands_work_as_without_tersh,
    check_read_never_shifts_a_line_number,
    check_the_post_tool_use_matcher_names_only_tools_this_version_has,
)
