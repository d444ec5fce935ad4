"""``tersh run -- CMD ARGS…`` / ``tersh run -c 'SHELL STRING'``: the pipeline on a live command."""

from __future__ import annotations

import argparse
import json
import sys

from tersh import settings as settings_mod
from tersh.errors import TershError, warn


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``-c STRING`` or ``-- argv``; ``--timeout``; ``--format``."""
    parser.add_argument("-c", dest="shell_command", metavar="STRING",
                        help="run STRING through the user's shell")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop the command after SECONDS (exit code 124)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="the command and its arguments")


def _command(args: argparse.Namespace) -> str | list[str]:
    argv = list(args.argv)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if args.shell_command is not None:
        if argv:
            raise TershError("give either -c STRING or a command after --, not both")
        return str(args.shell_command)
    if not argv:
        raise TershError("nothing to run: tersh run -- CMD ARGS… or tersh run -c 'STRING'")
    return argv


def main(args: argparse.Namespace, name: str) -> int:
    """Run the command; print what the model should see; return the command's exit code."""
    from tersh import execute, runner

    command = _command(args)
    conf, problem = settings_mod.load_or_defaults()
    if problem:
        warn(problem)
    argv = runner.shell_argv(command) if isinstance(command, str) else command
    if not conf.flag("enabled"):
        return runner.run_passthrough(argv, timeout=args.timeout)
    try:
        result = execute.run(command, timeout=args.timeout, conf=conf)
    except execute.CaptureUnavailable as exc:
        warn(str(exc))
        return runner.run_passthrough(argv, timeout=args.timeout)
    except execute.CaptureLost as exc:
        warn(str(exc))
        return exc.exit_code
    out = sys.stdout
    if args.format == "json":
        out.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
    elif result.text:
        out.write(result.text if result.text.endswith("\n") else result.text + "\n")
    out.flush()
    return result.exit_code
