"""The settings page's JSON API: overview, settings changes, savings, results, captures, retry."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tersh import settings
from tersh.recording import calls, ledger, status
from tersh.recording import captures as capture
from tersh.result import Result
from tests.clihelp import tersh

from .conftest import TOKEN


def _get(client: TestClient, path: str) -> Any:
    response = client.get(path, headers={"X-Tersh-Token": TOKEN})
    assert response.status_code == 200, response.text
    return response.json()


def _change(client: TestClient, changes: dict[str, Any]) -> Any:
    return client.post("/api/settings", headers={"X-Tersh-Token": TOKEN},
                       json={"changes": changes})


# --- overview and settings ---------------------------------------------------------------


def test_a_new_profile_shows_the_defaults(client: TestClient) -> None:
    overview = _get(client, "/api/overview")
    assert overview["enabled"] is False
    assert [s["name"] for s in overview["switches"]] == list(settings.CLASSES)
    assert all(s["on"] for s in overview["switches"])
    budgets = {b["key"]: b for b in overview["budgets"]}
    assert budgets["preview.max_lines"]["value"] == 2000
    assert budgets["preview.max_bytes"]["value"] == 50 * 1024
    assert budgets["tools.trigger_tokens"]["value"] == 3000
    assert budgets["tools.min_saving"]["value"] == pytest.approx(0.10)
    assert all(b["description"] == settings.DESCRIPTIONS[key] for key, b in budgets.items())


def test_enabling_persists_and_the_cli_sees_it(client: TestClient) -> None:
    response = _change(client, {"enabled": True})
    assert response.status_code == 200 and response.json()["enabled"] is True
    assert settings.load().flag("enabled") is True
    shown = tersh(["settings", "get", "enabled"])
    assert shown.stdout.strip() == b"true"
    assert _change(client, {"enabled": False}).json()["enabled"] is False
    assert tersh(["settings", "get", "enabled"]).stdout.strip() == b"false"


def test_a_switch_change_reaches_the_next_rewrite_decision(client: TestClient) -> None:
    assert _change(client, {"classes.git": False}).status_code == 200
    decision = _rewrite_json("git status")
    assert decision["verdict"] == "skipped" and "git" in decision["reason"]
    assert decision["executed"] == "git status"
    overview = _get(client, "/api/overview")
    assert {s["name"]: s["on"] for s in overview["switches"]}["git"] is False


def _rewrite_json(command: str) -> dict[str, Any]:
    import json

    done = tersh(["rewrite", command, "--format", "json"])
    assert done.returncode == 0, done.stderr
    decision: dict[str, Any] = json.loads(done.stdout)
    return decision


def test_budgets_are_saved_with_their_types(client: TestClient) -> None:
    response = _change(client, {"preview.max_lines": 500, "tools.min_saving": 0.25,
                                "preview.max_bytes": 65536.0})
    assert response.status_code == 200, response.text
    current = settings.load()
    assert current["preview.max_lines"] == 500 and isinstance(current["preview.max_lines"], int)
    assert current["preview.max_bytes"] == 65536 and isinstance(current["preview.max_bytes"], int)
    assert current["tools.min_saving"] == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"rtk.path": "/tmp/evil"}, "cannot be changed here"),
        ({"ledger.record_arguments": True}, "cannot be changed here"),
        ({"nonsense": 1}, "cannot be changed here"),
        ({"enabled": 1}, "true or false"),
        ({"enabled": "yes"}, "true or false"),
        ({"classes.git": None}, "true or false"),
        ({"preview.max_lines": True}, "number"),
        ({"preview.max_lines": "100"}, "number"),
        ({"preview.max_lines": 10.5}, "whole number"),
        ({"preview.max_lines": 0}, "between"),
        ({"preview.max_bytes": -1}, "between"),
        ({"tools.min_saving": 1.5}, "between"),
        ({"enabled": True, "preview.max_lines": -5}, "between"),
        ({}, "object"),
    ],
)
def test_a_bad_change_is_refused_whole(
    client: TestClient, tersh_home: Path, changes: dict[str, Any], message: str
) -> None:
    response = _change(client, changes)
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert not (tersh_home / "settings.toml").exists()


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'"text"', b'{"changes": [1]}'])
def test_a_malformed_body_is_refused(client: TestClient, tersh_home: Path, body: bytes) -> None:
    response = client.post("/api/settings", content=body,
                           headers={"X-Tersh-Token": TOKEN, "Content-Type": "application/json"})
    assert response.status_code == 400
    assert not (tersh_home / "settings.toml").exists()


def test_an_oversized_body_is_refused(client: TestClient, tersh_home: Path) -> None:
    body = b'{"changes": {"enabled": true}, "pad": "' + b"x" * 200_000 + b'"}'
    response = client.post("/api/settings", content=body,
                           headers={"X-Tersh-Token": TOKEN, "Content-Type": "application/json"})
    assert response.status_code == 413
    assert not (tersh_home / "settings.toml").exists()


def test_a_corrupt_settings_file_is_reported_not_fatal(client: TestClient, tersh_home: Path) -> None:
    (tersh_home / "settings.toml").write_text("enabled = [", encoding="utf-8")
    overview = _get(client, "/api/overview")
    assert overview["enabled"] is False
    assert "not valid TOML" in overview["settings_problem"]


# --- savings ---------------------------------------------------------------------------------


def _record(command: str, in_bytes: int, out_bytes: int, *, session: str = "s1",
            capture_id: str | None = None) -> None:
    result = Result(text="x" * out_bytes, exit_code=0, requested_command=command,
                    executed_command=command, input_bytes=in_bytes, output_bytes=out_bytes,
                    capture_id=capture_id)
    calls.record(result, session=session, host="cli", program=command.split()[0], klass="other")


def test_savings_come_from_the_status_file_when_there_is_one(client: TestClient) -> None:
    status.update("savings", {"session": "from-file", "calls": 7, "measured_calls": 7,
                              "input_bytes": 1000, "output_bytes": 250, "saving": 0.75})
    savings = _get(client, "/api/overview")["savings"]
    assert savings["source"] == "status file"
    assert savings["session"] == "from-file" and savings["saving"] == 0.75


def test_without_a_status_file_the_page_computes_its_own_savings(
    client: TestClient, tersh_home: Path
) -> None:
    _record("make all", 1000, 100, session="older")
    time.sleep(0.01)
    _record("pytest -q", 4000, 1000, session="latest")
    _record("pytest -x", 6000, 1000, session="latest")
    status.status_path().unlink()  # recording publishes it; take it away
    savings = _get(client, "/api/overview")["savings"]
    assert savings["source"] == "ledger" and savings["session"] == "latest"
    assert savings["calls"] == 2
    assert savings["input_bytes"] == 10_000 and savings["output_bytes"] == 2000
    assert savings["saving"] == pytest.approx(0.8)


def test_no_status_file_and_no_history(client: TestClient, tersh_home: Path) -> None:
    savings = _get(client, "/api/overview")["savings"]
    assert savings == {"source": "none", "calls": 0}
    assert not ledger.ledger_path().exists(), "reading must never create the ledger"


def test_savings_per_day_cover_every_day_oldest_first(client: TestClient) -> None:
    _record("pytest", 3000, 300)
    _record("pytest", 1000, 700)
    days = _get(client, "/api/savings/daily?days=7")
    assert len(days) == 7
    assert [d["day"] for d in days] == sorted(d["day"] for d in days)
    today = days[-1]
    assert today["day"] == time.strftime("%Y-%m-%d")
    assert (today["calls"], today["input_bytes"], today["output_bytes"]) == (2, 4000, 1000)
    assert today["saving"] == pytest.approx(0.75)
    assert all(d["calls"] == 0 and d["saving"] is None for d in days[:-1])


def test_the_day_count_is_bounded(client: TestClient) -> None:
    assert len(_get(client, "/api/savings/daily?days=100000")) == 366
    assert len(_get(client, "/api/savings/daily?days=-3")) == 1
    response = client.get("/api/savings/daily?days=ten", headers={"X-Tersh-Token": TOKEN})
    assert response.status_code == 400


# --- recent results and captures -------------------------------------------------------------


def test_recent_results_of_real_runs(client: TestClient) -> None:
    assert tersh(["enable"]).returncode == 0
    script = "for i in range(3000): print(i, i * 2, i * 3)"
    done = tersh(["run", "--", sys.executable, "-c", script])
    assert done.returncode == 0
    tersh(["run", "--", sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"])
    results = _get(client, "/api/results")
    assert len(results) == 2
    newest, older = results
    assert newest["exit_code"] == 3 and "boom" in newest["requested"]
    assert script in older["requested"]
    assert older["executed"] == older["requested"] and older["rewritten"] is False
    assert older["rtk_outcome"] is None  # RTK never saw it
    assert older["input_bytes"] > 30_000
    assert older["saved_bytes"] == older["input_bytes"] - older["output_bytes"]
    assert older["capture_available"] is True
    assert capture.is_id(older["capture_id"])


def test_no_history_means_no_results(client: TestClient) -> None:
    assert _get(client, "/api/results") == []
    assert _get(client, "/api/captures") == []


def test_recent_captures_newest_first(client: TestClient) -> None:
    first = capture.store_bytes("echo one", {"combined": b"one\n"}, 0)
    time.sleep(0.01)
    second = capture.store_bytes("echo two; exit 4", {"combined": b"two\n"}, 4)
    rows = _get(client, "/api/captures")
    assert [row["id"] for row in rows] == [second.id, first.id]
    assert rows[0]["command"] == "echo two; exit 4" and rows[0]["exit_code"] == 4
    assert rows[0]["combined_bytes"] == 4


# --- RTK retry ---------------------------------------------------------------------------------


def test_retry_without_rtk_shows_the_reason_and_changes_nothing_else(
    client: TestClient, tersh_home: Path
) -> None:
    assert _change(client, {"enabled": True, "classes.tests": False}).status_code == 200
    before = (tersh_home / "settings.toml").read_bytes()
    response = client.post("/api/rtk/retry", headers={"X-Tersh-Token": TOKEN}, json={})
    assert response.status_code == 200
    rtk = response.json()["rtk"]
    assert rtk["found"] is False and rtk["verified"] is False
    assert "not found" in rtk["reason"]
    assert (tersh_home / "settings.toml").read_bytes() == before
    shown = _get(client, "/api/overview")["rtk"]
    assert shown["reason"] == rtk["reason"]


def test_retry_with_a_broken_rtk_names_the_problem(
    client: TestClient, tmp_path: Path
) -> None:
    fake = tmp_path / "rtk"
    fake.write_text("#!/bin/sh\necho 'this is not a version'\n", encoding="utf-8")
    fake.chmod(0o755)
    settings.save({"rtk.path": str(fake)})
    rtk = client.post("/api/rtk/retry", headers={"X-Tersh-Token": TOKEN}, json={}).json()["rtk"]
    assert rtk["found"] is True and rtk["verified"] is False
    assert "version" in rtk["reason"]


def test_a_probe_that_raises_is_a_failed_probe(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tersh.execution.rewrite import rtk as provider

    def explode(conf: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(provider, "retry", explode)
    rtk = client.post("/api/rtk/retry", headers={"X-Tersh-Token": TOKEN}, json={}).json()["rtk"]
    assert rtk["found"] is False and "OSError: disk on fire" in rtk["reason"]


def test_the_page_shows_the_real_rtk_verified_and_why_not_when_pinned_out(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_rtk_real import PINNED, require_real

    real = require_real()
    monkeypatch.setenv("HOME", str(tmp_path))  # whatever RTK writes stays here
    settings.save({"rtk.path": str(real)})
    rtk = client.post("/api/rtk/retry", headers={"X-Tersh-Token": TOKEN}, json={}).json()["rtk"]
    assert (rtk["found"], rtk["verified"], rtk["version"]) == (True, True, PINNED)
    assert rtk["path"] == os.path.realpath(real) and rtk["reason"] == "verified"
    assert _get(client, "/api/overview")["rtk"]["path"] == rtk["path"]
    settings.save({"rtk.path": str(real), "rtk.max_version": PINNED})
    refused = client.post("/api/rtk/retry", headers={"X-Tersh-Token": TOKEN}, json={}).json()["rtk"]
    assert refused["found"] is True and refused["verified"] is False
    assert "outside the pinned range" in refused["reason"]
    assert _get(client, "/api/overview")["rtk"]["reason"] == refused["reason"]


def test_a_call_rtk_filtered_shows_whether_its_text_was_refused(client: TestClient) -> None:
    for outcome in ("refused", "accepted"):
        res = Result(text="short", exit_code=1, requested_command="pytest",
                     executed_command="pytest", input_bytes=900,
                     output_bytes=5, measured=True, details={"rtk": {"outcome": outcome,
                                                                     "rtk_bytes": 40}})
        calls.record(res, session="s", host="cli", program="pytest", klass="tests")
    assert [r["rtk_outcome"] for r in _get(client, "/api/results")] == ["accepted", "refused"]
