"""Claude Code: its shell prefix runs Bash through tersh; PostToolUse compresses the rest.

Bash: ``tersh init claude-code`` sets ``CLAUDE_CODE_SHELL_PREFIX`` (the env-vars page,
https://code.claude.com/docs/en/env-vars ) to the ``tersh-shell-prefix`` executable in the settings' ``env``
block. Claude Code checks its permission rules against the command the model asked for — its
own matcher, nothing rewritten — and only then hands the shell line to the prefix, so tersh can
never widen what the user's rules allow; the model's history keeps the requested command. See
``tersh.commands.shell_prefix`` for what runs where.

Other tools, from the hooks reference https://code.claude.com/docs/en/hooks :

* input (stdin): ``{"hook_event_name": "PostToolUse", "tool_name": …, "tool_input": {…},
  "tool_response": …, "cwd": …, "session_id": …}`` ("PostToolUse input").
* answer: ``{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": …}}``
  replaces what the model sees for any tool (changelog v2.1.121,
  https://code.claude.com/docs/en/changelog ; "PostToolUse decision control"), and
  ``"updatedMCPToolOutput"`` for MCP tools (``mcp__server__tool``). tersh never answers a
  PreToolUse call and never sets a permission decision.
* Settings: ``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR``), project
  ``.claude/settings.local.json`` ("Configuration": https://code.claude.com/docs/en/settings);
  ``{"env": {…}, "hooks": {"PostToolUse": [{"matcher": …, "hooks": [{"type": "command",
  "command": …, "timeout": seconds}]}]}}``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from tersh.hosts.hookconfig import HookSpec
    from tersh.hosts.shell_rewrite import Decision

    Slot = tuple[str | list[dict[str, Any]], Callable[[Any], Any]]

NAME = "claude-code"

#: Tools whose output PostToolUse may compress (plus every ``mcp__…`` tool). Claude Code 2.1.x
#: offers no Grep, Glob or Task tool (the tool list its requests carry: Read, Agent, and the
#: deferred WebFetch / WebSearch among others), so no matcher names them.
POST_MATCHER = "Read|WebFetch|WebSearch|Agent|mcp__.*"
#: The settings' ``env`` entry that routes every shell line through tersh.
PREFIX_VARIABLE = "CLAUDE_CODE_SHELL_PREFIX"
#: The console script the prefix names (``tersh.commands.shell_prefix``).
PREFIX_EXECUTABLE = "tersh-shell-prefix"
#: Never touched after the fact: edits, plans, questions, and Bash (its prefix runs tersh).
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
    if payload.get("hook_event_name") == "PostToolUse":
        return _post_tool_use(payload)
    return None


def _post_tool_use(payload: dict[str, Any]) -> dict[str, Any] | None:
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or tool in UNTOUCHED:
        return None
    response = payload.get("tool_response")
    if tool == "Read":
        return _read_answer(response)
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


def _read_answer(response: object) -> dict[str, Any] | None:
    """Read: comments emptied in place, or nothing — never a line removed or added above.

    Claude Code numbers the replaced ``file.content`` itself, from the read's first line
    (seen in 2.1.332), so a removed line or a header would shift every number after it. The
    note goes after the last line, where it moves nothing.
    """
    file = response.get("file") if isinstance(response, dict) else None
    content = file.get("content") if isinstance(file, dict) else None
    if not isinstance(content, str) or not isinstance(file, dict):
        return None
    from tersh.settings import load_or_defaults
    from tersh.tools import trigger

    settings = load_or_defaults()[0]
    path = file.get("filePath")
    if trigger.below_trigger(content, settings) or not isinstance(path, str):
        return None
    from tersh.tools import budgets, strategies

    limits = budgets.from_settings(settings)
    shrunk = strategies.blank_comments(content, path)
    if not shrunk.lossy:
        return None
    note = f"[tersh: {'; '.join(shrunk.notes)}, line numbers unchanged; the file itself is unchanged]"
    text = shrunk.text + ("" if shrunk.text.endswith("\n") else "\n") + note
    if len(text) >= (1 - limits.min_saving) * len(content):
        return None
    updated = _replaced(response, ("file", "content"), text)  # type: ignore[arg-type]
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": updated}}


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


def config_dir() -> str:
    """Claude Code's user folder: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    return os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def settings_path(scope: str) -> Path:
    """The settings file tersh edits for ``scope`` ("global" or "project")."""
    from pathlib import Path

    if scope == "global":
        return Path(config_dir()) / "settings.json"
    # The hook command holds this machine's tersh path: keep it out of the shared file.
    return Path(os.getcwd()) / ".claude" / "settings.local.json"


def hook_specs(tersh: str) -> list[HookSpec]:
    """The hook tersh installs: PostToolUse for the tools whose output it may compress."""
    from tersh.hosts.hookconfig import HookSpec

    handler = {"type": "command", "command": f"{tersh} hook {NAME}", "timeout": HOOK_TIMEOUT_SECONDS}
    return [HookSpec("PostToolUse", POST_MATCHER, handler)]


def prefix_value(tersh: str) -> str:
    """The ``CLAUDE_CODE_SHELL_PREFIX`` value: the ``tersh-shell-prefix`` beside this tersh.

    One executable path, nothing else: Claude Code 2.1.332 splits the value into words only
    when the second starts with ``-`` (else the whole value is one path), so a path holding
    `` -`` could be cut in two and is refused.
    """
    import shutil
    import sys

    from tersh.errors import TershError

    folders = []
    if " " not in tersh and os.path.isabs(tersh):
        folders.append(os.path.dirname(tersh))
    folders.append(os.path.dirname(sys.executable))
    for folder in folders:
        candidate = os.path.join(folder, PREFIX_EXECUTABLE)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            break
    else:
        found = shutil.which(PREFIX_EXECUTABLE)
        if not found:
            raise TershError(f"{PREFIX_EXECUTABLE} not found beside {tersh}: reinstall tersh")
        candidate = os.path.abspath(found)
    if " -" in candidate or "\n" in candidate:
        raise TershError(f"{PREFIX_VARIABLE} cannot name {candidate!r} (Claude Code would split it)")
    return candidate


def is_tersh_prefix(value: object) -> bool:
    """True for a ``CLAUDE_CODE_SHELL_PREFIX`` value that runs tersh's prefix executable."""
    return isinstance(value, str) and os.path.basename(value.strip()) == PREFIX_EXECUTABLE


def with_prefix(settings: dict[str, Any], tersh: str) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``settings`` whose hooks and ``env`` prefix are tersh's; what changed.

    A prefix of the user's own is kept (tersh's Bash route is then off; a note says so).
    """
    from tersh.errors import TershError
    from tersh.hosts import hookconfig

    result, edits = hookconfig.with_tersh(settings, NAME, hook_specs(tersh))
    env = result.setdefault("env", {})
    if not isinstance(env, dict):
        raise TershError("the settings' 'env' entry is not an object; not touching it")
    wanted = prefix_value(tersh)
    current = env.get(PREFIX_VARIABLE)
    if current is not None and not is_tersh_prefix(current):
        edits.append(f"nothing for Bash: env {PREFIX_VARIABLE} is already {current!r} (yours, kept)")
    elif current != wanted:
        env[PREFIX_VARIABLE] = wanted
        edits.append(f"env {PREFIX_VARIABLE}={wanted}")
    if not env:
        del result["env"]
    return result, edits


def without_prefix(settings: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``settings`` without tersh's hooks and ``env`` prefix; what went."""
    from tersh.hosts import hookconfig

    result, edits = hookconfig.without_tersh(settings, NAME)
    env = result.get("env")
    if isinstance(env, dict) and is_tersh_prefix(env.get(PREFIX_VARIABLE)):
        edits.append(f"env {PREFIX_VARIABLE}={env.pop(PREFIX_VARIABLE)}")
        if not env:
            del result["env"]
    return result, edits


def shell_decision(command: str) -> Decision:
    """What happens to a Bash command under Claude Code (for ``tersh rewrite --host``).

    Nothing is rewritten: with tersh's prefix in the settings, every Bash line goes through
    ``tersh-shell-prefix`` (``tersh.commands.shell_prefix``), whatever the command.
    """
    from tersh.hosts import jsonedit
    from tersh.hosts.shell_rewrite import Decision, leave

    for scope in ("global", "project"):
        try:
            data, _, _ = jsonedit.load_json(settings_path(scope))
        except Exception:
            continue
        env = data.get("env")
        if isinstance(env, dict) and is_tersh_prefix(env.get(PREFIX_VARIABLE)):
            return Decision(
                "shell prefix",
                None,
                "Claude Code checks its permission rules against the requested command, then hands"
                f" the shell line to {PREFIX_EXECUTABLE} ({PREFIX_VARIABLE}), which runs it through"
                " tersh's pipeline; the model's history keeps the requested command",
            )
    return leave(f"tersh's shell prefix is not in Claude Code's settings (tersh init {NAME})")


def install(scope: str, tersh: str, dry_run: bool) -> list[str]:
    """Add tersh's hook and shell prefix to Claude Code's settings (idempotent)."""
    from tersh.hosts import jsonedit

    return jsonedit.edit_json(settings_path(scope), lambda data: with_prefix(data, tersh), dry_run, "add")


def uninstall(scope: str, dry_run: bool) -> list[str]:
    """Remove tersh's hook and shell prefix from Claude Code's settings; everything else stays."""
    from tersh.hosts import jsonedit

    return jsonedit.edit_json(settings_path(scope), without_prefix, dry_run, "remove")


def show() -> list[str]:
    """Where Claude Code's settings are, which tersh hooks and prefix they hold."""
    from tersh.hosts import jsonedit, settings_report

    paths = [settings_path(s) for s in ("global", "project")]
    lines = settings_report.json_hooks(NAME, paths)
    for index, path in enumerate(paths):
        try:
            data, _, _ = jsonedit.load_json(path)
        except Exception:  # already reported by json_hooks
            continue
        env = data.get("env")
        if isinstance(env, dict) and is_tersh_prefix(env.get(PREFIX_VARIABLE)):
            lines[index] += f"; env {PREFIX_VARIABLE} (Bash through tersh)"
    return lines
