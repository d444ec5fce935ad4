"""Codex CLI in its real binary (``codex exec``), driven by a scripted Responses-API model.

Each test starts the fake model on 127.0.0.1, writes an isolated ``CODEX_HOME/config.toml``
whose custom provider points at it (``wire_api = "responses"``, a dummy key), and runs
``codex exec`` headless in a work folder. The scripted model calls the shell tool
(``exec_command``) once per turn; the recorded requests are what the model would receive.

Permission parity (tests/e2e/parity.py): every case of a rule set runs in ONE codex
invocation, once without tersh and once with ``tersh init codex --with-hook`` + ``tersh enable``
(private TERSH_HOME); the victim files must end the same. Rule sets become Codex exec-policy
``.rules`` (``prefix_rule`` with ``forbidden`` / ``prompt`` / ``allow``) and approval / sandbox
settings: bypass = approval ``never`` + ``danger-full-access``; default = ``on-request`` +
``workspace-write`` (``codex exec`` reports approval ``never`` either way: headless, nothing can
be asked). Codex runs a hook only once the user trusted it; the tests pass
``--dangerously-bypass-hook-trust`` (https://developers.openai.com/codex/hooks), which is what
a user's trust in ``/hooks`` amounts to.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.e2e import openai_responses as model
from tests.e2e import parity
from tests.e2e.fakemodel import Request, serving
from tests.e2e.hostbin import host_binary, pinned_version

CODEX_VERSION = "0.171.0"
KEY_VARIABLE = "TERSH_E2E_FAKE_KEY"
TERSH = Path(sys.executable).with_name("tersh")  # the console script of the venv under test
CAPTURE_ID = re.compile(r"\bc[0-9a-f]{12}\b")
RUN_TIMEOUT_SECONDS = 900


class Outcome(NamedTuple):
    """One codex invocation: its exit code and output, every model request, the work folder."""

    code: int
    stdout: str
    stderr: str
    requests: list[Request]
    work: Path
    tersh_home: Path

    def last(self) -> Request:
        """The last model request (it holds the whole conversation)."""
        return model.last_responses_request(self.requests)

    def texts(self) -> list[str]:
        """The text of every tool result the model received, in order."""
        return [model.output_text(item) for item in model.outputs(self.last())]


def rules_text(rules: parity.RuleSet) -> str:
    """The rule set as a Codex exec-policy file (Starlark ``prefix_rule`` calls)."""
    lines = []
    for decision, programs in (("forbidden", rules.deny), ("prompt", rules.ask), ("allow", rules.allow)):
        lines += [f'prefix_rule(pattern=["{name}"], decision="{decision}")' for name in programs]
    return "".join(line + "\n" for line in lines)


def config_text(url: str, mode: str) -> str:
    """An isolated config.toml: the fake model as a custom Responses provider, no retries."""
    approval, sandbox = (
        ("never", "danger-full-access") if mode == "bypass" else ("on-request", "workspace-write")
    )
    return (
        'model = "gpt-5.1-codex"\n'
        'model_provider = "fake"\n'
        f'approval_policy = "{approval}"\n'
        f'sandbox_mode = "{sandbox}"\n\n'
        "[model_providers.fake]\n"
        'name = "fake model on 127.0.0.1"\n'
        f'base_url = "{url}/v1"\n'
        'wire_api = "responses"\n'
        f'env_key = "{KEY_VARIABLE}"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )


def environment(root: Path) -> dict[str, str]:
    """A private HOME, CODEX_HOME and TERSH_HOME under ``root``; nothing of the user's."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root / "home"),
        "CODEX_HOME": str(root / "codex"),
        "TERSH_HOME": str(root / "tersh"),
        KEY_VARIABLE: "dummy",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }
    for name in ("HOME", "CODEX_HOME", "TERSH_HOME"):
        Path(env[name]).mkdir(parents=True, exist_ok=True)
    return env


def install_tersh(env: dict[str, str], hook: bool) -> None:
    """``tersh init codex [--with-hook]`` and ``tersh enable``, as a user would."""
    for argv in ([str(TERSH), "init", "codex", *(["--with-hook"] if hook else [])], [str(TERSH), "enable"]):
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr


def run_codex(
    root: Path,
    steps: Sequence[model.Step],
    *,
    mode: str = "bypass",
    rules: str = "",
    tersh: bool = False,
    hook: bool = True,
    prepare: Any = None,
) -> Outcome:
    """One ``codex exec`` whose model makes ``steps`` tool calls; tersh installed or not."""
    env = environment(root)
    work = root / "work"
    work.mkdir(parents=True, exist_ok=True)
    if prepare is not None:
        prepare(work)
    codex_home = Path(env["CODEX_HOME"])
    if rules:
        (codex_home / "rules").mkdir(exist_ok=True)
        (codex_home / "rules" / "default.rules").write_text(rules)
    with serving(model.Script(steps)) as fake:
        (codex_home / "config.toml").write_text(config_text(fake.url, mode))
        if tersh:
            install_tersh(env, hook)
        argv = [
            str(host_binary("codex")),
            "exec",
            "--skip-git-repo-check",
            "--color",
            "never",
            "-C",
            str(work),
        ]
        if tersh and hook:
            argv.append("--dangerously-bypass-hook-trust")
        done = subprocess.run(
            [*argv, "run the commands"],
            env=env,
            cwd=work,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_SECONDS,
            check=False,
        )
        requests = list(fake.requests)
    return Outcome(done.returncode, done.stdout, done.stderr, requests, work, Path(env["TERSH_HOME"]))


def captures(tersh_home: Path) -> list[Path]:
    """The capture folders tersh made."""
    folder = tersh_home / "captures"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def requested_commands(outcome: Outcome) -> list[str]:
    """The shell commands of the model's own calls, as the host replays them to the model."""
    found = []
    for call in model.calls(outcome.last()):
        arguments = json.loads(call["arguments"])
        found.append(arguments.get("cmd", arguments.get("command")))
    return found


def test_codex_is_the_pinned_version() -> None:
    done = subprocess.run(
        [str(host_binary("codex")), "--version"], capture_output=True, text=True, check=True
    )
    assert pinned_version("codex") == CODEX_VERSION
    assert done.stdout.split()[-1] == CODEX_VERSION


# --- permission parity --------------------------------------------------------------------------


def _table(root: Path, rules: parity.RuleSet, tersh: bool) -> tuple[Outcome, dict[str, Any]]:
    steps = [model.shell(case.command()) for case in parity.CASES]
    outcome = run_codex(
        root, steps, mode=rules.mode, rules=rules_text(rules), tersh=tersh, prepare=parity.prepare
    )
    assert outcome.code == 0, outcome.stderr[-3000:]
    assert len(model.outputs(outcome.last())) == len(parity.CASES), outcome.stderr[-3000:]
    return outcome, parity.outcomes(outcome.work)


@pytest.mark.parametrize("rules", parity.RULE_SETS, ids=lambda rules: rules.name)
def test_permission_parity_with_the_hook(rules: parity.RuleSet, tmp_path: Path) -> None:
    without, before = _table(tmp_path / "without", rules, tersh=False)
    with_tersh, after = _table(tmp_path / "with", rules, tersh=True)
    assert parity.differences(before, after) == {}
    # The host's own check bites (Codex refuses `rm -f` even with no rules), so the table
    # is not vacuous: the plain case kept its victim, the plain touch ran or was refused.
    assert before["plain"].victim_kept
    assert "rejected" in without.texts()[0].lower()
    # The model's history holds the commands it asked for, never tersh's form.
    requested = [case.command() for case in parity.CASES]
    assert requested_commands(without) == requested
    assert requested_commands(with_tersh) == requested
    assert not any(f"{TERSH} run" in text for text in with_tersh.texts())  # no wrapper shown
    made = captures(with_tersh.tersh_home)
    if rules_text(rules):
        assert made == []  # any .rules file: the hook stays quiet
    else:
        assert made, "with no rules the hook rewrites what Codex would run anyway"


# --- compaction reaches the model ---------------------------------------------------------------

FAILING_TESTS = """\
import pytest


@pytest.mark.parametrize("n", range(40))
def test_passes(n):
    assert n >= 0


def test_breaks():
    value = {"answer": 41}
    assert value["answer"] == 42, "the answer drifted"
"""


def _write_tests(work: Path) -> None:
    (work / "test_sample.py").write_text(FAILING_TESTS)


def test_hook_route_compacts_what_the_model_receives(tmp_path: Path) -> None:
    pytest_command = f"{sys.executable} -m pytest -v -p no:cacheprovider test_sample.py"
    steps = [model.shell("seq 1 300000"), model.shell(pytest_command)]
    plain = run_codex(tmp_path / "without", steps, prepare=_write_tests)
    compact = run_codex(tmp_path / "with", steps, tersh=True, prepare=_write_tests)
    seq_plain, pytest_plain = plain.texts()
    seq_text, pytest_text = compact.texts()
    # seq: a short preview with tersh's capture report, exit code 0 kept.
    assert "Process exited with code 0" in seq_text
    assert "lines omitted" in seq_text and "300000" in seq_text
    report = CAPTURE_ID.search(seq_text)
    assert report, seq_text[-800:]
    assert (compact.tersh_home / "captures" / report.group()).is_dir()
    assert len(seq_text) < len(seq_plain)
    # pytest: exit code 1 kept, the failure kept, the 40 PASSED rows gone.
    assert "Process exited with code 1" in pytest_text and "Process exited with code 1" in pytest_plain
    assert "test_breaks" in pytest_text and "the answer drifted" in pytest_text
    assert pytest_plain.count("PASSED") == 40 and pytest_text.count("PASSED") < 40
    assert len(pytest_text) < len(pytest_plain)
    assert requested_commands(compact) == ["seq 1 300000", pytest_command]


# --- the MCP route ------------------------------------------------------------------------------


NAMESPACE = "mcp__tersh"  # Codex 0.171 offers an MCP server's tools as one namespace tool


def _tool_names(request: Request) -> list[str]:
    body = request.body if isinstance(request.body, dict) else {}
    names = []
    for tool in body.get("tools", []):
        names.append(str(tool.get("name")))
        names += [f"{tool.get('name')}.{inner.get('name')}" for inner in tool.get("tools", [])]
    return names


def test_mcp_results_reach_the_model_as_text(tmp_path: Path) -> None:
    def retrieve(request: Request) -> model.Call:
        first = model.output_text(model.outputs(request)[0])
        found = CAPTURE_ID.search(first)
        return model.Call(
            "retrieve",
            {"id": found.group() if found else "c000000000000", "offset": 1000, "limit": 3},
            NAMESPACE,
        )

    steps = [
        model.Call("run", {"command": "seq 1 300000"}, NAMESPACE),
        retrieve,
        model.Call("stats", {}, NAMESPACE),
    ]
    outcome = run_codex(tmp_path, steps, tersh=True, hook=False)
    assert outcome.code == 0, outcome.stderr[-3000:]
    names = _tool_names(outcome.requests[0])
    # Offered without `required = true`: the server answered in time to be listed.
    assert {f"{NAMESPACE}.{name}" for name in ("run", "retrieve", "search", "stats")} <= set(names)
    run_text, page_text, stats_text = outcome.texts()
    assert "lines omitted" in run_text and CAPTURE_ID.search(run_text), run_text[:600]
    capture = CAPTURE_ID.search(run_text)
    assert capture and (outcome.tersh_home / "captures" / capture.group()).is_dir()  # env_vars
    for text in (run_text, page_text, stats_text):  # the text, not a structured record
        assert '"exit_code"' not in text and '"capture_id"' not in text and "tersh/record" not in text
    assert "1001" in page_text and "1003" in page_text and "1004" not in page_text, page_text
    assert "bytes:" in stats_text and "saved" in stats_text, stats_text


def test_a_cd_and_export_prefix_is_optimised_and_keeps_its_effect(tmp_path: Path) -> None:
    # Codex starts a new process for every shell command: the hook wraps the whole line, so
    # `cd` and `export` act on the command after them; the next command starts where it always did.
    commands = ["mkdir -p sub && cd sub && export N=300000 && seq 1 $N", "pwd"]
    steps = [model.shell(command) for command in commands]
    plain = run_codex(tmp_path / "without", steps)
    compact = run_codex(tmp_path / "with", steps, tersh=True)
    (seq_plain, pwd_plain), (seq_text, pwd_text) = plain.texts(), compact.texts()
    assert requested_commands(compact) == commands == requested_commands(plain)
    assert "Process exited with code 0" in seq_text and CAPTURE_ID.search(seq_text), seq_text[-800:]
    assert "lines omitted" in seq_text and "300000" in seq_text and len(seq_text) < len(seq_plain)
    assert captures(compact.tersh_home), "the cd line ran through tersh"
    assert str(compact.work) in pwd_text and "/sub" not in pwd_text
    assert str(plain.work) in pwd_plain and "/sub" not in pwd_plain
