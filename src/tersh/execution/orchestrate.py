"""The stage order of one live command (SPEC §1), and the one record carried through it.

    policy decision -> rewrite -> spawn into a capture -> compaction -> record -> report

:func:`run` builds a :class:`Call` (the command lexed once), hands it to each stage in turn and
takes each stage's answer back; no stage calls another or reaches up to its caller. Everything
after the command has run fails open: the caller always gets the output and the command's own
exit code. (``tersh.execution.pipeline.compact`` is the same order for output recorded elsewhere:
store -> policy -> compaction -> record.)
"""

from __future__ import annotations

import os
import time

from tersh.command import parsed as parsing
from tersh.command import policy
from tersh.execution import execute, pipeline
from tersh.execution import spawn as runner
from tersh.execution.execute import CaptureLost as CaptureLost  # raised to the caller of run()
from tersh.execution.execute import CaptureUnavailable as CaptureUnavailable
from tersh.recording import calls as recording
from tersh.result import Result, utf8_len

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, BinaryIO

    from tersh.recording.captures import Capture
    from tersh.settings import Settings


class Call:
    """One command on its way through the stages: each stage reads it and fills in its part.

    ``requested`` is the command the model asked for (what the policy, compaction and ledger
    judge); ``executed`` what really runs after a rewrite; ``parsed`` its one lexing (program,
    arguments, class); ``result`` (with the rule that compacted it) comes from compaction.
    """

    __slots__ = (
        "argv",
        "capture",
        "conf",
        "decision",
        "details",
        "duration_s",
        "executed",
        "exit_code",
        "parsed",
        "requested",
        "result",
        "rtk_pipe",
    )

    def __init__(
        self,
        requested: str,
        argv: list[str] | None,
        parsed: parsing.Parsed,
        decision: policy.Decision,
        conf: Settings,
    ) -> None:
        self.requested = requested
        self.argv = argv  # the argv the caller gave (run as it is unless rewritten), else None
        self.parsed = parsed
        self.decision = decision
        self.conf = conf
        self.executed = requested
        self.details: dict[str, Any] = {}
        self.rtk_pipe: tuple[str, str] | None = None  # (RTK path, pipe filter) of a filtered call
        self.capture: Capture | None = None
        self.exit_code = 0
        self.duration_s = 0.0
        self.result: Result | None = None


def prepare(command: str | Sequence[str], conf: Settings) -> Call:
    """The policy stage: lex ``command`` once and decide what tersh may do with it.

    Nothing has run yet when this raises (a policy bug): the caller may still run it plainly.
    """
    requested = command if isinstance(command, str) else execute.shell_join(command)
    found = parsing.parse(requested)
    decision = policy.decide(requested, settings=conf, script=found.script)
    return Call(requested, None if isinstance(command, str) else list(command), found, decision, conf)


def run(
    command: str | Sequence[str],
    *,
    timeout: float | None = None,
    conf: Settings | None = None,
    cwd: str | os.PathLike[str] | None = None,
    fallback: BinaryIO | None = None,
    wrap: Callable[[str], str] | None = None,
) -> Result:
    """Run ``command`` (a shell string, or an argv list) through the whole pipeline.

    ``wrap`` turns the command to execute into the shell line that really runs (a host's own
    line around it, e.g. Claude Code's shell prefix). See :func:`run_call`.
    """
    from tersh import settings as settings_mod

    conf = conf or settings_mod.load()
    return run_call(
        prepare(command, conf),
        timeout=timeout,
        cwd=cwd,
        fallback=fallback,
        wrap=wrap,
    )


def run_call(
    call: Call,
    *,
    timeout: float | None = None,
    cwd: str | os.PathLike[str] | None = None,
    fallback: BinaryIO | None = None,
    wrap: Callable[[str], str] | None = None,
) -> Result:
    """Run a prepared call: rewrite, spawn into a capture, compact, record, report.

    Raises :class:`CaptureUnavailable` before the command starts when no capture can be made,
    and :class:`CaptureLost` once it ran when its capture failed (the output went to
    ``fallback``, stdout by default).
    """
    rewrite(call)
    started = time.monotonic()
    spawn(call, timeout=timeout, cwd=None if cwd is None else os.fspath(cwd), fallback=fallback, wrap=wrap)
    call.duration_s = time.monotonic() - started
    compaction(call)
    assert call.result is not None
    recording.after_call(call.result, call.conf, program=call.parsed.program or "?", klass=call.parsed.klass)
    return report(call)


def rewrite(call: Call) -> None:
    """The rewrite stage: what to execute, the rewrite's details, and for a call RTK filters,
    (RTK path, pipe filter). Any provider failure leaves the original command to run."""
    if not call.decision.rewritable:
        return
    from tersh.execution import rewrite as providers

    try:
        answer = providers.rewrite(call.requested, call.conf, decision=call.decision)
    except Exception as exc:  # any provider failure: the original command runs
        call.details["rewrite"] = {"verdict": "failed", "reason": type(exc).__name__}
        return
    info = {
        "verdict": answer.verdict,
        "provider": answer.provider,
        "reason": answer.reason,
        "recorded": getattr(answer, "recorded", ""),
    }
    if answer.verdict == "filtered" and answer.pipe_filter:
        info["pipe_filter"] = answer.pipe_filter
        try:
            from tersh.execution.rewrite import rtk

            probe = rtk.current(call.conf)
            call.rtk_pipe = (probe.path, answer.pipe_filter) if probe.verified else None
        except Exception:  # fail open: tersh's own compaction
            call.rtk_pipe = None
    call.executed = answer.executed or call.requested
    call.details["rewrite"] = info


def spawn(
    call: Call,
    *,
    timeout: float | None,
    cwd: str | None,
    fallback: BinaryIO | None,
    wrap: Callable[[str], str] | None,
) -> None:
    """The spawn stage: run what the call executes into a new capture."""
    if wrap is not None:
        argv = runner.shell_argv(wrap(call.executed))
    elif call.argv is not None and call.executed == call.requested:
        argv = call.argv
    else:
        argv = runner.shell_argv(call.executed)
    captured = execute.run_into_capture(
        argv,
        call.requested,
        cwd=cwd,
        timeout=timeout,
        max_bytes=call.conf.int("captures.max_bytes"),
        fallback=fallback,
        merged=not call.decision.machine_readable,  # a document on stdout keeps its own stream
    )
    call.capture, call.exit_code = captured.capture, captured.exit_code
    if captured.timed_out:
        call.details["timed_out"] = timeout
    if captured.streamed_bytes:
        call.details["capture_cut"] = {
            "kept_bytes": captured.capture.sizes["combined"],
            "streamed_bytes": captured.streamed_bytes,
        }


def compaction(call: Call) -> None:
    """The compaction stage: the model's text from the capture; the raw output, whole, when
    compaction itself fails."""
    from tersh.errors import warn

    assert call.capture is not None
    try:
        call.result = pipeline.process(
            call.capture,
            requested=call.requested,
            executed=call.executed,
            exit_code=call.exit_code,
            conf=call.conf,
            decision=call.decision,
            duration_s=call.duration_s,
            details=call.details,
            rtk_pipe=call.rtk_pipe,
            parsed=call.parsed,
        )
    except Exception as exc:  # fail open: the raw captured output, whole
        warn(f"compaction failed ({type(exc).__name__}: {exc}); showing the raw output")
        call.result = raw_result(
            call.capture, call.requested, call.executed, call.exit_code, f"{type(exc).__name__}: {exc}"
        )


def report(call: Call) -> Result:
    """The report stage: the result, with a note when the capture stopped at its size cap."""
    assert call.result is not None
    cut = call.details.get("capture_cut")
    if not cut:
        return call.result
    note = capped_note(cut["kept_bytes"], cut["streamed_bytes"])
    return Result(**{**call.result.as_dict(), "text": call.result.text + note, "complete": False})


def capped_note(kept: int, streamed: int) -> str:
    """The report line saying a capture stopped at its size cap."""
    return (
        f"\n[tersh: the capture stopped at {kept} bytes (captures.max_bytes); the {streamed}"
        " bytes after it were passed through unprocessed, above this report]\n"
    )


def raw_result(cap: Capture, requested: str, executed: str, exit_code: int, error: str) -> Result:
    """The unprocessed captured output as a Result (used when the pipeline itself failed)."""
    text = cap.path().read_bytes().decode("utf-8", "replace")
    return Result(
        text=text,
        exit_code=exit_code,
        requested_command=requested,
        executed_command=executed,
        input_bytes=cap.sizes["combined"],
        output_bytes=utf8_len(text),
        capture_id=cap.id,
        captures=cap.refs(),
        details={"error": error},
    )
