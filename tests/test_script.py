"""The installed `tersh` command: a script shipped as written, the same under every pip."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bin" / "tersh"


def test_the_script_is_shipped_as_written_not_generated_from_an_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "scripts" not in project["project"]
    assert project["tool"]["setuptools"]["script-files"] == ["bin/tersh", "bin/tersh-shell-prefix"]


def test_the_shell_prefix_script_imports_only_its_entry() -> None:
    script = ROOT / "bin" / "tersh-shell-prefix"
    tree = ast.parse(script.read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported == {"tersh.commands.shell_prefix"}
    assert script.read_text().startswith("#!python\n")


def test_the_script_imports_only_sys_and_the_cli() -> None:
    tree = ast.parse(SCRIPT.read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported == {"sys", "tersh.cli"}
    assert SCRIPT.read_text().startswith("#!python\n")  # pip puts the interpreter here


def test_the_script_runs_tersh() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--version"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0 and run.stdout.startswith("tersh "), run
