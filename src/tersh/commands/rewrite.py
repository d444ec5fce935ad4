"""``tersh rewrite CMD [--format json]``: what tersh would execute for a command, and why.

Prints the policy's and the provider's decision without running the command (RTK itself is
asked, as ``run`` would). Hooks and debugging use the JSON form: requested, executed, recorded,
provider, verdict, pipe_filter, reason, classes, plus the policy flags. Plain argv (``tersh rewrite 'git
status'``) is read without argparse, so the command starts about as fast as a bare Python.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not `from typing import …`: keeps `typing` off the quick start-up path
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

FORMATS = ("text", "json")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """The command (one quoted argument, or several joined by spaces; ``-`` reads stdin)."""
    parser.add_argument("command", nargs="+", metavar="CMD", help="the command line, quoted")
    parser.add_argument("--format", choices=list(FORMATS), default="text")
    parser.add_argument("--platform", default=None, help="decide as on this platform (win32…)")


def main(args: argparse.Namespace, name: str) -> int:
    """Decide, ask the provider when allowed, print the outcome."""
    return show(list(args.command), args.format, args.platform)


def quick_main(argv: Sequence[str], name: str) -> int | None:
    """``main`` for plain argv (no argparse); None leaves anything unusual to argparse."""
    words: list[str] = []
    options = {"--format": "text", "--platform": ""}
    index = 0
    while index < len(argv):
        arg = argv[index]
        option, equals, value = arg.partition("=")
        if option in options and equals:
            options[option] = value
        elif arg in options and index + 1 < len(argv):
            options[arg] = argv[index + 1]
            index += 1
        elif arg.startswith("-") and arg != "-":
            return None  # --help, a typo, a command word with a dash: argparse decides
        else:
            words.append(arg)
        index += 1
    if not words or options["--format"] not in FORMATS:
        return None
    return show(words, options["--format"], options["--platform"] or None)


def _command(words: list[str]) -> str:
    if words == ["-"]:
        return sys.stdin.read().removesuffix("\n")
    return " ".join(words)


def show(words: list[str], output_format: str, platform: str | None) -> int:
    """Print what tersh would execute for the command ``words`` (joined by spaces)."""
    from tersh import settings
    from tersh.command import policy
    from tersh.execution import rewrite

    command = _command(words)
    conf, problem = settings.load_or_defaults()
    decision = policy.decide(command, settings=conf, platform=platform)
    outcome = rewrite.rewrite(command, conf, platform=platform)
    report: dict[str, object] = {
        "requested": outcome.requested,
        "executed": outcome.executed,
        "recorded": outcome.recorded,
        "provider": outcome.provider,
        "verdict": outcome.verdict,
        "pipe_filter": outcome.pipe_filter,
        "reason": outcome.reason,
        "classes": list(outcome.classes),
        "bypass": decision.bypass,
        "machine_readable": decision.machine_readable,
        "rewritable": decision.rewritable,
        "enabled": conf.flag("enabled"),
    }
    if problem:
        report["settings_problem"] = problem
    if output_format == "json":
        import json

        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        sys.stdout.write(_text(report))
    return 0


def _text(report: Mapping[str, object]) -> str:
    classes = report["classes"]
    provider = f" ({report['provider']})" if report["provider"] else ""
    lines = [
        f"requested: {report['requested']}",
        f"executed:  {report['executed']}",
        f"verdict:   {report['verdict']}{provider}",
        *([f"filter:    rtk pipe -f {report['pipe_filter']} (verified against the capture)"]
          if report["pipe_filter"] else []),
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
