"""``tersh serve --stdio``: one long-lived process answering JSON lines (no start-up per call).

Requests, one JSON object per line on stdin; one answer per line on stdout, same ``id``:

- ``{"id", "tool", "output", "metadata"?}`` -> ``{"id", "output", "changed", "metadata":
  {"tersh": {metrics}}}`` (output is the compressed text or MCP items, or the original);
- ``{"id", "type": "rewrite", "command", "via"?: "run"}`` -> ``{"id", "command", "changed",
  "metadata": {"tersh": {...}}}``: with ``via: "run"`` the command wrapped to run through
  ``tersh run`` (when enabled and allowed), else RTK's rewrite through ``tersh.rewrite``;
- ``{"id", "type": "ping"}`` -> ``{"id", "ok": true}``.

Settings are re-read whenever the settings file changes, so ``tersh disable`` takes effect on
the next request. A malformed line gets ``{"id": null, "error": …}``; nothing stops the loop
but the end of stdin.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, TextIO

from tersh.errors import TershError


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``--stdio`` (the only transport)."""
    parser.add_argument("--stdio", action="store_true", help="speak JSON lines on stdin/stdout")


class Service:
    """Answers requests; keeps settings and the cache until the settings file changes."""

    def __init__(self) -> None:
        self._stamp: tuple[int, int, int] | None = None
        self._settings: Any = None
        self._cache: Any = None

    def settings(self) -> Any:
        """Current settings (reloaded when the file's size, time or inode changes)."""
        from tersh.settings import load_or_defaults, settings_path

        try:
            info = os.stat(settings_path())
            stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            stamp = (0, 0, 0)
        if stamp != self._stamp or self._settings is None:
            from tersh.tools.cache import Cache

            self._settings = load_or_defaults()[0]
            self._cache = Cache.from_settings(self._settings)
            self._stamp = stamp
        return self._settings

    def handle(self, request: Any) -> dict[str, Any]:
        """The answer to one decoded request."""
        if not isinstance(request, dict):
            return {"id": None, "error": "a request is a JSON object"}
        kind = request.get("type", "compress")
        if kind == "ping":
            return {"id": request.get("id"), "ok": True}
        if kind == "rewrite":
            return self.rewrite(request)
        if kind == "compress":
            return self.compress(request)
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
        )
        return self._answer(request, result.output, result.changed, result.metrics)

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

    def rewrite(self, request: dict[str, Any]) -> dict[str, Any]:
        """The command to run instead of ``request["command"]`` (itself on any doubt)."""
        command = request.get("command")
        if not isinstance(command, str):
            return {"id": request.get("id"), "error": "command must be a string"}
        settings = self.settings()
        if not settings.flag("enabled"):
            new, reason = command, "tersh is disabled"
        elif request.get("via") == "run":
            new, reason = _through_run(command)
        else:
            new, reason = _through_provider(command, settings)
        return {
            "id": request.get("id"),
            "command": new,
            "changed": new != command,
            "metadata": {"tersh": {"reason": reason}},
        }


def _through_run(command: str) -> tuple[str, str]:
    try:
        from tersh.hosts import shell_rewrite, tersh_command
    except ImportError:
        return command, "shell rewriting is not available"
    try:
        wrapped = shell_rewrite.rewrite(command, tersh_command())
    except Exception as exc:  # fail open: the original command runs
        return command, f"rewrite failed: {type(exc).__name__}"
    return (wrapped, "runs through tersh") if wrapped else (command, "left unchanged by policy")


def _through_provider(command: str, settings: Any) -> tuple[str, str]:
    try:
        from tersh import rewrite
    except ImportError:
        return command, "no rewrite provider"
    try:
        answer = rewrite.rewrite(command, settings)
    except Exception as exc:  # fail open
        return command, f"rewrite failed: {type(exc).__name__}"
    return str(answer.executed or command), str(getattr(answer, "reason", ""))


def serve(stdin: TextIO, stdout: TextIO) -> int:
    """Answer every line of ``stdin`` on ``stdout`` until end of input."""
    service = Service()
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            answer: dict[str, Any] = {"id": None, "error": f"not JSON: {exc}"}
        else:
            try:
                answer = service.handle(request)
            except Exception as exc:  # one bad request never ends the service
                rid = request.get("id") if isinstance(request, dict) else None
                answer = {"id": rid, "error": f"{type(exc).__name__}: {exc}"}
        try:
            stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
            stdout.flush()
        except (BrokenPipeError, ValueError):
            return 0
    return 0


def main(args: argparse.Namespace, name: str) -> int:
    """Run the JSON-lines service on stdin/stdout."""
    if not args.stdio:
        raise TershError("tersh serve needs --stdio (the only transport)")
    with (
        open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False) as stdin,
        open(sys.stdout.fileno(), "w", encoding="utf-8", closefd=False) as stdout,
    ):
        return serve(stdin, stdout)
