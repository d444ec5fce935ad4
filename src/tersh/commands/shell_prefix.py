"""``tersh-shell-prefix LINE``: Claude Code's ``CLAUDE_CODE_SHELL_PREFIX`` executable.

Its own console script, not a ``tersh`` subcommand: Claude Code 2.1.332 splits the variable's
value into words only when the second word starts with ``-``; otherwise it runs the whole value
as one program path, so ``tersh shell-prefix`` would name a file that does not exist.

Claude Code runs every shell command it spawns as ``<prefix> LINE`` (see
``tersh.hosts.claude_prefix`` for the shapes, https://code.claude.com/docs/en/env-vars for the
variable). The host has already judged the requested command with its own permission rules;
tersh only changes how the result is shown:

* a Bash tool line, tersh enabled: the host's whole line runs through tersh's pipeline
  (compaction, captures, the exact exit code), classified by the requested command;
* everything else — hooks, stdio MCP servers, tersh disabled, a line of another shape, any
  error inside tersh before the command started — is replaced by the shell the host itself would
  have used, with ``exec`` (no pipeline, no extra process, bytes untouched).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NoReturn

    from tersh.hosts.claude_prefix import BashLine
    from tersh.settings import Settings

#: What the host runs hooks and stdio MCP server lines with when no prefix is set.
PLAIN_SHELL = "/bin/sh"


def entry() -> None:
    """The ``tersh-shell-prefix`` console script: :func:`run` on the arguments, then exit.

    Ends with ``os._exit`` after flushing, as ``tersh run`` does (no interpreter teardown).
    """
    code = run(sys.argv[1:])
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError, AttributeError):
        code = code or 141
    try:  # noqa: SIM105 - start-up path: no contextlib
        sys.stderr.flush()
    except (BrokenPipeError, ValueError, AttributeError):
        pass
    programs = sys.modules.get("tersh._startup.reprograms")
    if programs is not None:
        programs.save()  # os._exit runs no exit handler
    os._exit(code & 0xFF if code >= 0 else 1)


def run(words: Sequence[str]) -> int:
    """Run what the host handed over; return its exit code (most paths never return: exec)."""
    if len(words) != 1:
        _exec_argv(list(words))
    line = words[0]
    from tersh.hosts import claude_prefix

    if not claude_prefix.is_bash_tool_line(line):
        _exec_argv([PLAIN_SHELL, "-c", line])
    started: list[bool] = []
    try:
        parsed = claude_prefix.parse_bash_line(line)
        from tersh.commands.hook import quick_enabled

        if parsed is not None and quick_enabled() is not False:
            return _through_pipeline(parsed, started)
    except BaseException as exc:
        if started:  # the command ran (or may have): never run it twice
            _report(exc)
            return 1
        _debug(exc)
    _exec_argv(_host_shell(line))


def _host_shell(line: str) -> list[str]:
    """The argv the host itself would run a Bash line with (``$SHELL -c``, as tersh picks it)."""
    try:
        from tersh.execution import spawn as runner

        return runner.shell_argv(line)
    except Exception:  # fail open: any shell rather than no command
        shell = os.environ.get("SHELL", "")
        return [shell if os.path.isabs(shell) else "/bin/sh", "-c", line]


def _through_pipeline(parsed: BashLine, started: list[bool]) -> int:
    from tersh._startup import collector

    collector.pause()  # as for `tersh run`; this process exits with it paused
    from tersh import settings
    from tersh.execution import orchestrate

    conf, problem = settings.load_or_defaults()
    if problem or not conf.flag("enabled"):
        raise _PassThrough(problem or "disabled")

    def wrap(command: str) -> str:
        started.append(True)
        return parsed.with_command(command)

    try:
        result = orchestrate.run(parsed.command, conf=bounded(conf), wrap=wrap)
    except orchestrate.CaptureUnavailable as exc:  # raised before the command starts
        from tersh.errors import warn

        warn(str(exc))  # one line on stderr, as `tersh run` says it; then the line runs as is
        started.clear()
        raise _PassThrough(str(exc)) from exc
    except orchestrate.CaptureLost as exc:
        from tersh.errors import warn

        warn(str(exc))
        return exc.exit_code
    out = sys.stdout
    if out is not None and result.text:
        out.write(result.text if result.text.endswith("\n") else result.text + "\n")
        out.flush()
    return result.exit_code


def bounded(conf: Settings) -> Settings:
    """``conf`` with the preview bound no larger than Claude Code's inline limit."""
    from tersh.hosts import limits

    return limits.bounded(conf, "claude-code")


class _PassThrough(Exception):
    """tersh steps aside before the command started: the host's line runs unchanged."""


def _exec_argv(argv: list[str]) -> NoReturn:
    """Replace this process with ``argv`` (stdio, environment and cwd unchanged)."""
    if not argv:
        os._exit(0)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"{argv[0]}: {exc.strerror}\n")
        os._exit(127 if isinstance(exc, FileNotFoundError) else 126)


def _report(exc: BaseException) -> None:
    try:  # noqa: SIM105 - start-up path: no contextlib
        sys.stderr.write(f"tersh: {type(exc).__name__}: {exc}\n")
    except (OSError, ValueError, AttributeError):
        pass


def _debug(exc: BaseException) -> None:
    if os.environ.get("TERSH_DEBUG"):
        _report(exc)
