"""Reference links a tool prints again under each finding of one kind (bandit's ``More Info:
https://…/b101_assert_used.html`` and ``CWE: CWE-703 (https://…/703.html)`` under each of 30
``assert`` findings): a line that holds a URL and repeats an earlier line word for word says
nothing new. A URL is no protected fact, and the first such line stays.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no typing import at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

#: What every line ``repeated_links`` may return holds.
URL_MARK = "://"


def repeated_links(lines: list[str], candidates: Iterable[int], plain: Callable[[int], bool]) -> list[int]:
    """The indexes among ``candidates`` (sorted) of the lines that hold a URL, are ``plain`` (no
    fact, no other kind for the caller) and repeat an earlier such line exactly."""
    seen: set[str] = set()
    found: list[int] = []
    for index in candidates:
        line = lines[index]
        if URL_MARK not in line or not plain(index):
            continue
        if line in seen:
            found.append(index)
        else:
            seen.add(line)
    return found
