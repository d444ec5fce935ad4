"""tersh inside the real OpenCode (the pinned npm binary), driven by a scripted model on 127.0.0.1.

OpenCode runs headless (``opencode run``) against a custom OpenAI-compatible provider whose
``baseURL`` is the fake model server (tests/e2e/openai_chat.py). Everything OpenCode reads or
writes lives under the test's own folder (HOME, XDG dirs); models.dev, updates, sharing and LSP
downloads are switched off, and the one npm package OpenCode installs into a plugin folder
(``@opencode-ai/plugin``, pinned in tests/e2e/package.json) is already there, so nothing is
fetched at test time.

What is proven here, on evidence:
- permission parity: for every rule set of tests/e2e/parity.py (as OpenCode ``permission.bash``
  patterns), every case has the same outcome (victim file kept, file created) with tersh
  installed and enabled as without it, all cases of a rule set in one OpenCode session;
- the model's history holds the command it asked for (the tool-call arguments OpenCode sends
  back in each follow-up request), never a wrapper;
- compaction reaches the model: ``seq 1 300000`` and a failing pytest run arrive compacted
  with the capture report, inside OpenCode's 2,000 lines / 50 KB, the exit code kept.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.e2e import parity
from tests.e2e.fakemodel import Request, serving
from tests.e2e.hostbin import HERE, host_binary, pinned_version
from tests.e2e.openai_chat import (
    Step,
    ToolCall,
    content_text,
    scripted,
    tool_calls,
    tool_results,
)

pytestmark = pytest.mark.slow

#: OpenCode's own inline limit for one tool output (its Truncate MAX_LINES / MAX_BYTES).
HOST_MAX_LINES, HOST_MAX_BYTES = 2000, 51200
TERSH = [sys.executable, "-m", "tersh"]


class Session(NamedTuple):
    """One finished ``opencode run``: its process, the model's requests, its JSON events."""

    done: subprocess.CompletedProcess[str]
    requests: list[Request]
    events: list[dict[str, Any]]

    def last_turn(self) -> dict[str, Any]:
        """The body of the last request that carried tools (the whole history)."""
        bodies = [r.body for r in self.requests if isinstance(r.body, dict) and r.body.get("tools")]
        assert bodies, f"OpenCode sent no model request:\n{self.done.stderr[-3000:]}"
        return bodies[-1]

    def results(self) -> list[str]:
        """The text of every tool result the model received, in order."""
        return [content_text(message) for message in tool_results(self.last_turn())]

    def bash_states(self) -> list[dict[str, Any]]:
        """The finished bash tool parts OpenCode reported (``--format json``), in order."""
        states = []
        for event in self.events:
            part = event.get("part") if isinstance(event.get("part"), dict) else {}
            if part.get("type") == "tool" and part.get("tool") == "bash":
                states.append(part.get("state") or {})
        return states


def _opencode() -> Path:
    binary = host_binary("opencode")
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.strip() == pinned_version("opencode") == "1.18.33", version.stdout
    return binary


def _environment(root: Path, tersh_home: Path) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env.update(
        HOME=str(root / "home"),
        XDG_CONFIG_HOME=str(root / "config"),
        XDG_DATA_HOME=str(root / "data"),
        XDG_CACHE_HOME=str(root / "cache"),
        XDG_STATE_HOME=str(root / "state"),
        TERSH_HOME=str(tersh_home),
        OPENCODE_DISABLE_MODELS_FETCH="1",
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_SHARE="1",
        OPENCODE_DISABLE_LSP_DOWNLOAD="1",
        OPENCODE_DISABLE_CLAUDE_CODE="1",
        # a registry that cannot answer: nothing is ever fetched at test time (OpenCode 1.18.33
        # now and then still tries its `@opencode-ai/plugin` install at start and logs
        # "background dependency install failed"; the pinned copy below is what it loads)
        npm_config_registry="http://127.0.0.1:9/",
    )
    return env


def _provide_plugin_package(folder: Path) -> None:
    """Make ``folder`` (an OpenCode config folder) hold ``@opencode-ai/plugin`` already.

    OpenCode 1.18.33 installs that package into every config folder it loads at start, unless
    the folder has ``node_modules`` and a lock file naming it; the pinned copy in
    tests/e2e/node_modules stands in for the install.
    """
    version = pinned_version_of("@opencode-ai/plugin")
    folder.mkdir(parents=True, exist_ok=True)
    deps = {"@opencode-ai/plugin": version}
    (folder / "package.json").write_text(json.dumps({"dependencies": deps}))
    lock = {"name": folder.name, "lockfileVersion": 3, "packages": {"": {"dependencies": deps}}}
    (folder / "package-lock.json").write_text(json.dumps(lock))
    link = folder / "node_modules"
    if not link.exists():
        link.symlink_to((HERE / "node_modules").resolve(), target_is_directory=True)


def pinned_version_of(package: str) -> str:
    """The version tests/e2e/package.json pins for ``package``."""
    pins: dict[str, str] = json.loads((HERE / "package.json").read_text())["dependencies"]
    return pins[package]


def _config(url: str, permission: dict[str, Any] | None) -> dict[str, Any]:
    config: dict[str, Any] = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": f"{url}/v1", "apiKey": "not-a-key"},
                "models": {"m": {"name": "m", "tool_call": True}},
            }
        },
        "model": "fake/m",
        "small_model": "fake/m",
        "autoupdate": False,
        "share": "disabled",
        # a refused call ends `opencode run` by default; the table needs every case to run
        "experimental": {"continue_loop_on_deny": True},
    }
    if permission:
        config["permission"] = permission
    return config


def _tersh(env: dict[str, str], cwd: Path, *args: str) -> None:
    done = subprocess.run([*TERSH, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def run_session(
    root: Path,
    commands: Sequence[str | Step],
    *,
    permission: dict[str, Any] | None = None,
    with_tersh: bool,
    prepare: Any = None,
    extra_config: dict[str, Any] | None = None,
) -> Session:
    """One ``opencode run`` in which the scripted model makes one call per step (a string is
    a bash command)."""
    binary = _opencode()
    work = root / "work"
    work.mkdir(parents=True)
    if prepare is not None:
        prepare(work)
    tersh_home = root / "tersh-home"
    env = _environment(root, tersh_home)
    env["PWD"] = str(work)
    config_folder = root / "config" / "opencode"
    _provide_plugin_package(config_folder)
    if with_tersh:
        _tersh(env, work, "enable")
        _tersh(env, work, "init", "opencode", "--global")
        assert (config_folder / "plugins" / "tersh.ts").is_file()
    calls = [bash(c) if isinstance(c, str) else c for c in commands]
    with serving(scripted(calls)) as model:
        config = {**_config(model.url, permission), **(extra_config or {})}
        (work / "opencode.json").write_text(json.dumps(config))
        done = subprocess.run(
            [str(binary), "run", "--format", "json", "--print-logs", "-m", "fake/m", "go"],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
        )
        requests = list(model.requests)
    events = []
    for line in done.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return Session(done, requests, events)


def bash(command: str) -> ToolCall:
    """The scripted model's call of OpenCode's bash tool."""
    return ToolCall("bash", {"command": command, "description": "scripted"})


def permission_for(rules: parity.RuleSet) -> dict[str, Any]:
    """A parity rule set as OpenCode ``permission.bash`` patterns (headless ask = refused)."""
    bash: dict[str, str] = {}
    if rules.mode == "default":
        bash["*"] = "ask"
    for program in rules.allow:
        bash[program] = bash[f"{program} *"] = "allow"
    for program in rules.ask:
        bash[program] = bash[f"{program} *"] = "ask"
    for program in rules.deny:
        bash[program] = bash[f"{program} *"] = "deny"
    return {"bash": bash} if bash else {}


def _requested(session: Session) -> list[str]:
    return [call["arguments"]["command"] for call in tool_calls(session.last_turn())]


@pytest.mark.parametrize("rules", parity.RULE_SETS, ids=lambda r: r.name)
def test_permission_parity_in_real_opencode(tmp_path: Path, rules: parity.RuleSet) -> None:
    commands = [case.command() for case in parity.CASES]

    def one(with_tersh: bool) -> Session:
        root = tmp_path / ("with" if with_tersh else "without")
        return run_session(
            root, commands, permission=permission_for(rules), with_tersh=with_tersh, prepare=parity.prepare
        )

    sessions = {with_tersh: one(with_tersh) for with_tersh in (False, True)}
    outcomes = {}
    for with_tersh, session in sessions.items():
        assert session.done.returncode == 0, session.done.stderr[-3000:]
        # every case ran, one call per turn, and the history holds the command asked for
        assert _requested(session) == commands
        assert len(session.results()) == len(commands)
        assert "evaluated permission=bash" in session.done.stderr
        outcomes[with_tersh] = parity.outcomes(tmp_path / ("with" if with_tersh else "without") / "work")
    assert parity.differences(outcomes[False], outcomes[True]) == {}
    plain = outcomes[False]["plain"]
    # the rules really worked (parity of two runs that both ignored them would prove nothing)
    assert plain.victim_kept == bool(rules.deny or rules.ask or rules.mode == "default")
    if rules.mode == "default":
        assert outcomes[False]["touch"].created and not outcomes[False]["touch-then-rm"].created


FAILING_TESTS = """
import pytest

@pytest.mark.parametrize("n", range(300))
def test_many(n):
    assert n >= 0

def test_broken():
    value = {"expected": 3}
    assert value["expected"] == 4, "the value was wrong"
"""


def _write_tests(work: Path) -> None:
    (work / "test_sample.py").write_text(FAILING_TESTS)


def test_compaction_reaches_the_model_in_real_opencode(tmp_path: Path) -> None:
    pytest_command = f"{sys.executable} -m pytest -p no:cacheprovider -v test_sample.py"
    commands = ["seq 1 300000", pytest_command]
    without = run_session(tmp_path / "without", commands, with_tersh=False, prepare=_write_tests)
    session = run_session(tmp_path / "with", commands, with_tersh=True, prepare=_write_tests)
    assert _requested(session) == commands
    seq_text, pytest_text = session.results()
    plain_seq, plain_pytest = without.results()
    for text in (seq_text, pytest_text):
        assert "[tersh] full output" in text, text[-2000:]
        assert len(text.split("\n")) <= HOST_MAX_LINES
        assert len(text.encode()) <= HOST_MAX_BYTES
        assert "output truncated" not in text  # OpenCode did not cut tersh's text again
    # tersh read OpenCode's saved full output: the head OpenCode's own cut had dropped is back
    assert "output truncated" in plain_seq and "\n1\n2\n3\n" not in plain_seq
    assert seq_text.startswith("1\n2\n3\n")
    # ... and its tail is the saved file's last line: 300000 whenever OpenCode read the whole
    # output (on a loaded machine OpenCode 1.18.33 may take the exit code before the last
    # chunks and save less; what it saved is all any reader of its file gets)
    saved = Path(session.bash_states()[0]["metadata"]["outputPath"]).read_text()
    assert saved.startswith("1\n2\n3\n") and f"\n{saved.splitlines()[-1]}\n" in seq_text
    assert saved.endswith("\n300000\n") == ("\n300000\n" in seq_text)
    assert "test_broken" in pytest_text and "the value was wrong" in pytest_text
    assert "test_sample.py:" in pytest_text  # the failure's location
    assert len(pytest_text) < len(plain_pytest)
    # the exit codes OpenCode recorded are the commands' own
    exits = [state.get("metadata", {}).get("exit") for state in session.bash_states()]
    plain_exits = [state.get("metadata", {}).get("exit") for state in without.bash_states()]
    assert exits == plain_exits == [0, 1]


def _report_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.startswith("[tersh] full output")]
    assert lines, text[-1500:]
    return lines[-1]


def _hint(body: dict[str, Any], offset: int, limit: int) -> str:
    """The retrieve command of the latest capture report, as the model would copy it."""
    report = _report_line(content_text(tool_results(body)[-1]))
    command = report.split("; read: ", 1)[1].split(" --offset N", 1)[0]
    return f"{command} --offset {offset} --limit {limit}"


def test_capture_report_works_as_printed_from_opencodes_shell(tmp_path: Path) -> None:
    """The report's retrieve command runs in OpenCode's bash (tersh not on PATH) and its file
    is readable by OpenCode's own read tool."""
    root = tmp_path / "session"

    # Line 3001 is far outside the 2,000 lines OpenCode kept (the tail). On a loaded machine
    # OpenCode 1.18.33 may save less than all 300,000 lines: its shell tool can take the exit
    # code before it has read the last chunks, and in CI its saved file once began at 5,137 and
    # once skipped chunks in the middle. The paged lines are checked against the saved file.
    def retrieve(body: dict[str, Any]) -> ToolCall:
        return bash(_hint(body, 3000, 3))

    def read_capture(body: dict[str, Any]) -> ToolCall:
        report = _report_line(content_text(tool_results(body)[0]))
        path = report.split("): ", 1)[1].split("; read: ", 1)[0]
        return ToolCall("read", {"filePath": path, "offset": 3001, "limit": 2})

    env_path = _environment(root, root)["PATH"]
    assert shutil.which("tersh", path=env_path) is None, "tersh must not be on the shell's PATH"
    session = run_session(
        root,
        ["seq 1 300000", retrieve, read_capture],
        with_tersh=True,
        extra_config={"permission": {"external_directory": "allow"}},
    )
    first, paged, read = session.results()
    report = _report_line(first)
    assert report.split("; read: ", 1)[1].startswith("/")  # an absolute command
    saved = Path(report.split("): ", 1)[1].split("; read: ", 1)[0]).read_text().splitlines()
    assert len(saved) > 3003 and all(line.isdigit() for line in saved)  # seq's lines only
    lines = saved[3000:3003]
    assert paged.startswith(f"3001: {lines[0]}\n3002: {lines[1]}\n3003: {lines[2]}"), paged[:300]
    assert "command not found" not in paged
    assert f"3001: {lines[0]}" in read and f"3002: {lines[1]}" in read, read[:500]


def _numbered_source(work: Path) -> None:
    lines = []
    for number in range(1, 2401):
        lines.append(f"# note {number} about nothing" if number % 3 == 0 else f"v_{number} = {number}")
    (work / "big.py").write_text("\n".join(lines) + "\n")


def test_retrieving_a_compressed_read_shows_each_line_number_once(tmp_path: Path) -> None:
    root = tmp_path / "session"

    def retrieve(body: dict[str, Any]) -> ToolCall:
        text = content_text(tool_results(body)[-1])
        footer = [line for line in text.splitlines() if "retrieve o" in line]
        assert footer, text[-800:]
        command = footer[-1].split("`")[1]
        return bash(f"{command} --offset 300 --limit 3")

    read = ToolCall("read", {"filePath": str(root / "work" / "big.py")})
    session = run_session(root, [read, retrieve], with_tersh=True, prepare=_numbered_source)
    compressed, paged = session.results()
    assert "# note 3 about nothing" not in compressed  # the read was compressed by tersh
    assert "298: v_298 = 298" in paged and "300: # note 300 about nothing" in paged, paged[:400]
    assert ": 298: " not in paged  # no second number in front of OpenCode's own


def test_tersh_retrieve_pages_reach_the_model_whole(tmp_path: Path) -> None:
    """OpenCode names MCP tools ``<server>_<tool>``: tersh's own retrieve page is never cut."""
    root = tmp_path / "session"

    def page(body: dict[str, Any]) -> ToolCall:
        report = _report_line(content_text(tool_results(body)[-1]))
        capture_id = report.split(" retrieve ", 1)[1].split(" ", 1)[0]
        return ToolCall("tersh_retrieve", {"id": capture_id, "offset": 1000, "limit": 400})

    mcp = {"tersh": {"type": "local", "command": [*TERSH, "mcp"], "enabled": True}}
    session = run_session(root, ["seq 1 300000", page], with_tersh=True, extra_config={"mcp": mcp})
    assert any(t["function"]["name"] == "tersh_retrieve" for t in session.last_turn()["tools"])
    text = session.results()[1]
    for number in range(1001, 1401):
        assert f"{number}: {number}" in text, number
    assert "tersh:" not in text.split("\n", 1)[0] or "compressed" not in text
    assert "output compressed" not in text
