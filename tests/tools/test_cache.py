"""Recovery cache: permissions, symlinks, concurrent writers, stale and live locks, rollback."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tersh.errors import TershError
from tersh.fsutil import TEMP_PREFIX
from tersh.recording import tool_cache as cache_module
from tersh.recording import tool_lock as lock
from tersh.recording.tool_cache import Cache, CacheFull
from tersh.settings import Settings
from tersh.tools import compress

HOUR = 3600.0


def make(root: Path, entry: int = 1 << 20, total: int = 16 << 20, ttl: float = HOUR) -> Cache:
    return Cache(root, entry, total, ttl, lock_timeout=0.5)


def test_entries_are_private_and_readable(tmp_path: Path) -> None:
    cache = make(tmp_path / "c")
    entry_id = cache.put("héllo\nwörld\n".encode(), "read")
    assert cache_module.ENTRY_ID.fullmatch(entry_id)
    assert stat.S_IMODE((tmp_path / "c").stat().st_mode) == 0o700
    for suffix in (".txt", ".json"):
        assert stat.S_IMODE((tmp_path / "c" / f"{entry_id}{suffix}").stat().st_mode) == 0o600
    assert cache.read_text(entry_id) == "héllo\nwörld\n"
    meta = json.loads((tmp_path / "c" / f"{entry_id}.json").read_text())
    assert meta["tool"] == "read" and meta["bytes"] == len("héllo\nwörld\n".encode())


def test_same_content_is_one_entry(tmp_path: Path) -> None:
    cache = make(tmp_path)
    assert cache.put(b"same", "a") == cache.put(b"same", "b")
    assert len(list(tmp_path.glob("o*.txt"))) == 1


def test_malformed_unknown_and_expired_ids(tmp_path: Path) -> None:
    cache = make(tmp_path, ttl=60)
    for bad in ("../etc/passwd", "o123", "c0123456789ab", "O0123456789AB", "o0123456789ab/.."):
        with pytest.raises(TershError, match="malformed"):
            cache.path(bad)
    with pytest.raises(TershError, match="unknown"):
        cache.path("o0123456789ab")
    entry_id = cache.put(b"old", "read")
    old = time.time() - 120
    os.utime(tmp_path / f"{entry_id}.txt", (old, old))
    with pytest.raises(TershError, match="expired"):
        cache.path(entry_id)


def test_module_entry_path_uses_the_profile(tersh_home: Path) -> None:
    result = compress("task", "report line\n" * 3000)
    entry_id = result.metrics["recovery"]["id"]
    path = cache_module.entry_path(entry_id)
    assert path.parent == tersh_home / "cache" / "tools"
    assert path.read_text() == "report line\n" * 3000


def test_symlinked_folder_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(TershError, match="symbolic link"):
        make(tmp_path / "link").put(b"x", "read")


def test_symlinked_entry_is_refused_and_never_written_through(tmp_path: Path) -> None:
    cache = make(tmp_path / "c")
    cache.put(b"seed", "read")
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    planted = cache_module.entry_id_for(b"payload")
    (tmp_path / "c" / f"{planted}.txt").symlink_to(victim)
    (tmp_path / "c" / f"{planted}.json").write_text("{}")
    with pytest.raises(TershError, match="unknown"):
        cache.path(planted)
    assert cache.put(b"payload", "read") == planted  # the planted link is removed, not followed
    assert victim.read_text() == "untouched"
    assert not (tmp_path / "c" / f"{planted}.txt").is_symlink()


def test_symlinked_lock_is_refused(tmp_path: Path) -> None:
    (tmp_path / "c").mkdir(mode=0o700)
    (tmp_path / "c" / cache_module.LOCK_NAME).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(TershError):
        make(tmp_path / "c").put(b"x", "read")
    assert not (tmp_path / "elsewhere").exists()


def test_live_entries_are_never_evicted_full_cache_refuses(tmp_path: Path) -> None:
    cache = make(tmp_path, entry=100, total=250)
    first, second = cache.put(b"a" * 100, "t"), cache.put(b"b" * 100, "t")
    with pytest.raises(CacheFull):
        cache.put(b"c" * 100, "t")
    assert cache.read_text(first) == "a" * 100 and cache.read_text(second) == "b" * 100
    with pytest.raises(CacheFull):
        cache.put(b"d" * 101, "t")  # above the per-entry cap


def test_expired_entries_make_room(tmp_path: Path) -> None:
    cache = make(tmp_path, entry=100, total=250, ttl=60)
    old_id = cache.put(b"a" * 100, "t")
    cache.put(b"b" * 100, "t")
    old = time.time() - 120
    os.utime(tmp_path / f"{old_id}.txt", (old, old))
    new_id = cache.put(b"c" * 100, "t")
    assert not (tmp_path / f"{old_id}.txt").exists() and not (tmp_path / f"{old_id}.json").exists()
    assert cache.read_text(new_id) == "c" * 100


def test_full_cache_leaves_the_output_uncompressed() -> None:
    settings = Settings({"cache.total_bytes": 30_000})
    first = compress("task", "first report\n" * 2000, settings=settings)
    second = compress("task", "second report\n" * 2000, settings=settings)
    assert first.changed and not second.changed
    assert second.output == "second report\n" * 2000
    assert "cache full" in second.metrics["reason"]


def test_failed_mutation_is_rolled_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = make(tmp_path)
    kept = cache.put(b"kept", "t")
    real_write = cache_module.atomic_write

    def fail_on_meta(path: Path, data: bytes) -> None:
        if path.suffix == ".json":
            raise OSError(28, "No space left on device")
        real_write(path, data)

    monkeypatch.setattr(cache_module, "atomic_write", fail_on_meta)
    with pytest.raises(OSError):
        cache.put(b"new entry", "t")
    names = sorted(p.name for p in tmp_path.iterdir() if p.name != cache_module.LOCK_NAME)
    assert names == [f"{kept}.json", f"{kept}.txt"]


def test_stale_temp_files_are_cleaned(tmp_path: Path) -> None:
    cache = make(tmp_path)
    cache.put(b"x", "t")
    stale = tmp_path / f"{TEMP_PREFIX}o0123456789ab.txt.abc"
    fresh = tmp_path / f"{TEMP_PREFIX}o0123456789ab.txt.def"
    stale.write_bytes(b"left by a crash")
    fresh.write_bytes(b"being written right now")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    cache.put(b"y", "t")
    assert not stale.exists() and fresh.exists()


def test_search_is_case_insensitive_with_positions(tmp_path: Path) -> None:
    cache = make(tmp_path)
    text = "alpha\nBeta ERROR here\nnothing\nlast error, and Error again\n" + "z" * 500 + "error" + "z" * 500
    entry_id = cache.put(text.encode(), "t")
    matches = cache.search(entry_id, "error", limit=10)
    assert [(m.line, m.column) for m in matches] == [(2, 6), (4, 6), (4, 17), (5, 501)]
    assert matches[0].offset == text.index("ERROR")
    assert matches[0].snippet == "Beta ERROR here"
    assert "error" in matches[3].snippet and len(matches[3].snippet) <= cache_module.SNIPPET_CHARS + 2
    assert len(cache.search(entry_id, "error", limit=2)) == 2
    with pytest.raises(TershError):
        cache.search(entry_id, "", limit=2)


def test_pages_are_bounded(tmp_path: Path) -> None:
    cache = make(tmp_path)
    entry_id = cache.put("\n".join(str(i) for i in range(5000)).encode(), "t")
    page = cache.page(entry_id, offset=10, limit=3)
    assert page.text == "10\n11\n12" and page.next_offset == 13 and page.total_lines == 5000
    assert cache.page(entry_id, 0, 10**9).lines == 2000
    assert cache.page(entry_id, 4998, 10).next_offset is None


WRITER = """
import sys
from pathlib import Path
from tersh.recording.tool_cache import Cache, CacheFull
cache = Cache(Path(sys.argv[1]), 1000, int(sys.argv[3]), 3600.0, lock_timeout=20.0)
try:
    print(cache.put(("w%s-" % sys.argv[2]).encode() * 100, "t"))
except CacheFull:
    print("full")
"""


def test_concurrent_writers_respect_the_total_cap(tmp_path: Path) -> None:
    root = tmp_path / "c"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(n), "2000"], stdout=subprocess.PIPE, text=True
        )
        for n in range(8)
    ]
    answers = [p.communicate(timeout=60)[0].strip() for p in procs]
    stored = [a for a in answers if a != "full"]
    sizes = sum(p.stat().st_size for p in root.glob("o*.txt"))
    assert sizes <= 2000
    assert len(stored) == len(list(root.glob("o*.txt"))) == len(list(root.glob("o*.json")))
    assert not list(root.glob(f"{TEMP_PREFIX}*"))


HOLDER = """
import sys, time
from pathlib import Path
from tersh.recording import tool_lock as lock
with lock.hold(Path(sys.argv[1]), timeout=5):
    print("held", flush=True)
    time.sleep(60)
"""


def _holder(path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_live_owner_is_never_broken(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    proc = _holder(path)
    try:
        started = time.monotonic()
        with pytest.raises(lock.LockBusy) as caught, lock.hold(path, timeout=0.3):
            pass
        assert time.monotonic() - started < 2
        assert caught.value.owner is not None and caught.value.owner["pid"] == proc.pid
        assert len(caught.value.owner["token"]) == 16
    finally:
        proc.kill()
        proc.wait()


def test_a_dead_owners_lock_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    proc = _holder(path)
    dead_pid = proc.pid
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert lock.read_owner(path)["pid"] == dead_pid  # the record outlives its owner
    with lock.hold(path, timeout=1.0) as held:
        assert held.replaced is not None and held.replaced["pid"] == dead_pid
        assert lock.read_owner(path)["pid"] == os.getpid()
    assert lock.read_owner(path) is None


def test_a_busy_cache_never_blocks_the_output(tersh_home: Path) -> None:
    root = tersh_home / "cache" / "tools"
    root.mkdir(parents=True, mode=0o700)
    proc = _holder(root / cache_module.LOCK_NAME)
    try:
        text = "busy report\n" * 3000
        started = time.monotonic()
        result = compress("task", text)
        assert time.monotonic() - started < 3
        assert result.output == text and not result.changed
        assert "held by pid" in result.metrics["reason"]
    finally:
        proc.kill()
        proc.wait()
