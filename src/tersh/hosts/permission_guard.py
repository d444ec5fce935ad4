"""May tersh rewrite a shell command without changing what the host's permission rules decide?

Hosts judge the command string a hook hands back, not the one the model asked for. A rewrite to
``tersh run -c '…'`` is therefore only safe when no rule of the user could tell the two apart.
Host-neutral: each host module turns its own rule files into :class:`ShellRules` (program
names and a flag for rules tersh cannot reason about), then asks :func:`allows_rewrite`.

The test is deliberately blunt, because a host's matcher (its parser, its wrapper stripping,
its next release) cannot be re-implemented exactly. A rule's program counts as present when it
occurs anywhere in the command — any word of any segment, inside quoted ``-c`` strings,
substitutions, here-documents, ``xargs`` or ``find -exec`` arguments, after quote and backslash
removal, as a path's last part, in any letter case. While a deny or ask rule exists, anything
that can build a command at run time (``eval``, ``source``, ``$``, backticks, a shell reading
its commands from a string or stdin, brace expansion) also means no rewrite. A false alarm only
costs one command's saving; any error inside the guard answers "no rewrite".
"""

from __future__ import annotations

from typing import NamedTuple


class ShellRules(NamedTuple):
    """The user's rules for the host's shell tool, in host-neutral words.

    ``guarded`` are the programs named by deny and ask rules (their first word), ``allowed``
    those named by allow rules; ``opaque`` is True when some rule is beyond these words (a
    regular expression, a rule on the whole tool, a file that could not be read).
    """

    guarded: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    opaque: bool = False


#: Characters that continue a program name; anything else ends it (``/``, quotes, ``;``…).
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.+")
#: Words that run text as commands, so a rule's program can hide in what they build.
DYNAMIC_WORDS = frozenset(
    {
        ".",
        "ash",
        "bash",
        "busybox",
        "dash",
        "eval",
        "exec",
        "fish",
        "ksh",
        "mksh",
        "sh",
        "source",
        "zsh",
    }
)
#: Characters that start an expansion: parameters, substitutions, ANSI-C and locale quoting.
_DYNAMIC_CHARS = frozenset("$`")


def allows_rewrite(command: str, rules: ShellRules, wrapped: str = "") -> bool:
    """True only when rewriting ``command`` (to ``wrapped``, if given) cannot change a decision.

    Never raises: any failure answers False.
    """
    try:
        return _allows_rewrite(command, rules, wrapped)
    except Exception:
        return False


def _allows_rewrite(command: str, rules: ShellRules, wrapped: str) -> bool:
    if rules.opaque:
        return False
    named = rules.guarded + rules.allowed
    if not named:
        return True
    texts = _texts(command) + (_texts(wrapped) if wrapped else ())
    if any(mentions(text, program) for text in texts for program in named):
        return False
    return not (rules.guarded and is_dynamic(command))


def _texts(command: str) -> tuple[str, ...]:
    """The command as written, without quotes and backslashes, and its lexed words."""
    plain = command.replace("\\", "").replace("'", "").replace('"', "")
    return (command, plain, *_words(command))


def _words(command: str) -> list[str]:
    from tersh.command import shell

    try:
        script = shell.parse(command)
    except Exception:
        return []
    return [word for simple in script.commands for word in (*simple.words, *simple.assignments)]


def program_of(rule_text: str) -> str:
    """The program a rule names: its first word, without quotes (``git`` for ``git push``)."""
    words = rule_text.replace("'", " ").replace('"', " ").split()
    return words[0] if words else ""


def mentions(text: str, program: str) -> bool:
    """Whether ``program`` occurs in ``text`` as a name of its own (case-insensitive).

    A name of its own: not preceded or followed by a letter, digit, ``_``, ``-``, ``.`` or
    ``+``, so ``rm`` is found in ``/bin/rm -f`` and ``xargs rm`` but not in ``term``. An empty
    program (a rule on every command) is found everywhere.
    """
    needle = program_of(program).lower()
    if not needle:
        return True
    haystack = text.lower()
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = haystack[start - 1] if start else " "
        after = haystack[end] if end < len(haystack) else " "
        if before not in _NAME_CHARS and after not in _NAME_CHARS:
            return True
        start = haystack.find(needle, start + 1)
    return False


def is_dynamic(command: str) -> bool:
    """Whether ``command`` can build commands at run time that its text does not show."""
    if _DYNAMIC_CHARS & set(command):
        return True
    if "{" in command and "," in command:  # brace expansion: r{m,} is "rm r"
        return True
    texts = _texts(command)
    return any(mentions(text, word) for text in texts for word in DYNAMIC_WORDS if word != ".") or (
        _sources_with_dot(command)
    )


def _sources_with_dot(command: str) -> bool:
    """``. FILE`` (the POSIX spelling of ``source``) as any simple command's program."""
    from tersh.command import shell

    try:
        script = shell.parse(command)
    except Exception:
        return True
    if script.problems:
        return True
    return any(simple.words and simple.words[0] == "." for simple in script.commands)
