"""The status file: merge-writes under a lock, atomic replacement, corrupt files replaced."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh.errors import TershError
from tersh.recording import status


def test_read_without_a_file_is_empty() -> None:
    assert status.read() == {}
    assert status.section("savings") == {}


def test_writes_of_two_sections_never_erase_each_other() -> None:
    status.update("savings", {"calls": 3, "saving": 0.5})
    status.update("rtk", {"found": True, "version": "0.30.0"})
    status.update("savings", {"calls": 4})
    document = status.read()
    assert document["rtk"]["found"] is True
    assert document["rtk"]["version"] == "0.30.0"
    assert document["savings"]["calls"] == 4
    assert document["savings"]["saving"] == 0.5  # keys not written again are kept
    assert document["savings"]["updated_at"] <= time.time()


def test_the_file_and_its_folders_are_private(tersh_home: Path) -> None:
    status.update("rtk", {"found": False})
    path = status.status_path()
    assert path == tersh_home / "state" / "output-optimizer" / "status.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".tmp-")] == []


@pytest.mark.parametrize("junk", [b"{not json", b"[1, 2]", b"\xff\xfe", b""])
def test_a_corrupt_file_reads_empty_and_the_next_write_replaces_it(junk: bytes) -> None:
    path = status.status_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(junk)
    assert status.read() == {}
    status.update("savings", {"calls": 1})
    assert json.loads(path.read_bytes()) == {"savings": status.read()["savings"]}


def test_a_symlink_in_place_of_the_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    path = status.status_path()
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    with pytest.raises(TershError):
        status.update("savings", {"calls": 1})
    assert target.read_text() == "{}"


WRITER = textwrap.dedent(
    """
    import sys
    from tersh.recording import status
    index, rounds = int(sys.argv[1]), int(sys.argv[2])
    section = "savings" if index % 2 else "rtk"
    for n in range(rounds):
        status.update(section, {f"w{index}": n, f"w{index}_{n}": n})
    """
)

READER = textwrap.dedent(
    """
    import json, sys, time
    from tersh.recording import status
    path, bad, seen = status.status_path(), 0, 0
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            continue
        try:
            json.loads(raw)
            seen += 1
        except ValueError:
            bad += 1
        if path.with_name("done").exists():
            break
    print(json.dumps({"bad": bad, "seen": seen}))
    """
)


@pytest.mark.slow
def test_sixteen_processes_two_hundred_writes_each_lose_nothing() -> None:
    processes, rounds = 16, 200
    env = {**os.environ}
    reader = subprocess.Popen(
        [sys.executable, "-c", READER], env=env, stdout=subprocess.PIPE, text=True
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(i), str(rounds)], env=env)
        for i in range(processes)
    ]
    assert [w.wait(timeout=300) for w in writers] == [0] * processes
    status.status_path().with_name("done").touch()
    out, _ = reader.communicate(timeout=150)
    checks = json.loads(out)
    assert checks["bad"] == 0
    assert checks["seen"] > 0
    document = status.read()
    for index in range(processes):
        section = document["savings" if index % 2 else "rtk"]
        assert section[f"w{index}"] == rounds - 1
        for n in range(rounds):
            assert section[f"w{index}_{n}"] == n


section_values = st.dictionaries(
    st.text(min_size=1),
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    max_size=8,
)


@given(section_values)
def test_a_written_section_reads_back_as_json_reads_it(values: dict[str, object]) -> None:
    with status.lock():
        status.write_section("savings", values)
    assert json.loads(status.status_path().read_bytes())["savings"] == values
    assert status.section("savings") == values


def test_the_savings_write_and_read_import_neither_json_nor_re() -> None:
    probe = textwrap.dedent(
        """
        import sys
        from tersh.recording import status, tally
        with status.lock():
            tally.publish("s1", tally.savings("total", 2, 2, 100, 40, 0, 2, 30, 12))
        assert tally.read() == ("s1", (2, 2, 100, 40, 0, 2, 30, 12)), tally.read()
        print(sorted(m for m in ("json", "re") if m in sys.modules))
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=os.environ, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_a_status_file_in_another_layout_keeps_its_sections(tersh_home: Path) -> None:
    path = status.status_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"rtk": {"found": true}, "savings": {"calls": 2}, "Bad Name": {}}')
    status.update("savings", {"calls": 3})
    assert status.read() == {"rtk": {"found": True},
                             "savings": {"calls": 3, "updated_at": status.read()["savings"]["updated_at"]}}


def test_section_names_are_plain_words() -> None:
    with pytest.raises(ValueError):
        status.update("../escape", {"a": 1})
