"""Gemini CLI: BeforeTool rewrites ``run_shell_command``, only where the user's rules cannot tell.

Shapes, from the hooks reference https://geminicli.com/docs/hooks/reference (source:
google-gemini/gemini-cli ``docs/hooks/reference.md``) and Gemini CLI 0.61.0's own code:

* input: ``{"hook_event_name": "BeforeTool", "tool_name": …, "tool_input": {…}, "cwd": …}``.
* BeforeTool answer: ``{"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input":
  {"command": …}}}`` — ``tool_input`` "merges with and overrides" the model's arguments. Gemini
  then runs its policy engine on the *merged* arguments, so the rewrite happens only when
  :mod:`tersh.hosts.gemini_policy` and :mod:`tersh.hosts.permission_guard` show the decision is
  the same for both. No ``decision`` is ever sent.
* AfterTool: 0.61 reads only ``decision``/``reason``, ``additionalContext`` and
  ``tailToolCallRequest`` from an AfterTool answer; a replacement ``tool_output`` is ignored,
  so tersh installs no AfterTool hook.
* Settings: ``~/.gemini/settings.json`` and project ``.gemini/settings.json``; ``{"hooks":
  {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": …,
  "name": …, "timeout": milliseconds}]}]}}``. Gemini runs the command with ``bash -c`` and
  treats an exit code other than 0 or 1 as "block the tool", so the installed command always
  exits 0 and keeps stderr away from Gemini (text on stderr alone is read as a message).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from tersh.hosts.hookconfig import HookSpec
    from tersh.hosts.shell_rewrite import Decision


NAME = "gemini"
SHELL_TOOL = "run_shell_command"
#: Runs before the hook command: a missing or broken tersh still ends with exit 0 and no text.
FAIL_OPEN_PREFIX = "trap 'exit 0' EXIT; exec 2>/dev/null; "
HOOK_TIMEOUT_MS = 30_000
#: What ``tersh rewrite --host gemini`` assumes about the session it cannot see.
ASSUMED_SESSION = (
    "a headless `gemini -p … --yolo` session, the only kind in which the hook rewrites"
    " (in any other session the command runs unchanged)"
)
#: Gemini's shell tool refuses these itself (``detectBashSubstitution``), outside single quotes
#: only, so inside tersh's quoted ``-c`` argument it would no longer see them: never rewritten.
SUBSTITUTION_MARKS = ("$(", "`", "<(", ">(")


def answer(payload: dict[str, Any], tersh: str) -> dict[str, Any] | None:
    """Gemini CLI's JSON answer for one hook call, or None to change nothing."""
    event = payload.get("hook_event_name")
    tool = payload.get("tool_name")
    if event == "BeforeTool" and tool == SHELL_TOOL:
        return _before_shell(payload, tersh)
    return None


def _before_shell(payload: dict[str, Any], tersh: str) -> dict[str, Any] | None:
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return None
    cwd = payload.get("cwd")
    rewritten = decide(command, tersh, cwd if isinstance(cwd, str) else None).command
    if rewritten is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": rewritten}}}


def decide(command: str, tersh: str, cwd: str | None, *, assume_yolo: bool = False) -> Decision:
    """What the BeforeTool hook does with ``command``, and why.

    Gemini CLI 0.61.0 runs every shell command in a new ``bash -c`` (``ShellExecutionService``
    ``prepareExecution``), so a ``cd`` or ``export`` never outlives its command: state changes
    are wrapped whole. ``assume_yolo`` (for ``tersh rewrite --host gemini``, run outside any
    Gemini session) decides as inside a headless ``--yolo`` session, the only kind that rewrites.
    """
    from tersh.hosts import shell_rewrite

    decision = shell_rewrite.decide(command, tersh, host=NAME, fresh_shell=True)
    if decision.command is None:
        return decision
    if any(mark in command for mark in SUBSTITUTION_MARKS):
        return shell_rewrite.leave(
            "it holds $(…), `…`, <(…) or >(…): Gemini refuses those itself outside single quotes,"
            " and inside tersh's quoted form it would no longer see them"
        )
    problem = _rules_could_tell(command, decision.command, cwd, assume_yolo)
    return decision if problem is None else shell_rewrite.leave(problem)


def _rules_could_tell(command: str, rewritten: str, cwd: str | None, assume_yolo: bool) -> str | None:
    """Why Gemini might decide ``rewritten`` differently from ``command`` here; None if it cannot."""
    from tersh.hosts import gemini_policy, permission_guard

    try:
        environ = dict(os.environ)
        if not assume_yolo:
            process = gemini_policy.find_process()
            if process is None:
                return "no Gemini CLI process runs this hook, so its approval mode is unknown"
            if not gemini_policy.headless_yolo(process.argv):
                return (
                    "Gemini is not running headless with --yolo: its approval prompts and rules"
                    " must see the requested command"
                )
            environ = process.environ or environ
        rules = gemini_policy.shell_rules(cwd or os.getcwd(), environ)
    except Exception as exc:
        return f"Gemini's policy could not be read ({type(exc).__name__})"
    if not permission_guard.allows_rewrite(command, rules, rewritten):
        return (
            "a Gemini policy rule could tell the two forms apart (it names a program of the command,"
            " or the command can build commands at run time while a deny or ask rule exists)"
        )
    return None


def settings_path(scope: str) -> Path:
    """``~/.gemini/settings.json`` (global) or ``.gemini/settings.json`` (project)."""
    base = Path.home() if scope == "global" else Path(os.getcwd())
    return base / ".gemini" / "settings.json"


def hook_specs(tersh: str) -> list[HookSpec]:
    """The one hook tersh installs: BeforeTool on the shell tool, failing open."""
    from tersh.hosts.hookconfig import HookSpec

    handler = {
        "name": "tersh",
        "type": "command",
        "command": f"{FAIL_OPEN_PREFIX}{tersh} hook {NAME}",
        "timeout": HOOK_TIMEOUT_MS,
    }
    return [HookSpec("BeforeTool", SHELL_TOOL, handler)]


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
