"""The shell lines Claude Code hands its ``CLAUDE_CODE_SHELL_PREFIX`` command, taken apart.

Claude Code documents the variable on https://code.claude.com/docs/en/env-vars : a command
prefix that wraps the shell commands it spawns (Bash tool calls, hook commands, stdio MCP
server launches). Seen in the real binary (2.1.332), the prefix's words (split at whitespace)
get ONE more argument, a complete shell line:

* a Bash tool call: ``source <snapshot> 2>/dev/null || true && { …shell options… } … &&
  eval '<the requested command>' < /dev/null && pwd -P >| /tmp/claude-XXXX-cwd`` — the host
  tracks the working folder through that last ``pwd`` and would run the line with ``$SHELL -c``;
* a hook: its command string, which the host would run with ``/bin/sh -c``;
* a stdio MCP server: the server's command and arguments, shell-quoted into one string.

Only the first kind goes through tersh's pipeline; the requested command is recovered from the
``eval`` word so tersh classifies (and names the capture after) what the model asked for, while
the host's whole line still runs, so its snapshot, options and cwd tracking work as without tersh.
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from tersh._startup.lean import NamedTuple

#: The host's cwd-tracking tail starts with this; the file name follows it.
_CWD_TAIL = " && pwd -P >| "
#: What sits right before the quoted command.
_EVAL = " && eval "
#: What the host puts right after the quoted command (stdin closed), when it does.
_STDIN = " < /dev/null"


class BashLine(NamedTuple):
    """A Bash tool line: ``head + quoted(command) + tail`` is the host's line."""

    head: str
    command: str
    tail: str

    def with_command(self, command: str) -> str:
        """The host's line with ``command`` in place of the requested one."""
        from tersh.command.quoting import quote

        return self.head + quote(command) + self.tail


def is_bash_tool_line(line: str) -> bool:
    """Whether ``line`` ends with the host's cwd tracking (``&& pwd -P >| …/claude-…-cwd``)."""
    at = line.rfind(_CWD_TAIL)
    if at < 0:
        return False
    target = line[at + len(_CWD_TAIL) :]
    name = target.rsplit("/", 1)[-1]
    return bool(target) and " " not in target and name.startswith("claude-") and name.endswith("-cwd")


def parse_bash_line(line: str) -> BashLine | None:
    """The requested command inside a Bash tool line, or None when the line has another shape."""
    if not is_bash_tool_line(line):
        return None
    at_tail = line.rfind(_CWD_TAIL)
    at_eval = line.find(_EVAL)
    if at_eval < 0 or at_eval > at_tail:
        return None
    start = at_eval + len(_EVAL)
    parsed = shell_word(line, start)
    if parsed is None:
        return None
    command, end = parsed
    rest = line[end:at_tail]
    if rest not in ("", _STDIN):
        return None
    return BashLine(line[:start], command, line[end:])


_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")
_DOUBLE_ESCAPES = frozenset('$`"\\\n')


def shell_word(text: str, start: int) -> tuple[str, int] | None:
    """The POSIX shell word at ``text[start:]`` and where it ends, or None if it is not plain.

    Plain: single-quoted parts, double-quoted parts without expansions, and characters that
    need no quoting. Anything a shell would expand (``$``, backticks, globs) is refused, so the
    word is exactly what the shell would pass to ``eval``.
    """
    parts: list[str] = []
    index = start
    while index < len(text):
        char = text[index]
        if char == "'":
            close = text.find("'", index + 1)
            if close < 0:
                return None
            parts.append(text[index + 1 : close])
            index = close + 1
        elif char == '"':
            found = _double_quoted(text, index + 1)
            if found is None:
                return None
            part, index = found
            parts.append(part)
        elif char == "\\" and index + 1 < len(text) and text[index + 1] != "\n":
            parts.append(text[index + 1])
            index += 2
        elif char in _BARE:
            parts.append(char)
            index += 1
        elif char in " \t" or char in ";&|<>()\n":
            break
        else:
            return None
    if index == start:
        return None
    return "".join(parts), index


def _double_quoted(text: str, index: int) -> tuple[str, int] | None:
    out: list[str] = []
    while index < len(text):
        char = text[index]
        if char == '"':
            return "".join(out), index + 1
        if char in "$`":
            return None
        if char == "\\" and index + 1 < len(text) and text[index + 1] in _DOUBLE_ESCAPES:
            if text[index + 1] != "\n":
                out.append(text[index + 1])
            index += 2
            continue
        out.append(char)
        index += 1
    return None
