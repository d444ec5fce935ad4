"""Find the real program behind a command line: wrappers, env prefixes, chains and runners.

``python -m pytest -q`` -> ``pytest``; ``uv run pytest`` -> ``pytest``; ``npx tsc`` -> ``tsc``;
``env X=1 timeout 60 cargo test`` -> ``cargo``; ``cd web && npm test`` -> ``npm``;
``bash -c 'make check'`` -> ``make``. For a chain the last pipeline that does real work decides
(``make && echo ok`` -> ``make``); inside a pipeline its first stage produces the output
(``pytest | tail -50`` -> ``pytest``). The words come from the shell lexer, quotes removed.
"""

from __future__ import annotations

from tersh import classify
from tersh.rules.base import Invocation


def last_simple_command(command: str) -> list[str]:
    """The words (unwrapped) of the command whose output ``command`` shows (best effort)."""
    try:
        return classify.main_command(command)
    except Exception:  # the lexer must never break compaction: fall back to plain words
        return command.split()


def invocation(command: str, exit_code: int) -> Invocation:
    """The Invocation for ``command``: real program (base name, lower case) and its arguments."""
    words = last_simple_command(command)
    if not words:
        return Invocation(command, "", (), exit_code)
    return Invocation(command, classify.basename(words[0]), tuple(words[1:]), exit_code)
