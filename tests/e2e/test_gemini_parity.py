"""Inside the real Gemini CLI: its policy decides every command the same with tersh as without.

Each rule set of the parity table becomes a Gemini policy file; the whole command table runs
in one ``gemini -p`` session (one ``run_shell_command`` per turn), once without tersh and once
with ``tersh init gemini`` + ``tersh enable``. The evidence is the work folder (victims deleted
or not, files created or not) and the requests the model server received.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tersh.hosts import gemini, shell_rewrite
from tests.e2e import parity
from tests.e2e.gemini_host import HOOK_NOTE, Run, mode_flags, run_gemini, write_settings
from tests.e2e.hostbin import pinned_version

TERSH = Path(sys.executable).with_name("tersh")
COMMANDS = [case.command() for case in parity.CASES]


def test_the_pinned_gemini_is_0_61_0() -> None:
    assert pinned_version("gemini") == "0.61.0"


def install_tersh(home: Path, tersh_home: Path, tersh: Path = TERSH) -> None:
    """``tersh init gemini`` and ``tersh enable`` into a private HOME and TERSH_HOME."""
    env = {**os.environ, "HOME": str(home), "TERSH_HOME": str(tersh_home)}
    for argv in ([str(tersh), "init", "gemini"], [str(tersh), "enable"]):
        subprocess.run(argv, env=env, check=True, capture_output=True)


def session(root: Path, rules: parity.RuleSet | None, commands: list[str], with_tersh: bool) -> Run:
    """One Gemini session in ``root/work`` under ``rules`` (None: no rules, YOLO)."""
    home, work = root / "home", root / "work"
    parity.prepare(work)
    write_settings(home, rules)
    tersh_home = root / "tersh-home" if with_tersh else None
    if tersh_home is not None:
        install_tersh(home, tersh_home)
    flags = mode_flags(rules) if rules is not None else ["--yolo"]
    return run_gemini(commands, home, work, flags, tersh_home)


def both_sessions(root: Path, rules: parity.RuleSet | None, commands: list[str]) -> tuple[Run, Run]:
    """The session without tersh and the one with it, side by side (two Gemini processes)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        without = pool.submit(session, root / "without", rules, commands, False)
        with_tersh = pool.submit(session, root / "with", rules, commands, True)
        return without.result(), with_tersh.result()


@pytest.mark.parametrize("rules", parity.RULE_SETS, ids=lambda rules: rules.name)
def test_gemini_decides_every_command_the_same_with_tersh(rules: parity.RuleSet, tmp_path: Path) -> None:
    without, with_tersh = both_sessions(tmp_path, rules, COMMANDS)
    before = parity.outcomes(tmp_path / "without" / "work")
    after = parity.outcomes(tmp_path / "with" / "work")

    assert parity.differences(before, after) == {}
    for run in (without, with_tersh):
        assert run.code == 0, run.stderr[-2000:]
        assert run.asked_commands() == COMMANDS  # the model's history holds what it asked for
        assert len(run.tool_outputs()) == len(COMMANDS)
    rewritten = {
        command
        for command, output in zip(COMMANDS, with_tersh.tool_outputs(), strict=True)
        if HOOK_NOTE in output
    }
    assert not any(HOOK_NOTE in output for output in without.tool_outputs())
    if rules.deny or rules.ask:  # the rules really decide, and tersh stays away from rm
        assert before["plain"].victim_kept and not before["unlink"].victim_kept
        assert not any("rm" in command for command in rewritten)
    if rules.mode == "default":  # headless default: nothing is rewritten, allow rules still apply
        assert before["touch"].created and before["plain"].victim_kept
        assert rewritten == set()
    if rules.name == "no-rules":  # nothing to guard: tersh rewrites (almost) everything
        assert not before["plain"].victim_kept
        expected = {
            command
            for command in COMMANDS
            if shell_rewrite.rewrite(command, "tersh", fresh_shell=True)
            and not any(m in command for m in gemini.SUBSTITUTION_MARKS)
        }
        assert rewritten == expected and len(expected) >= 50


FAILING_TEST = """import pytest


@pytest.mark.parametrize("n", range(400))
def test_counts(n):
    assert n >= 0


def test_numbers():
    assert 1 + 1 == 3, "arithmetic is broken"
"""


def test_compacted_output_reaches_the_model(tmp_path: Path) -> None:
    work = tmp_path / "with" / "work"
    work.mkdir(parents=True)
    (work / "test_numbers.py").write_text(FAILING_TEST)
    pytest_command = f"{sys.executable} -m pytest -v -p no:cacheprovider test_numbers.py"
    findings = (  # 3,000 distinct located errors (~190 KB): nothing a compaction may drop
        "seq 1 3000 | awk '{print \"src/mod\" $1 \".py:\" $1 \":7: error: E\" $1 \" undefined\"}'"
    )
    commands = ["seq 1 300000", pytest_command, findings]
    (tmp_path / "without" / "work").mkdir(parents=True)
    (tmp_path / "without" / "work" / "test_numbers.py").write_text(FAILING_TEST)
    without, run = both_sessions(tmp_path, None, commands)

    assert run.asked_commands() == commands == without.asked_commands()
    seq_output, pytest_output, findings_output = run.tool_outputs()
    seq_without, pytest_without, findings_without = without.tool_outputs()
    # Gemini cuts a shell result near 40,000 characters; tersh's text fits, report inside.
    assert len(findings_without) > 40_000 or "src/mod3000.py" not in findings_without
    assert "[tersh] full output" in findings_output and len(findings_output) < 41_000
    assert "characters omitted] ..." not in findings_output  # Gemini did not cut tersh's text
    assert "characters omitted] ..." in findings_without
    assert "src/mod1.py:1:7" in findings_output
    for output in (seq_output, pytest_output):
        assert HOOK_NOTE in output and "[tersh] full output" in output
    assert "Exit Code: 1" in pytest_output and "Exit Code: 1" in pytest_without
    assert "arithmetic is broken" in pytest_output and "test_numbers.py:10" in pytest_output
    assert "1 failed, 400 passed" in pytest_output
    assert len(pytest_output) < len(pytest_without) / 4, (len(pytest_output), len(pytest_without))
    assert "Output: 1\n2\n" in seq_output and "\n300000\n" in seq_output
    assert len(seq_output) < 20_000 < len(seq_without)
    capture = seq_output.split("[tersh] full output", 1)[1].split(": ", 1)[1].split("; read:", 1)[0]
    assert Path(capture).read_bytes().count(b"\n") == 300000  # the report names the capture file


def test_a_missing_tersh_never_blocks_a_tool(tmp_path: Path) -> None:
    shim_dir = tmp_path / "bin"
    shim_dir.mkdir()
    shim = shim_dir / "tersh"
    shutil.copy2(TERSH, shim)  # the console script: a shebang to this interpreter
    home, work = tmp_path / "home", tmp_path / "work"
    write_settings(home, None)
    install_tersh(home, tmp_path / "tersh-home", tersh=shim)
    installed = json.loads((home / ".gemini" / "settings.json").read_text())["hooks"]
    assert set(installed) == {"BeforeTool"}  # no AfterTool: 0.61 ignores its tool_output
    command = installed["BeforeTool"][0]["hooks"][0]["command"]
    assert command == f"{gemini.FAIL_OPEN_PREFIX}{shim} hook gemini"
    shim.unlink()
    commands = ["touch made_by_gemini && echo ran"]
    work.mkdir()
    run = run_gemini(commands, home, work, ["--yolo"], tmp_path / "tersh-home")
    assert (work / "made_by_gemini").exists()
    assert "blocked" not in run.tool_outputs()[0] and "ran" in run.tool_outputs()[0]

    # The same hook without the fail-open prefix is what made Gemini block every tool.
    settings = json.loads((home / ".gemini" / "settings.json").read_text())
    handler = settings["hooks"]["BeforeTool"][0]["hooks"][0]
    handler["command"] = handler["command"].removeprefix(gemini.FAIL_OPEN_PREFIX)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    (work / "made_by_gemini").unlink()
    run = run_gemini(commands, home, work, ["--yolo"], tmp_path / "tersh-home")
    assert not (work / "made_by_gemini").exists()
    assert "Tool execution blocked" in run.tool_outputs()[0]


STATE_COMMANDS = ["mkdir -p sub && cd sub && export N=300000 && seq 1 $N", "pwd"]


def test_a_cd_and_export_prefix_is_optimised_and_keeps_its_effect(tmp_path: Path) -> None:
    # Gemini runs each command in a new bash: the hook wraps the whole line, so `cd` and
    # `export` act on the command after them, and the next command starts where it always did.
    without, run = both_sessions(tmp_path, None, STATE_COMMANDS)
    assert run.asked_commands() == STATE_COMMANDS == without.asked_commands()
    (seq_output, pwd_output), (seq_without, pwd_without) = run.tool_outputs(), without.tool_outputs()
    assert HOOK_NOTE in seq_output and "[tersh] full output" in seq_output
    assert "Output: 1\n2\n" in seq_output and "\n300000\n" in seq_output
    assert len(seq_output) < 20_000 < len(seq_without)
    assert str(tmp_path / "with" / "work") in pwd_output and "/sub" not in pwd_output
    assert str(tmp_path / "without" / "work") in pwd_without and "/sub" not in pwd_without
