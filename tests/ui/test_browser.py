"""End to end in headless Debian chromium: the real `tersh ui`, the real page, the real CLI.

Screenshots of each step are kept under test-artifacts/ui/ (git-ignored).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tersh import settings
from tersh.recording import captures as capture
from tersh.recording import ledger
from tests.clihelp import tersh

from .conftest import Served, screenshot

pytestmark = pytest.mark.browser

FAKE_RTK = Path(__file__).resolve().parents[1] / "fake_rtk" / "rtk"
BIG_LINES = 1_000_000
MARKER_LINE = 654_321


def _open(page: Any, served: Served) -> None:
    page.goto(served.url)
    page.wait_for_selector("body[data-ready='true']", timeout=15_000)


def _rewrite(command: str) -> dict[str, Any]:
    done = tersh(["rewrite", command, "--format", "json"])
    assert done.returncode == 0, done.stderr
    decision: dict[str, Any] = json.loads(done.stdout)
    return decision


def test_the_toggle_persists_and_changes_the_next_rewrite_decision(page: Any, served: Served) -> None:
    assert _rewrite("git status")["enabled"] is False
    _open(page, served)
    assert "token" not in page.url, "the key must leave the address bar"
    pill = page.locator("#state-pill")
    assert pill.inner_text() == "disabled"
    assert page.locator("#enabled-label").inner_text() == "Off"
    page.locator("label.big-switch").click()
    expect(page.locator("#state-pill")).to_have_text("enabled")
    assert "next command" in page.locator("#toast").inner_text()
    assert settings.load().flag("enabled") is True
    assert _rewrite("git status")["enabled"] is True
    status = json.loads(tersh(["status", "--format", "json"]).stdout)
    assert status["enabled"] is True
    screenshot(page, "toggle-on")
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    assert page.locator("#enabled-toggle").is_checked()
    page.locator("label.big-switch").click()
    expect(page.locator("#state-pill")).to_have_text("disabled")
    assert _rewrite("git status")["enabled"] is False


def test_a_switch_change_takes_effect_on_the_next_command(page: Any, served: Served) -> None:
    # the fake rtk is a Python script: give it time on a busy test machine
    settings.save({"enabled": True, "rtk.path": str(FAKE_RTK), "rtk.timeout_ms": 10_000})
    before = _rewrite("git status")
    assert before["verdict"] == "filtered" and before["pipe_filter"] == "git-status"
    _open(page, served)
    git = page.locator("#switch-git")
    assert git.is_checked()
    page.locator("label[for='switch-git']").click()
    expect(page.locator("#toast")).to_have_text(re.compile(r"^Git: off"))
    after = _rewrite("git status")
    assert after["verdict"] == "skipped" and after["executed"] == "git status"
    assert "class switched off: git" in after["reason"]
    assert _rewrite("pytest -q")["verdict"] == "filtered", "only the git class was switched off"
    screenshot(page.locator("#card-switches"), "switch-git-off")
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    assert not page.locator("#switch-git").is_checked()


def test_budgets_are_saved_from_the_form(page: Any, served: Served) -> None:
    _open(page, served)
    about = page.locator("#about-preview\\.max_lines")
    expect(about).to_have_text(settings.DESCRIPTIONS["preview.max_lines"])
    assert page.get_attribute("#budget-preview\\.max_lines", "aria-describedby") == "about-preview.max_lines"
    page.fill("#budget-preview\\.max_lines", "750")
    page.fill("#budget-tools\\.min_saving", "15")
    page.click("#budgets-save")
    expect(page.locator("#toast")).to_have_text(re.compile(r"^Budgets saved"))
    current = settings.load()
    assert current["preview.max_lines"] == 750
    assert current["tools.min_saving"] == pytest.approx(0.15)
    page.fill("#budget-preview\\.max_lines", "-3")
    page.click("#budgets-save")
    expect(page.locator("#budgets-error")).to_contain_text("between")
    assert settings.load()["preview.max_lines"] == 750


def test_retry_shows_why_the_probe_failed_and_changes_nothing_else(
    page: Any, served: Served, tersh_home: Path
) -> None:
    settings.save({"enabled": True, "classes.github": False})
    before = (tersh_home / "settings.toml").read_bytes()
    _open(page, served)
    page.click("#rtk-retry")
    expect(page.locator("#rtk-reason")).to_contain_text("not found")
    assert page.locator("#rtk-title").inner_text() == "Not in use"
    assert page.locator("#rtk-dot").get_attribute("data-state") == "off"
    assert "Probe failed" in page.locator("#toast").inner_text()
    assert (tersh_home / "settings.toml").read_bytes() == before
    screenshot(page.locator("#card-rtk"), "rtk-retry-failed")


@pytest.fixture
def big_capture() -> capture.Capture:
    """A 50 MB capture with one marker line deep inside."""
    body = bytearray()
    for number in range(1, BIG_LINES + 1):
        if number == MARKER_LINE:
            body += b"src/app.c:88:5: error: MARKER-7f3a undeclared\n"
        else:
            body += b"%07d [build] compiling unit, nothing to see here ...\n" % number
    return capture.store_bytes("make -j8 all", {"combined": bytes(body)}, 2)


@pytest.mark.slow
def test_the_viewer_pages_through_a_50_mb_capture(
    page: Any, served: Served, big_capture: capture.Capture
) -> None:
    size = big_capture.sizes["combined"]
    assert size > 50_000_000
    _open(page, served)
    page.click(f"#captures button[data-id='{big_capture.id}']")
    meta = page.locator("#page-meta")
    total = f"{size:,}"
    expect(meta).to_have_text(f"bytes 0–65,536 of {total}")
    first_rows = page.locator("#page .row")
    assert first_rows.first.locator(".at").inner_text() == "0"
    line_two = len(b"%07d [build] compiling unit, nothing to see here ...\n" % 1)
    assert first_rows.nth(1).locator(".at").inner_text() == str(line_two)  # byte offset of line 2
    screenshot(page.locator("#card-viewer"), "viewer-50mb-first-page")
    page.click("#next")
    expect(meta).to_have_text(f"bytes 65,536–131,072 of {total}")
    page.click("#prev")
    expect(meta).to_have_text(f"bytes 0–65,536 of {total}")
    page.fill("#goto-offset", str(size - 120))
    page.click("#goto button")
    expect(meta).to_have_text(f"bytes {size - 120:,}–{total} of {total}")
    assert page.locator("#next").is_disabled()
    page.fill("#query", "marker-7f3a")
    page.click("#search button")
    page.wait_for_selector("#page .row.hit")
    hit = page.locator("#page .row.hit")
    assert hit.count() == 1
    assert hit.locator(".at").inner_text() == f"{MARKER_LINE:,}"
    assert hit.locator("mark").inner_text() == "MARKER-7f3a"
    screenshot(page.locator("#card-viewer"), "viewer-50mb-search")
    hit.click()
    expect(meta).to_have_text(re.compile(r"^lines 654,321–654,520 of 1,000,000"))
    assert "error: MARKER-7f3a undeclared" in page.locator("#page .row").first.inner_text()
    metrics = page.evaluate("performance.getEntriesByType('resource').map(e => e.transferSize)")
    assert max(metrics) < 1_000_000, "no response may carry the whole capture"


def test_captured_markup_is_shown_as_text(page: Any, served: Served) -> None:
    hostile = (
        b"<img src=x onerror=\"document.title='pwned'\">\n<b>bold?</b>\n\x1b[31mred\x1b[0m and a bell\x07\n"
    )
    cap = capture.store_bytes("cat hostile.html", {"combined": hostile}, 0)
    _open(page, served)
    page.click(f"#captures button[data-id='{cap.id}']")
    page.wait_for_selector("#page .row")
    assert page.locator("#page img").count() == 0 and page.locator("#page b").count() == 0
    text = page.locator("#page").inner_text()
    assert "<img src=x onerror=" in text and "<b>bold?</b>" in text
    assert "␛[31mred␛[0m" in text and "␇" in text
    assert page.title() != "pwned"


def test_without_the_token_the_page_is_locked_and_the_api_refuses(
    page: Any, served: Served, tersh_home: Path
) -> None:
    page.goto(served.base + "/")
    page.wait_for_selector("#locked:not([hidden])")
    assert "tersh ui" in page.locator("#locked").inner_text()
    assert page.locator("#main").is_hidden()
    assert page.locator("#state-pill").inner_text() == "locked"
    status = page.evaluate("fetch('/api/overview').then(r => r.status)")
    assert status == 401
    wrong = page.evaluate(
        """fetch('/api/settings', {method: 'POST', headers: {'X-Tersh-Token': 'guess',
           'Content-Type': 'application/json'}, body: '{"changes": {"enabled": true}}'})
           .then(r => r.status)"""
    )
    assert wrong == 401
    assert not (tersh_home / "settings.toml").exists()
    screenshot(page, "locked")


def test_another_site_cannot_use_the_api_even_knowing_the_token(
    page: Any, served: Served, tersh_home: Path
) -> None:
    page.route(
        "http://evil.test/**",
        lambda route: route.fulfill(
            status=200, content_type="text/html", body="<html><body>evil</body></html>"
        ),
    )
    page.goto("http://evil.test/")
    outcome = page.evaluate(
        """async ([base, token]) => {
             const results = [];
             try {
               const r = await fetch(base + '/api/settings', {method: 'POST',
                 headers: {'X-Tersh-Token': token, 'Content-Type': 'application/json'},
                 body: '{"changes": {"enabled": true}}'});
               results.push('read ' + r.status);
             } catch (e) { results.push('blocked'); }
             try {
               await fetch(base + '/api/settings', {method: 'POST', mode: 'no-cors',
                 headers: {'Content-Type': 'text/plain'}, body: '{"changes": {"enabled": true}}'});
               results.push('sent');
             } catch (e) { results.push('blocked'); }
             return results;
           }""",
        [served.base, served.token],
    )
    assert outcome[0] == "blocked"
    assert not (tersh_home / "settings.toml").exists()
    assert settings.load().flag("enabled") is False


def _history() -> None:
    """A week of recorded calls and a few real runs, for the overview screenshots."""
    tersh(["enable"])
    runs = [
        "for i in range(3000): print('warning: the old API is deprecated; use the new one')",
        "import sys; print('src/app.py:12:5: error: name undefined'); sys.exit(1)",
        "print('\\n'.join('Requirement already satisfied: pkg%d' % i for i in range(300)))",
    ]
    for script in runs:
        tersh(["run", "--", sys.executable, "-c", script])
    db = ledger.connect()  # folds the calls the runs spooled
    try:
        rows = db.execute("SELECT program, klass, input_bytes, output_bytes FROM calls").fetchall()
        for day in range(1, 12):
            for program, klass, in_bytes, out_bytes in rows:
                scale = 1 + (day * 7) % 5
                db.execute(
                    "INSERT INTO calls (ts, session, host, program, klass, measured, complete,"
                    " exit_code, duration_s, input_bytes, output_bytes) VALUES"
                    " (strftime('%s','now') - ?, 'older', 'cli', ?, ?, 1, 1, 0, 0.1, ?, ?)",
                    (day * 86400, program, klass, in_bytes * scale, out_bytes * scale),
                )
        db.commit()
    finally:
        db.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_the_whole_page(browser: Any, served: Served, scheme: str) -> None:
    _history()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    try:
        shown = context.new_page()
        shown.goto(served.url)
        shown.wait_for_selector("body[data-ready='true']")
        assert shown.locator("#results tr").count() == 30  # the newest 30 of 36
        assert shown.locator("#results tr:visible").count() == 10
        shown.click("#results-more")
        assert shown.locator("#results tr:visible").count() == 30
        shown.click("#results-more")
        assert "Requirement already satisfied" in shown.locator("#results tr").first.inner_text()
        assert shown.locator("#chart svg g[data-day] rect.bar-in").count() == 30  # one per day
        shown.locator("#results tr").first.locator("button").click()
        shown.wait_for_selector("#page .row")
        background = shown.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(14, 16, 22)") == (scheme == "dark")
        screenshot(shown, f"page-{scheme}", full_page=True)
        shown.evaluate("window.scrollTo(0, 0)")
        screenshot(shown, f"top-{scheme}")
    finally:
        context.close()


def _drawn_switch(shown: Any) -> tuple[bool, float, str]:
    """What the big switch shows at this instant: checked, the knob's x offset, the track colour."""
    checked = bool(shown.locator("#enabled-toggle").is_checked())
    offset = float(
        shown.evaluate(
            "new DOMMatrix(getComputedStyle(document.querySelector('.big-switch .thumb')).transform).m41"
        )
    )
    track = str(
        shown.evaluate("getComputedStyle(document.querySelector('.big-switch .track')).backgroundColor")
    )
    return checked, offset, track


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("enabled", [True, False])
def test_the_switch_is_drawn_in_the_state_its_label_states(
    browser: Any, served: Served, scheme: str, enabled: bool
) -> None:
    tersh(["enable" if enabled else "disable"])
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    try:
        shown = context.new_page()
        shown.goto(served.url)
        shown.wait_for_selector("body[data-ready='true']")
        # Read at once: the knob must already sit where the label says, not be on its way there.
        checked, offset, track = _drawn_switch(shown)
        assert shown.locator("#enabled-label").inner_text() == ("On" if enabled else "Off")
        assert checked is enabled
        assert offset == (26.0 if enabled else 0.0)
        shown.wait_for_selector("body[data-settled='true']")
        settled = _drawn_switch(shown)
        assert settled == (checked, offset, track), "the drawn state moved after the page was ready"
        # A user's click still animates to the other side and ends there.
        shown.locator("label.big-switch").click()
        expect(shown.locator("#enabled-label")).to_have_text("Off" if enabled else "On")
        shown.wait_for_timeout(400)
        flipped = _drawn_switch(shown)
        assert flipped[0] is (not enabled) and flipped[1] == (0.0 if enabled else 26.0)
        assert flipped[2] != track
    finally:
        context.close()
