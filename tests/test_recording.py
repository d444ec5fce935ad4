"""recording: the program and class of a call, found without importing the compaction package."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh.command import classify
from tersh.compaction.detect import invocation
from tersh.recording import calls as recording
from tersh.recording import paths

COMMANDS = [
    "true", "python -m pytest -q", "uv run pytest tests", "cd web && npm test",
    "env X=1 timeout 60 cargo test", "pytest | tail -50", "bash -c 'make check'", "git status",
    "FOO=1", "", "   ", "make && echo ok", "npx tsc --noEmit", "(cd a; ruff check .)",
    "echo 'unterminated", "ls -la # no-opt",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_same_program_and_class_as_the_detector(command: str) -> None:
    expected = (invocation(command, 0).program or "?", classify.classify_command(command))
    assert recording.program_and_class(command, 0) == expected


@given(st.text(alphabet="abcgimnpstxy -|&;'\"()$=/.#\\\n", max_size=40))
def test_any_command_agrees_with_the_detector(command: str) -> None:
    expected = (invocation(command, 0).program or "?", classify.classify_command(command))
    assert recording.program_and_class(command, 0) == expected


def test_recording_a_call_does_not_import_the_compaction_package() -> None:
    probe = (
        "import sys\n"
        "from tersh.recording import calls as recording; from tersh import settings\n"
        "from tersh.result import Result\n"
        "recording.record(Result('', 0, 'pytest -q', 'pytest -q'), settings.Settings())\n"
        "print(sorted(m for m in sys.modules if m.startswith('tersh.compaction')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=os.environ, timeout=60, check=True)
    assert done.stdout.strip() == "[]", done.stderr


# --- the per-command path: spooled rows and the session tally ------------------------------

RECORD = (
    "import sys\n"
    "from tersh.recording import calls as recording; from tersh import settings\n"
    "from tersh.result import Result\n"
    "for n in range(int(sys.argv[1])):\n"
    "    text = 'x' * (n % 7)\n"
    "    recording.record(Result(text, 0, 'pytest -q', 'pytest -q', input_bytes=100,\n"
    "                            output_bytes=len(text), measured=True), settings.Settings())\n"
    "print('sqlite3' in sys.modules)\n"
)


def _record(count: int, session: str = "s1") -> subprocess.Popen[str]:
    env = {**os.environ, "TERSH_SESSION": session}
    return subprocess.Popen([sys.executable, "-c", RECORD, str(count)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finished(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0 and err == "", err
    return out.strip()


def _ledger_totals(session: str) -> dict[str, object]:
    import contextlib

    from tersh.recording import ledger

    with contextlib.closing(ledger.connect()) as db:
        return ledger.totals(db, session=session)._asdict()


def test_after_the_first_call_recording_needs_no_sqlite_and_the_status_stays_exact() -> None:
    from tersh.recording import spool, status

    assert _finished(_record(1)) == "True"  # the first call creates the ledger
    assert _finished(_record(3)) == "False"  # then rows are spooled and the tally is added to
    assert len(spool.pending(paths.spool_folder())) == 3
    published = status.read()["savings"]
    expected = _ledger_totals("s1")  # folds the spool
    assert spool.pending(paths.spool_folder()) == []
    assert expected["calls"] == 4 and expected["input_bytes"] == 400
    assert {key: published[key] for key in expected} == expected


def test_another_session_recomputes_from_the_ledger_and_never_double_counts() -> None:
    from tersh.recording import status

    _finished(_record(2, "s1"))
    _finished(_record(3, "s2"))
    _finished(_record(2, "s1"))  # s1 again: its sums come from the ledger, then grow
    published = status.read()["savings"]
    assert published["session"] == "s1"
    assert published["calls"] == 4 == _ledger_totals("s1")["calls"]
    assert _ledger_totals("s2")["calls"] == 3


def _listed_counters() -> dict[str, list[int]]:
    from tersh.recording import status, tally

    return dict(status.read().get(tally.SESSIONS, {}))


def _counters_of(session: str) -> list[int]:
    from tersh.recording import tally

    totals = _ledger_totals(session)
    return [int(totals[name]) for name in tally.COUNTERS]  # type: ignore[call-overload]


def test_sessions_side_by_side_record_without_sqlite_and_stay_exact() -> None:
    """Two agents' calls alternating: after each one's first call, neither needs the ledger."""
    assert _finished(_record(1, "s1")) == "True"  # creates the ledger
    assert _finished(_record(1, "s2")) == "True"  # a session not listed yet: the ledger sums it
    for _ in range(2):
        assert _finished(_record(2, "s1")) == "False"
        assert _finished(_record(3, "s2")) == "False"
    listed = _listed_counters()
    assert list(listed) == ["s2", "s1"]  # the latest first
    from tersh.recording import status

    assert status.read()["savings"]["session"] == "s2"
    assert listed == {"s1": _counters_of("s1"), "s2": _counters_of("s2")}
    assert _ledger_totals("s1")["calls"] == 5 and _ledger_totals("s2")["calls"] == 7


def test_only_the_latest_sessions_are_listed_and_the_others_ask_the_ledger() -> None:
    from tersh.recording import tally

    _finished(_record(1, "s0"))
    for n in range(1, tally.MAX_SESSIONS + 1):
        _finished(_record(1, f"s{n}"))
    listed = _listed_counters()
    assert len(listed) == tally.MAX_SESSIONS and "s0" not in listed
    assert _finished(_record(1, "s0")) == "True"  # dropped from the list: summed by the ledger again
    assert _counters_of("s0")[0] == 2
    assert _listed_counters()["s0"] == _counters_of("s0")


def test_a_new_ledger_drops_the_listed_sessions() -> None:
    """Counters of calls a new ledger does not hold are not added to."""
    _finished(_record(2, "s1"))
    _finished(_record(2, "s2"))
    os.unlink(paths.ledger_file())
    assert _finished(_record(1, "s1")) == "True"
    assert list(_listed_counters()) == ["s1"]
    assert _finished(_record(1, "s2")) == "True"
    assert _listed_counters()["s2"] == _counters_of("s2")  # its spooled call counts, its old sums not


def test_counting_tokens_refreshes_every_listed_session() -> None:
    import contextlib

    from tersh.recording import ledger, tally

    for session in ("s1", "s2", "s3"):
        _finished(_record(2, session))
    with contextlib.closing(ledger.connect()) as db:
        db.execute("UPDATE calls SET input_tokens = 7, output_tokens = 3, deferred = 0")
        ledger.republish(db)
    listed = _listed_counters()
    assert next(iter(listed)) == tally.listed_sessions()[0] == "s3"
    for session in ("s1", "s2", "s3"):
        assert listed[session] == _counters_of(session)
        assert listed[session][tally.COUNTERS.index("input_tokens")] == 14


def test_eight_processes_recording_at_once_lose_and_duplicate_nothing() -> None:
    from tersh.recording import status

    _finished(_record(1))
    writers = [_record(25) for _ in range(8)]
    assert {_finished(writer) for writer in writers} == {"False"}
    published = status.read()["savings"]
    expected = _ledger_totals("s1")
    assert expected["calls"] == 1 + 8 * 25
    assert {key: published[key] for key in expected} == expected


def test_folding_a_spool_twice_adds_each_call_once() -> None:
    import contextlib
    import shutil
    import tempfile

    from tersh.recording import ledger, spool

    _finished(_record(1))
    _finished(_record(2))
    folder = paths.spool_folder()
    with tempfile.TemporaryDirectory() as saved:
        for name in spool.pending(folder):
            shutil.copy(os.path.join(folder, name), saved)
        assert _ledger_totals("s1")["calls"] == 3
        for name in os.listdir(saved):  # as if a fold crashed between commit and clean-up
            shutil.copy(os.path.join(saved, name), folder)
    with contextlib.closing(ledger.connect()) as db:
        assert db.execute("SELECT COUNT(*) FROM calls").fetchone()[0] == 3
    assert spool.pending(folder) == []
