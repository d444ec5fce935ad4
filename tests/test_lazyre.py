"""tersh._startup.lazyre.lazy behaves like re.compile, and importing the compaction stage
compiles no pattern."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh._startup.lazyre import is_compiled, lazy

CASES = [
    (r"(?P<path>[\w./-]+):(?P<line>\d+)", 0, "see src/a.py:12 and b.c:7, not c:x"),
    (r"^error\b.*$", re.IGNORECASE | re.MULTILINE, "ok\nERROR one\nerror two\nfine"),
    (r"x{7,}", 0, "xxxxxxx yy xxxxxxxxxxxx"),
    (r"", 0, "abc"),
]


@pytest.mark.parametrize(("source", "flags", "text"), CASES)
def test_every_method_answers_as_the_compiled_pattern(source: str, flags: int, text: str) -> None:
    lazy_pattern, compiled = lazy(source, flags), re.compile(source, flags)
    assert lazy_pattern.pattern == compiled.pattern
    assert not is_compiled(lazy_pattern)
    assert [m.span() for m in lazy_pattern.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert is_compiled(lazy_pattern)
    found, expected = lazy_pattern.search(text), compiled.search(text)
    assert (found and found.span()) == (expected and expected.span())
    assert lazy_pattern.findall(text) == compiled.findall(text)
    assert lazy_pattern.split(text) == compiled.split(text)
    assert lazy_pattern.sub("#", text) == compiled.sub("#", text)
    assert lazy_pattern.subn("#", text, count=1) == compiled.subn("#", text, count=1)
    assert bool(lazy_pattern.match(text)) == bool(compiled.match(text))
    assert bool(lazy_pattern.fullmatch(text)) == bool(compiled.fullmatch(text))
    assert (lazy_pattern.flags, lazy_pattern.groups, lazy_pattern.groupindex) == (
        compiled.flags,
        compiled.groups,
        compiled.groupindex,
    )


def test_a_bad_pattern_fails_when_first_used_and_unknown_names_stay_unknown() -> None:
    broken = lazy("(unclosed")
    with pytest.raises(re.error):
        broken.search("x")
    with pytest.raises(AttributeError):
        lazy("a").no_such_method  # noqa: B018 - the attribute read is the test
    used = lazy("a")
    used.search("a")
    with pytest.raises(AttributeError):
        used.no_such_method  # noqa: B018


def test_importing_the_compaction_stage_compiles_no_pattern() -> None:
    probe = (
        "import re._compiler, sys\n"
        "callers = []\n"
        "real = re._compiler.compile\n"
        "def compile(pattern, flags=0):\n"
        "    callers.append(sys._getframe(3).f_code.co_filename)\n"
        "    return real(pattern, flags)\n"
        "re._compiler.compile = compile\n"
        "import tersh.compaction, tersh.compaction.clean, tersh.compaction.generic\n"
        "import tersh.compaction.coverage, tersh.compaction.preview\n"
        "import tersh.compaction.kit.omit, tersh.compaction.verify.holds\n"
        "import tersh.compaction.rules.git_status\n"
        "print(sorted({c.rsplit('tersh', 1)[-1] for c in callers if 'tersh' in c}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    # git_status's patterns are lazy too (a clean tree's status is declined without compiling).
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_the_flags_are_res() -> None:
    from tersh._startup import lazyre

    assert (lazyre.IGNORECASE, lazyre.MULTILINE, lazyre.DOTALL) == (re.IGNORECASE, re.MULTILINE, re.DOTALL)


@given(st.text())
def test_escape_is_res(text: str) -> None:
    from tersh._startup.lazyre import escape

    assert escape(text) == re.escape(text)


def test_escape_is_res_on_every_ascii_character() -> None:
    from tersh._startup.lazyre import escape

    every = "".join(map(chr, range(128)))
    assert escape(every) == re.escape(every)
