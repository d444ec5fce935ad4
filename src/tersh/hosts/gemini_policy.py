"""Gemini CLI 0.61: the session's approval mode and the user's policy rules for the shell tool.

Gemini runs a BeforeTool hook first and then judges the rewritten arguments with its policy
engine, so tersh rewrites ``run_shell_command`` only when the decision cannot change
(:mod:`tersh.hosts.permission_guard`). What this module reads, from Gemini CLI 0.61.0's own
source (``packages/core/src/policy/config.ts``, ``packages/cli/src/config/config.ts``) and its
policy reference (https://geminicli.com/docs/reference/policy-engine/):

* Policy TOML (``[[rule]]`` with ``toolName``, ``decision`` = allow / deny / ask_user and
  ``commandPrefix``, ``commandRegex`` or ``argsPattern``; ``[[safety_checker]]``) from the
  system folder (``/etc/gemini-cli/policies``; macOS ``/Library/Application
  Support/GeminiCli/policies``), the settings' ``adminPolicyPaths``, the user folder
  ``~/.gemini/policies`` (or the settings' ``policyPaths``), the workspace ``.gemini/policies``
  and each extension's ``policies`` folder. ``~`` is ``$GEMINI_CLI_HOME`` when that is set.
* Settings (system defaults, system, user and workspace ``settings.json``): ``tools.allowed``,
  ``tools.core``, ``tools.exclude`` and ``tools.confirmationRequired`` become policy rules.
* The approval mode comes only from the command line (``--yolo`` / ``-y``,
  ``--approval-mode``); Gemini ignores a settings ``defaultApprovalMode`` of ``yolo``.

The hook's input does not carry the mode, so tersh reads the command line of the Gemini process
that started the hook (Linux ``/proc``; elsewhere nothing is known and nothing is rewritten).
Only a headless YOLO session (``-p`` with ``--yolo``) runs every command that no rule stops, the
wrapper as well as the requested command. In default and auto_edit modes the two meet different
built-in checks (known-safe and dangerous commands, redirections), and an interactive session
can leave YOLO at any time and offer "allow always" for the wrapper's program: no rewrite there.
Anything unreadable, unknown or malformed answers "no rewrite".
"""

from __future__ import annotations

import os
import sys
from typing import Any, NamedTuple

from tersh.hosts.permission_guard import ShellRules, program_of

SHELL_TOOL_NAMES = ("run_shell_command", "ShellTool")
#: Gemini's system folder per platform (``Storage.getSystemConfigDir``).
SYSTEM_DIRS = {"darwin": "/Library/Application Support/GeminiCli", "win32": "C:\\ProgramData\\gemini-cli"}
DEFAULT_SYSTEM_DIR = "/etc/gemini-cli"
#: Flags that add rules or policy files from the command line: no rewrite while one is given.
OPAQUE_FLAGS = ("--policy", "--admin-policy", "--allowed-tools")
INTERACTIVE_FLAGS = ("-i", "--prompt-interactive", "--acp", "--experimental-acp")
#: Flags whose next argument is a value (never read as a flag: a prompt may say "--yolo").
VALUE_FLAGS = ("-p", "--prompt", "-m", "--model", "-o", "--output-format", "-r", "--resume")
SCRIPT_NAMES = ("gemini", "gemini.js")
MAX_ANCESTORS = 6


class GeminiProcess(NamedTuple):
    """The Gemini CLI process that runs the hook: its arguments (after the script) and env."""

    argv: tuple[str, ...]
    environ: dict[str, str]


def find_process(pid: int | None = None) -> GeminiProcess | None:
    """The nearest ancestor of ``pid`` (default: this process) that runs Gemini CLI, or None."""
    current = os.getppid() if pid is None else pid
    for _ in range(MAX_ANCESTORS):
        if current <= 1:
            return None
        args = _cmdline(current)
        for index, arg in enumerate(args[:4]):
            if os.path.basename(arg) in SCRIPT_NAMES:
                return GeminiProcess(tuple(args[index + 1 :]), _environ(current))
        current = _parent(current)
    return None


def _cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read()
    except OSError:
        return []
    return [part.decode("utf-8", "surrogateescape") for part in raw.split(b"\0") if part]


def _environ(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            raw = handle.read()
    except OSError:
        return {}
    pairs = (part.decode("utf-8", "surrogateescape").partition("=") for part in raw.split(b"\0"))
    return {key: value for key, _, value in pairs if key}


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("ascii", "replace")
        return int(stat.rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def headless_yolo(argv: tuple[str, ...]) -> bool:
    """Whether Gemini's arguments make a headless YOLO session tersh can reason about."""
    yolo = headless = False
    skip = False
    for position, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        name, equals, value = arg.partition("=")
        if name in INTERACTIVE_FLAGS or name in OPAQUE_FLAGS:
            return False
        if name in ("-y", "--yolo"):
            if equals and value != "true":
                return False
            yolo = True
        elif name == "--no-yolo":
            yolo = False
        elif name == "--approval-mode":
            mode = value if equals else (argv[position + 1] if position + 1 < len(argv) else "")
            yolo, skip = mode == "yolo", not equals
        elif name in VALUE_FLAGS:
            headless = headless or name in ("-p", "--prompt")
            skip = not equals
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 2:
            return False  # combined short flags (-yp): not worth guessing
        elif arg == "--":
            break
    return yolo and headless


def shell_rules(cwd: str, environ: dict[str, str]) -> ShellRules:
    """The shell-tool rules from every policy file and settings file of this session."""
    collector = _Collector()
    home = environ.get("GEMINI_CLI_HOME") or environ.get("HOME") or os.path.expanduser("~")
    user_dir = os.path.join(home, ".gemini")
    system_dir = SYSTEM_DIRS.get(sys.platform, DEFAULT_SYSTEM_DIR)
    settings = [collector.read_settings(path) for path in _settings_files(cwd, environ, user_dir, system_dir)]
    admin_paths: list[str] = []
    policy_paths: list[str] = []
    for document in settings:
        admin_paths += _strings(document.get("adminPolicyPaths"), collector)
        policy_paths += _strings(document.get("policyPaths"), collector)
        collector.add_settings(document)
    sources = [os.path.join(system_dir, "policies"), *admin_paths]
    sources += policy_paths or [os.path.join(user_dir, "policies")]
    sources.append(os.path.join(cwd, ".gemini", "policies"))
    sources += _extension_policy_dirs(os.path.join(user_dir, "extensions"))
    for source in sources:
        collector.read_policies(_expand(source, home))
    return collector.rules()


def _settings_files(cwd: str, environ: dict[str, str], user_dir: str, system_dir: str) -> list[str]:
    defaults = environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or os.path.join(
        system_dir, "system-defaults.json"
    )
    system = environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or os.path.join(system_dir, "settings.json")
    user = os.path.join(user_dir, "settings.json")
    return [defaults, system, user, os.path.join(cwd, ".gemini", "settings.json")]


def _extension_policy_dirs(extensions: str) -> list[str]:
    try:
        names = sorted(os.listdir(extensions))
    except OSError:
        return []
    return [os.path.join(extensions, name, "policies") for name in names]


def _expand(path: str, home: str) -> str:
    if path == "~" or path.startswith("~/"):
        return home + path[1:]
    return path


def _strings(value: object, collector: _Collector) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    collector.opaque = True
    return []


def applies_to_shell(tool_name: object) -> bool | None:
    """Whether a rule's ``toolName`` covers the shell tool (None: not a name tersh understands)."""
    import fnmatch

    candidates = tool_name if isinstance(tool_name, list) else [tool_name]
    names = [name for name in candidates if isinstance(name, str)]
    if not names or len(names) != len(candidates):
        return None
    return any(
        name in SHELL_TOOL_NAMES or ("*" in name and fnmatch.fnmatchcase(SHELL_TOOL_NAMES[0], name))
        for name in names
    )


class _Collector:
    """Gathers programs and the opaque flag while files are read."""

    def __init__(self) -> None:
        self.guarded: list[str] = []
        self.allowed: list[str] = []
        self.opaque = False

    def rules(self) -> ShellRules:
        return ShellRules(tuple(self.guarded), tuple(self.allowed), self.opaque)

    def read_settings(self, path: str) -> dict[str, Any]:
        import json

        try:
            with open(path, "rb") as handle:
                document = json.loads(handle.read())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError):  # comments, a folder, unreadable
            self.opaque = True
            return {}
        if not isinstance(document, dict):
            self.opaque = True
            return {}
        return document

    def add_settings(self, document: dict[str, Any]) -> None:
        tools = document.get("tools")
        if tools is None:
            return
        if not isinstance(tools, dict):
            self.opaque = True
            return
        if tools.get("core"):  # an allowlist: every tool not in it is denied
            self.opaque = True
        for key in ("allowed", "exclude", "confirmationRequired"):
            for entry in _strings(tools.get(key), self):
                if any(entry == name or entry.startswith(name + "(") for name in SHELL_TOOL_NAMES):
                    self.opaque = True

    def read_policies(self, path: str) -> None:
        if os.path.isdir(path):
            for folder, _, names in os.walk(path):
                for name in sorted(names):
                    if name.endswith(".toml"):
                        self.read_policy_file(os.path.join(folder, name))
        elif os.path.lexists(path):
            self.read_policy_file(path)

    def read_policy_file(self, path: str) -> None:
        import tomllib

        try:
            with open(path, "rb") as handle:
                document = tomllib.load(handle)
        except (OSError, ValueError):
            self.opaque = True
            return
        for table, add in (("rule", self.add_rule), ("safety_checker", self.add_checker)):
            entries = document.get(table, [])
            if not isinstance(entries, list):
                self.opaque = True
                continue
            for entry in entries:
                if isinstance(entry, dict):
                    add(entry)
                else:
                    self.opaque = True

    def add_checker(self, checker: dict[str, Any]) -> None:
        if applies_to_shell(checker.get("toolName")) is not False and not checker.get("mcpName"):
            self.opaque = True

    def add_rule(self, rule: dict[str, Any]) -> None:
        covers = applies_to_shell(rule.get("toolName"))
        if covers is False or (covers and rule.get("mcpName")):
            return
        if covers is None or "commandRegex" in rule or "argsPattern" in rule:
            self.opaque = True
            return
        prefixes = rule.get("commandPrefix")
        if isinstance(prefixes, str):
            prefixes = [prefixes]
        decision = rule.get("decision")
        if not isinstance(prefixes, list) or not all(isinstance(p, str) for p in prefixes):
            self.opaque = True  # no prefix: the rule judges every command (or is malformed)
        elif decision == "allow":
            self.allowed += [program_of(prefix) for prefix in prefixes]
        elif decision in ("deny", "ask_user"):
            self.guarded += [program_of(prefix) for prefix in prefixes]
        else:
            self.opaque = True
