"""Test isolation: every test gets its own profile; the real profile folder is unreachable."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest
from hypothesis import settings as hypothesis_settings

from tersh._startup import userdirs

# Property tests check behaviour, not speed: on a loaded 2-core machine a per-example deadline
# only makes them flaky (timings live in bench/).
hypothesis_settings.register_profile("tersh", deadline=None)
hypothesis_settings.load_profile("tersh")


@pytest.fixture(autouse=True)
def tersh_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point TERSH_HOME at a fresh folder and make the platform's user folders raise."""
    home = tmp_path_factory.mktemp("tersh-home")
    monkeypatch.setenv("TERSH_HOME", str(home))
    monkeypatch.delenv("TERSH_SESSION", raising=False)

    def forbidden(*args: object, **kwargs: object) -> str:
        raise AssertionError("a test tried to use the real profile folder")

    # the quick Linux answer stands in for platformdirs: off here, so the guard below holds
    monkeypatch.setattr(userdirs, "quick_user_data_dir", lambda app: None)
    monkeypatch.setattr(platformdirs, "user_data_dir", forbidden)
    monkeypatch.setattr(platformdirs, "user_cache_dir", forbidden)
    monkeypatch.setattr(platformdirs, "user_state_dir", forbidden)
    yield home
