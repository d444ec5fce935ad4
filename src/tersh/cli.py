"""``tersh`` command line: parse the command name, import only that command, dispatch.

Each command lives in ``tersh.commands.<module>`` with ``add_arguments(parser)`` and
``main(args) -> int``. Only the chosen command's module is imported, so the hook and ``run`` paths
stay lean.
"""

from __future__ import annotations

import sys

from tersh.errors import TershError, warn

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import NamedTuple
else:
    from tersh._startup.lean import NamedTuple


class Command(NamedTuple):
    """A subcommand: the module that implements it and its one-line help."""

    module: str
    help: str


COMMANDS: dict[str, Command] = {
    "run": Command("run", "run a command; print its compacted, bounded output; keep its exit code"),
    "compact": Command("compact", "compact recorded output (files or stdin) as `run` would"),
    "retrieve": Command("retrieve", "page through or search a capture"),
    "rewrite": Command("rewrite", "show what each host's hook and tersh would do with a command, and why"),
    "status": Command("status", "enabled?, switches, RTK, this session's savings"),
    "gain": Command("gain", "savings history: totals, by program, by category, by day"),
    "enable": Command("toggle", "turn optimisation on (takes effect on the next command)"),
    "disable": Command("toggle", "turn optimisation off (commands pass through untouched)"),
    "settings": Command("settings", "show, get or set settings"),
    "rtk": Command("rtk", "RTK provider: `tersh rtk retry` re-probes"),
    "init": Command("init", "install tersh into an agent host's settings"),
    "uninit": Command("init", "remove tersh from an agent host's settings"),
    "hook": Command("hook", "agent host hook entry point (reads the host's JSON on stdin)"),
    "tool": Command("tool", "compress one tool output (JSON on stdin) for a host"),
    "serve": Command("serve", "long-lived JSON-lines compression service (`--stdio`)"),
    "mcp": Command("mcp", "MCP server on stdio: run, retrieve, search, stats"),
    "ui": Command("ui", "the local settings page"),
}


def _parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="tersh",
        description="Cut command and tool output reaching an AI agent to what it needs; "
        "every byte stays in a capture you can page and search.",
    )
    parser.add_argument("--version", action="version", version=f"tersh {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        sub.add_parser(name, help=command.help, add_help=False)
    return parser


def _version() -> str:
    from tersh.entry import VERSION

    return VERSION


def entry() -> None:
    """The ``tersh`` console script: :func:`main`, then exit.

    ``tersh run`` and ``tersh hook`` run before every command and tool call of an agent, and a
    normal interpreter exit costs them ~2 ms (a last full collection and the teardown of every
    module). Their output is flushed and the process ends at once with ``os._exit``; nothing on
    those paths registers exit handlers or keeps buffers elsewhere. Every other command exits
    normally.
    """
    from tersh._startup import fastimport

    fastimport.install()  # tersh's own modules by the short path (what the path finder finds)
    _entered.append(True)
    code = main()
    if _fast_exit:
        import os

        programs = sys.modules.get("tersh._startup.reprograms")
        if programs is not None:
            programs.save()  # os._exit runs no exit handler

        try:
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            code = code or 141
        except AttributeError:  # started with stdout closed
            pass
        try:
            sys.stderr.flush()
        except (BrokenPipeError, ValueError, AttributeError):
            pass
        os._exit(code & 0xFF if code >= 0 else 1)
    sys.exit(code)


_fast_exit: list[bool] = []
_entered: list[bool] = []  # main() runs under entry(): a hook or run process ends with os._exit


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tersh`` console script."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"] or args[:1] == ["run"]:
        from tersh._startup import collector

        # `tersh run` resumes it once the output is compacted, unless the process then exits
        collector.pause(until_exit=bool(_entered))
        _fast_exit.append(True)
    if len(args) == 2 and args[0] == "hook" and not args[1].startswith("-"):
        from tersh.commands import hook  # hot path (every tool call): no argparse at all

        return hook.run(args[1])
    if not args or args[0] not in COMMANDS:
        parser = _parser()
        if not args:
            parser.print_help()
            return 2
        parser.parse_args(args)  # prints usage/--help/--version and exits
        return 2
    name, rest = args[0], args[1:]
    command = COMMANDS[name]
    module = __import__(f"tersh.commands.{command.module}", fromlist=["main"])  # no importlib
    quick = getattr(module, "quick_main", None)  # plain argv a command parses without argparse
    if quick is not None:
        code = _guarded(lambda: quick(rest, name))
        if code is not None:
            return int(code)
    import argparse

    parser = argparse.ArgumentParser(prog=f"tersh {name}", description=command.help)
    module.add_arguments(parser, name)
    namespace = parser.parse_args(rest)
    code = _guarded(lambda: int(module.main(namespace, name)))
    return 0 if code is None else int(code)


def _guarded(body: Callable[[], int | None]) -> int | None:
    """Run a command's body; a TershError, ^C or a closed pipe becomes an exit code."""
    try:
        return body()
    except TershError as exc:
        warn(str(exc))
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`tersh gain | head`): not an error worth a traceback.
        from tersh.entry import silence_stdout

        silence_stdout()
        return 141
    except OSError as exc:  # a full disk, a read-only or broken profile: one line, not a trace
        where = f" ({exc.filename})" if exc.filename else ""
        warn(f"{exc.strerror or exc}{where}")
        return 1
    except Exception as exc:
        sqlite3 = sys.modules.get("sqlite3")
        if sqlite3 is None or not isinstance(exc, sqlite3.Error):
            raise
        warn(f"a database in the profile is unusable ({type(exc).__name__}: {exc})")
        return 1
