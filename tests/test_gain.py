"""`tersh gain` and `tersh status` as a user runs them: real processes, real ledger files."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tersh.commands import gain
from tersh.errors import TershError
from tersh.recording import calls, ledger, status
from tersh.result import CaptureRef, Result


def tersh(*args: str, session: str = "demo") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TERSH_SESSION": session, "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "tersh", *args], capture_output=True, text=True, env=env
    )


def record(home: Path, name: str, source: str, shown: str, *, session: str = "demo") -> None:
    capture_id = "c" + name.encode().hex()[:12].ljust(12, "0")
    path = home / "captures" / capture_id / "combined"
    path.parent.mkdir(parents=True)
    path.write_text(source)
    result = Result(
        text=shown,
        exit_code=0,
        requested_command=f"{name} --flag",
        executed_command=name,
        category="tests" if name == "pytest" else "git",
        rule=name,
        input_bytes=len(source.encode()),
        output_bytes=len(shown.encode()),
        capture_id=capture_id,
        captures=(CaptureRef(capture_id, "combined", str(path), len(source.encode())),),
    )
    calls.record(result, session=session, host="cli", program=name, klass="tests")


@pytest.fixture
def history(tersh_home: Path) -> Path:
    record(tersh_home, "pytest", "PASSED test_x\n" * 400, "400 passed\n")
    record(tersh_home, "git", "modified: a.py\n", "modified: a.py\n", session="other")
    unmeasured = Result(
        text="x", exit_code=0, requested_command="ls", executed_command="ls", measured=False
    )
    calls.record(unmeasured, session="demo", host="cli", program="ls", klass="other")
    return tersh_home


def test_gain_without_history_says_so() -> None:
    run = tersh("gain")
    assert run.returncode == 0
    assert "no calls recorded yet" in run.stdout


def test_gain_json_has_totals_breakdowns_tokens_and_host_figures(history: Path) -> None:
    run = tersh("gain", "--format", "json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    total = report["total"]
    measured_in = 400 * len("PASSED test_x\n") + len("modified: a.py\n")
    measured_out = len("400 passed\n") + len("modified: a.py\n")
    assert (total["calls"], total["measured_calls"], total["unmeasured_calls"]) == (3, 2, 1)
    assert total["input_bytes"] == measured_in
    assert total["saving"] == pytest.approx((measured_in - measured_out) / measured_in)
    assert total["counted_calls"] == 2 and total["input_tokens"] > total["output_tokens"] > 0
    assert report["uncounted_calls"] == 0
    assert {row["key"] for row in report["by_program"]} == {"pytest", "git", "ls"}
    assert {row["key"] for row in report["by_category"]} == {"tests", "git", "none"}
    assert len(report["by_day"]) == 1
    assert {row["host"] for row in report["vs_host"]} == {"claude_code", "opencode", "codex"}


def test_gain_filters_by_session_and_since(history: Path) -> None:
    only_other = json.loads(tersh("gain", "--format", "json", "--session", "other").stdout)
    assert only_other["total"]["calls"] == 1
    current = json.loads(tersh("gain", "--format", "json", "--session", "current").stdout)
    assert current["total"]["calls"] == 2  # TERSH_SESSION=demo
    assert json.loads(tersh("gain", "--format", "json", "--since", "2d").stdout)["total"]["calls"]
    future = json.loads(tersh("gain", "--format", "json", "--since", "2999-01-01").stdout)
    assert future["total"]["calls"] == 0


def test_gain_csv_has_one_line_per_group(history: Path) -> None:
    run = tersh("gain", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    sections = [(row["section"], row["key"]) for row in rows]
    assert sections[0] == ("total", "total")
    assert ("program", "pytest") in sections and ("category", "git") in sections
    assert sum(1 for section, _ in sections if section == "day") == 1
    assert rows[0]["calls"] == "3"


def test_gain_text_shows_headline_tables_and_a_daily_chart(history: Path) -> None:
    run = tersh("gain")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "3 calls, 2 measured, 1 unmeasured (excluded)" in out
    assert "tokens" in out and "(o200k)" in out
    assert "Claude Code" in out and "OpenCode" in out and "Codex CLI" in out
    assert "By program" in out and "By category" in out
    assert "Bytes removed per day" in out and "█" in out


def test_gain_rejects_a_bad_since() -> None:
    run = tersh("gain", "--since", "last tuesday")
    assert run.returncode == 2
    assert "--since" in run.stderr
    with pytest.raises(TershError):
        gain.parse_since("soon")
    assert gain.parse_since("7d", now=1_000_000.0) == 1_000_000.0 - 7 * 86400


def test_bar_and_sizes() -> None:
    assert gain.bar(0, 10, 40) == ""
    assert gain.bar(10, 10, 40) == "█" * 40
    assert len(gain.bar(5, 10, 40)) == 20
    assert gain.size(512) == "512 B" and gain.size(2048) == "2.0 KB"
    assert gain.percent(None) == "n/a" and gain.percent(0.5) == "50.0%"


def test_status_shows_switches_rtk_and_the_published_savings(history: Path) -> None:
    tersh("enable")
    tersh("settings", "set", "classes.git", "false")
    status.update("rtk", {"found": True, "verified": True, "version": "0.31.0", "path": "/x/rtk"})
    run = tersh("status")
    assert run.returncode == 0, run.stderr
    assert "tersh: enabled" in run.stdout
    assert "git off" in run.stdout and "tests on" in run.stdout
    assert "rtk: 0.31.0 at /x/rtk (verified)" in run.stdout
    assert "savings (session demo): 2 calls (1 unmeasured)" in run.stdout
    report = json.loads(tersh("status", "--format", "json").stdout)
    assert report["switches"]["git"] is False
    assert report["rtk"]["source"] == "status file"


def test_status_reads_the_probe_cache_when_nothing_is_published(tersh_home: Path) -> None:
    probe = tersh_home / "state" / "rtk-probe.json"
    probe.parent.mkdir(parents=True)
    probe.write_text(json.dumps({"found": False, "reason": "rtk not found on PATH"}))
    run = tersh("status")
    assert "rtk: not in use: rtk not found on PATH" in run.stdout
    assert "savings: no calls recorded in this session yet" in run.stdout


def test_status_survives_a_corrupt_status_file(tersh_home: Path) -> None:
    path = status.status_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"savings": {"calls": "many"}, "rtk": 7')
    run = tersh("status")
    assert run.returncode == 0, run.stderr
    assert "tersh: disabled" in run.stdout


def test_status_session_figures_from_the_ledger(history: Path) -> None:
    report = json.loads(tersh("status", "--format", "json", "--session", "other").stdout)
    assert report["savings"]["session"] == "other"
    assert report["savings"]["calls"] == 1


def test_status_survives_hand_edited_savings(tersh_home: Path) -> None:
    path = status.status_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"savings": {"calls": "many", "input_bytes": "lots"}}')
    run = tersh("status")
    assert run.returncode == 0, run.stderr
    assert "savings: unreadable entry in" in run.stdout


def test_an_input_too_large_to_count_keeps_bytes_and_is_said(
    tersh_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tersh import tokens

    monkeypatch.setattr(tokens, "EXACT_INPUT_BYTES", 1000)
    record(tersh_home, "pytest", "PASSED test_x\n" * 400, "400 passed\n")  # 5,600 bytes
    record(tersh_home, "git", "modified: a.py\n", "modified: a.py\n")
    report = gain.build_report(ledger.Filter())
    total = report["total"]
    assert total["measured_calls"] == 2 and total["counted_calls"] == 1
    assert total["input_bytes"] == 5600 + 15
    assert report["inputs_too_large_to_count"] == 1 and report["uncounted_calls"] == 0
    assert "1 calls with output over 1000 B: model text counted" in "\n".join(gain.headline(report))


def test_a_report_counts_for_its_budget_and_leaves_the_rest(
    tersh_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tersh import tokens

    for number in range(5):
        record(tersh_home, f"tool{number}", f"line {number}\n" * 50, "short\n")
    monkeypatch.setattr(tokens, "REPORT_BUDGET_S", 0.0)
    report = gain.build_report(ledger.Filter())
    assert report["total"]["counted_calls"] == 2  # the first (untimed) and one more
    assert report["uncounted_calls"] == 3
    assert "3 calls not counted yet" in "\n".join(gain.headline(report))
    monkeypatch.setattr(tokens, "REPORT_BUDGET_S", 60.0)
    assert gain.build_report(ledger.Filter())["uncounted_calls"] == 0
