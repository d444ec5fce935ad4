"""Decide whether a host's shell command may run through ``tersh run -c``, and build that form.

The rewritten command is ``<tersh> run -c '<original, shell-quoted>'``: the user's shell still
parses the original text, tersh captures everything and keeps the exact exit code. A command is
left alone when the user asked (``# no-opt``), when the policy says bypass, when it is already
wrapped, or when it changes the state of the host's shell (``cd``, ``export``, ``source`` …):
run in a child shell those changes would be lost for the agent's next command.
"""

from __future__ import annotations

from tersh.command import quoting

BYPASS_MARKER = "# no-opt"

#: Builtins whose effect lives in the calling shell (some hosts keep one shell across calls).
STATE_BUILTINS = frozenset(
    {
        ".",
        "alias",
        "cd",
        "declare",
        "eval",
        "exec",
        "export",
        "popd",
        "pushd",
        "readonly",
        "set",
        "shopt",
        "source",
        "trap",
        "typeset",
        "ulimit",
        "umask",
        "unalias",
        "unset",
    }
)

#: Characters that end a simple command in the rough split (``&&`` and ``||`` are two of them).
SEGMENT_ENDS = ";&|\n(){}"
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME = _NAME_START | frozenset("0123456789")


def segments(command: str, ends: str = SEGMENT_ENDS) -> list[str]:
    """``command`` cut at every character of ``ends`` (quotes are not understood: rough)."""
    pieces = [command]
    for end in ends:
        pieces = [piece for whole in pieces for piece in whole.split(end)]
    return pieces


def is_assignment(word: str) -> bool:
    """Whether ``word`` starts with ``NAME=`` (a variable assignment before a command)."""
    name, equals, _ = word.partition("=")
    return bool(equals) and bool(name) and name[0] in _NAME_START and _NAME.issuperset(name)


def command_words(command: str) -> list[str]:
    """The first word of every simple command in ``command`` (rough split, never raises)."""
    words: list[str] = []
    for segment in segments(command):
        parts = segment.strip().split()
        while parts and is_assignment(parts[0]):
            parts = parts[1:]
        if parts:
            words.append(parts[0].strip("'\""))
    return words


def changes_shell_state(command: str) -> bool:
    """True when ``command`` may change the calling shell (cwd, exported variables, options…).

    Errs on the side of True: a false alarm only costs the saving of one command.
    """
    return any(word in STATE_BUILTINS for word in command_words(command))


def wrap(command: str, tersh: str, host: str = "") -> str:
    """``<tersh> run [--host HOST] -c '<command>'`` with the command quoted for a POSIX shell.

    ``--host`` bounds the preview by that host's inline limit (tersh.hosts.limits).
    """
    option = f"--host {host} " if host else ""
    return f"{tersh} run {option}-c {quoting.quote(command)}"


def is_wrapped(command: str) -> bool:
    """True when ``command`` already runs through tersh (never wrap twice)."""
    words = command_words(command)
    if not words:
        return False
    first = words[0].rsplit("/", 1)[-1]
    return first == "tersh" or " -m tersh " in f" {command} "


def rewrite(command: str, tersh: str, host: str = "") -> str | None:
    """The tersh form of ``command``, or None when it must run unchanged."""
    if not command.strip() or command.rstrip().endswith(BYPASS_MARKER):
        return None
    if is_wrapped(command) or changes_shell_state(command):
        return None
    if "no-opt" in command.lower():  # only then can the policy see a bypass marker
        from tersh.command import policy  # imported lazily: its shell parser is not needed otherwise

        if policy.decide(command).bypass:
            return None
    return wrap(command, tersh, host)
