"""The contract every category rule meets, the records the compaction stage passes around, and
the minimum saving of the call in progress."""

from __future__ import annotations

from _thread import _local

from tersh.command.classify import subcommand
from tersh.settings import MIN_SAVED_SHARE

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import NamedTuple, Protocol
else:
    from tersh._startup.lean import NamedTuple

    Protocol = object


class Invocation(NamedTuple):
    """What ran: the command as typed, the real program behind wrappers, its arguments, its exit.

    ``program`` is the tool's base name after unwrapping (``python -m pytest`` -> ``pytest``,
    ``npx tsc`` -> ``tsc``, ``git`` for every git command); ``args`` are the words after it
    (for git, ``args[0]`` is the subcommand).
    """

    command: str
    program: str
    args: tuple[str, ...]
    exit_code: int

    @property
    def subcommand(self) -> str:
        """The program's subcommand (``status`` for ``git -C x status -s``), or ''."""
        return subcommand(self.args, self.program)


class Rule(Protocol):
    """A category rule module. The module itself satisfies this protocol.

    ``compact`` gets the cleaned text (ANSI removed, carriage-return progress resolved) and
    returns a shorter text that states what it omitted, or None to leave the text alone. It is a
    pure function: it never touches files, exit codes or the network. ``sniff`` scores how sure
    the rule is that a text with no telling command is its tool's output (0.0 to 1.0).
    """

    NAME: str
    CATEGORY: str
    PROGRAMS: tuple[str, ...]

    def compact(self, text: str, inv: Invocation) -> str | None:
        """Return a compact text that says what it left out, or None."""
        ...

    def sniff(self, text: str) -> float:
        """How likely ``text`` is this rule's tool output, from 0.0 to 1.0."""
        ...


class Outcome(NamedTuple):
    """What the gate decided: the text to use and, when the rule was refused, why."""

    text: str
    rule: str | None = None
    category: str | None = None
    applied: bool = False
    refused: str | None = None


class _Share(_local):
    """The share of its source a proposal must save in the call in progress, per thread (the MCP
    server compacts in worker threads): the user's ``tools.min_saving``, which the registry sets
    around each rule's ``compact`` (rules never read settings themselves). ``_thread._local`` is
    the class ``threading.local`` is, without importing ``threading`` (nor ``contextvars``, an
    extension module to load: a tenth of a millisecond of every call with a rule)."""

    value = MIN_SAVED_SHARE


_current = _Share()


class minimum_saving:
    """Inside ``with minimum_saving(share):`` a proposal must save ``share`` of its source
    (``tools.min_saving``), in this thread; blocks nest. A class, not
    ``contextlib.contextmanager``: contextlib stays off the start-up path."""

    def __init__(self, share: float) -> None:
        self._share = share
        self._outer: list[float] = []

    def __enter__(self) -> None:
        self._outer.append(_current.value)
        _current.value = self._share

    def __exit__(self, *exc: object) -> None:
        if self._outer:
            _current.value = self._outer.pop()


def min_share() -> float:
    """The share of its source a proposal must save now (see :func:`minimum_saving`)."""
    return _current.value
