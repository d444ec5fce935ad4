"""Drive the real Gemini CLI (``gemini -p``) against a scripted Gemini API on 127.0.0.1.

The fake model answers ``models/…:streamGenerateContent?alt=sse`` (and ``:generateContent``)
the way the Gemini API does. It is stateless: the number of ``functionResponse`` parts in the
request tells it which scripted command comes next, so one ``gemini`` run walks through a whole
list of shell commands, one ``run_shell_command`` call per turn, then says "done". Gemini finds
the server through ``GOOGLE_GEMINI_BASE_URL`` (read by Gemini CLI 0.61.0's content generator)
and authenticates with a dummy ``GEMINI_API_KEY``; HOME is a private folder per run.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from tests.e2e import fakemodel
from tests.e2e.hostbin import host_binary
from tests.e2e.parity import RuleSet

MODEL = "gemini-2.5-flash"
#: The note Gemini appends to a tool result whose arguments a hook changed.
HOOK_NOTE = "were modified by a hook before execution"
RUN_TIMEOUT_S = 300
SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


def function_call(command: str) -> dict[str, Any]:
    """The model part that asks Gemini to run ``command``."""
    return {"functionCall": {"name": "run_shell_command", "args": {"command": command}}}


def _function_responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        part["functionResponse"]
        for content in body.get("contents", [])
        for part in content.get("parts", [])
        if isinstance(part, dict) and "functionResponse" in part
    ]


def _schema_value(schema: dict[str, Any]) -> object:
    """A value that fits a JSON schema (for Gemini's own helper calls: loop checks…)."""
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: _schema_value(sub) for name, sub in properties.items()}
    return {"string": "", "number": 0, "integer": 0, "boolean": False, "array": []}.get(kind, "")


def _helper_text(body: dict[str, Any]) -> str:
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if isinstance(schema, dict):
        if "next_speaker" in (schema.get("properties") or {}):
            return json.dumps({"reasoning": "done", "next_speaker": "user"})
        return json.dumps(_schema_value(schema))
    return "ok"


def responder(commands: Sequence[str]) -> fakemodel.Responder:
    """A Gemini API that asks for ``commands`` one per turn, then answers ``done``."""

    def respond(request: fakemodel.Request) -> fakemodel.Reply:
        body = request.body if isinstance(request.body, dict) else {}
        done = len(_function_responses(body))
        if "tools" not in body:
            part: dict[str, Any] = {"text": _helper_text(body)}
        elif done < len(commands):
            part = function_call(commands[done])
        else:
            part = {"text": "done"}
        document = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
            "modelVersion": MODEL,
        }
        if "alt=sse" in request.path:
            return fakemodel.sse_reply([(None, document)])
        return fakemodel.json_reply(document)

    return respond


def policy_toml(rules: RuleSet) -> str:
    """The rule set as a Gemini policy file (``~/.gemini/policies/*.toml``)."""
    lines = []
    for decision, programs in (("deny", rules.deny), ("ask_user", rules.ask), ("allow", rules.allow)):
        for program in programs:
            lines += [
                "[[rule]]",
                'toolName = "run_shell_command"',
                f"commandPrefix = {json.dumps(program)}",
                f'decision = "{decision}"',
                "priority = 100",
                "",
            ]
    return "\n".join(lines)


def mode_flags(rules: RuleSet) -> list[str]:
    """``--yolo`` for the bypass mode; nothing (headless default) otherwise."""
    return ["--yolo"] if rules.mode == "bypass" else []


class Run(NamedTuple):
    """One finished ``gemini -p`` run and what the model server saw."""

    code: int
    stdout: str
    stderr: str
    requests: list[fakemodel.Request]

    def main_requests(self) -> list[dict[str, Any]]:
        """The agent's own requests (those that offer tools), in order."""
        bodies = [r.body for r in self.requests if isinstance(r.body, dict)]
        return [body for body in bodies if "tools" in body]

    def history(self) -> list[dict[str, Any]]:
        """The contents of the last agent request: the whole conversation the model was sent."""
        requests = self.main_requests()
        return requests[-1].get("contents", []) if requests else []

    def asked_commands(self) -> list[str]:
        """The shell commands in the model's own turns of the history."""
        return [
            part["functionCall"]["args"].get("command")
            for content in self.history()
            for part in content.get("parts", [])
            if isinstance(part, dict) and "functionCall" in part
        ]

    def tool_outputs(self) -> list[str]:
        """The text of each function response the model received, in order."""
        outputs = []
        for content in self.history():
            for part in content.get("parts", []):
                if isinstance(part, dict) and "functionResponse" in part:
                    response = part["functionResponse"].get("response", {})
                    outputs.append(json.dumps(response) if "output" not in response else response["output"])
        return outputs


def write_settings(home: Path, rules: RuleSet | None, extra: dict[str, Any] | None = None) -> None:
    """Gemini's user settings (offline, no telemetry, trusted folder) and policy file."""
    gemini_dir = home / ".gemini"
    gemini_dir.mkdir(parents=True, exist_ok=True)
    settings_file = gemini_dir / "settings.json"
    current = json.loads(settings_file.read_text()) if settings_file.exists() else {}
    settings_file.write_text(json.dumps({**current, **SETTINGS, **(extra or {})}, indent=2))
    if rules is not None and (rules.deny or rules.ask or rules.allow):
        (gemini_dir / "policies").mkdir(exist_ok=True)
        (gemini_dir / "policies" / "parity.toml").write_text(policy_toml(rules))


def environment(home: Path, model_url: str, tersh_home: Path | None = None) -> dict[str, str]:
    """The environment of one isolated Gemini run."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GEMINI_API_KEY": "dummy-key",
        "GOOGLE_GEMINI_BASE_URL": model_url,
        "GEMINI_CLI_NO_RELAUNCH": "1",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
    }
    if tersh_home is not None:
        env["TERSH_HOME"] = str(tersh_home)
    return env


def run_gemini(
    commands: Sequence[str], home: Path, workdir: Path, flags: Sequence[str], tersh_home: Path | None
) -> Run:
    """Run ``gemini -p`` in ``workdir`` while the fake model asks for ``commands``."""
    binary = host_binary("gemini")
    with fakemodel.serving(responder(commands)) as model:
        env = environment(home, model.url, tersh_home)
        argv = [str(binary), "-m", MODEL, *flags, "-p", "Run the commands."]
        done = subprocess.run(
            argv,
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        return Run(done.returncode, done.stdout, done.stderr, list(model.requests))
