"""``tersh rewrite CMD [--host H] [--format json]``: what the hooks and tersh would do, and why.

Two stages, both without running the command. First each host's hook (or only ``--host H``'s):
the decision comes from the very function the hook calls (``tersh.hosts.<host>``), so it is the
hook's own — wrap, leave, via Claude Code's shell prefix, or compacted after the fact in
OpenCode — with its reason in words; what a hook cannot see from here (Gemini's approval mode,
Codex's approval policy) is assumed and said. Then what ``tersh run`` does inside: the policy's
classes and flags and the RTK provider's answer (RTK itself is asked, as ``run`` would). Plain
argv (``tersh rewrite 'git status'``) is read without argparse, so the command starts about as
fast as a bare Python.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

FORMATS = ("text", "json")


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """The command (one quoted argument, or several joined by spaces; ``-`` reads stdin)."""
    parser.add_argument("command", nargs="+", metavar="CMD", help="the command line, quoted ('-': stdin)")
    parser.add_argument(
        "--host",
        default="",
        metavar="HOST",
        help="what this host's hook does with it, and why (claude-code, codex, gemini, opencode;"
        " all: one line for each)",
    )
    parser.add_argument(
        "--format", choices=list(FORMATS), default="text", help="text: for reading; json: every field"
    )
    parser.add_argument("--platform", default=None, help="decide as on this platform (win32…)")


def main(args: argparse.Namespace, name: str) -> int:
    """Decide, ask the provider when allowed, print the outcome."""
    return show(list(args.command), args.format, args.platform, args.host)


def quick_main(argv: Sequence[str], name: str) -> int | None:
    """``main`` for plain argv (no argparse); None leaves anything unusual to argparse."""
    words: list[str] = []
    options = {"--format": "text", "--platform": "", "--host": ""}
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
    return show(words, options["--format"], options["--platform"] or None, options["--host"])


def _command(words: list[str]) -> str:
    if words == ["-"]:
        return sys.stdin.read().removesuffix("\n")
    return " ".join(words)


def show(words: list[str], output_format: str, platform: str | None, host: str = "") -> int:
    """Print what the hooks and tersh would do with the command ``words`` (joined by spaces)."""
    from tersh import hosts, settings
    from tersh.command import policy
    from tersh.errors import TershError
    from tersh.execution import rewrite

    names: list[str] = []  # no --host: no host module is imported (the quick path stays lean)
    if host == "all":
        names = list(hosts.HOST_MODULES)
    elif host:
        canonical = hosts.canonical_name(host)
        if canonical is None:
            raise TershError(f"unknown host {host!r} (known: {', '.join(hosts.HOST_MODULES)}, all)")
        names = [canonical]
    command = _command(words)
    conf, problem = settings.load_or_defaults()
    decisions = {name: host_decision(name, command, conf.flag("enabled")) for name in names}
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
        "hosts": decisions,
    }
    if problem:
        report["settings_problem"] = problem
    if output_format == "json":
        import json

        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        sys.stdout.write(_text(report, detailed=len(decisions) == 1))
    return 0


#: How each decision reads in the text form.
ACTION_WORDS = {
    "wrap": "wrap: the host runs it through tersh",
    "leave": "leave: the host runs it unchanged, nothing compacted",
    "shell prefix": "via shell prefix: tersh runs the host's own shell line",
    "after the fact": "compacted after the fact: it runs unchanged, its output is compacted",
}


def host_decision(name: str, command: str, enabled: bool) -> dict[str, str | None]:
    """What ``name``'s hook does with ``command``: the function the hook calls, asked here.

    ``assumes`` names what the hook would know and this process cannot (None when nothing is).
    """
    import os

    from tersh import hosts
    from tersh.hosts.shell_rewrite import Decision, leave

    assumes = None
    if not enabled:
        decision: Decision = leave("tersh is disabled: every hook passes commands through (tersh enable)")
    elif name == "gemini":
        from tersh.hosts import gemini

        decision = gemini.decide(command, hosts.tersh_command(), os.getcwd(), assume_yolo=True)
        assumes = gemini.ASSUMED_SESSION
    elif name == "codex":
        from tersh.hosts import codex

        decision = codex.decide(command, hosts.tersh_command(), os.getcwd(), codex.NEVER_ASK_MODE)
        assumes = codex.ASSUMED_SESSION
    else:
        module = hosts.load(name)
        decision = module.shell_decision(command)  # type: ignore[attr-defined]
    return {"action": decision.action, "command": decision.command, "reason": decision.reason,
            "assumes": assumes}


def _host_lines(decisions: Mapping[str, Mapping[str, str | None]], detailed: bool) -> list[str]:
    if not decisions:
        return ["hooks:     --host H shows what a host's hook does with it (H: claude-code, codex,"
                " gemini, opencode, or all)"]
    if not detailed:
        lines = ["hooks (what each host does with it; --host H for the whole reason):"]
        for name, decision in decisions.items():
            words = ACTION_WORDS.get(str(decision["action"]), str(decision["action"]))
            if decision["action"] == "leave":  # the reason is the one thing to act on
                words = f"leave: {decision['reason']}"
            lines.append(f"  {name:<12} {words}")
        return lines
    ((name, decision),) = decisions.items()
    lines = [
        f"host:      {name}",
        f"decision:  {ACTION_WORDS.get(str(decision['action']), decision['action'])}",
        *([f"runs:      {decision['command']}"] if decision["command"] else []),
        f"why:       {decision['reason']}",
    ]
    if decision["assumes"]:
        lines.append(f"assumes:   {decision['assumes']}")
    return lines


def _text(report: Mapping[str, object], *, detailed: bool = False) -> str:
    from tersh.commands.rtk import ABOUT, HOW_TO_GET

    classes = report["classes"]
    decisions = report["hosts"]
    lines = [f"command:   {report['requested']}"]
    if isinstance(decisions, dict):
        lines += _host_lines(decisions, detailed)
    lines.append("inside tersh run:")
    lines.append(f"  classes: {', '.join(classes) if isinstance(classes, list) and classes else '-'}")
    flags = [key for key in ("bypass", "machine_readable") if report[key]]
    if flags:
        lines.append(f"  policy:  {', '.join(flags)}")
    unused = report["provider"] == "rtk" and report["verdict"] == "skipped"
    if unused:
        lines.append(f"  RTK:     not used ({report['reason'] or '-'}); tersh compacts on its own")
    else:
        provider = f" ({report['provider']})" if report["provider"] else ""
        lines += [
            f"  RTK:     {report['verdict']}{provider}: {report['reason'] or '-'}",
            f"  runs:    {report['executed']}",
        ]
        if report["pipe_filter"]:
            lines.append(f"  filter:  rtk pipe -f {report['pipe_filter']} (verified against the capture)")
    if detailed:
        lines.append(f"           {ABOUT}" + (f" Get it: {HOW_TO_GET}" if unused else ""))
    if not report["enabled"]:
        lines.append("note:      tersh is disabled: commands pass through untouched (tersh enable)")
    if "settings_problem" in report:
        lines.append(f"note:      {report['settings_problem']}")
    return "\n".join(lines) + "\n"
