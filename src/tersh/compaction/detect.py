"""Find the real program behind a command line: wrappers, env prefixes, chains and runners.

``python -m pytest -q`` -> ``pytest``; ``uv run pytest`` -> ``pytest``; ``npx tsc`` -> ``tsc``;
``env X=1 timeout 60 cargo test`` -> ``cargo``; ``cd web && npm test`` -> ``npm``;
``bash -c 'make check'`` -> ``make``. For a chain the last pipeline that does real work decides
(``make && echo ok`` -> ``make``); inside a pipeline its first stage produces the output
(``pytest | tail -50`` -> ``pytest``). The words come from the shell lexer, quotes removed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tersh.command import classify

if TYPE_CHECKING:
    from tersh.compaction.kit.base import Invocation


def last_simple_command(command: str) -> list[str]:
    """The words (unwrapped) of the command whose output ``command`` shows (best effort)."""
    try:
        return classify.main_command(command)
    except Exception:  # the lexer must never break compaction: fall back to plain words
        return command.split()


def program_and_args(command: str) -> tuple[str, tuple[str, ...]]:
    """The real program behind ``command`` (base name, lower case) and its arguments."""
    words = last_simple_command(command)
    if not words:
        return "", ()
    return classify.basename(words[0]), tuple(words[1:])


def invocation(command: str, exit_code: int) -> Invocation:
    """The Invocation for ``command``: real program (base name, lower case) and its arguments."""
    from tersh.compaction.kit.base import Invocation

    program, args = program_and_args(command)
    return Invocation(command, program, args, exit_code)
