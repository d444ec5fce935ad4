"""Codex CLI: the MCP route by default; an opt-in PreToolUse rewrite of shell commands.

What Codex accepts (hooks page https://developers.openai.com/codex/hooks, the source
openai/codex ``codex-rs/hooks/src/events/pre_tool_use.rs`` + PR #20527 "Support PreToolUse
updatedInput rewrites"), and what was measured in the real ``codex exec`` 0.171.0 (tests/e2e):

* Hooks live in ``~/.codex/hooks.json`` (``$CODEX_HOME``) or ``.codex/hooks.json`` in a trusted
  project, same layout as Claude Code; shell tools reach a hook as ``tool_name: "Bash"`` with
  ``tool_input: {"command": "…"}`` and a ``permission_mode``: ``"bypassPermissions"`` for
  approval policy ``never`` (which ``codex exec`` always uses), ``"default"`` for every policy
  that can ask (openai/codex ``codex-rs/core/src/hook_runtime.rs``, ``hook_permission_mode``).
* Codex runs a non-managed hook only after the user trusted it (``/hooks`` in the Codex TUI;
  trust is keyed to the hook's exact definition, so a changed hook needs trusting again);
  until then the hook is skipped without a word. ``--dangerously-bypass-hook-trust`` runs it
  for one invocation.
* A PreToolUse rewrite is ``{"hookSpecificOutput": {"hookEventName": "PreToolUse",
  "permissionDecision": "allow", "updatedInput": {"command": …}}}``; Codex rejects
  ``updatedInput`` without ``permissionDecision: "allow"``. Measured in 0.171.0: that "allow"
  grants nothing by itself (an unchanged command under a ``forbidden`` or ``prompt``
  ``.rules`` entry, or Codex's built-in "rm -f style commands are not permitted" check, is still
  refused). But Codex judges the *rewritten* command: its exec-policy ``.rules``, its built-in
  ``rm -f`` check and its approval logic would see ``tersh run -c '…'`` instead of the request.
  So the hook rewrites only when none of those can decide differently: approval policy
  ``never`` (no approval prompt exists that could be skipped or shown a different command), no
  ``.rules`` file in the user's or the project's ``rules`` folder, and no ``rm`` word anywhere
  in the command (quotes and backslashes removed first, so ``'rm'``, ``\\rm``, ``r""m``,
  ``/bin/rm``, ``bash -c "rm …"`` and heredocs all count). The sandbox applies to the rewritten
  command as to the original (a sandboxed ``tersh run`` that cannot write its capture runs the
  command plainly).
* What Codex cannot do: replace a tool's output after it ran (PostToolUse has no output
  replacement, only a block whose reason the model sees as an error), so tool outputs other
  than shell commands are not compressed under Codex. Hence the default route is MCP:
  ``tersh mcp`` registered as ``[mcp_servers.tersh]`` in ``config.toml``
  (https://developers.openai.com/codex/mcp), whose ``run`` tool the model calls itself; the hook
  is added only with ``tersh init codex --with-hook``.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from tersh.hosts.hookconfig import HookSpec
    from tersh.hosts.shell_rewrite import Decision


NAME = "codex"
MCP_TABLE = "mcp_servers.tersh"
#: Hook-facing names of Codex's shell tools (PR #20527); "Bash" is what hooks receive.
SHELL_TOOLS = frozenset({"Bash", "shell", "local_shell", "shell_command", "exec_command"})
HOOK_TIMEOUT_SECONDS = 30
#: How long Codex waits for one MCP tool call (its default, 60 s, is shorter than many builds).
TOOL_TIMEOUT_SECONDS = 3600
#: Variables Codex passes on to ``tersh mcp`` (it starts MCP servers with a filtered environment,
#: so without this a user's TERSH_HOME would reach the hook's ``tersh run`` but not the server).
FORWARDED_VARIABLES = ("TERSH_HOME",)
#: What ``tersh init codex --with-hook`` tells the user (Codex skips an untrusted hook silently).
TRUST_NOTE = (
    "Codex runs this hook only once you trust it: start codex, type /hooks, and trust the "
    "tersh PreToolUse hook (again after any change to hooks.json). It rewrites a shell command "
    'only under approval policy "never", with no .rules files, and never one that mentions rm; '
    "everything else goes to Codex unchanged."
)
#: What ``tersh rewrite --host codex`` assumes about the session it cannot see.
ASSUMED_SESSION = (
    'approval policy "never" (every `codex exec`), the only one in which the hook rewrites, and the'
    " hook installed (tersh init codex --with-hook) and trusted in /hooks; without it Codex runs"
    " the command unchanged and tersh is reached through its MCP tools"
)
#: ``permission_mode`` of a hook payload when Codex's approval policy is ``never``.
NEVER_ASK_MODE = "bypassPermissions"
#: Characters that end a word for :func:`mentions_rm` (after quotes and backslashes are gone).
_WORD_ENDS = frozenset(" \t\n;&|()<>{}`$=/,")


def codex_home() -> Path:
    """``$CODEX_HOME`` or ``~/.codex``."""
    override = os.environ.get("CODEX_HOME")
    return Path(override) if override else Path.home() / ".codex"


def _folder(scope: str) -> Path:
    return codex_home() if scope == "global" else Path(os.getcwd()) / ".codex"


def answer(payload: dict[str, Any], tersh: str) -> dict[str, Any] | None:
    """Codex's JSON answer for one PreToolUse call, or None to change nothing."""
    if payload.get("hook_event_name") != "PreToolUse" or payload.get("tool_name") not in SHELL_TOOLS:
        return None
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(tool_input, dict) or not isinstance(command, str):
        return None
    cwd = payload.get("cwd")
    mode = payload.get("permission_mode")
    rewritten = decide(command, tersh, cwd if isinstance(cwd, str) else None, mode).command
    if rewritten is None:
        return None
    updated = dict(tool_input)
    updated["command"] = rewritten
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            # Codex applies updatedInput only next to "allow"; measured: it grants nothing itself
            "permissionDecision": "allow",
            "updatedInput": updated,
        }
    }


def decide(command: str, tersh: str, cwd: str | None, permission_mode: object) -> Decision:
    """What the PreToolUse hook does with ``command``, and why.

    Codex starts a new process for every shell command (its ``exec_command`` runs the line in
    the user's shell with the call's working folder), so a ``cd`` or ``export`` never outlives
    its command: state changes are wrapped whole.
    """
    from tersh.hosts import shell_rewrite

    if permission_mode != NEVER_ASK_MODE:
        return shell_rewrite.leave(
            'Codex\'s approval policy is not "never": its approval logic must see the requested command'
        )
    if mentions_rm(command):
        return shell_rewrite.leave("it mentions rm: Codex's own rm -f check must see the requested command")
    if has_exec_policy_rules(cwd):
        return shell_rewrite.leave(".rules files exist: Codex's exec policy must see the requested command")
    return shell_rewrite.decide(command, tersh, fresh_shell=True)


def mentions_rm(command: str) -> bool:
    """True when the word ``rm`` appears anywhere in ``command`` (Codex's built-in check).

    Deliberately rough and wide: quotes and backslashes are dropped first, and any word that
    is exactly ``rm`` counts, in any segment, argument, substitution or heredoc. A false alarm
    only costs the saving of one command; a miss would let a rewrite hide ``rm -f`` from Codex.
    """
    flat = command.replace("'", "").replace('"', "").replace("\\", "")
    start = flat.find("rm")
    while start != -1:
        before = flat[start - 1] if start else " "
        after = flat[start + 2] if start + 2 < len(flat) else " "
        if before in _WORD_ENDS and after in _WORD_ENDS:
            return True
        start = flat.find("rm", start + 1)
    return False


def has_exec_policy_rules(cwd: str | None) -> bool:
    """True when user or project exec-policy ``.rules`` files exist (they must see the original)."""
    folders = [codex_home() / "rules"]
    if cwd:
        folders.append(Path(cwd) / ".codex" / "rules")
    for folder in folders:
        try:
            if any(name.endswith(".rules") for name in os.listdir(folder)):
                return True
        except OSError:
            continue
    return False


def mcp_table(tersh: str) -> str:
    """The ``[mcp_servers.tersh]`` table that starts ``tersh mcp``.

    Keys from https://developers.openai.com/codex/config-reference/ (``mcp_servers.<id>.*``):
    ``command`` and ``args``; ``env_vars`` (:data:`FORWARDED_VARIABLES`); ``tool_timeout_sec``
    because Codex gives up on a tool call after 60 s by default, shorter than many test suites
    and builds that ``run`` serves.
    Not written, measured in 0.171 (tests/e2e): ``startup_timeout_sec`` (``codex exec`` lists
    only the servers that answered within about a second, whatever that value says; ``tersh
    mcp`` answers ``initialize`` in tens of milliseconds) and ``required = true`` (Codex then
    refuses to start at all when tersh is missing or broken: tersh must fail open).
    """
    from tersh.hosts import tomledit

    argv = shlex.split(tersh)
    values: dict[str, str | list[str]] = {"command": argv[0], "args": [*argv[1:], "mcp"]}
    values["env_vars"] = list(FORWARDED_VARIABLES)
    table = tomledit.render_table(MCP_TABLE, values)
    return table + f"tool_timeout_sec = {TOOL_TIMEOUT_SECONDS}\n"


def _edit_config(scope: str, table: str | None, dry_run: bool) -> list[str]:
    from tersh.hosts import jsonedit, tomledit

    path = _folder(scope) / "config.toml"
    old = jsonedit.read_text(path)
    shown = jsonedit.display(path)
    try:
        new = tomledit.set_table(old or "", MCP_TABLE, table)
    except Exception as exc:
        from tersh.errors import TershError

        raise TershError(f"{shown}: {exc}") from exc
    if new == (old or ""):
        state = "already" if table else "not"
        return [f"{shown}: unchanged (tersh MCP server {state} registered)"]
    verb = "add" if table else "remove"
    line = f"{shown}: {verb} [{MCP_TABLE}] (tersh mcp)"
    if dry_run:
        return [f"(dry run) {line}"]
    if table is None and old is not None:
        return [line, *jsonedit.write_removal(path, new, _same_toml(new), empty=not new.strip())]
    backup = jsonedit.replace_file(path, new, old)
    if backup:
        saved = (
            f"{shown}: original saved as {jsonedit.display(backup)} (no later init or uninit overwrites it)"
        )
        return [line, saved]
    return [line] + ([] if old is not None else [f"{shown}: created"])


def _same_toml(text: str) -> Callable[[str], bool]:
    """Whether an original config.toml holds the same settings as ``text``."""
    import tomllib

    def same(original: str) -> bool:
        try:
            return tomllib.loads(original) == tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return False

    return same


def hook_spec(tersh: str) -> HookSpec:
    """The PreToolUse hook of ``--with-hook``."""
    from tersh.hosts.hookconfig import HookSpec

    handler = {"type": "command", "command": f"{tersh} hook {NAME}", "timeout": HOOK_TIMEOUT_SECONDS}
    return HookSpec("PreToolUse", "Bash", handler)


def install(scope: str, tersh: str, dry_run: bool) -> list[str]:
    """Register ``tersh mcp`` in Codex's config.toml (idempotent)."""
    return _edit_config(scope, mcp_table(tersh), dry_run)


def install_hook(scope: str, tersh: str, dry_run: bool) -> list[str]:
    """Add the PreToolUse shell rewrite to Codex's hooks.json (opt-in, see module docstring)."""
    from tersh.hosts import hookconfig, jsonedit

    spec = hook_spec(tersh)
    path = _folder(scope) / "hooks.json"
    lines = jsonedit.edit_json(path, lambda data: hookconfig.with_tersh(data, NAME, [spec]), dry_run, "add")
    return [*lines, f"note: {TRUST_NOTE}"]


def uninstall(scope: str, dry_run: bool) -> list[str]:
    """Remove the MCP server entry and any tersh hook; everything else stays."""
    from tersh.hosts import hookconfig, jsonedit

    lines = _edit_config(scope, None, dry_run)
    path = _folder(scope) / "hooks.json"
    if jsonedit.read_text(path) is not None:
        lines += jsonedit.edit_json(
            path, lambda data: hookconfig.without_tersh(data, NAME), dry_run, "remove"
        )
    return lines


def show() -> list[str]:
    """Codex's config.toml / hooks.json for each scope and what tersh has there."""
    from tersh.errors import TershError
    from tersh.hosts import jsonedit, settings_report, tomledit

    lines = []
    for scope in ("global", "project"):
        path = _folder(scope) / "config.toml"
        shown = jsonedit.display(path)
        try:
            text = jsonedit.read_text(path)
            if text is None:
                lines.append(f"{shown}: no file")
            else:
                present = tomledit.get_table(text, MCP_TABLE) is not None
                lines.append(f"{shown}: MCP server {'registered' if present else 'not registered'}")
        except TershError as exc:
            lines.append(f"{shown}: {exc}")
        lines += settings_report.json_hooks(NAME, [_folder(scope) / "hooks.json"])
    return lines
