"""Run one command through the pipeline with fail-open output handling.

Whatever goes wrong inside tersh, the command runs, its exit code is exact and its output
reaches the caller: if the capture cannot be written, what was captured so far and everything
after it go straight to ``fallback`` (the terminal), unbounded.
"""

from __future__ import annotations

import os
import time

from tersh.command import policy
from tersh.errors import warn
from tersh.execution import pipeline
from tersh.execution import spawn as runner
from tersh.recording import captures as capture_store
from tersh.result import Result

TYPE_CHECKING = False  # not `from typing import …`: keeps `typing` off the start-up path
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, BinaryIO

    from tersh.settings import Settings

def shell_join(argv: Sequence[str]) -> str:
    """``argv`` as one shell string, exactly as ``shlex.join`` writes it."""
    from tersh.command import quoting

    return quoting.join(argv)


class CaptureLost(Exception):
    """The capture failed mid-run; the output was sent to the fallback stream instead."""

    def __init__(self, reason: str, exit_code: int) -> None:
        super().__init__(reason)
        self.exit_code = exit_code


class _FailOpenSink:
    """Writes into the capture; on the first failure, replays it to ``fallback`` and streams on.

    Past ``limit`` bytes the capture stops growing and the rest streams to ``fallback`` as well
    (``capped`` counts it). A ``fallback`` that cannot be written costs that output only; once
    its reader is gone (EPIPE) while output streams there, the pipes are closed so the command
    gets SIGPIPE, as it would have written to that reader itself.
    """

    def __init__(self, writer: capture_store.CaptureWriter, fallback: BinaryIO,
                 limit: int | None = None) -> None:
        self.writer = writer
        self.fallback = fallback
        self.failed: str | None = None
        self.limit = limit
        self.capped = 0
        self.fallback_broken = False

    def __call__(self, stream: str, data: bytes) -> None:
        if self.failed is None and not self.capped:
            saved = self.writer.sizes["combined"]
            room = None if self.limit is None else self.limit - saved
            kept = data if room is None or len(data) <= room else data[:max(room, 0)]
            try:
                if kept:
                    self.writer.write(stream, kept)
            except OSError as exc:
                self.failed = f"capture write failed ({exc.strerror or exc}); output shown unbounded"
                self._replay(saved)
            else:
                if len(kept) == len(data):
                    return
                data = data[len(kept):]
        if not self.failed:
            self.capped += len(data)
        self.send(data)

    def send(self, data: bytes) -> None:
        """Write ``data`` to the fallback stream; see the class docstring for its failures."""
        if self.fallback_broken:
            return
        try:
            self.fallback.write(data)
            self.fallback.flush()
        except (OSError, ValueError) as exc:
            self.fallback_broken = True
            if isinstance(exc, BrokenPipeError):
                raise runner.StopReading from exc

    def _replay(self, size: int) -> None:
        try:
            with open(os.path.join(self.writer.folder, "combined"), "rb") as handle:
                remaining = size
                while remaining > 0 and (chunk := handle.read(min(remaining, 1 << 20))):
                    self.send(chunk)
                    remaining -= len(chunk)
        except OSError:
            pass


def _standard_output() -> BinaryIO:
    """Where output goes when the capture fails: stdout, or nowhere when tersh has none (a
    process started with stdout closed still runs its command and keeps its exit code)."""
    import sys

    stream = sys.stdout
    if stream is not None:
        return stream.buffer
    return open(os.devnull, "wb")  # lives as long as the process


def _argv_for(command: str | Sequence[str], executed: str, rewritten: bool) -> list[str]:
    if isinstance(command, str) or rewritten:
        return runner.shell_argv(executed)
    return list(command)


def _rewrite(requested: str, decision: policy.Decision,
             conf: Settings) -> tuple[str, dict[str, Any], tuple[str, str] | None]:
    """What to execute, the rewrite's details, and (RTK path, pipe filter) for a filtered call."""
    if not decision.rewritable:
        return requested, {}, None
    try:
        from tersh.execution import rewrite
    except ImportError:
        return requested, {}, None
    try:
        answer = rewrite.rewrite(requested, conf, decision=decision)
    except Exception as exc:  # any provider failure: the original command runs
        return requested, {"rewrite": {"verdict": "failed", "reason": type(exc).__name__}}, None
    info = {"verdict": answer.verdict, "provider": answer.provider, "reason": answer.reason,
            "recorded": getattr(answer, "recorded", "")}
    pipe = None
    if answer.verdict == "filtered" and answer.pipe_filter:
        info["pipe_filter"] = answer.pipe_filter
        try:
            from tersh.execution.rewrite import rtk

            probe = rtk.current(conf)
            pipe = (probe.path, answer.pipe_filter) if probe.verified else None
        except Exception:  # fail open: tersh's own compaction
            pipe = None
    return answer.executed or requested, {"rewrite": info}, pipe


def _run_captured(argv: list[str], requested: str, cwd: str | None, timeout: float | None,
                  conf: Settings, fallback: BinaryIO | None, merged: bool = True,
                  ) -> tuple[capture_store.CaptureWriter, _FailOpenSink, runner.Exit]:
    """Run ``argv`` into a new capture of ``requested``: (writer, sink, how it ended).

    ``merged``: stdout and stderr share one pipe, so the capture and the model's text keep the
    order the command wrote (as a terminal or the host's own shell tool shows it); a command
    whose stdout is a document runs with separate streams, its stdout byte-exact alone.
    """
    try:
        writer = capture_store.start(requested, cwd, merged)
    except Exception as exc:
        raise CaptureUnavailable(f"cannot create a capture ({exc}); running without tersh") from exc
    sink = _FailOpenSink(writer, fallback or _standard_output(), conf.int("captures.max_bytes"))
    try:
        outcome = runner.run_streaming(argv, sink, timeout=timeout, cwd=cwd, merged=merged)
    except runner.SinkFailed as exc:  # not a write error of the capture: nothing more to save
        writer.abandon()
        raise CaptureLost(f"capture failed ({type(exc.cause).__name__}: {exc})", exc.exit_code) from exc
    except BaseException:
        writer.abandon()
        raise
    return writer, sink, outcome


def run(command: str | Sequence[str], *, timeout: float | None = None, conf: Settings | None = None,
        cwd: str | None = None, fallback: BinaryIO | None = None,
        on_lost: Callable[[str], None] | None = None,
        wrap: Callable[[str], str] | None = None) -> Result:
    """Run ``command`` and return its Result (see tersh.execution.pipeline.run).

    ``wrap`` turns the command to execute into the shell line that really runs (a host's own
    line around it, e.g. Claude Code's shell prefix); the command stays what is classified.
    """
    import sys

    from tersh import settings as settings_mod

    conf = conf or settings_mod.load()
    requested = command if isinstance(command, str) else shell_join(command)
    decision = policy.decide(requested, settings=conf)  # one analysis serves both stages
    executed, details, pipe = _rewrite(requested, decision, conf)
    if wrap is not None:
        argv = runner.shell_argv(wrap(executed))
    else:
        argv = _argv_for(command, executed, executed != requested)
    started = time.monotonic()
    writer, sink, outcome = _run_captured(argv, requested, cwd, timeout, conf, fallback,
                                          merged=not decision.machine_readable)
    cli = sys.modules.get("tersh.cli")
    if cli is not None:
        cli.resume_gc()  # paused during start-up; the pipeline may build many objects
    if sink.failed:
        writer.abandon()
        raise CaptureLost(sink.failed, outcome.code)
    if outcome.timed_out:
        details["timed_out"] = timeout
    if sink.capped:
        details["capture_cut"] = {"kept_bytes": writer.sizes["combined"], "streamed_bytes": sink.capped}
    try:
        cap = writer.finish(outcome.code)
    except OSError as exc:  # disk full while finishing: the output goes out whole, uncaptured
        sink.failed = f"capture could not be finished ({exc.strerror or exc}); output shown unbounded"
        sink._replay(writer.sizes["combined"])
        writer.abandon()
        raise CaptureLost(sink.failed, outcome.code) from exc
    try:
        result = pipeline.process(
            cap, requested=requested, executed=executed, exit_code=outcome.code, conf=conf,
            decision=decision, duration_s=time.monotonic() - started, details=details,
            rtk_pipe=pipe,
        )
    except Exception as exc:  # fail open: the raw captured output, whole
        warn(f"compaction failed ({type(exc).__name__}: {exc}); showing the raw output")
        result = raw_result(cap, requested, executed, outcome.code, f"{type(exc).__name__}: {exc}")
    pipeline._after(result, conf)
    if sink.capped:
        note = capped_note(writer.sizes["combined"], sink.capped)
        result = Result(**{**result.as_dict(), "text": result.text + note, "complete": False})
    return result


def capped_note(kept: int, streamed: int) -> str:
    """The report line saying a capture stopped at its size cap."""
    return (f"\n[tersh: the capture stopped at {kept} bytes (captures.max_bytes); the {streamed}"
            " bytes after it were passed through unprocessed, above this report]\n")


def raw_result(cap: capture_store.Capture, requested: str, executed: str, exit_code: int,
               error: str) -> Result:
    """The unprocessed captured output as a Result (used when the pipeline itself failed)."""
    text = cap.path().read_bytes().decode("utf-8", "replace")
    return Result(
        text=text, exit_code=exit_code, requested_command=requested, executed_command=executed,
        input_bytes=cap.sizes["combined"], output_bytes=len(text.encode("utf-8", "surrogatepass")),
        capture_id=cap.id, captures=cap.refs(), details={"error": error},
    )


class CaptureUnavailable(Exception):
    """No capture could be started: the caller runs the command without tersh."""


def report_lost(reason: str) -> None:
    """Tell the user on stderr that the capture was lost (the output was shown unbounded)."""
    warn(reason)
