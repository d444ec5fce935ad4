"""``onpath.which`` answers what ``shutil.which`` answers, without importing shutil."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tersh.command import onpath


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    """Folders holding a ``prog`` of every kind: executable, not executable, a folder, a link."""
    made: dict[str, Path] = {}
    for name in ("exec", "plain", "folder", "link", "empty", "other"):
        made[name] = tmp_path / name
        made[name].mkdir()
    (made["exec"] / "prog").write_text("#!/bin/sh\n")
    (made["exec"] / "prog").chmod(0o755)
    (made["other"] / "prog").write_text("#!/bin/sh\n")
    (made["other"] / "prog").chmod(0o755)
    (made["plain"] / "prog").write_text("data\n")
    (made["folder"] / "prog").mkdir()
    (made["link"] / "prog").symlink_to(made["exec"] / "prog")
    return made


@pytest.mark.parametrize("order", [
    ["exec"], ["plain", "exec"], ["folder", "other", "exec"], ["link", "exec"], ["empty"],
    ["plain", "folder"], ["empty", "", "other"], [""], ["exec", "exec", "other"],
])
def test_which_finds_what_shutil_finds(folders: dict[str, Path], order: list[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", os.pathsep.join(str(folders[name]) if name else "" for name in order))
    monkeypatch.chdir(folders["exec"])  # an empty entry is the current folder
    for name in ("prog", "missing", "./prog", str(folders["plain"] / "prog"), str(folders["exec"] / "prog")):
        assert onpath.which(name) == shutil.which(name)


@pytest.mark.parametrize("path", ["", ":", None])
def test_which_reads_an_empty_or_missing_path_as_shutil_does(path: str | None, folders: dict[str, Path],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if path is None:
        monkeypatch.delenv("PATH", raising=False)
    else:
        monkeypatch.setenv("PATH", path)
    monkeypatch.chdir(folders["exec"])
    for name in ("prog", "sh", "missing"):
        assert onpath.which(name) == shutil.which(name)


def test_the_capture_report_of_python_m_tersh_imports_no_shutil() -> None:
    probe = ("import sys\nsys.argv = ['/x/tersh/__main__.py']\n"
             "from tersh.command.quoting import tersh_command\ntersh_command()\n"
             "print(sorted({'shutil', 're', 'fnmatch'} & set(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
