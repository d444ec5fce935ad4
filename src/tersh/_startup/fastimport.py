"""tersh's own modules found and loaded by a short path, as the standard path finder would.

A ``tersh run`` of a command with a short output imports some forty tersh modules, and
CPython's path finder and source loader spend about as long per module in their own Python code
(directory caches, several ``stat`` calls, path joins, header checks) as the module's code takes
to load: a quarter of the whole ``tersh run`` of ``echo hello``. The command line installs
:class:`Finder` for the package it was started from. For ``tersh.a.b`` it looks at exactly the
two places the path finder looks for it (the package ``a/b/__init__.py``, else the module
``a/b.py``), and answers only when the byte-compiled file in ``__pycache__`` is current for that
source by the rules of the source loader (magic number, timestamp-based, the source's mtime and
size). Anything else (no such source, no compiled file or a stale one, a hash-based one, ``-O``,
``PYTHONPYCACHEPREFIX``, a package whose ``__path__`` was changed) is left to the standard
finders, which then do what they always do. tersh ships no extension modules, the only files the
path finder would prefer to a source.

The spec is the one the path finder builds (origin, cached, parent, search locations) and the
loader is a ``SourceFileLoader`` that is handed the compiled bytes it was found with, so
resources, sources and tracebacks work as usual (tests/test_fastimport.py holds the two equal).
"""

from __future__ import annotations

import _imp
import marshal
import os
import sys

_external = sys.modules["_frozen_importlib_external"]

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec, SourceFileLoader
    from types import CodeType, ModuleType
else:  # the classes importlib.machinery names, without importing it
    ModuleSpec = sys.modules["_frozen_importlib"].ModuleSpec
    SourceFileLoader = _external.SourceFileLoader
_PACKAGE = "tersh"
_PREFIX = f"{_PACKAGE}."
_SEP = os.sep


class _Loader(SourceFileLoader):
    """A ``SourceFileLoader`` that first uses the compiled bytes the finder checked."""

    def __init__(self, fullname: str, path: str, compiled: bytes) -> None:
        super().__init__(fullname, path)
        self._compiled: bytes | None = compiled

    def get_code(self, fullname: str) -> CodeType | None:
        """The module's code from the checked bytes (once), else as the source loader reads it."""
        compiled, self._compiled = self._compiled, None
        if compiled is None or fullname != self.name:
            return super().get_code(fullname)
        code: CodeType = marshal.loads(memoryview(compiled)[16:])
        _imp._fix_co_filename(code, self.path)  # type: ignore[attr-defined]  # as the loader does
        return code


class Finder:
    """Finds the modules of the ``tersh`` package in ``root`` (its folder) by the short path."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.inside = f"{root}{_SEP}"
        self.tag = sys.implementation.cache_tag

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec of ``name`` when it is a tersh module with a current compiled file."""
        if not name.startswith(_PREFIX) or self.tag is None or path is None or len(path) != 1:
            return None
        folder = path[0]  # where the path finder looks too: the parent package's one folder
        if folder != self.root and not folder.startswith(self.inside):
            return None
        if sys.flags.optimize or sys.pycache_prefix is not None:
            return None
        stem = name.rpartition(".")[2]
        base = f"{folder}{_SEP}{stem}"
        # A module first: tersh never has a package and a module of one name
        # (tests/test_fastimport.py), so the path finder's order (the package first) is kept.
        pycache = f"{_SEP}__pycache__{_SEP}"
        candidates = (
            (f"{base}.py", f"{folder}{pycache}{stem}.{self.tag}.pyc", False),
            (f"{base}{_SEP}__init__.py", f"{base}{pycache}__init__.{self.tag}.pyc", True),
        )
        found = _first_source(candidates)
        if found is None:
            return None
        source, cached, package, stat = found
        try:
            with open(cached, "rb") as handle:
                compiled = handle.read()
        except OSError:
            return None
        if not _current(compiled, stat):
            return None
        spec = ModuleSpec(name, _Loader(name, source, compiled), origin=source, is_package=package)
        spec.has_location = True
        spec.cached = cached
        if package:
            spec.submodule_search_locations = [base]
        return spec


def _first_source(
    candidates: Sequence[tuple[str, str, bool]],
) -> tuple[str, str, bool, os.stat_result] | None:
    """The first (source, compiled file, is a package) whose source exists, with its stat."""
    for source, cached, package in candidates:
        try:
            return source, cached, package, os.stat(source)
        except OSError:
            continue
    return None


def _current(compiled: bytes, stat: os.stat_result) -> bool:
    """Whether ``compiled`` is a timestamp-based compiled file current for that source."""
    return (
        len(compiled) >= 16
        and compiled[:4] == _external.MAGIC_NUMBER
        and compiled[4:8] == b"\0\0\0\0"
        and int.from_bytes(compiled[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(compiled[12:16], "little") == stat.st_size & 0xFFFFFFFF
    )


def install() -> None:
    """Put a :class:`Finder` for the imported ``tersh`` package first on ``sys.meta_path``
    (once; not when the package's ``__path__`` is not its one folder, nor on a system whose
    file names may ignore case, where the path finder checks a name's case and this does not)."""
    if not sys.platform.startswith("linux"):
        return
    package = sys.modules.get(_PACKAGE)
    locations = list(getattr(package, "__path__", None) or ())
    if len(locations) != 1 or any(isinstance(finder, Finder) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, Finder(locations[0]))
