"""``tersh serve --stdio``: one long-lived process answering JSON lines (no start-up per call).

Requests, one JSON object per line on stdin; one answer per line on stdout, same ``id``:

- ``{"id", "tool", "output", "metadata"?}`` -> ``{"id", "output", "changed", "metadata":
  {"tersh": {metrics}}}`` (output is the compressed text or MCP items, or the original);
- ``{"id", "type": "shell", "command", "exit_code", "output", "full_output_path"?, "limits"?:
  {"max_lines", "max_bytes"}}`` -> ``{"id", "output", "changed", "metadata": {"tersh": {...}}}``:
  a shell command's finished output compacted by the pipeline of ``tersh compact`` (verifier,
  preview bound, private capture with its report). ``full_output_path`` is where the host kept
  the whole output when it truncated its own copy (read instead of ``output`` when it is a plain
  file); ``limits`` is the host's own inline limit, so the host never cuts tersh's text again;
- ``{"id", "type": "ping"}`` -> ``{"id", "ok": true}``.

There is no command rewrite request: a host's permission rules must judge the command the
model asked for, so tersh only ever sees a shell command after the host has run it.

Settings are re-read whenever the settings file changes, so ``tersh disable`` takes effect on
the next request. A malformed line gets ``{"id": null, "error": …}``; nothing stops the loop
but the end of stdin.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, BinaryIO

from tersh.errors import TershError


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``--stdio`` (the only transport)."""
    parser.add_argument("--stdio", action="store_true", help="speak JSON lines on stdin/stdout")


class Service:
    """Answers requests; keeps settings and the cache until the settings file changes."""

    def __init__(self) -> None:
        from tersh.settings import SETTINGS_FILE, profile_root

        #: The profile is this process's for its whole life (``TERSH_HOME`` is read once).
        self._path = os.path.join(profile_root(), SETTINGS_FILE)
        self._stamp: tuple[int, int, int] | None = None
        self._settings: Any = None
        self._cache: Any = None
        self._limits: Any = None

    def settings(self) -> Any:
        """Current settings (reloaded when the file's size, time or inode changes)."""
        try:
            info = os.stat(self._path)
            stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            stamp = (0, 0, 0)
        if stamp != self._stamp or self._settings is None:
            from tersh.recording.tool_cache import Cache
            from tersh.settings import load_or_defaults
            from tersh.tools.budgets import from_settings

            self._settings = load_or_defaults()[0]
            self._cache = Cache.from_settings(self._settings)
            self._limits = from_settings(self._settings)
            self._stamp = stamp
        return self._settings

    def handle(self, request: Any) -> dict[str, Any]:
        """The answer to one decoded request."""
        if not isinstance(request, dict):
            return {"id": None, "error": "a request is a JSON object"}
        kind = request.get("type", "compress")
        if kind == "ping":
            return {"id": request.get("id"), "ok": True}
        if kind == "compress":
            return self.compress(request)
        if kind == "shell":
            return self.shell(request)
        return {"id": request.get("id"), "error": f"unknown request type {kind!r}"}

    def compress(self, request: dict[str, Any]) -> dict[str, Any]:
        """Compress ``request["output"]`` from ``request["tool"]`` (original when disabled)."""
        output = request.get("output")
        if not isinstance(output, str | list):
            return {"id": request.get("id"), "error": "output must be a string or a list"}
        settings = self.settings()
        if not settings.flag("enabled"):
            metrics = {"applied": False, "reason": "tersh is disabled"}
            return self._answer(request, output, False, metrics)
        from tersh.tools import compress

        metadata = request.get("metadata")
        result = compress(
            str(request.get("tool") or ""),
            output,
            metadata if isinstance(metadata, dict) else {},
            settings,
            cache=self._cache,
            limits=self._limits,
        )
        return self._answer(request, result.output, result.changed, result.metrics)

    def shell(self, request: dict[str, Any]) -> dict[str, Any]:
        """Compact a finished shell command's output (the original when disabled or unsure)."""
        command, output = request.get("command"), request.get("output")
        exit_code = request.get("exit_code")
        if not isinstance(command, str) or not isinstance(output, str):
            return {"id": request.get("id"), "error": "command and output must be strings"}
        if not isinstance(exit_code, int) or isinstance(exit_code, bool):
            metrics = {"applied": False, "reason": "no exit code (the host ended the command)"}
            return self._answer(request, output, False, metrics)
        settings = self.settings()
        if not settings.flag("enabled"):
            return self._answer(request, output, False, {"applied": False, "reason": "tersh is disabled"})
        from tersh.execution import pipeline

        conf = _within(settings, request.get("limits"))
        source, handle = _full_output(request.get("full_output_path"), output)
        with handle:
            result = pipeline.compact_files(command, exit_code, {"combined": handle}, conf=conf)
        changed = result.text != output
        metrics = {
            "applied": changed,
            "source": source,
            "capture_id": result.capture_id,
            "complete": result.complete,
            "input_bytes": result.input_bytes,
            "output_bytes": result.output_bytes,
        }
        return self._answer(request, result.text if changed else output, changed, metrics)

    @staticmethod
    def _answer(
        request: dict[str, Any], output: Any, changed: bool, metrics: dict[str, Any]
    ) -> dict[str, Any]:
        return {
            "id": request.get("id"),
            "output": output,
            "changed": changed,
            "metadata": {"tersh": metrics},
        }


#: The folder name OpenCode keeps truncated tool outputs in (``<data>/opencode/tool-output/``).
HOST_OUTPUT_FOLDER = "tool-output"


def _full_output(path: Any, fallback: str) -> tuple[str, BinaryIO]:
    """The host's saved full output, opened, when ``path`` names one; else ``fallback``.

    Only a plain file (never a symlink) in a folder named like the host's own is read: the path
    comes from the host's metadata, and a stray one must not make tersh read anything else.
    """
    import io
    import stat
    from pathlib import Path

    text = io.BytesIO(fallback.encode("utf-8", "surrogatepass"))
    if not isinstance(path, str) or not os.path.isabs(path):
        return "host text", text
    if Path(path).parent.name != HOST_OUTPUT_FOLDER:
        return "host text", text
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return "host text", text
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        handle.close()
        return "host text", text
    return "host file", handle


def _within(settings: Any, limits: Any) -> Any:
    """``settings`` with the preview bound lowered to the host's inline limit (never raised)."""
    if not isinstance(limits, dict):
        return settings
    from tersh.settings import Settings

    values = dict(settings.overrides)
    for key, name in (("preview.max_lines", "max_lines"), ("preview.max_bytes", "max_bytes")):
        limit = limits.get(name)
        if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
            values[key] = min(settings.int(key), limit)
    return Settings(values)


def serve(stdin: int, stdout: int) -> int:
    """Answer every line read from file descriptor ``stdin`` on ``stdout`` until end of input.

    The answers to the lines of one read go out in one write: requests that arrive together
    (concurrent tool calls) cost one system call, and a lone request is answered at once.
    """
    service = Service()
    partial: list[bytes] = []  # a line longer than one read, in pieces (joined once)
    while True:
        chunk = os.read(stdin, READ_SIZE)
        if chunk and b"\n" not in chunk:
            partial.append(chunk)
            continue
        lines = b"".join([*partial, chunk]).split(b"\n")
        partial = [lines.pop()] if chunk else []
        answers = [answer_line(service, line) for line in lines if line.strip()]
        if answers and not _write_all(stdout, "".join(answers).encode("utf-8", "replace")):
            return 0
        if not chunk:
            return 0


#: Bytes asked of stdin per read.
READ_SIZE = 1 << 16


def answer_line(service: Service, line: bytes) -> str:
    """The JSON line answering one request line (an error answer when it is not a request)."""
    try:
        request = json.loads(line.decode("utf-8", "replace"))
    except ValueError as exc:
        answer: dict[str, Any] = {"id": None, "error": f"not JSON: {exc}"}
    else:
        try:
            answer = service.handle(request)
        except Exception as exc:  # one bad request never ends the service
            rid = request.get("id") if isinstance(request, dict) else None
            answer = {"id": rid, "error": f"{type(exc).__name__}: {exc}"}
    return json.dumps(answer, ensure_ascii=False) + "\n"


def _write_all(fd: int, data: bytes) -> bool:
    """Write all of ``data``; False when the reader has gone."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except (BrokenPipeError, OSError):
        return False
    return True


def main(args: argparse.Namespace, name: str) -> int:
    """Run the JSON-lines service on stdin/stdout."""
    if not args.stdio:
        raise TershError("tersh serve needs --stdio (the only transport)")
    sys.stdout.flush()
    return serve(sys.stdin.fileno(), sys.stdout.fileno())
