"""Kept regular-expression programs: every pattern tersh defines with ``lazy`` is built equal
to what ``re.compile`` makes, from a program compiled in this process or read from the file a
process before it wrote; a bad file is never read; no profile is made for it."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tersh
from tersh._startup import lazyre, reprograms


def _lazy_patterns() -> list[tuple[str | bytes, int]]:
    """(source, flags) of every pattern a tersh module defines with ``lazy``/``lazy_bytes``."""
    found: dict[tuple[str | bytes, int], None] = {}
    for info in pkgutil.walk_packages(tersh.__path__, "tersh."):
        if info.name.endswith("__main__"):
            continue  # running it is the command line
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            values = value if isinstance(value, (list, tuple)) else [value]
            for item in values:
                if isinstance(item, lazyre._Lazy):
                    found[(item.pattern, item._flags)] = None
    return list(found)


PATTERNS = _lazy_patterns()


def _same(made: re.Pattern[str] | re.Pattern[bytes], pattern: str | bytes, flags: int) -> None:
    expected = re.compile(pattern, flags)
    assert made == expected  # the engine compares source, flags and the whole program
    assert (made.groups, dict(made.groupindex)) == (expected.groups, dict(expected.groupindex))


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A profile of its own, and no programs read yet in this process."""
    monkeypatch.setenv("TERSH_HOME", str(tmp_path))
    monkeypatch.setattr(reprograms, "_kept", [])
    return tmp_path


def test_there_are_patterns_to_check() -> None:
    assert len(PATTERNS) > 100
    assert any(flags for _, flags in PATTERNS) and any(isinstance(p, bytes) for p, _ in PATTERNS)


def test_every_pattern_is_built_as_re_compiles_it(fresh: Path) -> None:
    for pattern, flags in PATTERNS:
        _same(reprograms.compiled(pattern, flags), pattern, flags)  # compiled here, kept
    for pattern, flags in PATTERNS:
        _same(reprograms.compiled(pattern, flags), pattern, flags)  # from the kept program
    assert not os.path.exists(reprograms.programs_file())  # kept once, at the end
    reprograms.save()
    assert os.stat(reprograms.programs_file()).st_mode & 0o777 == 0o600


def test_a_later_process_builds_them_from_the_file(fresh: Path) -> None:
    for pattern, flags in PATTERNS:
        reprograms.compiled(pattern, flags)
    reprograms.save()
    code = (
        "import re, sys\n"
        "from tersh._startup import reprograms\n"
        "from tests.test_reprograms import PATTERNS\n"
        "programs = reprograms._programs()\n"
        "assert all((p, f) in programs for p, f in PATTERNS), 'a pattern is missing'\n"
        "import re._parser as parser\n"
        "parse, parser.parse = parser.parse, None  # nothing may be parsed again\n"
        "built = [reprograms.compiled(p, f) for p, f in PATTERNS]\n"
        "parser.parse = parse\n"
        "bad = [p for (p, f), made in zip(PATTERNS, built) if made != re.compile(p, f)]\n"
        "print(len(bad))\n"
    )
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                         env={**os.environ, "TERSH_HOME": str(fresh)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"


def test_a_bad_file_is_never_read(fresh: Path) -> None:
    reprograms.compiled(r"(?P<word>\w+)-\d+", 0)
    reprograms.save()
    path = reprograms.programs_file()
    image = Path(path).read_bytes()

    def read() -> dict[object, object]:
        return reprograms._read()

    assert (r"(?P<word>\w+)-\d+", 0) in read()
    os.chmod(path, 0o644)
    assert read() == {}  # others may write it
    os.chmod(path, 0o600)
    Path(path).write_bytes(image[: len(image) // 2])
    assert read() == {}  # damaged
    Path(path).write_bytes(b"sre 2.7 0 0\n" + image[image.index(b"\n") + 1 :])
    assert read() == {}  # another Python's
    os.unlink(path)
    os.symlink(os.devnull, path)
    assert read() == {}
    os.unlink(path)
    Path(path).write_bytes(image)
    os.chmod(path, 0o600)
    assert read() != {}


def test_a_program_the_engine_refuses_is_compiled_again(fresh: Path) -> None:
    pattern = r"ab+c"
    reprograms._programs()[(pattern, 0)] = (0, [1, 2, 3], 0, {}, ())  # not a program
    _same(reprograms.compiled(pattern), pattern, 0)
    assert reprograms._programs()[(pattern, 0)][1] != [1, 2, 3]


def test_an_error_in_a_pattern_is_res_error(fresh: Path) -> None:
    with pytest.raises(re.error, match="missing \\)"):
        reprograms.compiled("(unclosed")


def test_no_profile_is_made_for_the_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "no-profile-yet"
    monkeypatch.setenv("TERSH_HOME", str(missing))
    monkeypatch.setattr(reprograms, "_kept", [])
    _same(reprograms.compiled(r"x(\d+)y"), r"x(\d+)y", 0)
    reprograms.save()
    assert not missing.exists()


def test_a_run_that_ends_at_once_keeps_what_it_compiled(fresh: Path) -> None:
    env = {**os.environ, "TERSH_HOME": str(fresh)}
    tersh = [sys.executable, "-m", "tersh"]
    subprocess.run([*tersh, "enable"], env=env, check=True, capture_output=True)
    lines = "".join(f"src/a{i}.py:{i}:1: error: name 'x{i}' is not defined\n" for i in range(60))
    out = subprocess.run([*tersh, "run", "--", "printf", lines], env=env, capture_output=True,
                         text=True, cwd=fresh)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "src/a59.py:59:1" in out.stdout
    assert len(reprograms._read()) > 5  # what a later process reads
