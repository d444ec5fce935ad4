"""The spawn-and-capture stage: run one command into a new capture, failing open.

Whatever goes wrong inside tersh, the command runs, its exit code is exact and its output
reaches the caller: if the capture cannot be written, what was captured so far and everything
after it go straight to ``fallback`` (the terminal), unbounded.
"""

from __future__ import annotations

import os

from tersh.execution import spawn as runner
from tersh.recording import captures as capture_store

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO, NamedTuple
else:
    from tersh._startup.lean import NamedTuple


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


class Captured(NamedTuple):
    """A command that ran into a finished capture."""

    capture: capture_store.Capture
    exit_code: int
    timed_out: bool
    streamed_bytes: int  # past ``captures.max_bytes``: passed to the fallback, not captured


def run_into_capture(argv: list[str], requested: str, *, cwd: str | None, timeout: float | None,
                     max_bytes: int | None, fallback: BinaryIO | None, merged: bool = True,
                     ) -> Captured:
    """Run ``argv`` into a new capture of ``requested`` and finish the capture.

    Raises :class:`CaptureUnavailable` before the command starts when no capture can be made,
    and :class:`CaptureLost` (with the exit code) when the capture failed while the command ran:
    its output then went to ``fallback`` (stdout by default), whole.

    ``merged``: stdout and stderr share one pipe, so the capture and the model's text keep the
    order the command wrote (as a terminal or the host's own shell tool shows it); a command
    whose stdout is a document runs with separate streams, its stdout byte-exact alone.
    """
    try:
        writer = capture_store.start(requested, cwd, merged)
    except Exception as exc:
        raise CaptureUnavailable(f"cannot create a capture ({exc}); running without tersh") from exc
    sink = _FailOpenSink(writer, fallback or _standard_output(), max_bytes)
    try:
        outcome = runner.run_streaming(argv, sink, timeout=timeout, cwd=cwd, merged=merged)
    except runner.SinkFailed as exc:  # not a write error of the capture: nothing more to save
        writer.abandon()
        raise CaptureLost(f"capture failed ({type(exc.cause).__name__}: {exc})", exc.exit_code) from exc
    except BaseException:
        writer.abandon()
        raise
    if sink.failed:
        writer.abandon()
        raise CaptureLost(sink.failed, outcome.code)
    try:
        cap = writer.finish(outcome.code)
    except OSError as exc:  # disk full while finishing: the output goes out whole, uncaptured
        sink.failed = f"capture could not be finished ({exc.strerror or exc}); output shown unbounded"
        sink._replay(writer.sizes["combined"])
        writer.abandon()
        raise CaptureLost(sink.failed, outcome.code) from exc
    return Captured(cap, outcome.code, outcome.timed_out, sink.capped)


class CaptureUnavailable(Exception):
    """No capture could be started: the caller runs the command without tersh."""
