"""``tersh retrieve ID [--offset N] [--limit M] [--query TEXT] [--stream S] [--bytes]``."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from tersh.commands import COUNT_RANGE, int_between


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Paging and search options."""
    parser.add_argument("id", help="a capture id (c…) or a tool-output cache id (o…)")
    count = int_between(*COUNT_RANGE)
    parser.add_argument("--offset", type=count, default=0, help="lines (or bytes with --bytes) to skip")
    parser.add_argument("--limit", type=count, default=200, help="lines (or bytes) to return")
    parser.add_argument("--query", help="case-insensitive text to search for")
    parser.add_argument(
        "--stream",
        choices=["combined", "stdout", "stderr"],
        default="combined",
        help="combined: both streams in arrival order, as shown (default); stdout or stderr alone",
    )
    parser.add_argument(
        "--bytes", action="store_true", dest="by_bytes", help="--offset and --limit count bytes, not lines"
    )
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text: numbered lines and notes; json: the page record (more = lines left)",
    )


def main(args: argparse.Namespace, name: str) -> int:
    """Print one page or the search results."""
    from tersh.retrieval.pages import retrieve

    page = retrieve(
        args.id,
        offset=args.offset,
        limit=args.limit,
        query=args.query,
        stream=args.stream,
        by_bytes=args.by_bytes,
    )
    if args.format == "json":
        sys.stdout.write(json.dumps(asdict(page), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(page.render() + "\n")
    return 0
