"""``tersh compact``: the pipeline on output recorded elsewhere (files or stdin)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tersh.errors import TershError


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``--command``, ``--exit-code``, the streams, ``--format``."""
    parser.add_argument("--command", required=True, help="the command line that produced the output")
    parser.add_argument("--exit-code", type=int, required=True)
    parser.add_argument("--combined", type=Path, help="both streams as a terminal showed them")
    parser.add_argument("--stdout", type=Path)
    parser.add_argument("--stderr", type=Path)
    parser.add_argument("--executed", help="the command actually executed (if rewritten)")
    parser.add_argument("--format", choices=["text", "json"], default="text")


def _read(path: Path | None) -> bytes | None:
    if path is None:
        return None
    try:
        return path.read_bytes()
    except OSError as exc:
        raise TershError(f"cannot read {path}: {exc.strerror}") from exc


def main(args: argparse.Namespace, name: str) -> int:
    """Compact and print the text (or the JSON record); exit 0 unless the input is unreadable."""
    from tersh import pipeline
    from tersh import settings as settings_mod

    combined, stdout, stderr = _read(args.combined), _read(args.stdout), _read(args.stderr)
    if combined is None and stdout is None and stderr is None:
        combined = sys.stdin.buffer.read()
    conf, _ = settings_mod.load_or_defaults()
    result = pipeline.compact(args.command, args.exit_code, combined=combined, stdout=stdout,
                              stderr=stderr, conf=conf, executed=args.executed)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(result.text + ("" if result.text.endswith("\n") else "\n"))
    return 0
