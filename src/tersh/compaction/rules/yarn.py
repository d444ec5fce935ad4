"""Compact ``yarn`` (classic and berry) installs: the outcome and every warning.

Classic: the ``[1/4] Resolving packages...`` steps go; berry: the ``┌ … step`` / ``└ Completed``
frames and the per-package ``YN0013`` cache-miss lines go. Kept as written: ``success …``,
``Done in …``, every ``warning``/``error``/``YN`` code other than plain info. The dependency
trees yarn prints keep every package, one indented line per tree. Output that is not
yarn's own (``yarn test`` running jest) is left to other rules.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.omit import SNIFF_CHARS, Chatter, Omissions, drop_lines

NAME = "yarn"
CATEGORY = "packages"
PROGRAMS = ("yarn", "yarn install", "yarn add", "yarn remove", "yarn upgrade", "yarn up")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("yarn ", "➤ YN0000: ")

_CHATTER = Chatter({
    "step line": r"\[\d+/\d+\] [A-Z][a-z]+ [a-z ]+\.\.\.$",
    "step frame": r"➤ YN0000: (?:┌ .* step|└ Completed(?: in .*)?)$",
    "fetch line": r"➤ YN0013: │ \S+ can't be found in the cache and will be fetched .*$",
})
_CLASSIC_HEADER = lazy(r"^yarn (?:install|add|remove|upgrade) v\d", MULTILINE)
_TREE = lazy(r"^[├└]─ ")


def _is_yarn_output(text: str) -> bool:
    head = text[:SNIFF_CHARS]
    return bool(_CLASSIC_HEADER.search(head)) or "➤ YN0000: " in head


def compact(text: str, inv: Invocation) -> str | None:
    """Drop yarn's step chatter; None for output that is not yarn's install log."""
    if not _is_yarn_output(text):
        return None
    omissions = Omissions()
    kept = _join_trees(drop_lines(text, _CHATTER, omissions))
    if not omissions.total:
        return None
    return omissions.proposal(kept, text)


def _join_trees(lines: list[str]) -> list[str]:
    """Each run of top-level tree entries (``├─ a@1`` ``└─ b@2``) as one line: ``  a@1 b@2``."""
    joined: list[str] = []
    run: list[str] = []
    for line in [*lines, ""]:
        if _TREE.match(line):
            run.append(line[3:])
            continue
        if run:
            joined.append("  " + " ".join(run))
            run = []
        joined.append(line)
    joined.pop()
    return joined


def sniff(text: str) -> float:
    """Sure when yarn's own header or berry's ``➤ YN0000:`` lines are there."""
    return 0.95 if _is_yarn_output(text) else 0.0
