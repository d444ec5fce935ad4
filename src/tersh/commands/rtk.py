"""``tersh rtk retry`` re-probes RTK; ``tersh rtk status`` shows the cached probe.

A failed probe keeps its reason (shown here and in ``tersh status``) and changes nothing about
how commands run: without a verified RTK only rewriting is off.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tersh.execution.rewrite.rtk import Probe


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``status`` (default) or ``retry``; ``--format json``."""
    parser.add_argument("action", nargs="?", default="status", choices=["status", "retry"])
    parser.add_argument("--format", choices=["text", "json"], default="text")


def main(args: argparse.Namespace, name: str) -> int:
    """Probe (cached for ``status``, fresh for ``retry``) and print the result.

    Exit 0 when RTK is verified, 1 when it is not (the reason is printed either way).
    """
    from tersh import settings
    from tersh.execution.rewrite import rtk

    conf, _ = settings.load_or_defaults()
    probe = rtk.retry(conf) if args.action == "retry" else rtk.current(conf)
    if args.format == "json":
        import json

        sys.stdout.write(json.dumps(probe._asdict(), indent=2) + "\n")
    else:
        sys.stdout.write(describe(probe) + "\n")
    return 0 if probe.verified else 1


def describe(probe: Probe) -> str:
    """One line for a probe: version and path when verified, else the reason."""
    if probe.verified:
        return f"rtk {probe.version} at {probe.path} (verified {probe.checked_at})"
    if probe.found:
        return f"rtk found at {probe.path} but not used: {probe.reason} ({probe.checked_at})"
    return f"rtk not in use: {probe.reason} ({probe.checked_at})"
