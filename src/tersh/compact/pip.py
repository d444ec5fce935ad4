"""Compact ``pip install`` / ``pip download`` / ``pip uninstall``: the outcome, every problem.

Dropped: ``Collecting``, ``Downloading``/``Using cached``, progress bars, ``Requirement already
satisfied``, ``Installing collected packages``, build-step chatter (``Preparing metadata … done``)
and pip's upgrade ``[notice]``. Kept as written: ``Successfully installed …``, every ERROR /
WARNING / DEPRECATION line and whatever follows them, resolver conflicts, build failures, and any
line this rule does not know. ``pip list``/``freeze`` lose only column padding; ``pip show`` is
data and passes unchanged.
"""

from __future__ import annotations

import re

from tersh.compact._omit import SNIFF_CHARS, Omissions, finish, squeeze_spaces
from tersh.compact.base import Invocation

NAME = "pip"
CATEGORY = "packages"
SWITCH = "packages"
PROGRAMS = ("pip", "pip3")

# (label, pattern): lines pip prints while it works, dropped and counted under the label.
_CHATTER: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("download line", re.compile(
        r"^\s*(?:Collecting |Downloading |Using cached |Obtaining |Looking in indexes: "
        r"|Looking in links: |File was already downloaded |Saved |Processing \S)"
    )),
    ("progress bar", re.compile(r"^\s*[━╸╺─ ]{4,}\S* +[\d.]+/[\d.]+ [kMG]?B\b|^\s*\|[█▉▊▋▌▍▎▏ ]*\|")),
    ("'already satisfied' line", re.compile(r"^\s*Requirement already satisfied: ")),
    ("build step", re.compile(
        r"^\s*(?:Installing build dependencies|Getting requirements to build (?:wheel|editable)"
        r"|Preparing (?:metadata|editable metadata) \([^)]*\)|Building wheels? for "
        r"|Building editable for "
        r"|Created wheel for |Stored in directory: |Installing backend dependencies"
        r"|Checking if build backend supports build_editable)"
        r"(?:.*\.\.\. done$|.*)$"
    )),
    ("install step", re.compile(
        r"^\s*(?:Installing collected packages: |Attempting uninstall: "
        r"|Found existing installation: "
        r"|Uninstalling [^:]+:$)"
    )),
    ("pip notice", re.compile(r"^\[notice\] ")),
)
_BUILD_FAILED = re.compile(r"^\s*(?:Building wheel|Running setup\.py).* \.\.\. error$")
_LIST_HEADER = re.compile(r"^Package +Version(?: +.*)?$")
_LIST_RULE = re.compile(r"^-+(?: -+)+$")


def _chatter_label(line: str) -> str | None:
    if _BUILD_FAILED.match(line):
        return None
    for label, pattern in _CHATTER:
        if pattern.match(line):
            return label
    return None


def _install(lines: list[str], source: str) -> str | None:
    kept: list[str] = []
    omissions = Omissions()
    for line in lines:
        label = _chatter_label(line)
        if label == "'already satisfied' line" and " (from " not in line:
            label = None  # a requirement the user named: its state is the command's answer
        if label and omissions.drop(label, line):
            continue
        if not line.strip():
            omissions.blank += 1
            continue
        kept.append(line)
    if not omissions.counts:
        return None
    return finish(kept, omissions, source)


def _listing(lines: list[str], source: str) -> str | None:
    """``pip list``: every name and version stays; the header rule and padding go."""
    if len(lines) < 3 or not _LIST_HEADER.match(lines[0]) or not _LIST_RULE.match(lines[1]):
        return None
    kept = [squeeze_spaces(lines[0]), *(squeeze_spaces(line) for line in lines[2:])]
    omissions = Omissions()
    omissions.reformatted = "column padding and header rule"
    return finish(kept, omissions, source)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop pip's progress chatter, or the padding of ``pip list``; None for other output."""
    lines = text.splitlines()
    command = inv.subcommand if inv.program != "uv" else _uv_pip_command(inv)
    if command == "list":
        return _listing(lines, text)
    if command in {"show", "freeze", "inspect", "config", "debug", "help", "--version", "-V"}:
        return None
    return _install(lines, text)


def _uv_pip_command(inv: Invocation) -> str:
    words = [word for word in inv.args if not word.startswith("-")]
    return words[1] if len(words) > 1 else ""


def sniff(text: str) -> float:
    """Sure when pip's resolver chatter and its outcome line are both there."""
    head = text[:SNIFF_CHARS]
    tail = text[-SNIFF_CHARS:]
    if ("Collecting " in head or "Requirement already satisfied: " in head) and (
        "Successfully installed " in tail or "ERROR: " in tail
    ):
        return 0.95
    return 0.0
