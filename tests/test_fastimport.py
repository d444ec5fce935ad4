"""The short import path of the command line finds and loads what CPython's path finder would."""

from __future__ import annotations

import compileall
import os
import py_compile
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES, PathFinder, SourceFileLoader
from pathlib import Path

import pytest

import tersh
from tersh._startup import fastimport

SOURCE = Path(tersh.__file__).resolve().parent


@pytest.fixture(name="tree")
def _tree(tmp_path: Path) -> Path:
    """A byte-compiled copy of the tersh package (timestamp-based, as pip and compileall write)."""
    root = tmp_path / "tersh"
    shutil.copytree(SOURCE, root, ignore=shutil.ignore_patterns("__pycache__"))
    assert compileall.compile_dir(
        str(root), quiet=1, invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP
    )
    return root


def _modules(root: Path) -> list[tuple[str, str]]:
    """(dotted name, parent folder) of every module and subpackage under ``root``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            if len(parts) == 1:
                continue  # the top package itself is imported by the path finder
            found.append((".".join(("tersh", *parts[:-1])), str(path.parent.parent)))
        else:
            found.append((".".join(("tersh", *parts)), str(path.parent)))
    return found


def test_every_module_gets_the_spec_and_code_the_path_finder_gives(tree: Path) -> None:
    finder = fastimport.Finder(str(tree))
    modules = _modules(tree)
    assert len(modules) > 100
    for name, folder in modules:
        fast = finder.find_spec(name, [folder])
        usual = PathFinder.find_spec(name, [folder])
        assert fast is not None and usual is not None, name
        for field in ("name", "origin", "cached", "parent", "has_location", "submodule_search_locations"):
            assert getattr(fast, field) == getattr(usual, field), (name, field)
        assert isinstance(fast.loader, SourceFileLoader) and isinstance(usual.loader, SourceFileLoader)
        assert (fast.loader.name, fast.loader.path) == (usual.loader.name, usual.loader.path)
        assert fast.loader.is_package(name) == usual.loader.is_package(name)
        assert fast.loader.get_code(name) == usual.loader.get_code(name), name


def test_no_module_shares_its_name_with_a_package_and_none_is_an_extension() -> None:
    # The finder looks for a module before a package (the path finder: the package first, and
    # an extension module before a source); with neither case in the tree, both find the same.
    for init in SOURCE.rglob("__init__.py"):
        assert not init.parent.with_suffix(".py").exists(), init.parent
    for suffix in (*EXTENSION_SUFFIXES, ".pyd"):
        assert not list(SOURCE.rglob(f"*{suffix}")), suffix


def test_a_stale_missing_or_hash_based_compiled_file_is_left_to_the_path_finder(tree: Path) -> None:
    finder = fastimport.Finder(str(tree))
    folder = str(tree / "command")
    assert finder.find_spec("tersh.command.quoting", [folder]) is not None
    source = tree / "command" / "quoting.py"
    stat = source.stat()
    source.write_text(source.read_text() + "\n")  # one byte longer
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with the same mtime
    assert finder.find_spec("tersh.command.quoting", [folder]) is None
    py_compile.compile(str(source), invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    assert finder.find_spec("tersh.command.quoting", [folder]) is None
    (tree / "command" / "__pycache__" / f"quoting.{sys.implementation.cache_tag}.pyc").unlink()
    assert finder.find_spec("tersh.command.quoting", [folder]) is None
    assert finder.find_spec("tersh.command.missing", [folder]) is None
    assert finder.find_spec("tersh.command.parsed", [str(tree.parent)]) is None  # not its folder
    assert finder.find_spec("json.decoder", [folder]) is None  # not a tersh module


def test_the_console_script_loads_tersh_by_the_short_path(tree: Path) -> None:
    probe = (
        "import os, sys\n"
        "from importlib import resources\n"
        "from tersh import settings\n"
        "settings.save({'enabled': True})\n"
        "real_exit = os._exit\n"
        "def done(code):\n"
        "    loaders = {type(sys.modules[name].__loader__).__name__ for name in\n"
        "               ('tersh.execution.spawn', 'tersh.command.shell', 'tersh.recording.captures')}\n"
        "    text = resources.files('tersh.hosts').joinpath('opencode.ts').read_text()\n"
        "    print(sorted(loaders), sys.modules['tersh.execution.spawn'].__file__, bool(text),\n"
        "          file=sys.stderr)\n"
        "    real_exit(code)\n"
        "os._exit = done\n"
        "sys.argv = ['tersh', 'run', '--', 'echo', 'hi']\n"
        "from tersh.cli import entry\n"
        "entry()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tree.parent)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    spawn = tree / "execution" / "spawn.py"
    assert done.stderr.strip().splitlines()[-1] == f"['_Loader'] {spawn} True", done.stderr
    assert done.stdout == "hi\n"
