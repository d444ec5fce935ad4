"""A command line lexed once for every stage: its script, and the program whose output it shows.

The policy reads the whole script (``policy.decide(..., script=)``); compaction and the ledger
want the command whose output the line shows (:func:`tersh.command.classify.main_words`): its
program (base name, lower case), its arguments and its class.
"""

from __future__ import annotations

from tersh.command import classify, shell

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from tersh._startup.lean import NamedTuple


class Parsed(NamedTuple):
    """One command line, lexed."""

    command: str
    script: shell.Script | None  # None when the lexer failed (the words are then split on blanks)
    program: str  # the real program behind wrappers, base name ('' when there is none)
    args: tuple[str, ...]  # the words after it
    klass: str  # its per-class switch name (``classify.OTHER`` when none stands out)


def parse(command: str) -> Parsed:
    """Lex ``command`` and find its program, arguments and class; never raises."""
    script: shell.Script | None
    try:
        script = shell.parse(command)
        words = classify.main_words(script)
    except Exception:  # the lexer must never cost the call: fall back to plain words
        script, words = None, command.split()
    program = classify.basename(words[0]) if words else ""
    try:
        klass = classify.classify(words) or classify.OTHER
    except Exception:
        klass = classify.OTHER
    return Parsed(command, script, program, tuple(words[1:]), klass)
