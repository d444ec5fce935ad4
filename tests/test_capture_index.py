"""The capture index: private from its first byte, schema built once, failures never lose output."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest

from tersh import settings
from tersh.recording import captures as capture


def test_index_is_private_from_creation_and_schema_is_versioned() -> None:
    cap = capture.store_bytes("echo hi", {"stdout": b"hi\n"}, 0)
    index = capture.store_dir() / capture.INDEX_FILE
    assert stat.S_IMODE(index.stat().st_mode) == 0o600
    with sqlite3.connect(index) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        rows = db.execute("SELECT id, command, exit_code, combined_bytes FROM captures").fetchall()
    assert rows == [(cap.id, "echo hi", 0, 3)]
    assert capture.list_recent()[0]["id"] == cap.id


def test_an_index_from_before_versioning_is_upgraded_in_place() -> None:
    root = capture.open_store()
    with sqlite3.connect(root / capture.INDEX_FILE) as db:
        db.executescript(capture._SCHEMA)  # what older versions left: tables, user_version 0
        db.execute("INSERT INTO captures (id, created, command, cwd) VALUES ('c0123456789ab', 1,"
                   " 'old', '/')")
    capture.store_bytes("new", {"stdout": b"x"}, 0)
    ids = {row["id"] for row in capture.list_recent()}
    assert ids >= {"c0123456789ab"} and len(ids) == 2


def test_an_unusable_index_is_set_aside_and_rebuilt_from_the_folders(
        capsys: pytest.CaptureFixture[str]) -> None:
    earlier = capture.store_bytes("earlier", {"stdout": b"one\n"}, 0)
    root = capture.open_store()
    (root / capture.INDEX_FILE).write_bytes(b"this is not a database" * 100)
    cap = capture.store_bytes("cmd", {"stdout": b"kept\n"}, 3)  # spooled: the run never notices
    assert cap.path().read_bytes() == b"kept\n"
    assert capture.load(cap.id).sizes["combined"] == 5
    rows = {row["id"]: row for row in capture.list_recent()}
    assert "capture index was unusable" in capsys.readouterr().err
    assert rows[cap.id]["command"] == "cmd" and rows[cap.id]["exit_code"] == 3
    assert rows[earlier.id]["combined_bytes"] == 4  # adopted from its folder: eviction reaches it
    assert [p.name for p in root.glob("index.db.corrupt-*")]


def test_capture_records_behave_like_frozen_values() -> None:
    cap = capture.store_bytes("cmd", {"stdout": b"a\n", "stderr": b"b\n"}, 0)
    again = capture.load(cap.id)
    assert again == cap and again.folder == cap.folder and again.path("stderr").read_bytes() == b"b\n"
    with pytest.raises(AttributeError):
        cap.id = "c000000000000"  # type: ignore[misc]
    with pytest.raises(Exception, match="unknown stream"):
        cap.path("both")


@pytest.mark.parametrize("bad", ["c0123456789ab\n", "c0123456789AB", "x0123456789ab", 7, None])
def test_ids_are_checked_strictly(bad: object) -> None:
    assert not capture.is_id(bad)
    assert capture.is_id(capture.new_id())


def test_store_folder_planted_as_a_file_is_refused() -> None:
    home = settings.profile_dir()
    home.mkdir(parents=True, exist_ok=True)
    (home / "captures").write_text("not a folder")
    with pytest.raises(Exception, match="not a plain folder"):
        capture.start("cmd")
    assert not any(name.startswith(".tmp-") for name in os.listdir(home))


def test_later_captures_are_taken_in_from_their_own_folder_when_the_index_opens() -> None:
    first = capture.store_bytes("first", {"stdout": b"1\n"}, 0)  # creates the index
    second = capture.store_bytes("second --flag", {"stdout": b"22\n", "stderr": b"e\n"}, 4)
    third = capture.store_bytes("third", {"stdout": b"333\n"}, 0)
    (third.folder / capture.META_FILE).unlink()  # as if its row had never been written
    index = capture.store_dir() / capture.INDEX_FILE
    with sqlite3.connect(index) as db:  # nothing but the first is in the file yet
        assert [r[0] for r in db.execute("SELECT id FROM captures")] == [first.id]
    rows = {row["id"]: row for row in capture.list_recent()}
    assert (rows[second.id]["command"], rows[second.id]["exit_code"]) == ("second --flag", 4)
    assert rows[second.id]["stderr_bytes"] == 2 and rows[second.id]["stdout_same"] == 0
    assert (rows[third.id]["command"], rows[third.id]["combined_bytes"]) == ("", 4)
    assert stat.S_IMODE((second.folder / capture.META_FILE).stat().st_mode) == 0o600
