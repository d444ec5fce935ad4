"""``tersh rewrite CMD [--format json]``: what tersh would execute for a command, and why.

Prints the policy's and the provider's decision without running the command (RTK itself is
asked, as ``run`` would). Hooks and debugging use the JSON form: requested, executed, recorded,
provider, verdict, reason, classes, plus the policy flags.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """The command (one quoted argument, or several joined by spaces; ``-`` reads stdin)."""
    parser.add_argument("command", nargs="+", metavar="CMD", help="the command line, quoted")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--platform", default=None, help="decide as on this platform (win32…)")


def _command(args: argparse.Namespace) -> str:
    words: list[str] = args.command
    if words == ["-"]:
        return sys.stdin.read().removesuffix("\n")
    return " ".join(words)


def main(args: argparse.Namespace, name: str) -> int:
    """Decide, ask the provider when allowed, print the outcome."""
    from tersh import policy, rewrite, settings

    command = _command(args)
    conf, problem = settings.load_or_defaults()
    decision = policy.decide(command, settings=conf, platform=args.platform)
    outcome = rewrite.rewrite(command, conf, platform=args.platform)
    report = {
        "requested": outcome.requested,
        "executed": outcome.executed,
        "recorded": outcome.recorded,
        "provider": outcome.provider,
        "verdict": outcome.verdict,
        "reason": outcome.reason,
        "classes": list(outcome.classes),
        "bypass": decision.bypass,
        "machine_readable": decision.machine_readable,
        "rewritable": decision.rewritable,
        "enabled": conf.flag("enabled"),
    }
    if problem:
        report["settings_problem"] = problem
    if args.format == "json":
        import json

        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return 0
    sys.stdout.write(_text(report))
    return 0


def _text(report: Mapping[str, object]) -> str:
    classes = report["classes"] or []
    lines = [
        f"requested: {report['requested']}",
        f"executed:  {report['executed']}",
        f"verdict:   {report['verdict']}" + (f" ({report['provider']})" if report["provider"] else ""),
        f"reason:    {report['reason'] or '-'}",
        f"classes:   {', '.join(classes) if isinstance(classes, list) and classes else '-'}",
    ]
    flags = [key for key in ("bypass", "machine_readable") if report[key]]
    if flags:
        lines.append(f"policy:    {', '.join(flags)}")
    if not report["enabled"]:
        lines.append("note:      tersh is disabled: commands pass through untouched (tersh enable)")
    if "settings_problem" in report:
        lines.append(f"note:      {report['settings_problem']}")
    return "\n".join(lines) + "\n"
