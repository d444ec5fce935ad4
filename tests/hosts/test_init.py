"""``tersh init`` / ``uninit`` / ``init --show`` on real files in a private HOME."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tersh.cli import main

CLAUDE_USER = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt é"}]}]},
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(project)
    return home


def tersh(*argv: str) -> int:
    return main(list(argv))


def write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)


def test_claude_init_is_idempotent_and_uninit_restores(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = home / ".claude" / "settings.json"
    original = json.dumps(CLAUDE_USER, indent=2, ensure_ascii=False) + "\n"
    write(settings, original)
    assert tersh("init", "claude-code") == 0
    first = settings.read_text()
    out = capsys.readouterr().out
    assert "add PostToolUse [" in out and "add env CLAUDE_CODE_SHELL_PREFIX=" in out
    assert "add PreToolUse" not in out  # Bash is judged as asked; the prefix only wraps the run
    assert "original saved as ~/.claude/settings.json.tersh-backup" in out
    data = json.loads(first)
    assert data["model"] == "opus" and data["permissions"] == CLAUDE_USER["permissions"]
    assert data["hooks"]["PreToolUse"] == CLAUDE_USER["hooks"]["PreToolUse"]
    ours = data["hooks"]["PostToolUse"][0]
    assert "Read" in ours["matcher"] and ours["hooks"][0]["command"].endswith(" hook claude-code")
    prefix = data["env"]["CLAUDE_CODE_SHELL_PREFIX"]
    assert prefix.endswith("/tersh-shell-prefix") and Path(prefix).is_absolute()
    assert stat.S_IMODE(settings.stat().st_mode) == 0o644
    backup = settings.with_name("settings.json.tersh-backup")
    assert backup.read_text() == original and stat.S_IMODE(backup.stat().st_mode) == 0o600

    assert tersh("init", "claude") == 0
    assert settings.read_text() == first
    assert "unchanged (tersh already installed)" in capsys.readouterr().out

    assert tersh("uninit", "claude-code") == 0
    assert settings.read_text() == original
    removed = capsys.readouterr().out
    assert "remove PostToolUse [" in removed and "remove env CLAUDE_CODE_SHELL_PREFIX=" in removed
    assert tersh("uninit", "claude-code") == 0
    assert settings.read_text() == original


def test_project_scope_and_new_file(home: Path) -> None:
    assert tersh("init", "claude-code", "--project") == 0
    local = Path.cwd() / ".claude" / "settings.local.json"
    written = json.loads(local.read_text())
    assert set(written["hooks"]) == {"PostToolUse"} and "CLAUDE_CODE_SHELL_PREFIX" in written["env"]
    assert stat.S_IMODE(local.stat().st_mode) == 0o600
    assert not (home / ".claude").exists()


def test_dry_run_writes_nothing(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = home / ".gemini" / "settings.json"
    write(settings, '{"theme": "dark"}\n')
    assert tersh("init", "gemini", "--dry-run") == 0
    assert settings.read_text() == '{"theme": "dark"}\n'
    assert "(dry run)" in capsys.readouterr().out
    assert not settings.with_name("settings.json.tersh-backup").exists()


def test_gemini_hooks_keep_other_settings(home: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    original = '{\n\t"theme": "dark",\n\t"hooks": {"enabled": true}\n}\n'
    write(settings, original)
    assert tersh("init", "gemini") == 0
    data = json.loads(settings.read_text())
    assert data["theme"] == "dark" and data["hooks"]["enabled"] is True
    before = data["hooks"]["BeforeTool"][0]
    assert before["matcher"] == "run_shell_command" and before["hooks"][0]["name"] == "tersh"
    assert '\n\t"theme"' in settings.read_text()  # the file's tab indent is kept
    assert tersh("uninit", "gemini") == 0
    assert json.loads(settings.read_text()) == {"theme": "dark", "hooks": {"enabled": True}}


def test_invalid_json_and_symlinks_are_never_touched(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = home / ".claude" / "settings.json"
    write(settings, '{"model": "opus",}')
    assert tersh("init", "claude-code") == 2
    assert settings.read_text() == '{"model": "opus",}'
    assert "not valid JSON" in capsys.readouterr().err
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    settings.unlink()
    settings.symlink_to(target)
    assert tersh("init", "claude-code") == 2
    assert target.read_text() == "{}"
    assert "symbolic link" in capsys.readouterr().err


CODEX_CONFIG = """# my settings
model = "o3"   # fast enough

[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"]

[profiles.deep]
model = "o3-pro"
"""


def test_codex_mcp_route_keeps_comments_and_layout(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = home / ".codex" / "config.toml"
    write(config, CODEX_CONFIG)
    assert tersh("init", "codex") == 0
    text = config.read_text()
    assert text.startswith(CODEX_CONFIG)
    import tomllib

    table = tomllib.loads(text)["mcp_servers"]["tersh"]
    assert table["args"][-1] == "mcp" and Path(table["command"]).is_absolute()
    # Codex's 60 s default would cut long test runs; `required` would make Codex refuse to
    # start whenever tersh is missing (https://developers.openai.com/codex/config-reference/).
    assert table["tool_timeout_sec"] >= 600 and "required" not in table
    assert table["env_vars"] == ["TERSH_HOME"]  # Codex filters the servers' environment
    assert not (home / ".codex" / "hooks.json").exists()  # the hook is opt-in
    assert tersh("init", "codex") == 0
    assert config.read_text() == text
    capsys.readouterr()
    assert tersh("init", "codex", "--with-hook") == 0
    assert "/hooks" in capsys.readouterr().out  # Codex skips an untrusted hook without a word
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())
    assert hooks["hooks"]["PreToolUse"][0]["matcher"] == "Bash"
    capsys.readouterr()
    assert tersh("uninit", "codex") == 0
    assert config.read_text() == CODEX_CONFIG
    assert not (home / ".codex" / "hooks.json").exists()  # init created it: uninit removes it
    assert "remove [mcp_servers.tersh]" in capsys.readouterr().out


def test_codex_table_in_a_form_tersh_cannot_edit_is_left_alone(home: Path) -> None:
    config = home / ".codex" / "config.toml"
    original = 'mcp_servers.tersh.command = "old"\n'
    write(config, original)
    assert tersh("init", "codex") == 2
    assert config.read_text() == original


def test_with_hook_is_codex_only(home: Path) -> None:
    assert tersh("init", "gemini", "--with-hook") == 2
    assert not (home / ".gemini").exists()


def test_show_lists_every_host(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tersh("init", "claude-code") == 0
    capsys.readouterr()
    assert tersh("init", "--show") == 0
    out = capsys.readouterr().out
    assert "tersh disabled" in out
    assert "~/.claude/settings.json: tersh hooks PostToolUse [" in out
    assert "env CLAUDE_CODE_SHELL_PREFIX (Bash through tersh)" in out
    assert "codex:" in out and "gemini:" in out and "opencode:" in out


def test_unknown_host_and_missing_host(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tersh("init", "cursor") == 2
    assert "unknown host 'cursor'" in capsys.readouterr().err
    assert tersh("uninit") == 2


def test_opencode_is_delegated(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    code = tersh("init", "opencode", "--dry-run")
    if importlib.util.find_spec("tersh.hosts.opencode") is None:
        assert code == 2
        assert "OpenCode support is not available" in capsys.readouterr().err
    else:
        assert code == 0
        assert capsys.readouterr().out.strip()
