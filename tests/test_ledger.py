"""The ledger: migrations, atomic creation, rows, savings as SPEC §1 defines them, deferrals."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tersh import settings as tersh_settings
from tersh import tokens
from tersh.hosts import savings as hostview
from tersh.recording import calls, ledger, paths, status
from tersh.result import CaptureRef, Result


def schema(db: sqlite3.Connection) -> dict[str, object]:
    """Every table's columns (name, type, not null, default) and every index name."""
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    shape: dict[str, object] = {
        table: [tuple(col[1:5]) for col in db.execute(f"PRAGMA table_info({table})")]
        for table in sorted(tables)
    }
    shape["indexes"] = sorted(
        r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
        if not r[0].startswith("sqlite_autoindex")
    )
    return shape


def result(
    text: str = "out\n",
    *,
    input_bytes: int = 100,
    measured: bool = True,
    capture: Path | None = None,
    command: str = "pytest -q --token=SECRET",
) -> Result:
    refs = (CaptureRef("c0123456789ab", "combined", str(capture), input_bytes),) if capture else ()
    return Result(
        text=text,
        exit_code=1,
        requested_command=command,
        executed_command="/opt/rtk/bin/rtk pytest -q --token=SECRET",
        category="tests",
        rule="pytest",
        input_bytes=input_bytes,
        output_bytes=len(text.encode()),
        complete=True,
        measured=measured,
        capture_id="c0123456789ab" if capture else None,
        captures=refs,
        duration_s=0.25,
    )


def put(res: Result, session: str = "s1", program: str = "pytest") -> None:
    calls.record(res, session=session, host="cli", program=program, klass="tests")


def open_db() -> sqlite3.Connection:
    return ledger.connect()


# --- migrations -----------------------------------------------------------------------------


def test_migrating_a_blank_database_gives_the_exact_schema() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    applied = ledger.migrate(db)
    assert applied == ["m001_calls", "m002_retrievals", "m003_deferred_counts", "m004_executed",
                       "m005_spool_key", "m006_rtk_outcome"]
    shape = schema(db)
    assert [c[0] for c in shape["calls"]] == [  # type: ignore[index]
        "id", "ts", "session", "host", "program", "klass", "arguments", "category", "rule",
        "measured", "complete", "exit_code", "duration_s", "input_bytes", "output_bytes",
        "input_tokens", "output_tokens", "capture_id", "capture_path", "deferred", "executed",
        "spool_key", "rtk_outcome", "rtk_bytes",
    ]  # fmt: skip
    assert sorted(k for k in shape if k != "indexes") == [
        "_tersh_migrations", "calls", "host_views", "pending_texts", "retrievals",
    ]  # fmt: skip
    assert shape["indexes"] == [
        "calls_capture", "calls_deferred", "calls_session", "calls_spool_key", "calls_ts",
        "retrievals_call",
    ]  # fmt: skip
    assert ledger.migrate(db) == []  # a second run changes nothing


@pytest.mark.parametrize("done", range(1, len(ledger.MIGRATIONS)))
def test_migrating_from_every_older_schema_keeps_the_rows(done: int) -> None:
    fresh = sqlite3.connect(":memory:", isolation_level=None)
    ledger.migrate(fresh)
    old = sqlite3.connect(":memory:", isolation_level=None)
    ledger.migrate(old, ledger.MIGRATIONS[:done])
    old.execute(
        "INSERT INTO calls (ts, session, host, program, klass, measured, complete, exit_code,"
        " duration_s, input_bytes, output_bytes) VALUES (1, 's', 'cli', 'ls', 'other', 1, 1, 0,"
        " 0.1, 300, 30)"
    )
    applied = ledger.migrate(old)
    assert applied == [m.__name__ for m in ledger.MIGRATIONS[done:]]
    assert schema(old) == schema(fresh)
    row = old.execute("SELECT program, input_bytes, output_bytes, deferred FROM calls").fetchone()
    assert row == ("ls", 300, 30, 0)
    assert ledger.totals(old).saving == pytest.approx(0.9)


def test_a_new_ledger_is_private_in_wal_mode_and_leaves_no_temp_files(tersh_home: Path) -> None:
    put(result())
    path = ledger.ledger_path()
    assert path == tersh_home / "ledger.db"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with ledger.connect() as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert [p.name for p in tersh_home.iterdir() if p.name.startswith(".tmp-")] == []


def test_an_existing_older_ledger_is_migrated_on_open(tersh_home: Path) -> None:
    old = sqlite3.connect(tersh_home / "ledger.db", isolation_level=None)
    ledger.migrate(old, ledger.MIGRATIONS[:1])
    old.close()
    put(result())
    with ledger.connect() as db:
        names = [r[0] for r in db.execute("SELECT name FROM _tersh_migrations ORDER BY name")]
    assert names == [m.__name__ for m in ledger.MIGRATIONS]


RECORDER = textwrap.dedent(
    """
    import sys
    from tersh.recording import calls
    from tersh.result import Result
    for n in range(int(sys.argv[2])):
        r = Result(text="x", exit_code=0, requested_command="ls", executed_command="ls",
                   input_bytes=10, output_bytes=1)
        calls.record(r, session=sys.argv[1], host="cli", program="ls", klass="other")
    """
)


@pytest.mark.slow
def test_processes_creating_and_writing_at_once_lose_no_row() -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", RECORDER, f"s{i}", "25"], stderr=subprocess.PIPE)
        for i in range(8)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert errors == [b""] * 8
    with ledger.connect() as db:
        assert ledger.totals(db).calls == 200
        assert len(ledger.recent_sessions(db, 20)) == 8


# --- recording ------------------------------------------------------------------------------


def test_a_row_holds_the_call_but_not_its_arguments_by_default() -> None:
    put(result())
    with ledger.connect() as db:
        row = db.execute(
            "SELECT session, host, program, klass, arguments, category, rule, measured, complete,"
            " exit_code, duration_s, input_bytes, output_bytes FROM calls"
        ).fetchone()
    assert row == ("s1", "cli", "pytest", "tests", None, "tests", "pytest", 1, 1, 1, 0.25, 100, 4)
    assert b"SECRET" not in ledger.ledger_path().read_bytes()


def test_arguments_are_recorded_only_when_the_setting_allows_and_never_the_rtk_path() -> None:
    tersh_settings.save({"ledger.record_arguments": True})
    put(result())
    with ledger.connect() as db:
        stored = db.execute("SELECT arguments FROM calls").fetchone()[0]
        everything = "\n".join(str(r) for r in db.execute("SELECT * FROM calls"))
    assert stored == "pytest -q --token=[REDACTED]"  # arguments yes, a secret's value never
    assert "/opt/rtk" not in everything and "SECRET" not in everything


def test_a_disabled_ledger_writes_nothing(tersh_home: Path) -> None:
    tersh_settings.save({"ledger.enabled": False})
    put(result())
    ledger.record_retrieval("c0123456789ab", 10)
    assert not ledger.ledger_path().exists()
    assert status.read() == {}


def test_a_broken_ledger_warns_and_never_raises(
    tersh_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger.ledger_path().mkdir(parents=True)  # a folder where the database should be
    put(result())
    assert "savings not recorded" in capsys.readouterr().err


def test_recording_publishes_the_session_savings_and_keeps_the_rtk_section() -> None:
    status.update("rtk", {"found": False, "reason": "not on PATH"})
    put(result("x" * 10, input_bytes=100))
    put(result("x" * 30, input_bytes=100))
    put(result("other session", input_bytes=5), session="s2")
    published = status.read()
    assert published["rtk"]["reason"] == "not on PATH"
    assert published["savings"]["session"] == "s2"
    put(result("x" * 10, input_bytes=100))
    savings = status.read()["savings"]
    assert savings["session"] == "s1"
    assert savings["calls"] == 3
    assert savings["removed_bytes"] == 300 - 50
    assert savings["saving"] == pytest.approx(250 / 300)


# --- savings as SPEC §1 defines them -------------------------------------------------------


def test_savings_count_unchanged_and_empty_calls_and_exclude_unmeasured_ones() -> None:
    put(result("x" * 100, input_bytes=1000))  # compacted: 900 removed
    put(result("y" * 500, input_bytes=500))  # unchanged: still counts
    put(result("", input_bytes=0))  # no output: zero in, zero out
    put(result("z" * 10, input_bytes=9999, measured=False))  # no complete capture: excluded
    with ledger.connect() as db:
        total = ledger.totals(db)
    assert (total.calls, total.measured_calls, total.unmeasured_calls) == (4, 3, 1)
    assert (total.input_bytes, total.output_bytes, total.removed_bytes) == (1500, 600, 900)
    assert total.saving == pytest.approx(900 / 1500)


def test_nothing_measured_means_no_ratio() -> None:
    put(result("z", input_bytes=50, measured=False))
    with ledger.connect() as db:
        total = ledger.totals(db)
    assert total.saving is None
    assert total.token_saving is None


def test_retrievals_count_against_the_saving(tersh_home: Path) -> None:
    capture = tersh_home / "captures" / "c0123456789ab" / "combined"
    capture.parent.mkdir(parents=True)
    capture.write_text("a\n" * 500)
    put(result("short\n", input_bytes=1000, capture=capture))
    ledger.record_retrieval("c0123456789ab", 200)
    ledger.record_retrieval("c0123456789ab", 100)
    ledger.record_retrieval("../../etc/passwd", 10_000)  # malformed: ignored
    ledger.record_retrieval("cffffffffffff", 10_000)  # unknown capture: no call to charge
    with ledger.connect() as db:
        total = ledger.totals(db)
    assert total.retrieved_bytes == 300
    assert total.saving == pytest.approx(994 / 1000)
    assert total.net_saving == pytest.approx(694 / 1000)
    assert status.read()["savings"]["retrieved_bytes"] == 300


def test_breakdowns_by_program_category_day_and_filters() -> None:
    put(result("x", input_bytes=10), program="pytest")
    put(result("x", input_bytes=20), program="ruff", session="s2")
    with ledger.connect() as db:
        by_program = {row.key: row.input_bytes for row in ledger.breakdown(db, "program")}
        by_day = ledger.breakdown(db, "day")
        only_s2 = ledger.totals(db, session="s2")
        future = ledger.totals(db, since=4e9)
    assert by_program == {"pytest": 10, "ruff": 20}
    assert len(by_day) == 1 and by_day[0].calls == 2
    assert only_s2.input_bytes == 20
    assert future.calls == 0


ROWS = st.lists(
    st.tuples(st.integers(0, 10_000), st.integers(0, 10_000), st.booleans()), max_size=15
)


@settings(max_examples=40, deadline=None)
@given(rows=ROWS)
def test_savings_equal_removed_over_measured_input(rows: list[tuple[int, int, bool]]) -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    ledger.migrate(db)
    for in_bytes, out_bytes, measured in rows:
        db.execute(
            "INSERT INTO calls (ts, session, host, program, klass, measured, complete, exit_code,"
            " duration_s, input_bytes, output_bytes) VALUES (1, 's', 'h', 'p', 'k', ?, 1, 0, 0,"
            " ?, ?)",
            (int(measured), in_bytes, out_bytes),
        )
    total = ledger.totals(db)
    measured_rows = [(i, o) for i, o, m in rows if m]
    whole = sum(i for i, _ in measured_rows)
    removed = sum(i - o for i, o in measured_rows)
    assert total.calls == len(rows)
    assert total.removed_bytes == removed
    assert total.saving == (removed / whole if whole else None)


# --- deferred counting ----------------------------------------------------------------------


def test_tokens_and_host_views_are_counted_later_from_the_capture(tersh_home: Path) -> None:
    source = "".join(f"PASSED tests/test_{n}.py::test_case\n" for n in range(3000))
    capture = tersh_home / "captures" / "c0123456789ab" / "combined"
    capture.parent.mkdir(parents=True)
    capture.write_text(source)
    shown = "3000 passed (3000 passing lines omitted)\n"
    put(result(shown, input_bytes=len(source), capture=capture))
    with ledger.connect() as db:
        assert ledger.deferred_count(db) == 1
        assert db.execute("SELECT input_tokens FROM calls").fetchone()[0] is None
        assert ledger.count_deferred(db, views=hostview.HOSTS) == 1
        row = db.execute("SELECT input_tokens, output_tokens, deferred FROM calls").fetchone()
        assert row == (tokens.count(source), tokens.count(shown), 0)
        assert db.execute("SELECT COUNT(*) FROM pending_texts").fetchone()[0] == 0
        views = {v.host: v for v in ledger.versus_hosts(db)}
    assert set(views) == {"claude_code", "opencode", "codex"}
    assert views["opencode"].host_bytes < len(source)  # the host would have cut it too
    assert views["codex"].tersh_bytes == len(shown)
    for view in views.values():
        assert view.saving == pytest.approx(1 - len(shown) / view.host_bytes)


def test_a_capture_gone_or_outside_the_profile_leaves_tokens_uncounted(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("do not read me")
    put(result("a", input_bytes=14, capture=outside))
    put(result("b", input_bytes=14, capture=tmp_path / "missing"))
    with ledger.connect() as db:
        assert ledger.count_deferred(db, views=hostview.HOSTS) == 2
        rows = db.execute("SELECT input_tokens, output_tokens, deferred FROM calls").fetchall()
        total = ledger.totals(db)
    assert rows == [(None, 1, 0), (None, 1, 0)]
    assert total.counted_calls == 0 and total.measured_calls == 2


def test_empty_output_is_counted_at_once() -> None:
    put(result("", input_bytes=0))
    with ledger.connect() as db:
        assert ledger.deferred_count(db) == 0
        assert db.execute("SELECT input_tokens, output_tokens FROM calls").fetchone() == (0, 0)


# --- session ids ----------------------------------------------------------------------------


def test_session_id_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERSH_SESSION", "claude-1234")
    assert ledger.session_id() == "claude-1234"
    monkeypatch.setenv("TERSH_SESSION", "../../etc passwd")
    hashed = ledger.session_id()
    assert hashed.startswith("h") and len(hashed) == 17 and "/" not in hashed


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_session_id_is_the_agent_behind_the_shell() -> None:
    code = "from tersh.recording import ledger; print(ledger.session_id())"
    env = {k: v for k, v in os.environ.items() if k != "TERSH_SESSION"}
    ids = {
        subprocess.run(
            ["bash", "-c", f"'{sys.executable}' -c '{code}'; true"],
            capture_output=True, text=True, env=env, check=True,
        ).stdout.strip()
        for _ in range(3)
    }  # fmt: skip
    assert len(ids) == 1
    assert ids.pop().startswith(f"p{os.getpid()}-")


def test_executed_form_is_kept_without_arguments_unless_allowed() -> None:
    from tersh import settings
    from tersh.recording import ledger
    from tersh.result import Result

    rewritten = {"rewrite": {"verdict": "rewritten", "recorded": "rtk git status --short"}}
    result = Result(text="M a.py", exit_code=0, requested_command="git status --short",
                    executed_command="rtk git status --short", input_bytes=9, output_bytes=6,
                    details=rewritten)
    calls.record(result, session="s1", host="cli", program="git", klass="git")
    settings.save({"ledger.record_arguments": True})
    calls.record(result, session="s1", host="cli", program="git", klass="git")
    with ledger.connect() as db:
        rows = [r[0] for r in db.execute("SELECT executed FROM calls ORDER BY id")]
    assert rows == ["rtk git", "rtk git status --short"]


def test_upkeep_folds_the_spool_and_drops_texts_whose_capture_expired(tmp_path: Path) -> None:
    import time as clock

    from tersh.recording import calls as recording
    from tersh.recording import spool

    put(result("first\n", capture=tmp_path / "gone"))  # creates the ledger (direct insert)
    row = recording.call_row(result("second\n", capture=tmp_path / "gone"), session="s1", host="cli",
                             program="pytest", klass="tests", with_arguments=False)
    spool.put(paths.spool_folder(), row)
    with sqlite3.connect(ledger.ledger_path()) as db:  # not ledger.connect: it would fold
        db.execute("UPDATE pending_texts SET ts = ?", (clock.time() - 8 * 86400,))
    assert len(spool.pending(paths.spool_folder())) == 1
    ledger.maintain(tersh_settings.Settings())
    assert spool.pending(paths.spool_folder()) == []
    with open_db() as db:
        assert db.execute("SELECT COUNT(*) FROM calls").fetchone()[0] == 2
        texts = [r[0] for r in db.execute("SELECT text FROM pending_texts")]
    assert texts == ["second\n"]  # the first call's text waited past the captures' lifetime


def test_rtk_summary_counts_rtk_saving_tersh_saving_and_refusals() -> None:
    def filtered(outcome: str, rtk_bytes: int, out: str) -> Result:
        res = result(out, input_bytes=1000)
        res.details["rtk"] = {"filter": "pytest", "outcome": outcome, "rtk_bytes": rtk_bytes}
        return res

    put(filtered("accepted", 100, "x" * 100))  # RTK's text reached the model
    put(filtered("refused", 50, "y" * 300))  # tersh's own compaction did
    put(filtered("failed", 0, "z" * 400))  # RTK gave nothing: no RTK saving
    put(result("w" * 10, input_bytes=1000))  # RTK never involved: not counted
    with open_db() as db:
        summary = ledger.rtk_summary(db)
        row = db.execute("SELECT rtk_outcome, rtk_bytes FROM calls ORDER BY id").fetchall()
    assert row == [("accepted", 100), ("refused", 50), ("failed", 0), (None, None)]
    assert (summary.calls, summary.accepted, summary.refused, summary.failed) == (3, 1, 1, 1)
    assert (summary.input_bytes, summary.rtk_bytes, summary.output_bytes) == (3000, 1150, 800)
    assert summary.rtk_saving == pytest.approx(1 - 1150 / 3000)
    assert summary.saving == pytest.approx(1 - 800 / 3000)
    assert summary.refused_share == 0.5
    from tersh.commands import gain

    line = gain.rtk_lines(summary._asdict())[0]
    assert "3 calls filtered by RTK" in line and "refused 1 of 2 times (50.0%)" in line
    assert "1 without an RTK text" in line
    assert gain.rtk_lines({"calls": 0}) == []
