"""Compact ``apt``/``apt-get``: what was installed or removed, and every problem.

Install/remove/upgrade: the ``Reading package lists...`` trio, ``Get:N`` downloads, the ``Need to
get``/``After this operation``/``Fetched`` size lines, dpkg's ``Selecting/Preparing to
unpack/Unpacking``, the ``(Reading database ...`` counter, trigger runs, progress bars, the
container-only ``debconf:`` frontend notes and the ``Suggested``/``Recommended packages`` lists
(nothing of them is installed) go. A simulation (``-s``) keeps its ``Inst``/``Remv`` lines without
their archive and architecture, and drops the ``Conf`` line that repeats each ``Inst``. Kept as
written: the package lists apt acts on, the ``N upgraded, N newly installed…`` summary, every
``Setting up``/``Removing`` line (without its trailing `` ...``), ``E:``/``W:``/``N:`` lines and
dpkg errors. ``update``: each ``Get:N``/``Hit:N`` line loses its counter and size, the rest stays.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import PADDING_BYTES_PER_TOKEN
from tersh.compaction.kit.omit import SNIFF_CHARS, Chatter, Omissions, drop_lines

NAME = "apt"
CATEGORY = "packages"
PROGRAMS = ("apt", "apt-get", "aptitude")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (
    "Reading package lists...",
    "Selecting previously unselected package ",
)

_CHATTER = Chatter({
    "download line": r"(?:Get|Hit|Ign):\d+ \S+ ",
    "dpkg progress line": (
        r"(?:Reading package lists\.\.\.|Building dependency tree\.\.\."
        r"|Reading state information\.\.\.|Calculating upgrade\.\.\."
        r"|\(Reading database \.\.\..*|Selecting previously unselected package \S+\."
        r"|Preparing to unpack \S+ \.\.\.|Unpacking \S+ \(.*\)(?: over \(.*\))? \.\.\."
        r"|Processing triggers for \S+ \(.*\) \.\.\.|Progress: \[ *\d+%\].*)(?: Done)?$"
    ),
    "size line": (
        # "Need to get 0 B/13.2 kB of archives." stays: the verifier reads "B/13.2" as a path.
        r"(?:Need to get [\d.,]+ [kMG]?B of archives\."
        r"|After this operation, [\d.,]+ [kMG]?B (?:of additional )?disk space will be \w+\."
        r"|Fetched [\d.,]+ [kMG]?B in \S+ \([\d.,]+ [kMG]?B/s\))$"
    ),
    "simulated configure line": r"Conf \S+ \([^()]*\)(?: \[[^\]]*\])*$",
    "debconf note": (
        r"debconf: (?:delaying package configuration, since apt-utils is not installed"
        r"|unable to initialize frontend: \w+|\(.*\)|falling back to frontend: \w+)$"
    ),
})
# A "Suggested packages:" / "Recommended packages:" header and its indented lines.
_UNCHOSEN = lazy(r"^(?:Suggested|Recommended) packages:\n(?:  .*(?:\n|$))*", MULTILINE)
_STEPS = ("Setting up ", "Removing ", "Purging configuration files for ")
_SIMULATED_STEPS = frozenset({"Inst ", "Remv "})
# "Inst jq [1.6-2.1+deb12u1] (1.6-2.1+deb12u3 Debian:12.15/oldstable [amd64])"
# (a trailing "[]" or "[pkg ...]" names what the step breaks: it stays)
_SIMULATED = lazy(
    r"^(?P<kept>(?:Inst|Remv) \S+(?: \[[^\]]*\])? \(\S+) [^()]*\)(?P<tail>(?: \[[^\]]*\])*)$"
)
_INDEX = lazy(r"^(?P<kind>Get|Hit|Ign):\d+ (?P<what>\S+ .*?)(?: \[[\d.,]+ [kMG]?B\])?$")


def _update(lines: list[str], source: str) -> str | None:
    omissions = Omissions()
    omissions.reformatted = "download counters and sizes"
    kept = []
    for line in lines:
        match = _INDEX.match(line)
        kept.append(f"{match['kind']} {match['what']}" if match else line)
    return omissions.proposal(kept, source, PADDING_BYTES_PER_TOKEN) if kept != lines else None


def _without_unchosen(text: str, omissions: Omissions) -> str:
    """``text`` without the ``Suggested``/``Recommended packages:`` lists (none is installed)."""
    if "Suggested packages:\n" not in text and "Recommended packages:\n" not in text:
        return text
    text, number = _UNCHOSEN.subn("", text)
    omissions.count("suggested/recommended package list", number)
    return text


def _tidy(line: str, omissions: Omissions) -> str:
    """A kept dpkg step without its `` ...``; a simulated step without archive and architecture."""
    if line.endswith(" ...") and line.startswith(_STEPS):
        return line[:-4]
    if line[:5] in _SIMULATED_STEPS:
        simulated = _SIMULATED.match(line)
        if simulated:
            omissions.count("archive origin")
            return f"{simulated['kept']}){simulated['tail']}"
    return line


def compact(text: str, inv: Invocation) -> str | None:
    """Drop apt/dpkg progress chatter; None when there is none."""
    if inv.subcommand == "update":
        return _update(text.splitlines(), text)
    omissions = Omissions()
    kept = drop_lines(_without_unchosen(text, omissions), _CHATTER, omissions)
    if not omissions.counts:
        return None
    tidied = [
        _tidy(line, omissions) if line.endswith(" ...") or line[:5] in _SIMULATED_STEPS else line
        for line in kept
    ]
    return omissions.proposal(tidied, text)


def sniff(text: str) -> float:
    """Sure when apt's opening trio or dpkg's unpack lines are there."""
    head = text[:SNIFF_CHARS]
    if "Reading package lists..." in head and (
        "Building dependency tree" in head or "newly installed" in head
    ):
        return 0.95
    return 0.9 if "Selecting previously unselected package " in head else 0.0
