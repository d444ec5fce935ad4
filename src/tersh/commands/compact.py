"""``tersh compact``: the pipeline on output recorded elsewhere (files or stdin)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import BinaryIO

from tersh.commands import EXIT_CODE_RANGE, int_between
from tersh.errors import TershError


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``--command``, ``--exit-code``, the streams, ``--format``."""
    parser.add_argument("--command", required=True, help="the command line that produced the output")
    parser.add_argument(
        "--exit-code",
        type=int_between(*EXIT_CODE_RANGE),
        required=True,
        help="the command's exit code (under a failing code no compact text may read as success)",
    )
    parser.add_argument("--combined", type=Path, help="both streams as a terminal showed them")
    parser.add_argument("--stdout", type=Path, help="a file holding the command's standard output alone")
    parser.add_argument("--stderr", type=Path, help="a file holding the command's standard error alone")
    parser.add_argument("--executed", help="the command actually executed (if rewritten)")
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text: what the model would read; json: the whole result record",
    )


def _open(path: Path | None, stack: contextlib.ExitStack) -> BinaryIO | None:
    if path is None:
        return None
    try:
        return stack.enter_context(open(path, "rb"))
    except OSError as exc:
        raise TershError(f"cannot read {path}: {exc.strerror}") from exc


def main(args: argparse.Namespace, name: str) -> int:
    """Compact and print the text (or the JSON record); exit 0 unless the input is unreadable."""
    from tersh import settings as settings_mod
    from tersh.execution import pipeline

    with contextlib.ExitStack() as stack:
        sources = {stream: handle for stream, handle in (
            ("combined", _open(args.combined, stack)),
            ("stdout", _open(args.stdout, stack)),
            ("stderr", _open(args.stderr, stack)),
        ) if handle is not None}
        if not sources:
            sources = {"combined": sys.stdin.buffer}
        conf, _ = settings_mod.load_or_defaults()
        result = pipeline.compact_files(args.command, args.exit_code, sources, conf=conf,
                                        executed=args.executed)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(result.text + ("" if result.text.endswith("\n") else "\n"))
    return 0
