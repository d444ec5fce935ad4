"""Regular expressions compiled on first use, so that importing a module compiles none.

A module on the start-up path defines its patterns with :func:`lazy` instead of
``re.compile``::

    _HINT = lazy(r"^ {2}\\(.*\\)\\s*$")

Type checkers see a ``re.Pattern[str]``. At run time the pattern is compiled the first time one
of its methods or attributes is read (``_HINT.match``); from then on the compiled pattern's bound
methods sit in the object's own attributes, so a call costs what a call on the compiled pattern
costs. ``pattern`` (the source) is there from the start: a pattern may be built from another's
source without compiling either. Most of a module's patterns serve shapes of output a given
call never shows; each costs tens to hundreds of microseconds to compile, or, once a process
has compiled it, a few microseconds to build from its kept program (:mod:`.reprograms`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re

#: ``re``'s flag values, so that a module can pass one without importing ``re``
#: (tests/test_lazyre.py holds them equal to ``re``'s).
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16

# What ``re.escape`` puts a backslash before (the characters special in a pattern, and white space).
_ESCAPED = {code: "\\" + chr(code) for code in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def escape(text: str) -> str:
    """``re.escape(text)``, without importing ``re``."""
    return text.translate(_ESCAPED)


#: What a compiled pattern offers that tersh reads (each becomes an attribute once compiled).
_MEMBERS = (
    "search",
    "match",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "subn",
    "split",
    "scanner",
    "flags",
    "groups",
    "groupindex",
)


class _Lazy:
    """A pattern source and its flags; compiled on first use (see the module doc)."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> object:
        # Reached only while the pattern is not compiled (or for a name no pattern has).
        if name.startswith("__") or "_compiled" in self.__dict__:
            raise AttributeError(name)
        return getattr(self.compiled, name)

    @property
    def compiled(self) -> re.Pattern[str] | re.Pattern[bytes]:
        """The compiled pattern (compiled now if it was not)."""
        found = self.__dict__.get("_compiled")
        if found is None:
            from tersh._startup.reprograms import compiled

            found = compiled(self.pattern, self._flags)
            members = {name: getattr(found, name) for name in _MEMBERS}
            self.__dict__.update(members, _compiled=found)
        return found

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._flags})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled on first use."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]


def lazy_bytes(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]:
    """``re.compile(pattern, flags)`` for a bytes pattern, compiled on first use."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]


def is_compiled(pattern: object) -> bool:
    """Whether a pattern made by :func:`lazy` has been compiled (a compiled pattern: True)."""
    return not isinstance(pattern, _Lazy) or "_compiled" in pattern.__dict__
