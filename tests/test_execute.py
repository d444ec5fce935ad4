"""execute: the requested command of an argv is written exactly as shlex.join writes it; the
collector pause stays a command-line matter."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tersh.execution.execute import shell_join


@given(st.lists(st.text(max_size=12), max_size=6))
def test_shell_join_is_shlex_join(argv: list[str]) -> None:
    assert shell_join(argv) == shlex.join(argv)


def test_shell_join_quotes_what_a_shell_would_expand() -> None:
    assert shell_join(["printf", "%s|", "a b", "$HOME", "*", "", "it's"]) == (
        "printf '%s|' 'a b' '$HOME' '*' '' 'it'\"'\"'s'"
    )


def test_the_collector_state_of_a_library_caller_is_left_alone() -> None:
    import gc

    from tersh import settings
    from tersh.execution import orchestrate

    conf = settings.Settings({"enabled": True})
    gc.disable()
    try:
        orchestrate.run(["true"], conf=conf)
        assert not gc.isenabled()
    finally:
        gc.enable()
    orchestrate.run(["true"], conf=conf)
    assert gc.isenabled()


def test_the_command_line_pauses_the_collector_until_the_output_is_compacted() -> None:
    import subprocess
    import sys

    probe = ("import gc, sys\nfrom tersh import cli, compaction, settings\nsettings.save({'enabled': True})\n"
             "real_disable, real_compact = gc.disable, compaction.compact_text\npaused, seen = [], []\n"
             "gc.disable = lambda: (paused.append(1), real_disable())[1]\n"
             "compaction.compact_text = lambda *a: (seen.append(gc.isenabled()), real_compact(*a))[1]\n"
             "assert cli.main(['run', '--', 'seq', '3000']) == 0\n"
             "print(bool(paused) and gc.isenabled(), seen, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stderr.strip().splitlines()[-1] == "True [False]", done.stderr


def test_a_library_caller_compacts_with_its_collector_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from tersh import compaction
    from tersh.execution import pipeline

    seen: list[bool] = []
    real = compaction.compact_text
    monkeypatch.setattr(compaction, "compact_text", lambda *a: (seen.append(gc.isenabled()), real(*a))[1])
    line = "src/tersh/module.py:{}:1: F401 'os' imported but unused\n"
    output = "".join(line.format(n) for n in range(300)).encode()
    result = pipeline.compact("flake8", 1, combined=output)
    assert seen == [True] and result.rule == "flake8" and gc.isenabled()


def test_a_pause_until_exit_is_not_resumed() -> None:
    import gc

    from tersh._startup import collector

    assert gc.isenabled()
    try:
        collector.pause(until_exit=True)
        collector.resume()
        assert not gc.isenabled()  # the process exits next: no walk of every object again
    finally:
        collector._until_exit.clear()
        collector.resume()
    assert gc.isenabled()


def test_the_console_script_exits_with_the_collector_paused() -> None:
    import subprocess
    import sys

    probe = ("import gc, os, sys\nfrom tersh import cli, settings\nsettings.save({'enabled': True})\n"
             "real_exit = os._exit\n"
             "os._exit = lambda code: (print(gc.isenabled(), code, file=sys.stderr), real_exit(code))\n"
             "sys.argv = ['tersh', 'run', '--', 'echo', 'hi']\ncli.entry()\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stderr.strip().splitlines()[-1] == "False 0", done.stderr
    assert done.stdout == "hi\n"
