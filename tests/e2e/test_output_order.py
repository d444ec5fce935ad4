"""Inside the real hosts, stdout and stderr reach the model in the order the command wrote them.

The commands write both streams back to back (shell builtins, microseconds apart; 50 rounds
leave no room for a lucky read order) and 0.5 ms apart. Claude Code's Bash (one file for both
streams) shows them in write order without tersh, and with tersh (its shell prefix) the model
must receive exactly the same. Codex 0.171's shell and Gemini 0.61's headless shell tool read
stdout and stderr on two pipes and show what arrived first (measured: Codex gave
``out1 err1 err2 err3 out2 out3`` once, Gemini ``out1 out2 out3 err1 err2 err3``); with tersh
(their rewrite to ``tersh run``) the model receives the write order, as a terminal shows it.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e import anthropic, anthropic_claude, openai_responses, test_codex
from tests.e2e.test_gemini_parity import both_sessions

BACK_TO_BACK = "for i in 1 2 3; do echo out$i; echo err$i >&2; done"
SPACED = "for i in 1 2 3; do echo out$i; sleep 0.0005; echo err$i >&2; sleep 0.0005; done; exit 3"
MANY = "for i in {1..50}; do echo out$i; echo err$i >&2; done"
IN_ORDER = "out1\nerr1\nout2\nerr2\nout3\nerr3"
MANY_IN_ORDER = "\n".join(f"out{i}\nerr{i}" for i in range(1, 51))


def _claude(root: Path, tersh: bool) -> list[str]:
    workdir = root / ("with" if tersh else "without") / "work"
    workdir.mkdir(parents=True)
    run = anthropic_claude.run_claude(
        workdir,
        [anthropic.bash(BACK_TO_BACK), anthropic.bash(SPACED), anthropic.bash(MANY)],
        settings={"permissions": {"defaultMode": "bypassPermissions"}},
        tersh=tersh,
        home=workdir.parent / "home",
    )
    assert run.code == 0, run.stderr[-2000:]
    return run.results()


def test_claude_code_bash_shows_the_order_the_command_wrote_with_tersh_as_without(
    tmp_path: Path,
) -> None:
    without, with_tersh = _claude(tmp_path, tersh=False), _claude(tmp_path, tersh=True)
    assert without == [IN_ORDER, f"Exit code 3\n{IN_ORDER}", MANY_IN_ORDER]
    assert with_tersh == without


def _lines(text: str) -> list[str]:
    return sorted(text.rpartition("Output:")[2].split())


def test_codex_shell_shows_the_order_the_command_wrote_with_tersh(tmp_path: Path) -> None:
    commands = (BACK_TO_BACK, SPACED, MANY)
    steps = [openai_responses.shell(command) for command in commands]
    plain = test_codex.run_codex(tmp_path / "without", steps)
    hooked = test_codex.run_codex(tmp_path / "with", steps, tersh=True)
    folders = [path for path in test_codex.captures(hooked.tersh_home) if path.is_dir()]
    assert len(folders) == 3, "not every call ran through tersh"
    back_to_back, spaced, many = hooked.texts()
    assert back_to_back.endswith(f"Output:\n{IN_ORDER}\n") and "exited with code 0" in back_to_back
    assert spaced.endswith(f"Output:\n{IN_ORDER}\n") and "exited with code 3" in spaced
    assert many.endswith(f"Output:\n{MANY_IN_ORDER}\n")
    assert [_lines(text) for text in plain.texts()] == [_lines(text) for text in hooked.texts()]


def test_gemini_shell_shows_the_order_the_command_wrote_with_tersh(tmp_path: Path) -> None:
    without, with_tersh = both_sessions(tmp_path, None, [BACK_TO_BACK, SPACED, MANY])
    assert len(without.tool_outputs()) == 3  # Gemini's own order: see the module docstring
    back_to_back, spaced, many = with_tersh.tool_outputs()
    assert f"Output: {IN_ORDER}\n" in back_to_back
    assert f"Output: {IN_ORDER}\n" in spaced and "Exit Code: 3" in spaced
    assert f"Output: {MANY_IN_ORDER}\n" in many
