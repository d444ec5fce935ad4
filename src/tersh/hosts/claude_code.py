"""Claude Code: PreToolUse rewrites Bash through ``tersh run``; PostToolUse compresses the rest.

Shapes, from the hooks reference https://code.claude.com/docs/en/hooks :

* input (stdin): ``{"hook_event_name": "PreToolUse"|"PostToolUse", "tool_name": "Bash",
  "tool_input": {"command": …, "description": …, "timeout": …}, "tool_response": …, "cwd": …,
  "permission_mode": …, "session_id": …}`` (PreToolUse input / PostToolUse input sections).
* PreToolUse answer: ``{"hookSpecificOutput": {"hookEventName": "PreToolUse",
  "updatedInput": {…the whole input, command replaced…}}}`` — "PreToolUse decision control":
  ``updatedInput`` replaces the entire input object; permission rules are evaluated against the
  returned input. tersh never sets ``permissionDecision``: "allow" would skip the user's prompt
  on tersh's authority. Without a decision the normal permission flow runs on the rewritten
  command; see claude_rules for how deny/ask rules keep deciding.
* PostToolUse answer: ``{"hookSpecificOutput": {"hookEventName": "PostToolUse",
  "updatedToolOutput": …}}`` replaces what the model sees for any tool (changelog v2.1.121,
  https://code.claude.com/docs/en/changelog ; "PostToolUse decision control"), and
  ``"updatedMCPToolOutput"`` for MCP tools (``mcp__server__tool``), the field the reference has
  documented for MCP tools since before v2.1.121. Older versions ignore an unknown field, so the
  original output then reaches the model unchanged.
* Settings: ``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR``), project
  ``.claude/settings.local.json`` ("Configuration": https://code.claude.com/docs/en/settings);
  ``{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": …,
  "timeout": seconds}]}]}}``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `from typing import …`: typing stays off the hook's hot path
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from tersh.hosts.hookconfig import HookSpec

    Slot = tuple[str | list[dict[str, Any]], Callable[[Any], Any]]

NAME = "claude-code"

#: Tools whose output PostToolUse may compress (plus every ``mcp__…`` tool).
POST_MATCHER = "Read|Grep|Glob|WebFetch|WebSearch|Task|Agent|mcp__.*"
#: Never touched after the fact: edits, plans, questions, and Bash (rewritten before it runs).
UNTOUCHED = frozenset(
    {
        "Bash",
        "Edit",
        "MultiEdit",
        "Write",
        "NotebookEdit",
        "TodoWrite",
        "AskUserQuestion",
        "ExitPlanMode",
        "BashOutput",
        "KillShell",
    }
)
HOOK_TIMEOUT_SECONDS = 30


def answer(payload: dict[str, Any], tersh: str) -> dict[str, Any] | None:
    """Claude Code's JSON answer for one hook call, or None to change nothing."""
    event = payload.get("hook_event_name")
    if event == "PreToolUse":
        return _pre_tool_use(payload, tersh)
    if event == "PostToolUse":
        return _post_tool_use(payload)
    return None


def _pre_tool_use(payload: dict[str, Any], tersh: str) -> dict[str, Any] | None:
    tool_input = payload.get("tool_input")
    if payload.get("tool_name") != "Bash" or not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str):
        return None
    from tersh.hosts import shell_rewrite

    rewritten = shell_rewrite.rewrite(command, tersh)
    if rewritten is None:
        return None
    from tersh.hosts import claude_rules

    cwd = payload.get("cwd")
    if claude_rules.guarded(command, cwd if isinstance(cwd, str) else None):
        return None
    updated = dict(tool_input)
    updated["command"] = rewritten
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}


def _post_tool_use(payload: dict[str, Any]) -> dict[str, Any] | None:
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or tool in UNTOUCHED:
        return None
    response = payload.get("tool_response")
    slot = main_slot(response)
    if slot is None:
        return None
    value, put_back = slot
    from tersh.hosts import tool_output

    metadata = {"host": NAME, "tool_input": payload.get("tool_input")}
    compressed = tool_output.compress(tool, value, metadata)
    if compressed is None:
        return None
    field = "updatedMCPToolOutput" if tool.startswith("mcp__") else "updatedToolOutput"
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", field: put_back(compressed)}}


def main_slot(response: object) -> Slot | None:
    """The text (or MCP-style content blocks) of a tool response and how to put a new one back.

    Keeps the response's own shape: Read's ``file.content``, Grep's ``content``, WebFetch's
    ``result``, Glob's ``filenames`` (one per line), Task's text blocks, a bare string.
    """
    if isinstance(response, str):
        return response, lambda new: new
    if isinstance(response, list) and _is_blocks(response):
        return response, lambda new: new
    if not isinstance(response, dict):
        return None
    file = response.get("file")
    if isinstance(file, dict) and isinstance(file.get("content"), str):
        return file["content"], _putter(response, ("file", "content"))
    for key in ("content", "result", "output", "text"):
        value = response.get(key)
        if isinstance(value, str) or (isinstance(value, list) and _is_blocks(value)):
            return value, _putter(response, (key,))
    names = response.get("filenames")
    if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
        put_names = _putter(response, ("filenames",))
        return "\n".join(names), lambda new: put_names(new.split("\n"))
    return None


def _putter(response: dict[str, Any], path: tuple[str, ...]) -> Callable[[Any], Any]:
    return lambda new: _replaced(response, path, new)


def _is_blocks(value: object) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in value)
    )


def _replaced(response: dict[str, Any], path: tuple[str, ...], new: Any) -> dict[str, Any]:
    import copy

    result = copy.deepcopy(response)
    node = result
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return result


def settings_path(scope: str) -> Path:
    """The settings file tersh edits for ``scope`` ("global" or "project")."""
    from pathlib import Path

    from tersh.hosts.claude_rules import config_dir

    if scope == "global":
        return Path(config_dir()) / "settings.json"
    # The hook command holds this machine's tersh path: keep it out of the shared file.
    return Path(os.getcwd()) / ".claude" / "settings.local.json"


def hook_specs(tersh: str) -> list[HookSpec]:
    """The two hooks tersh installs."""
    from tersh.hosts.hookconfig import HookSpec

    handler = {"type": "command", "command": f"{tersh} hook {NAME}", "timeout": HOOK_TIMEOUT_SECONDS}
    return [HookSpec("PreToolUse", "Bash", handler), HookSpec("PostToolUse", POST_MATCHER, handler)]


def install(scope: str, tersh: str, dry_run: bool) -> list[str]:
    """Add tersh's hooks to Claude Code's settings (idempotent)."""
    from tersh.hosts import hookconfig

    return hookconfig.install(settings_path(scope), NAME, hook_specs(tersh), dry_run)


def uninstall(scope: str, dry_run: bool) -> list[str]:
    """Remove tersh's hooks from Claude Code's settings; everything else stays."""
    from tersh.hosts import hookconfig

    return hookconfig.uninstall(settings_path(scope), NAME, dry_run)


def show() -> list[str]:
    """Where Claude Code's settings are and which tersh hooks they hold."""
    from tersh.hosts import settings_report

    return settings_report.json_hooks(NAME, [settings_path(s) for s in ("global", "project")])
