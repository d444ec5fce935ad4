"""The capture store: private files, symlinks refused, strict ids, eviction rules."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from tersh import settings
from tersh.errors import TershError
from tersh.fsutil import atomic_write
from tersh.recording import captures as capture
from tersh.retrieval import pages as retrieval


def test_files_and_folders_are_private() -> None:
    cap = capture.store_bytes("cmd", {"stdout": b"o\n", "stderr": b"e\n"}, 0)
    for stream in capture.STREAMS:
        assert stat.S_IMODE(cap.path(stream).stat().st_mode) == 0o600
    assert stat.S_IMODE(cap.folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(capture.store_dir().stat().st_mode) == 0o700


def test_combined_keeps_arrival_order_and_identical_stream_is_not_listed() -> None:
    cap = capture.store_bytes("cmd", {"stdout": b"only stdout\n"}, 0)
    assert [ref.stream for ref in cap.refs()] == ["combined"]
    both = capture.store_bytes("cmd", {"stdout": b"a\n", "stderr": b"b\n"}, 0)
    assert [ref.stream for ref in both.refs()] == ["combined", "stdout", "stderr"]
    assert both.path().read_bytes() == b"a\nb\n"


@pytest.mark.parametrize("bad", ["../../etc/passwd", "c123", "C0123456789ab", "c0123456789ab/..",
                                 "/tmp/x", "c0123456789ag", "", "o../x"])
def test_malformed_ids_never_become_paths(bad: str) -> None:
    with pytest.raises(TershError):
        retrieval.retrieve(bad)


def test_unknown_id_is_a_clear_error() -> None:
    with pytest.raises(TershError, match="no capture"):
        retrieval.retrieve("c0123456789ab")


def test_symlinked_store_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    store = capture.store_dir()
    store.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, store)
    with pytest.raises(TershError, match="symbolic link"):
        capture.start("cmd")
    assert list(target.iterdir()) == []


def test_atomic_write_refuses_a_planted_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    link = tmp_path / "settings.toml"
    os.symlink(victim, link)
    with pytest.raises(TershError):
        atomic_write(link, b"enabled = true\n")
    assert victim.read_text() == "untouched"


def test_settings_save_refuses_symlinked_file(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    settings.profile_dir().mkdir(parents=True, exist_ok=True)
    os.symlink(victim, settings.settings_path())
    with pytest.raises(TershError):
        settings.save({"enabled": True})
    assert victim.read_text() == "untouched"


def test_eviction_respects_ttl_cap_grace_and_pins() -> None:
    conf = settings.Settings({"captures.total_bytes": 3000, "captures.ttl_days": 7,
                              "captures.grace_seconds": 600})
    old = [capture.store_bytes("old", {"stdout": b"x" * 1000}, 0) for _ in range(4)]
    # Over the cap, but every capture is younger than the grace period: nothing goes.
    assert capture.evict(time.time(), settings=conf) == []
    capture.pin(old[0].id, 10_000)
    later = time.time() + 3600  # an hour later: past the grace period
    removed = capture.evict(later, settings=conf)
    # Over the cap (4 KB > 3 KB): the oldest unpinned goes first, the pinned one stays.
    assert removed == [old[1].id]
    assert not old[1].folder.exists() and old[0].folder.exists()
    expired = capture.evict(time.time() + 8 * 86400 + 20_000, settings=conf)
    assert set(expired) == {old[0].id, old[2].id, old[3].id}


def test_stale_temp_folders_are_cleaned() -> None:
    root = capture.open_store()
    stale = root / ".tmp-c0123456789ab"
    stale.mkdir()
    (stale / "combined").write_bytes(b"half")
    old = time.time() - 2 * 86400
    os.utime(stale, (old, old))
    capture.evict(settings=settings.Settings())
    assert not stale.exists()


def test_retrieve_pages_by_line_and_byte_and_searches() -> None:
    body = "".join(f"line {i} {'ERROR' if i % 100 == 0 else 'fine'}\n" for i in range(1, 1001))
    cap = capture.store_bytes("gen", {"stdout": body.encode()}, 0)
    page = retrieval.retrieve(cap.id, offset=10, limit=5)
    assert [n for n, _ in page.lines] == [11, 12, 13, 14, 15]
    assert page.next_offset == 15 and page.total_lines == 1000
    hits = retrieval.retrieve(cap.id, query="error", limit=3)
    assert [n for n, _ in hits.lines] == [100, 200, 300] and hits.more == 7
    assert "7 more matching lines" in hits.render()
    raw = retrieval.retrieve(cap.id, offset=0, limit=20, by_bytes=True)
    assert raw.text == body[:20] and raw.next_offset == 20


def test_byte_pages_never_split_a_character() -> None:
    cap = capture.store_bytes("gen", {"stdout": "é".encode() * 100}, 0)
    for start in range(0, 12):
        page = retrieval.retrieve(cap.id, offset=start - start % 2, limit=5, by_bytes=True)
        assert "\ufffd" not in page.text


def _write_interleaved(writer: capture.CaptureWriter, parts: list[tuple[str, bytes]]) -> None:
    for stream, data in parts:
        writer.write(stream, data)


def test_stream_files_are_derived_from_combined_in_arrival_order() -> None:
    parts = [("stdout", b"a1\n"), ("stdout", b"a2\n"), ("stderr", b"e1\n"), ("stdout", b"a3\n"),
             ("stderr", b"e2\n")]
    writer = capture.start("mixed")
    _write_interleaved(writer, parts)
    cap = writer.finish(0)
    assert cap.path().read_bytes() == b"a1\na2\ne1\na3\ne2\n"
    assert cap.path("stdout").read_bytes() == b"a1\na2\na3\n"
    assert cap.path("stderr").read_bytes() == b"e1\ne2\n"


def test_a_single_stream_is_a_hard_link_to_combined_and_not_listed() -> None:
    writer = capture.start("only stdout")
    _write_interleaved(writer, [("stdout", b"x" * 5000)])
    cap = writer.finish(0)
    assert os.path.samefile(cap.path("stdout"), cap.path())
    assert cap.path("stderr").read_bytes() == b""
    assert [ref.stream for ref in cap.refs()] == ["combined"]


def test_many_stream_switches_fall_back_to_writing_each_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture.CaptureWriter, "MAX_SEGMENTS", 10)
    parts = [("stdout" if i % 2 else "stderr", f"{i}\n".encode()) for i in range(100)]
    writer = capture.start("chatty")
    _write_interleaved(writer, parts)
    cap = writer.finish(0)
    assert cap.path("stdout").read_bytes() == b"".join(d for s, d in parts if s == "stdout")
    assert cap.path("stderr").read_bytes() == b"".join(d for s, d in parts if s == "stderr")
    assert cap.path().read_bytes() == b"".join(d for _, d in parts)


def test_removing_a_capture_folder_never_follows_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("kept")
    folder = tmp_path / "cap"
    folder.mkdir()
    (folder / "combined").write_bytes(b"x" * 10)
    (folder / "meta.json").write_text("{}")
    (folder / "to-folder").symlink_to(outside, target_is_directory=True)
    (folder / "to-file").symlink_to(outside / "keep.txt")
    (folder / "odd").mkdir()  # an unexpected subfolder (removed with what it holds)
    (folder / "odd" / "inner").write_text("x")
    (folder / "odd" / "link").symlink_to(outside)
    capture._rmtree(folder)
    assert not folder.exists() and not folder.is_symlink()
    assert (outside / "keep.txt").read_text() == "kept"
    # a folder that is itself a link is left alone, and so is what it points to
    linked = tmp_path / "linked"
    linked.symlink_to(outside, target_is_directory=True)
    capture._rmtree(linked)
    assert linked.is_symlink() and (outside / "keep.txt").exists()
    capture._rmtree(tmp_path / "missing")  # a missing folder is no error


def test_removing_plain_capture_files_imports_no_shutil(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = tmp_path / "cap"
    folder.mkdir()
    for name in ("combined", "stdout", "meta.json"):
        (folder / name).write_text(name)
    probe = ("import sys\nfrom tersh.recording import captures\n"
             f"captures._rmtree({str(folder)!r})\nprint('shutil' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert not folder.exists()
