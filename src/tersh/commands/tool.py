"""``tersh tool --name NAME``: compress one tool output read on stdin; print the result JSON.

Stdin is either the tool's text, a JSON envelope ``{"output", "metadata"?}``, or a
JSON list of MCP content items. ``--text`` takes stdin as text even when it parses as JSON.
The answer is ``{"output", "changed", "metadata": {..., "tersh": {metrics}}}``; the exit code
is 0 whatever happened inside (fail open: the original comes back).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tersh.errors import TershError


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``--name`` (required), ``--metadata JSON``, ``--text``, ``--exact-tokens``."""
    parser.add_argument("--name", required=True, help="the tool's name (read, grep, mcp__x__y…)")
    parser.add_argument("--metadata", default="", help="host metadata as a JSON object")
    parser.add_argument("--text", action="store_true", help="stdin is text, never an envelope")
    parser.add_argument("--exact-tokens", action="store_true", help="add exact o200k counts to the metrics")


def parse_input(raw: str, as_text: bool) -> tuple[Any, dict[str, Any]]:
    """(output, metadata) from stdin's text: an envelope, MCP items, or plain text."""
    if as_text or not raw.lstrip().startswith(("{", "[")):
        return raw, {}
    try:
        value = json.loads(raw)
    except ValueError:
        return raw, {}
    if isinstance(value, dict) and isinstance(value.get("output"), str | list):
        metadata = value.get("metadata")
        return value["output"], metadata if isinstance(metadata, dict) else {}
    if isinstance(value, list) and value and all(isinstance(item, dict) and "type" in item for item in value):
        return value, {}
    return raw, {}


def _metadata_option(text: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise TershError(f"--metadata is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise TershError("--metadata must be a JSON object")
    return value


def main(args: argparse.Namespace, name: str) -> int:
    """Read stdin, compress, print one JSON object."""
    from tersh.tools import compress

    extra = _metadata_option(args.metadata)
    raw = sys.stdin.buffer.read().decode("utf-8", "replace")
    output, metadata = parse_input(raw, args.text)
    result = compress(args.name, output, {**metadata, **extra}, exact_tokens=args.exact_tokens)
    answer = {"output": result.output, "changed": result.changed, "metadata": result.metadata}
    sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 0
