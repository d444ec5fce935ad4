"""`tersh init` keeps the user's original once; `uninit` puts it back or removes what init made.

Real command lines in a private HOME, for each host's file format (JSON settings, Codex's TOML).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.hosts.hostenv import TERSH, host_env

HAND_MADE = '{\n    "model": "opus",   "permissions": {"allow": ["Bash(ls)"]},\n\n  "theme":"dark"\n}\n'
HAND_MADE_TOML = '# my codex config\nmodel = "gpt-5"   # the default\n\n[profiles.fast]\nmodel = "o4-mini"\n'


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return host_env(home, CODEX_HOME=str(home / ".codex"))


def tersh(env: dict[str, str], *argv: str) -> str:
    done = subprocess.run([str(TERSH), *argv], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def settings_file(env: dict[str, str], host: str) -> Path:
    home = Path(env["HOME"])
    return {
        "claude-code": home / ".claude" / "settings.json",
        "gemini": home / ".gemini" / "settings.json",
        "codex": home / ".codex" / "config.toml",
    }[host]


@pytest.mark.parametrize("host", ["claude-code", "gemini", "codex"])
def test_init_twice_then_uninit_gives_back_the_original_bytes(env: dict[str, str], host: str) -> None:
    path = settings_file(env, host)
    original = HAND_MADE_TOML if host == "codex" else HAND_MADE
    path.parent.mkdir(parents=True)
    path.write_text(original)
    os.chmod(path, 0o640)
    first = tersh(env, "init", host)
    backup = path.with_name(path.name + ".tersh-backup")
    assert "original saved as" in first and backup.read_text() == original
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    tersh(env, "uninit", host)
    tersh(env, "init", host)
    assert backup.read_text() == original  # a later init never overwrote it
    removed = tersh(env, "uninit", host)
    assert "restored your original file byte for byte" in removed
    assert path.read_text() == original and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert not backup.exists()


@pytest.mark.parametrize("host", ["claude-code", "gemini", "codex"])
def test_a_changed_file_keeps_its_changes_and_the_backup_stays(env: dict[str, str], host: str) -> None:
    path = settings_file(env, host)
    original = HAND_MADE_TOML if host == "codex" else HAND_MADE
    path.parent.mkdir(parents=True)
    path.write_text(original)
    tersh(env, "init", host)
    edited = path.read_text()
    edited = (
        'extra = "mine"\n' + edited
        if host == "codex"
        else edited.replace('"theme"', '"editor": "vim", "theme"', 1)
    )
    path.write_text(edited)
    tersh(env, "init", host, "--dry-run")
    removed = tersh(env, "uninit", host)
    backup = path.with_name(path.name + ".tersh-backup")
    assert "settings changed since init, so your original stays in" in removed
    assert backup.read_text() == original
    assert ("mine" if host == "codex" else "vim") in path.read_text() and "tersh" not in path.read_text()


@pytest.mark.parametrize("host", ["claude-code", "gemini", "codex"])
def test_a_file_init_created_is_removed_by_uninit(env: dict[str, str], host: str) -> None:
    path = settings_file(env, host)
    assert "created" in tersh(env, "init", host)
    assert path.exists()
    removed = tersh(env, "uninit", host)
    assert "removed (tersh had created it and nothing else is in it)" in removed
    assert not path.exists() and not path.with_name(path.name + ".tersh-created").exists()
    assert not path.with_name(path.name + ".tersh-backup").exists()


def test_a_created_file_the_user_filled_stays_without_tersh(env: dict[str, str]) -> None:
    path = settings_file(env, "gemini")
    tersh(env, "init", "gemini")
    path.write_text(path.read_text().replace("{", '{"theme": "dark",', 1))
    tersh(env, "uninit", "gemini")
    assert json.loads(path.read_text()) == {"theme": "dark"}
    assert not path.with_name(path.name + ".tersh-created").exists()
