"""Compact git's ref listings: ``git branch -v`` padding, ``git remote -v`` fetch/push pairs.

Plain ``git branch`` / ``git branch -a``, ``git stash list`` and ``git tag`` are already one name
per line: every name is data, so they pass unchanged.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import PADDING_BYTES_PER_TOKEN
from tersh.compaction.kit.omit import Omissions

NAME = "git_refs"
CATEGORY = "git"
PROGRAMS = ("git branch", "git remote", "git stash", "git tag")
#: ``sniff`` never scores above the sniffing threshold: no text makes the sniffer import this.
SNIFF_HINTS: tuple[str, ...] = ()

# "* main      3c0a1b2 [origin/main: ahead 1] subject" (git branch -v / -vv)
_BRANCH_VERBOSE = lazy(
    r"^(?P<name>[*+ ] \S+(?: -> \S+)?) {2,}(?P<rest>\^?[0-9a-f]{7,40} .*)$"
)
# "origin\thttps://example.com/x.git (fetch)"
_REMOTE = lazy(r"^(?P<name>\S+)\t(?P<url>\S+) \((?P<kind>fetch|push)\)$")


def _branches(lines: list[str]) -> list[str] | None:
    kept = []
    for line in lines:
        match = _BRANCH_VERBOSE.match(line)
        kept.append(f"{match['name']} {match['rest']}" if match else line)
    return kept if kept != lines else None


def _remotes(lines: list[str]) -> list[str] | None:
    if not lines or not all(_REMOTE.match(line) for line in lines):
        return None
    kinds: dict[tuple[str, str], list[str]] = {}
    for line in lines:
        match = _REMOTE.match(line)
        assert match is not None
        kinds.setdefault((match["name"], match["url"]), []).append(match["kind"])
    if len(kinds) == len(lines):
        return None
    return [f"{name} {url} ({', '.join(kind)})" for (name, url), kind in kinds.items()]


def compact(text: str, inv: Invocation) -> str | None:
    """Squeeze ``branch -v`` columns or merge ``remote -v`` pairs; None for other listings."""
    lines = text.splitlines()
    if inv.subcommand == "remote":
        kept, what = _remotes(lines), "repeated fetch/push URLs"
    elif inv.subcommand == "branch":
        kept, what = _branches(lines), "column padding"
    else:
        return None
    if kept is None:
        return None
    omissions = Omissions()
    omissions.reformatted = what
    return omissions.proposal(kept, text, PADDING_BYTES_PER_TOKEN)


def sniff(text: str) -> float:
    """Ref listings look like many other lists: never claim a text by content."""
    return 0.0
