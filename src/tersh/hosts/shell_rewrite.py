"""Decide whether a host's shell command may run through ``tersh run -c``, and build that form.

The rewritten command is ``<tersh> run -c '<original, shell-quoted>'``: the user's shell still
parses the original text, tersh captures everything and keeps the exact exit code. A command is
left alone when the user asked (``# no-opt``), when the policy says bypass, when it is already
wrapped, or when it changes the state of the host's shell (``cd``, ``export``, ``source`` …)
and the host keeps that shell for its next command: run in a child shell those changes would be
lost. A host that starts a new shell for every command (``fresh_shell``) loses them at the end
of the command anyway, so there the whole line — ``cd src && pytest -q`` included — runs through
tersh in one shell, exactly as it would have run in the host's.

:func:`decide` gives the reason in words beside the answer (``tersh rewrite --host`` prints it).
"""

from __future__ import annotations

from typing import NamedTuple

from tersh.command import quoting


class Decision(NamedTuple):
    """What a host's hook does with one shell command, and why (in words for a user).

    ``action`` is ``"wrap"`` (the host runs ``command``, tersh's form) or ``"leave"`` (the host
    runs the requested command unchanged; ``command`` is None).
    """

    action: str
    command: str | None
    reason: str


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


def rewrite(command: str, tersh: str, host: str = "", *, fresh_shell: bool = False) -> str | None:
    """The tersh form of ``command``, or None when it must run unchanged (see :func:`decide`)."""
    return decide(command, tersh, host, fresh_shell=fresh_shell).command


def leave(reason: str) -> Decision:
    """The decision to run the requested command unchanged, for ``reason``."""
    return Decision("leave", None, reason)


def decide(command: str, tersh: str, host: str = "", *, fresh_shell: bool = False) -> Decision:
    """Whether ``command`` may run as ``tersh run -c '…'``, the form, and why.

    ``fresh_shell``: the host starts a new shell for every command, so a ``cd`` or ``export``
    ends with the command whether tersh runs it or not.
    """
    if not command.strip():
        return leave("an empty command")
    if command.rstrip().endswith(BYPASS_MARKER):
        return leave(f"it ends with {BYPASS_MARKER!r}: the user asked for the raw output")
    if is_wrapped(command):
        return leave("it already runs through tersh")
    state = changes_shell_state(command)
    if state and not fresh_shell:
        return leave(
            "it changes the shell's state (cd, export, source…) and this host keeps its shell: "
            "run by tersh in a child shell, the change would not reach the agent's next command"
        )
    if "no-opt" in command.lower():  # only then can the policy see a bypass marker
        from tersh.command import policy

        if policy.decide(command).bypass:
            return leave("it carries a no-opt marker: the user asked for the raw output")
    if state:
        reason = (
            "it changes the shell's state (cd, export, source…), but this host starts a new shell "
            "for every command, so the whole line runs through tersh in one shell with the same effect"
        )
    else:
        reason = "tersh runs it in the user's shell, captures everything, keeps the exit code"
    return Decision("wrap", wrap(command, tersh, host), reason)
