"""Fixtures for the settings page: an in-process API client, a real `tersh ui`, a real chromium."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from starlette.testclient import TestClient

from tersh.ui.server import create_app

TOKEN = "test-token-0123456789abcdefghijklmnopqrstuv"
PORT = 8123
ORIGIN = f"http://127.0.0.1:{PORT}"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "ui"
URL_LINE = re.compile(r"(http://127\.0\.0\.1:(\d+)/#token=([A-Za-z0-9_-]+))")


@pytest.fixture
def client() -> Iterator[TestClient]:
    """A TestClient for an app bound (on paper) to 127.0.0.1:8123 with a known token."""
    with TestClient(create_app(token=TOKEN, port=PORT), base_url=ORIGIN) as test_client:
        yield test_client


@pytest.fixture
def auth() -> dict[str, str]:
    """The token header every API call needs."""
    return {"X-Tersh-Token": TOKEN}


class Served(NamedTuple):
    """A running `tersh ui`: its printed URL, port, token and process."""

    url: str
    port: int
    token: str
    process: subprocess.Popen[str]

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT`` without the token."""
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
def served(tersh_home: Path) -> Iterator[Served]:
    """The real command, `python -m tersh ui --no-open`, with this test's TERSH_HOME."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tersh", "ui", "--no-open"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = URL_LINE.search(line)
        assert match, f"no URL printed: {line!r} {process.stderr.read() if process.poll() else ''}"
        yield Served(match.group(1), int(match.group(2)), match.group(3), process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def chromium_path() -> str | None:
    """Debian's chromium, when installed."""
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Debian chromium driven by Playwright (never a downloaded browser)."""
    executable = chromium_path()
    if executable is None:
        reason = "chromium is not installed (run scripts/install_browser.sh)"
        if os.environ.get("TERSH_REQUIRE_BROWSER"):
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh browser page (light scheme, 1280×900); a screenshot is kept if the test fails."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    opened = context.new_page()
    (ARTIFACTS / f"FAILED-{request.node.name}.png").unlink(missing_ok=True)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield opened
        assert errors == [], f"JavaScript errors on the page: {errors}"
    finally:
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            screenshot(opened, f"FAILED-{request.node.name}")
        context.close()


def screenshot(target: Any, name: str, **options: Any) -> Path:
    """Save a PNG under test-artifacts/ui/ and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    target.screenshot(path=str(path), **options)
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Remember each phase's report on the test item (for the failure screenshot)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"rep_{report.when}", report)
