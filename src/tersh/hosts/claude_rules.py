"""Would one of the user's Claude Code deny/ask rules see this Bash command?

Claude Code evaluates permission rules against the input a PreToolUse hook returns, not the one
the model sent (https://code.claude.com/docs/en/hooks#pretooluse-decision-control, field
``updatedInput``). A rule such as ``Bash(git push:*)`` in ``deny`` would therefore no longer
match ``tersh run -c 'git push'``. To keep the user's rules deciding, the hook leaves a command
alone whenever a deny or ask rule might match it; the host then judges the original command.
Matching here is deliberately generous: a false match only costs one command's saving.
"""

from __future__ import annotations

import os

from tersh.hosts.shell_rewrite import command_words, segments

TYPE_CHECKING = False  # not `from typing import …`: typing stays off the hook's hot path
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

#: Managed (enterprise) settings on Linux and macOS; they can hold rules too.
MANAGED_FILES = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)


def config_dir() -> str:
    """Claude Code's user folder: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    return os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def settings_files(cwd: str | None) -> list[str]:
    """Every settings file whose permission rules apply to a session in ``cwd``."""
    user = config_dir()
    files = [os.path.join(user, "settings.json"), os.path.join(user, "settings.local.json")]
    files += MANAGED_FILES
    if cwd:
        project = os.path.join(cwd, ".claude")
        files += [os.path.join(project, "settings.json"), os.path.join(project, "settings.local.json")]
    return files


def guarded_rules(files: Iterable[str]) -> list[str]:
    """The Bash deny and ask rules found in ``files`` (unreadable files are skipped)."""
    rules: list[str] = []
    for path in files:
        rules.extend(_rules_in(path))
    return rules


def _rules_in(path: str) -> tuple[str, ...]:
    from tersh import leanjson

    try:
        with open(path, "rb") as handle:
            data = leanjson.loads(handle.read())
    except (OSError, ValueError, RecursionError):
        return ()
    permissions = data.get("permissions") if isinstance(data, dict) else None
    if not isinstance(permissions, dict):
        return ()
    found: list[str] = []
    for key in ("deny", "ask"):
        entries = permissions.get(key)
        if isinstance(entries, list):
            found.extend(e.strip() for e in entries if isinstance(e, str) and e.strip())
    return tuple(r for r in found if r.startswith("Bash"))


def _wildcard_match(pattern: str, text: str) -> bool:
    """Whether ``text`` matches a Claude Code rule pattern: ``prefix:*`` and ``*`` wildcards."""
    if pattern.endswith(":*"):
        pattern = pattern[:-2] + "*"
    first, *rest = pattern.split("*")
    if not rest:
        return text == first
    *middle, last = rest
    if not text.startswith(first) or len(text) < len(first) + len(last):
        return False
    position, end = len(first), len(text) - len(last)
    if not text.endswith(last):
        return False
    for part in middle:
        found = text.find(part, position, end)
        if found < 0:
            return False
        position = found + len(part)
    return True


def _candidates(command: str) -> Iterator[str]:
    yield command.strip()
    for segment in segments(command, ";&|\n"):
        stripped = segment.strip().lstrip("({").strip()
        if stripped:
            yield stripped


def _rule_pattern(rule: str) -> str | None:
    """The pattern of a ``Bash`` / ``Bash(pattern)`` rule ('' for all commands), else None."""
    if rule == "Bash":
        return ""
    if rule.startswith("Bash(") and rule.endswith(")"):
        return rule[5:-1]
    return None


def rule_matches(rule: str, command: str) -> bool:
    """True when ``rule`` (``Bash`` or ``Bash(pattern)``) may apply to ``command``."""
    pattern = _rule_pattern(rule.strip())
    if pattern is None:
        return False
    pattern = pattern.strip()
    if pattern in ("", "*", ":*"):
        return True
    if any(_wildcard_match(pattern, candidate) for candidate in _candidates(command)):
        return True
    # Generous fallback: the rule names a program this command runs (e.g. "git push" vs. a
    # quoted or prefixed form our rough split did not isolate).
    head = pattern.split()[0].rstrip(":*") if pattern.split() else ""
    return bool(head) and head in command_words(command) and _literal_words_present(pattern, command)


def _literal_words_present(pattern: str, command: str) -> bool:
    words = pattern.replace(":*", " ").replace("*", " ").split()
    return all(word in command for word in words)


def guarded(command: str, cwd: str | None) -> bool:
    """True when a deny or ask rule of the user might apply to ``command``."""
    return any(rule_matches(rule, command) for rule in guarded_rules(settings_files(cwd)))
