"""Find the real program behind a command line: wrappers, env prefixes, chains and runners.

``python -m pytest -q`` -> ``pytest``; ``uv run pytest`` -> ``pytest``; ``npx tsc`` -> ``tsc``;
``env X=1 timeout 60 cargo test`` -> ``cargo``; ``cd web && npm test`` -> ``npm``;
``bash -c 'make check'`` -> ``make``. For a chain the last pipeline that does real work decides
(``make && echo ok`` -> ``make``); inside a pipeline its first stage produces the output
(``pytest | tail -50`` -> ``pytest``). The words come from the shell lexer, quotes removed.
"""

from __future__ import annotations

from tersh import classify, shell
from tersh.compact.base import Invocation

#: Commands that rarely produce the output that matters at the end of a chain.
_TRIVIAL = classify.QUIET | {"echo", "printf", "date", "tput", "stty"}


def _pick(script: shell.Script, depth: int) -> list[str]:
    """The unwrapped words of the command whose output the line shows."""
    visible = [c for c in script.commands if not c.nested]
    if not visible:
        return []
    pipelines: dict[int, list[shell.SimpleCommand]] = {}
    for command in visible:
        pipelines.setdefault(command.pipeline, []).append(command)
    chosen: list[str] = []
    for stages in reversed(list(pipelines.values())):
        first = min(stages, key=lambda c: c.stage)
        words = classify.unwrap(first.words)
        inline = classify.inline_script(words)
        if inline is not None and depth < 4:
            words = _pick(shell.parse(inline), depth + 1)
        if not words:
            continue
        if not chosen:
            chosen = words
        if classify.basename(words[0]) not in _TRIVIAL:
            return words
    return chosen


def last_simple_command(command: str) -> list[str]:
    """The words (unwrapped) of the command whose output ``command`` shows (best effort)."""
    try:
        return _pick(shell.parse(command), 0)
    except Exception:  # the lexer must never break compaction: fall back to plain words
        return command.split()


def invocation(command: str, exit_code: int) -> Invocation:
    """The Invocation for ``command``: real program (base name, lower case) and its arguments."""
    words = last_simple_command(command)
    if not words:
        return Invocation(command, "", (), exit_code)
    return Invocation(command, classify.basename(words[0]), tuple(words[1:]), exit_code)
