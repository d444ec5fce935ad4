"""Compiled regular-expression programs kept in the profile, so a process does not parse and
compile again the patterns the ones before it compiled.

``re.compile`` spends its time in ``re._parser`` and ``re._compiler``, in Python: a few tens to
hundreds of microseconds a pattern, milliseconds for the twenty-odd patterns a short
``tersh run`` with a rule uses. What it hands to the regular-expression engine in the end is a
list of integers (the program) with the pattern's flags and groups (``_sre.compile``). This
module keeps those arguments, per pattern source and flags, in one file under the profile's
``cache`` folder, and builds the pattern from them: an object equal to the one ``re.compile``
makes (same program, flags and groups; tests/test_reprograms.py holds every pattern tersh
defines with :func:`tersh._startup.lazyre.lazy` equal both ways). The engine checks a program
before it takes it.

The file is keyed by the Python version and the engine's magic number; a file that is a link,
another user's, writable by others, damaged or foreign is not read (the patterns are compiled
as usual), and it is rewritten, atomically, once at the end of a process that compiled patterns
it lacked (:func:`save`: at exit, or before ``os._exit`` on the run and hook paths). Any
failure here falls back to ``re.compile``.
"""

from __future__ import annotations

import _sre
import os
import sys

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from typing import Any

#: At most this many programs are kept (tersh's own patterns are a few hundred).
MAX_PROGRAMS = 2000

_kept: list[dict[Any, Any]] = []  # the programs read from the file, once a process
_unsaved: list[Any] = []  # the keys of the programs compiled here and not yet kept


def _key() -> bytes:
    return f"sre {sys.version_info[0]}.{sys.version_info[1]} {_sre.MAGIC} {_sre.CODESIZE}\n".encode()


def programs_file() -> str:
    """Where the programs are kept."""
    from tersh import settings

    return os.path.join(settings.profile_root(), "cache", "regex-programs")


def _read() -> dict[Any, Any]:
    from tersh.fsutil import read_marshalled

    found = read_marshalled(programs_file(), _key())
    return found if isinstance(found, dict) else {}


def _programs() -> dict[Any, Any]:
    if not _kept:
        _kept.append(_read())
    return _kept[0]


def _program(pattern: str | bytes, flags: int) -> tuple[Any, ...]:
    """What ``re._compiler.compile`` hands to ``_sre.compile`` for ``pattern``, but the source."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = list(map(int, _compiler._code(parsed, flags)))  # its opcodes are int subclasses
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup))


def compiled(pattern: str | bytes, flags: int = 0) -> re.Pattern[Any]:
    """``re.compile(pattern, flags)``, from the kept program when there is one."""
    flags = int(flags)  # a RegexFlag is an int that marshal does not write
    programs = _programs()
    key = (pattern, flags)
    found = programs.get(key)
    if found is not None:
        try:
            return _sre.compile(pattern, *found)  # type: ignore[no-any-return]
        except Exception:  # a program this engine does not take: compiled as usual
            programs.pop(key, None)
    try:
        program = _program(pattern, flags)
        made = _sre.compile(pattern, *program)
    except Exception:  # an error in the pattern (re says which), or another re
        import re

        return re.compile(pattern, flags)
    if len(programs) < MAX_PROGRAMS:
        programs[key] = program
        if not _unsaved:
            import atexit

            atexit.register(save)  # a process that ends with os._exit calls save() itself
        _unsaved.append(key)
    return made  # type: ignore[no-any-return]


def save() -> None:
    """Keep the programs this process compiled that the file lacked (once, at its end); never
    fails."""
    if _unsaved:
        del _unsaved[:]
        _keep(_programs())


def _keep(programs: dict[Any, Any]) -> None:
    """Write ``programs`` to the file (atomically, privately) when there is a profile; never
    fails."""
    from tersh.fsutil import write_marshalled

    path = programs_file()
    if os.path.isdir(os.path.dirname(os.path.dirname(path))):  # no profile: none is made for this
        write_marshalled(path, _key(), programs)
