"""``tersh run -- CMD ARGS…`` / ``tersh run -c 'SHELL STRING'``: the pipeline on a live command.

This runs before every command an agent starts, so the usual forms are parsed by
:func:`quick_main` without argparse; anything else (``--help``, abbreviations, mistakes) goes to
argparse, which defines the one true syntax.

While tersh is disabled the command runs untouched (its output and exit code exactly as without
tersh) and one line on stderr says so: once per session (the agent process, see
``tersh.session``) and again at most every :data:`DISABLED_NOTICE_EVERY_S` seconds, so an agent
that runs hundreds of commands is not flooded with it.
"""

from __future__ import annotations

import sys

from tersh import settings as settings_mod
from tersh.errors import TershError, warn

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from tersh.result import Result

FORMATS = ("text", "json")
#: The disabled notice is repeated within one session after this many seconds.
DISABLED_NOTICE_EVERY_S = 3600
DISABLED_NOTICE = "disabled, so this command ran untouched (turn tersh on: tersh enable)"
#: Where the last disabled notice is remembered (session id and time), in the state folder.
_NOTICE_FILE = "disabled-notice"

HELP_EPILOG = (
    "While tersh is disabled the command runs untouched (same output, same exit code) and one "
    "line on stderr says so, once per agent session and at most once an hour after that. A "
    "command stopped by --timeout exits with 124 and the output ends with "
    "'[tersh] timed out after N s'."
)


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``-c STRING`` or ``-- argv``; ``--timeout``; ``--format``."""
    import argparse

    parser.epilog = HELP_EPILOG
    parser.add_argument(
        "-c", dest="shell_command", metavar="STRING", help="run STRING through the user's shell"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop the command after SECONDS (exit code 124; the output says it timed out)",
    )
    parser.add_argument(
        "--format", choices=list(FORMATS), default="text",
        help="text: what the model reads; json: the whole result record",
    )
    parser.add_argument(
        "--host", default="", metavar="HOST",
        help="bound the preview by that agent host's own inline limit (claude-code, gemini)",
    )
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="the command and its arguments")


def _options(words: Sequence[str]) -> tuple[dict[str, str], list[str]] | None:
    """Split leading ``-c``/``--timeout``/``--format``/``--host`` options (both spellings) from the argv.

    None when anything needs argparse: an unknown or abbreviated option, a missing value, or a
    repeated option.
    """
    options: dict[str, str] = {}
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":  # kept, as argparse keeps it in a REMAINDER; _command drops it
            return options, list(words[index:])
        if not word.startswith("-") or word == "-":
            return options, list(words[index:])
        name, eq, value = word.partition("=")
        if name in ("--timeout", "--format", "--host") and eq:
            index += 1
        elif name in ("--timeout", "--format", "--host", "-c") and not eq:
            if index + 1 >= len(words):
                return None
            value = words[index + 1]
            index += 2
        elif word.startswith("-c") and len(word) > 2:
            name, value = "-c", word[2:]
            index += 1
        else:
            return None
        if name in options:
            return None
        options[name] = value
    return options, []


def quick_main(words: Sequence[str], name: str) -> int | None:
    """Run the usual forms without argparse; None hands ``words`` to argparse instead."""
    split = _options(words)
    if split is None:
        return None
    options, argv = split
    fmt = options.get("--format", "text")
    if fmt not in FORMATS:
        return None
    timeout: float | None = None
    if "--timeout" in options:
        try:
            timeout = float(options["--timeout"])
        except ValueError:
            return None
    return run(options.get("-c"), argv, timeout=timeout, fmt=fmt, host=options.get("--host", ""))


def _checked_timeout(timeout: float | None) -> float | None:
    """``--timeout`` as the runner takes it: 0 and infinity mean none (as in timeout(1));
    a negative or NaN value is a TershError (before anything runs)."""
    if timeout is None:
        return None
    if timeout != timeout or timeout < 0:  # NaN is the one value unequal to itself
        raise TershError(f"--timeout must be a number of seconds >= 0, not {timeout!r}")
    if timeout == 0 or timeout == float("inf"):
        return None
    return timeout


def _command(shell_command: str | None, argv: list[str]) -> str | list[str]:
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if shell_command is not None:
        if argv:
            raise TershError("give either -c STRING or a command after --, not both")
        return shell_command
    if not argv:
        raise TershError("nothing to run: tersh run -- CMD ARGS… or tersh run -c 'STRING'")
    return argv


def main(args: argparse.Namespace, name: str) -> int:
    """Run the command; print what the model should see; return the command's exit code."""
    return run(args.shell_command, list(args.argv), timeout=args.timeout, fmt=args.format,
               host=args.host)


def run(shell_command: str | None, argv: list[str], *, timeout: float | None, fmt: str,
        host: str = "") -> int:
    """Run ``-c shell_command`` or ``argv``; print the model's text; return the exit code.

    ``host`` names the agent host that shows the text (its inline limit bounds the preview).
    """
    from tersh.execution import spawn as runner

    command = _command(shell_command, argv)
    timeout = _checked_timeout(timeout)
    conf, problem = settings_mod.load_or_defaults()
    if problem:
        warn(problem)
    runnable = runner.shell_argv(command) if isinstance(command, str) else command
    if not conf.flag("enabled"):
        import time

        _disabled_notice()
        started = time.monotonic()
        code = runner.run_passthrough(runnable, timeout=timeout)
        stopped = timeout is not None and time.monotonic() - started >= timeout
        if stopped and code == runner.TIMEOUT_EXIT:  # on stderr: stdout stays the command's own
            warn(timed_out_line(timeout or 0).removeprefix("[tersh] "))
        return code
    from tersh._startup import collector
    from tersh.execution import orchestrate

    if host:
        from tersh.hosts import limits

        conf = limits.bounded(conf, host)
    try:
        result = orchestrate.run(command, timeout=timeout, conf=conf)
    except orchestrate.CaptureUnavailable as exc:
        warn(str(exc))
        return runner.run_passthrough(runnable, timeout=timeout)
    except orchestrate.CaptureLost as exc:
        warn(str(exc))
        return exc.exit_code
    finally:
        collector.resume()  # the pause covered start-up, the command and its compaction
    result = with_timeout_note(result)
    out = sys.stdout
    if out is None:  # started with stdout closed: the capture keeps everything
        return result.exit_code
    try:
        if fmt == "json":
            import json

            out.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
        elif result.text:
            out.write(result.text if result.text.endswith("\n") else result.text + "\n")
        out.flush()
    except (OSError, ValueError) as exc:  # a full disk, a closed reader: the code still counts
        from tersh.entry import silence_stdout

        silence_stdout()
        warn(f"could not write the output ({getattr(exc, 'strerror', None) or exc}); it is kept in"
             f" capture {result.capture_id}")
    return result.exit_code



def timed_out_line(timeout: float) -> str:
    """The report line of a command stopped by ``--timeout`` (``[tersh] timed out after 2 s``)."""
    return f"[tersh] timed out after {timeout:g} s (stopped; exit code 124)"


def with_timeout_note(result: Result) -> Result:
    """``result`` whose text ends with :func:`timed_out_line` when the deadline stopped it."""
    limit = result.details.get("timed_out") if isinstance(result.details, dict) else None
    if not isinstance(limit, int | float) or isinstance(limit, bool):
        return result
    text = result.text if not result.text or result.text.endswith("\n") else result.text + "\n"
    from tersh.result import Result

    return Result(**{**result.as_dict(), "text": text + timed_out_line(limit)})


def _disabled_notice() -> None:
    """Say on stderr that tersh is disabled: once per session, then at most once an hour.

    Never fails the command: a profile that cannot be written only means the notice may repeat.
    """
    import os
    import time

    try:
        from tersh.session import session_id

        session = session_id()
        folder = os.path.join(settings_mod.profile_root(), "state")
        path = os.path.join(folder, _NOTICE_FILE)
        now = time.time()
        try:
            with open(path, encoding="utf-8") as handle:
                last_session, _, last_time = handle.read().partition("\n")
            if last_session == session and now - float(last_time or 0) < DISABLED_NOTICE_EVERY_S:
                return
        except (OSError, ValueError):
            pass
        warn(DISABLED_NOTICE)
        settings_mod.ensure_private_dir(folder)
        from tersh.fsutil import replace_file

        replace_file(path, f"{session}\n{now}".encode(), sync=False)
    except Exception:  # fail open: the command runs whatever happens here
        pass
