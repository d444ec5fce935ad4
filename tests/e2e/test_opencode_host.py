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
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.e2e import parity
from tests.e2e.fakemodel import Request, serving
from tests.e2e.hostbin import HERE, host_binary, pinned_version
from tests.e2e.openai_chat import ToolCall, content_text, scripted, tool_calls, tool_results

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
        # a registry that cannot answer: any install OpenCode attempted would fail loudly
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
    commands: Sequence[str],
    *,
    permission: dict[str, Any] | None = None,
    with_tersh: bool,
    prepare: Any = None,
) -> Session:
    """One ``opencode run`` in which the scripted model calls bash once per command."""
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
    calls = [ToolCall("bash", {"command": c, "description": "scripted"}) for c in commands]
    with serving(scripted(calls)) as model:
        (work / "opencode.json").write_text(json.dumps(_config(model.url, permission)))
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
    assert "dependency install failed" not in done.stderr, done.stderr[-3000:]
    return Session(done, requests, events)


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
    outcomes = {}
    for with_tersh in (False, True):
        root = tmp_path / ("with" if with_tersh else "without")
        session = run_session(
            root,
            commands,
            permission=permission_for(rules),
            with_tersh=with_tersh,
            prepare=parity.prepare,
        )
        assert session.done.returncode == 0, session.done.stderr[-3000:]
        # every case ran, one call per turn, and the history holds the command asked for
        assert _requested(session) == commands
        assert len(session.results()) == len(commands)
        outcomes[with_tersh] = parity.outcomes(root / "work")
        if with_tersh:
            logs = session.done.stderr
            assert "run -c" not in "\n".join(_requested(session))
            assert "evaluated permission=bash" in logs
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
    assert seq_text.startswith("1\n2\n3\n") and "\n300000\n" in seq_text
    assert "test_broken" in pytest_text and "the value was wrong" in pytest_text
    assert "test_sample.py:" in pytest_text  # the failure's location
    assert len(pytest_text) < len(plain_pytest)
    # the exit codes OpenCode recorded are the commands' own
    exits = [state.get("metadata", {}).get("exit") for state in session.bash_states()]
    plain_exits = [state.get("metadata", {}).get("exit") for state in without.bash_states()]
    assert exits == plain_exits == [0, 1]
