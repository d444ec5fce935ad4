"""Numbered source excerpts under a finding, as bandit prints them::

    Location: _code/code.py:175:15
    174	        f_locals.update(vars)
    175	        return eval(code, self.f_globals, f_locals)
    176

Each excerpt line is the file's text, a line number and a tab before it; the finding above names
the place. The generic compactor counts them as code-frame lines, unless one names something
(a path, a location, a commit id) or reports something: such a line stays where it is.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy

TYPE_CHECKING = False  # no typing import at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

_NUMBERED = lazy(r"^(\d{1,9})\t")
#: A numbered excerpt line after a line break (how a text is searched for them).
NUMBERED_AFTER_BREAK = lazy(r"\n\d{1,9}\t")


def numbered(line: str) -> int | None:
    """The line number an excerpt line starts with (``174\\t…``), else None."""
    match = _NUMBERED.match(line)
    return None if match is None else int(match[1])


def excerpt_runs(lines: list[str], candidates: Iterable[int], finding: Callable[[int], bool]) -> list[int]:
    """The indexes of the lines of numbered excerpts among ``candidates`` (sorted indexes; those
    ``numbered`` reads no number on are skipped): runs of at least two such lines in a row,
    numbered one after another, right under a line ``finding`` accepts (for the compactor, a
    line that carries a location or a diagnostic)."""
    found: list[int] = []
    run: list[int] = []
    last_number = -2

    def close() -> None:
        if len(run) >= 2 and run[0] > 0 and finding(run[0] - 1):
            found.extend(run)

    for index in candidates:
        number = numbered(lines[index])
        if number is None:
            continue
        if run and index == run[-1] + 1 and number == last_number + 1:
            run.append(index)
        else:
            close()
            run = [index]
        last_number = number
    close()
    return found
