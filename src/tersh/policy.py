"""What tersh may do with a command: bypass marker, machine-readable output (placeholder).

This minimal version is replaced by the full policy (shell lexer, search commands, lossy git
forms, per-class switches); the ``decide`` signature and the Decision fields stay.
"""

from __future__ import annotations

import re
from typing import NamedTuple

BYPASS_MARKER = "# no-opt"

_MACHINE = re.compile(
    r"(?:^|\s)(?:--json\b|--porcelain\b|--format[= ]json\b|--output-format[= ]json\b|-o ?json\b"
    r"|--jq\b|--template\b|--reporter[= ]json\b)|\|\s*jq\b"
)


class Decision(NamedTuple):
    """The policy's answer for one command string."""

    command: str  # the command to execute (the marker stripped when that is safe)
    bypass: bool  # the user asked for no optimisation (`# no-opt`)
    machine_readable: bool  # output is a document: no filtering at all
    rewritable: bool  # a rewrite provider may be asked
    reason: str  # why not rewritable / why bypassed ('' when nothing applies)
    classes: tuple[str, ...] = ()  # the per-class switch names the command touches


def decide(command: str) -> Decision:
    """Classify ``command`` (never executes anything)."""
    stripped = command.rstrip()
    if stripped.endswith(BYPASS_MARKER):
        return Decision(command, True, False, False, "bypass marker")
    if _MACHINE.search(command):
        return Decision(command, False, True, False, "machine-readable output requested")
    return Decision(command, False, False, True, "")
