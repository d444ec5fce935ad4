"""The hook's quick on/off read agrees with ``tersh.settings`` (or defers to it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh import settings as tersh_settings
from tersh._startup import userdirs
from tersh.commands import hook

_QUICK_USER_DATA_DIR = userdirs.quick_user_data_dir  # conftest turns it off for other tests

changes = st.fixed_dictionaries(
    {},
    optional={
        "enabled": st.booleans(),
        "preview.max_lines": st.integers(1, 10_000),
        "classes.git": st.booleans(),
        "rtk.path": st.text(max_size=8),
        "ledger.enabled": st.booleans(),
    },
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes)
def test_quick_read_matches_settings_for_files_tersh_writes(
    tersh_home: Path, values: dict[str, object]
) -> None:
    tersh_settings.settings_path().unlink(missing_ok=True)
    tersh_settings.save(values)
    assert hook.quick_enabled() == tersh_settings.load().flag("enabled")


def test_missing_file_is_the_default(tersh_home: Path) -> None:
    assert tersh_settings.DEFAULTS["enabled"] is False
    assert hook.quick_enabled() is False


@pytest.mark.parametrize(
    "text",
    [
        'enabled = "yes"\n',
        "enabled = true\nenabled = false\n",
        "enabled = tru\n",
        "enabled.x = true\n",
        "weird line\n",
    ],
)
def test_unusual_files_defer_to_settings(tersh_home: Path, text: str) -> None:
    tersh_settings.settings_path().write_text(text)
    assert hook.quick_enabled() is None


def test_platform_folder_matches_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    monkeypatch.delenv("TERSH_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(
        platformdirs, "user_data_dir", lambda name, appauthor=None: str(tmp_path / "data" / name)
    )
    monkeypatch.setattr(userdirs, "quick_user_data_dir", _QUICK_USER_DATA_DIR)
    folder = tmp_path / "data" / "tersh"
    folder.mkdir(parents=True)
    (folder / "settings.toml").write_text("enabled = true\n")
    assert tersh_settings.settings_path() == folder / "settings.toml"
    assert hook.quick_enabled() is True
