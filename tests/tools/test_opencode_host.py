"""`tersh.hosts.opencode`: install/uninstall the plugin file, idempotent, with backups."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from tersh.hosts import opencode


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path


def test_install_is_idempotent_and_fills_in_the_command(project: Path) -> None:
    changes = opencode.install("project", "/opt/bin/tersh")
    target = project / ".opencode" / "plugins" / "tersh.ts"
    assert changes[0] == f"installed {target} (tersh's OpenCode plugin; restart OpenCode to load it)"
    text = target.read_text()
    assert '"__TERSH_ARGV__"' not in text
    assert json.dumps(json.dumps(["/opt/bin/tersh"])) in text
    assert opencode.install("project", "/opt/bin/tersh") == []
    assert target.read_text() == text
    assert opencode.install("project", "/other/tersh")[0].startswith("updated")
    assert not list(target.parent.glob("*.bak-*"))  # our own file needs no backup


def test_install_says_when_opencode_will_fetch_its_plugin_package(project: Path) -> None:
    folder = project / ".opencode"
    first = opencode.install("project", "/opt/bin/tersh")
    assert first[1] == opencode.OFFLINE_NOTE.format(folder=folder) and "100 s" in first[1]
    (folder / "node_modules" / "@opencode-ai" / "plugin").mkdir(parents=True)
    assert len(opencode.install("project", "/other/tersh")) == 1  # installed already: no note


def test_a_users_file_is_backed_up_first(project: Path) -> None:
    target = project / ".opencode" / "plugins" / "tersh.ts"
    target.parent.mkdir(parents=True)
    target.write_text("// the user's own plugin\n")
    os.chmod(target, 0o640)
    changes = opencode.install("project", "tersh")
    backup = target.with_name("tersh.ts.tersh-backup")
    assert changes[0] == f"backed up {target} to {backup}"
    assert backup.read_text() == "// the user's own plugin\n"
    assert opencode.SIGNATURE in target.read_text()
    assert opencode.uninstall("project")[:2] == [
        f"removed {target}",
        f"restored your own {target} (tersh had set it aside)",
    ]
    assert target.read_text() == "// the user's own plugin\n" and not backup.exists()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the user's file as it was


def test_a_second_users_file_gets_a_dated_copy_and_the_first_stays(project: Path) -> None:
    target = project / ".opencode" / "plugins" / "tersh.ts"
    target.parent.mkdir(parents=True)
    target.write_text("// first\n")
    opencode.install("project", "tersh")
    target.write_text("// second\n")
    assert opencode.install("project", "tersh")[0].startswith(f"backed up {target} to {target}.bak-")
    assert target.with_name("tersh.ts.tersh-backup").read_text() == "// first\n"
    assert [b.read_text() for b in target.parent.glob("tersh.ts.bak-*")] == ["// second\n"]


def test_global_scope_follows_xdg(project: Path) -> None:
    opencode.install("global", "tersh")
    assert (project / "xdg" / "opencode" / "plugins" / "tersh.ts").is_file()
    assert opencode.show()[1].endswith(": installed")


def test_dry_run_changes_nothing(project: Path) -> None:
    assert opencode.install("project", "tersh", dry_run=True)[0].startswith("would write")
    assert not (project / ".opencode").exists()


def test_uninstall_removes_only_our_file(project: Path) -> None:
    opencode.install("project", "tersh")
    legacy = project / ".opencode" / "plugin" / "tersh.ts"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("// someone else's\n")
    changes = opencode.uninstall("project")
    assert changes == [
        f"removed {project / '.opencode' / 'plugins' / 'tersh.ts'}",
        f"left {legacy} alone: it was not written by tersh",
    ]
    assert legacy.exists()
    assert opencode.uninstall("project") == [f"left {legacy} alone: it was not written by tersh"]


def test_symlinked_target_is_refused(project: Path) -> None:
    folder = project / ".opencode" / "plugins"
    folder.mkdir(parents=True)
    (folder / "tersh.ts").symlink_to(project / "elsewhere.ts")
    with pytest.raises(Exception, match="symbolic link"):
        opencode.install("project", "tersh")
    assert not (project / "elsewhere.ts").exists()


def test_unknown_scope() -> None:
    with pytest.raises(Exception, match="unknown scope"):
        opencode.install("everywhere")


def test_the_plugin_imports_only_nodes_own_modules() -> None:
    """No package import (``@opencode-ai/plugin`` or any other): the file needs no npm install."""
    source = opencode.template()
    imports = re.findall(r"""^\s*import\b[^"']*["']([^"']+)["']""", source, re.M)
    imports += re.findall(r"""\b(?:require|import)\(\s*["']([^"']+)["']""", source)
    assert imports and all(name.startswith("node:") for name in imports), imports


def test_the_plugin_never_rewrites_a_command() -> None:
    """OpenCode must judge the command the model asked for: no tool.execute.before hook."""
    assert '"tool.execute.before"' not in opencode.template()
