"""Every option explains itself; `tersh settings` and `tersh gain` explain their figures."""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tersh import settings
from tersh.cli import COMMANDS
from tersh.recording import calls, ledger
from tersh.result import CaptureRef, Result
from tests.clihelp import tersh


def parser_of(name: str) -> argparse.ArgumentParser:
    """The parser `tersh NAME` builds (as tersh.cli.main builds it)."""
    command = COMMANDS[name]
    module = __import__(f"tersh.commands.{command.module}", fromlist=["add_arguments"])
    parser = argparse.ArgumentParser(prog=f"tersh {name}", description=command.help)
    module.add_arguments(parser, name)
    return parser


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_option_and_action_has_a_description(name: str) -> None:
    for action in parser_of(name)._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        label = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip(), f"tersh {name} {label} has no help"
        for choice in action.choices or ():
            assert str(choice) in action.help, f"tersh {name} {label}: choice {choice!r} unexplained"


def test_the_help_people_see_names_the_settings_actions_and_the_compact_streams() -> None:
    shown = tersh(["settings", "--help"]).stdout.decode()
    for words in (
        "show: every setting",
        "get: print one",
        "set: change one",
        "reset: put one",
        "path: print where",
    ):
        assert words in " ".join(shown.split()), words
    compact = " ".join(tersh(["compact", "--help"]).stdout.decode().split())
    assert "--stdout STDOUT a file holding the command's standard output" in compact
    assert "--exit-code EXIT_CODE the command's exit code" in compact
    top = tersh(["--help"]).stdout.decode()
    assert "by program" in top and "per command" not in top


def test_tersh_settings_shows_each_keys_description() -> None:
    assert set(settings.DESCRIPTIONS) == set(settings.DEFAULTS)
    lines = tersh(["settings"]).stdout.decode().splitlines()
    assert len(lines) == len(settings.DEFAULTS)
    grace = next(line for line in lines if "captures.grace_seconds = 600" in line)
    assert grace.rstrip().endswith(settings.DESCRIPTIONS["captures.grace_seconds"])
    for key in settings.DEFAULTS:
        assert any(f" {key} = " in line and settings.DESCRIPTIONS[key] in line for line in lines), key
    assert json.loads(tersh(["settings", "--format", "json"]).stdout)["captures.grace_seconds"] == 600


def _record(home: Path, source: str, shown: str) -> None:
    capture_id = "c" + os.urandom(6).hex()
    path = home / "captures" / capture_id / "combined"
    path.parent.mkdir(parents=True)
    path.write_text(source)
    result = Result(
        text=shown, exit_code=0, requested_command="pytest -q", executed_command="pytest -q",
        category="tests", rule="pytest", input_bytes=len(source.encode()),
        output_bytes=len(shown.encode()), capture_id=capture_id,
        captures=(CaptureRef(capture_id, "combined", str(path), len(source.encode())),),
    )  # fmt: skip
    row = calls.call_row(result, session="s", host="cli", program="pytest", klass="tests",
                         with_arguments=True)
    ledger.add_row(row)


def test_gain_explains_each_figure_in_text_and_json(tersh_home: Path) -> None:
    _record(tersh_home, "PASSED test_x\n" * 4000, "4000 passed\n")
    text = tersh(["gain"], env={"COLUMNS": "200"}).stdout.decode()
    assert "vs host (what each host would have shown without tersh" in text
    meaning = text.split("What the figures mean:", 1)[1]
    assert "vs host: against what that agent host would have shown" in meaning
    assert "negative: tersh's text plus what was read back" in meaning
    assert "bytes: the output as the command printed it" in meaning
    report = json.loads(tersh(["gain", "--format", "json"]).stdout)
    assert report["total"]["calls"] == 1 and "negative" in report["explained"]["vs_host"]
    assert "The figures:" in " ".join(tersh(["gain", "--help"]).stdout.decode().split())


def test_gain_shows_a_progress_bar_on_a_terminals_stderr_while_it_counts(tersh_home: Path) -> None:
    for n in range(3):
        _record(tersh_home, f"line {n}\n" * 20000, "short\n")
    main, secondary = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    done = subprocess.Popen([sys.executable, "-m", "tersh", "gain"], stdout=subprocess.PIPE,
                            stderr=secondary, env=env)  # fmt: skip
    os.close(secondary)
    seen = b""
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    stdout = done.communicate(timeout=60)[0].decode()
    os.close(main)
    assert done.returncode == 0
    assert b"counting tokens of new calls" in seen and b"/3" in seen
    assert "counting tokens" not in stdout and "3 calls, 3 measured" in stdout
    quiet = tersh(["gain"])  # not a terminal, and nothing left to count: no bar at all
    assert b"counting" not in quiet.stderr
