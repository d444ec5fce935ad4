"""Gemini CLI: BeforeTool rewrites ``run_shell_command``; AfterTool compresses other tools.

Shapes, from the hooks reference https://geminicli.com/docs/hooks/reference (source:
google-gemini/gemini-cli ``docs/hooks/reference.md``):

* input: ``{"hook_event_name": "BeforeTool"|"AfterTool", "tool_name": …, "tool_input": {…},
  "tool_response": {"llmContent": …, "returnDisplay": …, "error": …}, "cwd": …}``.
* BeforeTool answer: ``{"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input":
  {"command": …}}}`` — ``tool_input`` "merges with and overrides" the model's arguments; no
  ``decision`` is sent, so Gemini's own confirmation and policy still decide.
* AfterTool answer: ``{"hookSpecificOutput": {"hookEventName": "AfterTool", "tool_output":
  "…"}}`` — text that replaces the tool output sent to the model. Releases that predate
  ``tool_output`` ignore it and the model gets the original.
* Settings: ``~/.gemini/settings.json`` and project ``.gemini/settings.json``; ``{"hooks":
  {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": …,
  "name": …, "timeout": milliseconds}]}]}}``; matchers are regular expressions, MCP tools are
  named ``mcp__server__tool``.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False  # not `from typing import …`: typing stays off the hook's hot path
if TYPE_CHECKING:
    from typing import Any

    from tersh.hosts.hookconfig import HookSpec


NAME = "gemini"
SHELL_TOOL = "run_shell_command"
AFTER_MATCHER = (
    "read_file|read_many_files|search_file_content|grep|glob|list_directory|web_fetch"
    "|google_web_search|mcp__.*"
)
HOOK_TIMEOUT_MS = 30_000


def answer(payload: dict[str, Any], tersh: str) -> dict[str, Any] | None:
    """Gemini CLI's JSON answer for one hook call, or None to change nothing."""
    event = payload.get("hook_event_name")
    tool = payload.get("tool_name")
    if event == "BeforeTool" and tool == SHELL_TOOL:
        return _before_shell(payload, tersh)
    if event == "AfterTool" and isinstance(tool, str) and tool != SHELL_TOOL:
        return _after_tool(tool, payload)
    return None


def _before_shell(payload: dict[str, Any], tersh: str) -> dict[str, Any] | None:
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return None
    from tersh.hosts import shell_rewrite

    rewritten = shell_rewrite.rewrite(command, tersh)
    if rewritten is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": rewritten}}}


def _after_tool(tool: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    response = payload.get("tool_response")
    if not isinstance(response, dict) or response.get("error"):
        return None
    content = response.get("llmContent")
    if (
        isinstance(content, list)
        and content
        and all(
            isinstance(part, dict) and isinstance(part.get("text"), str) and len(part) == 1
            for part in content
        )
    ):
        content = "".join(part["text"] for part in content)
    if not isinstance(content, str):
        return None  # images, files and other parts stay as the tool made them
    from tersh.hosts import tool_output

    metadata = {"host": NAME, "tool_input": payload.get("tool_input")}
    compressed = tool_output.compress(tool, content, metadata)
    if not isinstance(compressed, str):
        return None
    return {"hookSpecificOutput": {"hookEventName": "AfterTool", "tool_output": compressed}}


def settings_path(scope: str) -> Path:
    """``~/.gemini/settings.json`` (global) or ``.gemini/settings.json`` (project)."""
    base = Path.home() if scope == "global" else Path(os.getcwd())
    return base / ".gemini" / "settings.json"


def hook_specs(tersh: str) -> list[HookSpec]:
    """The BeforeTool and AfterTool hooks tersh installs."""
    from tersh.hosts.hookconfig import HookSpec

    handler = {
        "name": "tersh",
        "type": "command",
        "command": f"{tersh} hook {NAME}",
        "timeout": HOOK_TIMEOUT_MS,
    }
    return [HookSpec("BeforeTool", SHELL_TOOL, handler), HookSpec("AfterTool", AFTER_MATCHER, handler)]


def install(scope: str, tersh: str, dry_run: bool) -> list[str]:
    """Add tersh's hooks to Gemini CLI's settings (idempotent)."""
    from tersh.hosts import hookconfig

    return hookconfig.install(settings_path(scope), NAME, hook_specs(tersh), dry_run)


def uninstall(scope: str, dry_run: bool) -> list[str]:
    """Remove tersh's hooks from Gemini CLI's settings; everything else stays."""
    from tersh.hosts import hookconfig

    return hookconfig.uninstall(settings_path(scope), NAME, dry_run)


def show() -> list[str]:
    """Where Gemini CLI's settings are and which tersh hooks they hold."""
    from tersh.hosts import settings_report

    return settings_report.json_hooks(NAME, [settings_path(s) for s in ("global", "project")])
