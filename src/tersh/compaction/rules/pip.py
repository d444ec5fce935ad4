"""Compact ``pip install`` / ``pip download`` / ``pip uninstall``: the outcome, every problem.

Dropped: ``Collecting``, ``Downloading``/``Using cached``, progress bars, ``Requirement already
satisfied``, ``Installing collected packages``, build-step chatter (``Preparing metadata … done``),
the caret marks under a build traceback's source lines and pip's upgrade ``[notice]``. Kept as
written: ``Successfully installed …``, where ``pip download``/``pip wheel`` put each file
(``Saved …``, ``File was already downloaded …``: the command's answer), every ERROR / WARNING /
DEPRECATION line and whatever follows them, resolver conflicts, build failures, and any line this
rule does not know. ``pip list``/``freeze`` lose only column padding; ``pip show`` is data and
passes unchanged.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import PADDING_BYTES_PER_TOKEN
from tersh.compaction.kit.omit import SNIFF_CHARS, Chatter, Omissions, drop_lines, squeeze_spaces

NAME = "pip"
CATEGORY = "packages"
PROGRAMS = ("pip", "pip3")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("Collecting ", "Requirement already satisfied: ")

# label -> shape of the lines pip prints while it works (dropped, counted under the label).
_CHATTER = Chatter({
    "download line": (
        r"\s*(?:Collecting |Downloading |Using cached |Obtaining |Looking in indexes: "
        r"|Looking in links: |Processing \S)"
    ),
    "progress bar": r"\s*[━╸╺─ ]{4,}\S* +[\d.]+/[\d.]+ [kMG]?B\b|\s*\|[█▉▊▋▌▍▎▏ ]*\|",
    # Only dependencies: a requirement the user named is the command's answer.
    "'already satisfied' line": r"\s*Requirement already satisfied: (?=.* \(from )",
    "build step": (
        r"\s*(?:Installing build dependencies|Getting requirements to build (?:wheel|editable)"
        r"|Preparing (?:metadata|editable metadata) \([^)]*\)|Building wheels? for "
        r"|Building editable for |Created wheel for |Stored in directory: "
        r"|Installing backend dependencies|Checking if build backend supports build_editable)"
        r"(?!.* \.\.\. error$)"
    ),
    "install step": (
        r"\s*(?:Installing collected packages: |Attempting uninstall: "
        r"|Found existing installation: |Uninstalling [^:]+:$)"
    ),
    "pip notice": r"\[notice\] ",
    # The ^^^^ / ~~~^^^ marks under a traceback's source lines (its File "…" lines all stay).
    "traceback caret line": r"\s*~*\^+[~^]*\s*$",
})
_LIST_HEADER = lazy(r"^Package +Version(?: +.*)?$")
_LIST_RULE = lazy(r"^-+(?: -+)+$")


def _install(text: str) -> str | None:
    omissions = Omissions()
    kept = drop_lines(text, _CHATTER, omissions)
    if not omissions.counts:
        return None
    return omissions.proposal(kept, text)


def _listing(source: str) -> str | None:
    """``pip list``: every name and version stays; the header rule and padding go."""
    lines = source.splitlines()
    if len(lines) < 3 or not _LIST_HEADER.match(lines[0]) or not _LIST_RULE.match(lines[1]):
        return None
    kept = [squeeze_spaces(lines[0]), *(squeeze_spaces(line) for line in lines[2:])]
    omissions = Omissions()
    omissions.reformatted = "column padding and header rule"
    return omissions.proposal(kept, source, PADDING_BYTES_PER_TOKEN)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop pip's progress chatter, or the padding of ``pip list``; None for other output."""
    command = inv.subcommand if inv.program != "uv" else _uv_pip_command(inv)
    if command == "list":
        return _listing(text)
    if command in {"show", "freeze", "inspect", "config", "debug", "help", "--version", "-V"}:
        return None
    return _install(text)


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
