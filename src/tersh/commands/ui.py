"""``tersh ui [--port N] [--no-open]``: serve the settings page on 127.0.0.1 and print its URL.

The URL carries a token made for this launch; the page's API refuses any call without it. Needs
the optional ``tersh[ui]`` extra (starlette, uvicorn).
"""

from __future__ import annotations

import argparse
import sys

from tersh.errors import TershError


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``--port`` (default: a free one) and ``--no-open``."""
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")


def main(args: argparse.Namespace, name: str) -> int:
    """Bind, print the URL, open a browser unless asked not to, serve until ^C."""
    if not 0 <= args.port <= 65535:
        raise TershError("--port must be between 0 and 65535")
    try:
        from tersh.ui import guard, server
    except ImportError as exc:
        raise TershError(f"the settings page needs the ui extra: pip install 'tersh[ui]' ({exc})") from exc
    token = guard.new_token()
    sock = server.bind(args.port)
    address = server.url(int(sock.getsockname()[1]), token)
    print(f"tersh settings page: {address}", flush=True)
    print("(only this URL can use the page; press Ctrl+C to stop)", file=sys.stderr, flush=True)
    if not args.no_open:
        _open_browser(address)
    try:
        server.serve(sock, token)
    finally:
        sock.close()
    return 0


def _open_browser(address: str) -> None:
    import contextlib
    import webbrowser

    with contextlib.suppress(Exception):  # no browser here: the printed URL is enough
        webbrowser.open(address)
