"""The quick user data folder equals platformdirs' wherever it answers, and spares its import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh._startup import userdirs

_REAL = userdirs.quick_user_data_dir  # conftest turns the quick answer off for other tests

_HOMES = st.one_of(
    st.none(),
    st.sampled_from(["/", "/root", "/home/user", "/home/user/", "//srv//u//", "relative/home", "", " "]),
    st.text(alphabet="/ab. ~", max_size=12),
)
_DATA = st.one_of(
    st.none(),
    st.sampled_from(["", "   ", "/data", "/data/", "relative", "./x", "/a b/c"]),
    st.text(alphabet="/ab. ~", max_size=12),
)


def _set(monkeypatch: pytest.MonkeyPatch, name: str, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv(name, raising=False)
    else:
        monkeypatch.setenv(name, value)


@pytest.mark.skipif(sys.platform != "linux", reason="the quick answer is for Linux only")
@given(home=_HOMES, data=_DATA)
def test_equals_platformdirs_where_it_answers(home: str | None, data: str | None) -> None:
    with pytest.MonkeyPatch.context() as patch:
        _set(patch, "HOME", home)
        _set(patch, "XDG_DATA_HOME", data)
        quick = _REAL("tersh")
        if quick is None:
            return
        assert quick == platformdirs.PlatformDirs("tersh", appauthor=False).user_data_dir


@pytest.mark.skipif(sys.platform != "linux", reason="the quick answer is for Linux only")
def test_answers_the_common_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/user")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert _REAL("tersh") == "/home/user/.local/share/tersh"
    monkeypatch.setenv("XDG_DATA_HOME", "/data")
    assert _REAL("tersh") == "/data/tersh"
    monkeypatch.setenv("XDG_DATA_HOME", "relative")
    assert _REAL("tersh") is None


@pytest.mark.skipif(sys.platform != "linux", reason="the quick answer is for Linux only")
def test_run_without_tersh_home_skips_platformdirs(tmp_path: Path) -> None:
    """A user's own call (no TERSH_HOME) records under ~/.local/share/tersh without platformdirs."""
    env = {k: v for k, v in os.environ.items() if k not in ("TERSH_HOME", "XDG_DATA_HOME")}
    env["HOME"] = str(tmp_path)
    profile = tmp_path / ".local" / "share" / "tersh"
    profile.mkdir(parents=True)
    (profile / "settings.toml").write_text("enabled = true\n")
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "tersh", "run", "--", "echo", "hello"],
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello"
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "tersh.commands.run" in imported
    assert "platformdirs" not in imported
    assert any((profile / "captures").iterdir())
