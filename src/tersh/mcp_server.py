"""``tersh mcp``: tersh's tools served over stdio with the official MCP SDK (``mcp`` 2.x).

Only ``tersh.commands.mcp`` imports this module, so the SDK (pydantic, anyio…) never loads on
the ``run`` or ``hook`` paths. The tool bodies live in :mod:`tersh.mcp_tools`; here they get
their names, descriptions, JSON schemas (derived by the SDK from the typed signatures) and their
MCP results: text blocks, ``structuredContent`` for ``run`` (validated against its output
schema), ``isError`` when a command fails or a request cannot be served.

The SDK's stdio transport moves file descriptors 0 and 1 away from the protocol pipes (to
/dev/null and stderr) while it serves, so a command started by ``run`` can neither read the
client's requests nor write into the replies.
"""

from __future__ import annotations

import os
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from typing_extensions import TypedDict

from tersh import __version__, mcp_tools
from tersh.mcp_tools import Answer, ServerState

SERVER_NAME = "tersh"

INSTRUCTIONS = """\
tersh runs shell commands and returns their output compacted to what matters: every error,
warning, path, line number, commit id and commit message is kept, and the complete output stays
in a private capture. Use `run` for commands whose output may be long (tests, builds, linters,
git, package managers). When a result says it left something out, read the capture with
`retrieve` (its id, offset/limit, or query) - "tersh retrieve ID --offset N --limit M" in a
result means the same thing. `search` finds lines across every capture of this session; `stats`
reports what tersh saved. Add "# no-opt" at the end of a command to get its output untouched."""

RUN_DESCRIPTION = (
    "Run a shell command (through the user's shell) and return its output compacted by tersh: "
    "failures, errors, warnings, paths, line numbers and commit ids are always kept; passing "
    "noise and progress output are summarised with a count of what was left out. The full "
    "output is kept in a capture (see capture_id) that `retrieve` pages through. The exit code "
    "is exact; a non-zero exit code marks the result as an error. Output that asks to be "
    "machine-readable (--json, --porcelain, -o json, …) is returned byte-exact, never filtered; "
    "a command ending in '# no-opt' is returned unfiltered. This tool always compacts, whether "
    "or not tersh is enabled for the shell hooks."
)
RETRIEVE_DESCRIPTION = (
    "Read more of a capture that a `run` result left out (id c…) or of a compressed tool output "
    "(id o…): a page of lines (offset = lines to skip, limit = lines to return, numbered from 1), "
    "a page of bytes (bytes=true), or with `query` every line containing that text "
    "(case-insensitive), with line numbers."
)
SEARCH_DESCRIPTION = (
    "Find lines across every capture of this session (all commands run through tersh so far): "
    "words in the query must all appear in a line (each word also matches as a prefix). Returns "
    "capture ids, commands and line numbers; read around a hit with `retrieve`."
)
STATS_DESCRIPTION = (
    "This session's savings: calls, bytes and o200k tokens in and shown, the percentage saved "
    "(bytes read back through retrieve/search count against it), measured/unmeasured calls."
)


class RunOutput(TypedDict):
    """The structured part of a ``run`` result (published as its output schema)."""

    exit_code: int | None
    capture_id: str | None
    complete: bool
    category: str | None
    rule: str | None
    input_bytes: int
    output_bytes: int
    timed_out: bool


def to_result(answer: Answer) -> CallToolResult:
    """An MCP tool result for ``answer``: a text block per block, its record as structured data."""
    content: list[Any] = [TextContent(type="text", text=block) for block in answer.blocks]
    return CallToolResult(content=content, structured_content=answer.data, is_error=answer.is_error)


def _guarded(kind: str, body: Any, *args: Any, **kwargs: Any) -> Answer:
    """Call a tool body; an unexpected exception becomes an error answer, never a crash."""
    try:
        answer: Answer = body(*args, **kwargs)
    except Exception as exc:
        note = f"[tersh] {kind} failed inside tersh: {type(exc).__name__}: {exc}"
        return Answer([note], {}, True)
    return answer


def build_server(state: ServerState | None = None) -> MCPServer[Any]:
    """The MCP server with the four tools registered."""
    state = state or ServerState()
    server: MCPServer[Any] = MCPServer(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS)

    def run(
        command: Annotated[str, Field(description="the command line, as typed in a shell")],
        timeout_seconds: Annotated[
            float | None, Field(gt=0, description="stop the command after this many seconds "
                                                  "(exit code 124); default: no limit")
        ] = None,
        cwd: Annotated[
            str | None, Field(description="folder to run in; default: the server's folder")
        ] = None,
    ) -> Annotated[CallToolResult, RunOutput]:
        answer = _guarded("run", mcp_tools.run_command, command, timeout_seconds, cwd, state)
        return to_result(answer)

    def retrieve(
        id: Annotated[str, Field(description="capture id (c + 12 hex digits) or tool-output id "
                                             "(o + 12 hex digits)")],
        offset: Annotated[int, Field(ge=0, description="lines (or bytes) to skip")] = 0,
        limit: Annotated[int, Field(ge=1, le=2000, description="lines (or bytes) to return")] = 200,
        query: Annotated[
            str | None, Field(description="return only lines containing this text")
        ] = None,
        stream: Annotated[
            Literal["combined", "stdout", "stderr"], Field(description="which stream to read")
        ] = "combined",
        bytes: Annotated[bool, Field(description="offset and limit count bytes")] = False,
    ) -> CallToolResult:
        return to_result(_guarded("retrieve", mcp_tools.retrieve_entry, id, offset, limit, query,
                                  stream, bytes))

    def search(
        query: Annotated[str, Field(min_length=1, description="words or text to find")],
        limit: Annotated[int, Field(ge=1, le=200, description="most lines to return")] = 20,
    ) -> CallToolResult:
        return to_result(_guarded("search", mcp_tools.search_session, query, limit, state))

    def stats() -> CallToolResult:
        return to_result(_guarded("stats", mcp_tools.session_stats, state))

    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    server.add_tool(run, name="run", title="Run a command (compacted output)",
                    description=RUN_DESCRIPTION,
                    annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True))
    server.add_tool(retrieve, name="retrieve", title="Read a capture",
                    description=RETRIEVE_DESCRIPTION, annotations=read_only)
    server.add_tool(search, name="search", title="Search this session's captures",
                    description=SEARCH_DESCRIPTION, annotations=read_only)
    server.add_tool(stats, name="stats", title="Session savings",
                    description=STATS_DESCRIPTION, annotations=read_only)
    return server


def serve() -> int:
    """Serve the tools on stdin/stdout until the client closes the connection."""
    os.environ.setdefault("TERSH_HOST", "mcp")  # ledger rows of this server's calls
    build_server().run("stdio")
    return 0
