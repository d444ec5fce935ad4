"""Compact ``apt``/``apt-get``: what was installed or removed, and every problem.

Install/remove/upgrade: the ``Reading package lists...`` trio, ``Get:N`` downloads, dpkg's
``Selecting/Preparing to unpack/Unpacking``, the ``(Reading database ...`` counter, trigger
runs, progress bars and the container-only ``debconf:`` frontend notes go. Kept as written: the
package lists apt announces, the ``N upgraded, N newly installed…`` summary, sizes, every
``Setting up``/``Removing`` line, ``E:``/``W:``/``N:`` lines and dpkg errors.
``update``: each ``Get:N``/``Hit:N`` line loses its counter and size, the rest stays.
"""

from __future__ import annotations

import re

from tersh.compact._omit import (
    MIN_SQUEEZED_BYTES,
    SNIFF_CHARS,
    Chatter,
    Omissions,
    drop_lines,
    finish,
)
from tersh.compact.base import Invocation

NAME = "apt"
CATEGORY = "packages"
SWITCH = "packages"
PROGRAMS = ("apt", "apt-get", "aptitude")

_CHATTER = Chatter({
    "download line": r"(?:Get|Hit|Ign):\d+ \S+ ",
    "dpkg progress line": (
        r"(?:Reading package lists\.\.\.|Building dependency tree\.\.\."
        r"|Reading state information\.\.\."
        r"|\(Reading database \.\.\..*|Selecting previously unselected package \S+\."
        r"|Preparing to unpack \S+ \.\.\.|Unpacking \S+ \(.*\)(?: over \(.*\))? \.\.\."
        r"|Processing triggers for \S+ \(.*\) \.\.\.|Progress: \[ *\d+%\].*)(?: Done)?$"
    ),
    "debconf note": (
        r"debconf: (?:delaying package configuration, since apt-utils is not installed"
        r"|unable to initialize frontend: \w+|\(.*\)|falling back to frontend: \w+)$"
    ),
})
_INDEX = re.compile(r"^(?P<kind>Get|Hit|Ign):\d+ (?P<what>\S+ .*?)(?: \[[\d.,]+ [kMG]?B\])?$")


def _update(lines: list[str], source: str) -> str | None:
    omissions = Omissions()
    omissions.reformatted = "download counters and sizes"
    kept = []
    for line in lines:
        match = _INDEX.match(line)
        kept.append(f"{match['kind']} {match['what']}" if match else line)
    return finish(kept, omissions, source, MIN_SQUEEZED_BYTES) if kept != lines else None


def compact(text: str, inv: Invocation) -> str | None:
    """Drop apt/dpkg progress chatter; None when there is none."""
    if inv.subcommand == "update":
        return _update(text.splitlines(), text)
    omissions = Omissions()
    kept = drop_lines(text, _CHATTER, omissions)
    if not omissions.counts:
        return None
    return finish(kept, omissions, text)


def sniff(text: str) -> float:
    """Sure when apt's opening trio or dpkg's unpack lines are there."""
    head = text[:SNIFF_CHARS]
    if "Reading package lists..." in head and (
        "Building dependency tree" in head or "newly installed" in head
    ):
        return 0.95
    return 0.9 if "Selecting previously unselected package " in head else 0.0
