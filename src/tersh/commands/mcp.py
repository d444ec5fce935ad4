"""``tersh mcp``: serve tersh's run, retrieve, search and stats tools to an MCP host on stdio."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """No options: the host starts ``tersh mcp`` and speaks MCP on its stdin/stdout."""
    parser.epilog = (
        'Register it in an MCP host as command = the absolute path of tersh, args = ["mcp"]. '
        "The run tool always compacts (tersh enable/disable only switch the shell hooks)."
    )


def main(args: argparse.Namespace, name: str) -> int:
    """Run the server until the host closes the connection."""
    from tersh.mcp import server as mcp_server

    return mcp_server.serve()
