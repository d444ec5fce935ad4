"""Start-up replacements the hook and run paths measurably need.

Each is held equal to the real thing by a test: ``frozen`` (frozen dataclasses,
tests/test_frozen.py), ``lean`` (``typing.NamedTuple``, tests/test_lean.py), ``leanjson`` (``json``,
tests/test_leanjson.py), ``quicktoml`` (``tomllib``, tests/test_quicktoml.py), ``lazyre`` (``re.compile``
on first use, tests/test_lazyre.py), ``fastimport`` (the path finder and source loader for tersh's
own modules, tests/test_fastimport.py), ``userdirs`` (``platformdirs.user_data_dir`` on Linux,
tests/test_userdirs.py). ``collector`` is the
one start-up trick that replaces nothing: the command line's pause of the garbage collector
(tests/test_execute.py).

The modules that ``tersh run`` (a command with no output or a short one), ``tersh hook
claude-code``, Claude Code's shell prefix and ``tersh rewrite CMD`` import keep ``typing``
unimported (it costs milliseconds, more than such a call's own work): they write
``TYPE_CHECKING = False  # start-up path: see tersh._startup`` instead of ``from typing import
TYPE_CHECKING``. Every other module imports from ``typing`` as usual. The compaction modules a
rule's path loads take ``operator``'s and ``bisect``'s functions from the C modules those
re-export (``_operator``, ``_bisect``: the same objects, tests/test_lean.py), and no module on
that path imports ``re``, ``collections`` or ``functools`` (tests/test_run_startup.py).
"""
