"""The spool: rows written as private files, read back in order, corrupt ones dropped loudly."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh.errors import TershError
from tersh.recording import spool

values = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text()


def test_rows_come_back_in_the_order_written_and_files_are_private(tmp_path: Path) -> None:
    folder = str(tmp_path / "rows.spool")
    names = [spool.put(folder, {"n": n, "text": f"row {n}\n\ttabbed"}) for n in range(5)]
    assert spool.pending(folder) == names == sorted(names)
    assert [row for _, row in spool.read(folder, names)] == [
        {"n": n, "text": f"row {n}\n\ttabbed"} for n in range(5)
    ]
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert {stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode) for name in names} == {0o600}
    spool.discard(folder, names[:3])
    assert spool.pending(folder) == names[3:]
    assert spool.pending(folder, limit=1) == names[3:4]


@given(st.dictionaries(st.text(max_size=8), values, max_size=6))
def test_any_row_of_plain_values_round_trips(row: dict[str, object]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        name = spool.put(folder, row)  # type: ignore[arg-type]
        assert list(spool.read(folder, [name])) == [(name, row)]


def test_temp_files_and_foreign_names_are_never_rows(tmp_path: Path) -> None:
    folder = tmp_path / "rows.spool"
    folder.mkdir()
    for name in (".tmp-0000000000000001-aaaaaaaa", "../0000000000000001-aaaaaaaa", "notes.txt",
                 "0000000000000001-AAAAAAAA", "0000000000000001_aaaaaaaa"):
        if "/" not in name:
            (folder / name).write_text("{}")
    assert spool.pending(str(folder)) == []
    assert not spool.is_row_name("../0000000000000001-aaaaaaaa")
    assert spool.is_row_name("0000000000000001-aaaaaaaa")


@pytest.mark.parametrize("junk", [b"__import__('os').system('false')", b"{'a': ", b"\xff\xfe",
                                  b"[1, 2]"])
def test_corrupt_rows_are_reported_and_dropped_never_evaluated(
        tmp_path: Path, junk: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    folder = str(tmp_path / "rows.spool")
    good = spool.put(folder, {"ok": 1})
    bad = "0000000000000001-deadbeef"  # sorts first
    Path(folder, bad).write_bytes(junk)
    assert [row for _, row in spool.read(folder, spool.pending(folder))] == [{"ok": 1}]
    if junk != b"[1, 2]":
        assert "spooled row 0000000000000001-deadbeef" in capsys.readouterr().err
        assert spool.pending(folder) == [good]


def test_a_spool_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "rows.spool").symlink_to(elsewhere)
    with pytest.raises(TershError, match="not a plain folder"):
        spool.put(str(tmp_path / "rows.spool"), {"a": 1})
    assert list(elsewhere.iterdir()) == []
