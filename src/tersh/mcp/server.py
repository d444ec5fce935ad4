"""``tersh mcp``: tersh's tools served to an MCP host over stdio (JSON-RPC 2.0, one per line).

The protocol is small enough to speak directly (https://modelcontextprotocol.io/specification/
2025-11-25/basic/transports#stdio and …/server/tools): ``initialize``, ``ping``,
``tools/list`` and ``tools/call``; notifications are read and ignored. Speaking it here instead
of through the SDK keeps start-up to the interpreter's own: loading the SDK (pydantic, anyio…)
took about a second before the first answer, and Codex leaves out MCP servers that are slow to
start. The tool bodies live in :mod:`tersh.mcp.tools` and are imported on the first call.

Results carry their text in ``content`` text blocks, where every host shows it. There is no
``structuredContent`` (and so no ``outputSchema``): Codex 0.171 gives the model a result's
structured content instead of its text when both are present (measured in tests/e2e). The small
record of a call (exit code, capture id, sizes) rides in the result's ``_meta`` under
:data:`RECORD_KEY`, which hosts keep from the model, for programs that drive the server.

While it serves, file descriptors 0 and 1 point at /dev/null and stderr, and the protocol uses
private duplicates of them: a command started by ``run`` can neither read the client's requests
nor write into the replies.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from typing import IO, TYPE_CHECKING, Any

from tersh.entry import VERSION

if TYPE_CHECKING:
    from tersh.mcp.tools import Answer, ServerState

SERVER_NAME = "tersh"
#: Protocol revisions of the ``initialize`` handshake this server speaks, oldest to newest.
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
#: The ``_meta`` key of a result's machine-readable record.
RECORD_KEY = "tersh/record"

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
    "output is kept in a capture (its id is in the result) that `retrieve` pages through. The "
    "exit code is exact; a non-zero exit code marks the result as an error. Output that asks to "
    "be machine-readable (--json, --porcelain, -o json, …) is returned byte-exact, never "
    "filtered; a command ending in '# no-opt' is returned unfiltered. This tool always "
    "compacts, whether or not tersh is enabled for the shell hooks."
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

STREAMS = ("combined", "stdout", "stderr")


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _text(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _integer(description: str, default: int, minimum: int, maximum: int | None = None) -> dict[str, Any]:
    bounds = {"minimum": minimum, **({"maximum": maximum} if maximum is not None else {})}
    return {"type": "integer", "description": description, "default": default, **bounds}


TOOLS: list[dict[str, Any]] = [
    {
        "name": "run",
        "title": "Run a command (compacted output)",
        "description": RUN_DESCRIPTION,
        "inputSchema": _schema(
            {
                "command": _text("the command line, as typed in a shell"),
                "timeout_seconds": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": "stop the command after this many seconds "
                    "(exit code 124); default: no limit",
                },
                "cwd": _text("folder to run in; default: the server's folder"),
            },
            ["command"],
        ),
        "annotations": {"readOnlyHint": False, "openWorldHint": True},
    },
    {
        "name": "retrieve",
        "title": "Read a capture",
        "description": RETRIEVE_DESCRIPTION,
        "inputSchema": _schema(
            {
                "id": _text("capture id (c + 12 hex digits) or tool-output id (o + 12 hex digits)"),
                "offset": _integer("lines (or bytes) to skip", 0, 0),
                "limit": _integer("lines (or bytes) to return", 200, 1, 2000),
                "query": _text("return only lines containing this text"),
                "stream": _text("which stream to read", enum=list(STREAMS), default="combined"),
                "bytes": {"type": "boolean", "description": "offset and limit count bytes", "default": False},
            },
            ["id"],
        ),
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "search",
        "title": "Search this session's captures",
        "description": SEARCH_DESCRIPTION,
        "inputSchema": _schema(
            {
                "query": _text("words or text to find", minLength=1),
                "limit": _integer("most lines to return", 20, 1, 200),
            },
            ["query"],
        ),
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "stats",
        "title": "Session savings",
        "description": STATS_DESCRIPTION,
        "inputSchema": _schema({}, []),
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
]
TOOL_NAMES = frozenset(tool["name"] for tool in TOOLS)


class BadArguments(ValueError):
    """A tool call whose arguments do not fit the tool's input schema."""


def _check(arguments: dict[str, Any], tool: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with defaults filled in, or :class:`BadArguments` naming the first misfit."""
    schema = tool["inputSchema"]
    unknown = sorted(set(arguments) - set(schema["properties"]))
    if unknown:
        raise BadArguments(f"unknown argument {unknown[0]!r}")
    checked: dict[str, Any] = {}
    for name, rule in schema["properties"].items():
        if name not in arguments or arguments[name] is None:
            if name in schema["required"]:
                raise BadArguments(f"missing required argument {name!r}")
            checked[name] = rule.get("default")
            continue
        checked[name] = _fit(name, arguments[name], rule)
    return checked


def _fit(name: str, value: Any, rule: dict[str, Any]) -> Any:
    kind = rule["type"]
    if kind == "boolean" and not isinstance(value, bool):
        raise BadArguments(f"{name} must be true or false")
    if kind == "string":
        if not isinstance(value, str):
            raise BadArguments(f"{name} must be a string")
        if len(value) < rule.get("minLength", 0):
            raise BadArguments(f"{name} must not be empty")
        if "enum" in rule and value not in rule["enum"]:
            raise BadArguments(f"{name} must be one of {', '.join(rule['enum'])}")
    if kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadArguments(f"{name} must be a number")
        if kind == "integer":
            if value != int(value):
                raise BadArguments(f"{name} must be a whole number")
            value = int(value)
        if "minimum" in rule and value < rule["minimum"]:
            raise BadArguments(f"{name} must be at least {rule['minimum']}")
        if "maximum" in rule and value > rule["maximum"]:
            raise BadArguments(f"{name} must be at most {rule['maximum']}")
        if "exclusiveMinimum" in rule and value <= rule["exclusiveMinimum"]:
            raise BadArguments(f"{name} must be more than {rule['exclusiveMinimum']}")
    return value


def to_result(answer: Answer) -> dict[str, Any]:
    """An MCP ``CallToolResult`` for ``answer``: a text block per block, the error flag, the record."""
    content = [{"type": "text", "text": block} for block in answer.blocks]
    return {"content": content, "isError": answer.is_error, "_meta": {RECORD_KEY: answer.data}}


def _guarded(kind: str, body: Any, *args: Any, **kwargs: Any) -> Answer:
    """Call a tool body; an unexpected exception becomes an error answer, never a crash."""
    from tersh.mcp.tools import Answer

    try:
        answer: Answer = body(*args, **kwargs)
    except Exception as exc:
        note = f"[tersh] {kind} failed inside tersh: {type(exc).__name__}: {exc}"
        return Answer([note], {}, True)
    return answer


def call_tool(name: str, arguments: dict[str, Any], state: ServerState) -> dict[str, Any]:
    """The result of one ``tools/call`` (bad arguments are a tool error the model can read)."""
    from tersh.mcp import tools as mcp_tools  # the tool bodies (and the pipeline) load on the first call

    tool = next(tool for tool in TOOLS if tool["name"] == name)
    try:
        given = _check(arguments, tool)
    except BadArguments as exc:
        return to_result(mcp_tools.Answer([f"[tersh] {name}: {exc}"], {}, True))
    if name == "run":
        answer = _guarded(
            "run", mcp_tools.run_command, given["command"], given["timeout_seconds"], given["cwd"], state
        )
    elif name == "retrieve":
        answer = _guarded(
            "retrieve",
            mcp_tools.retrieve_entry,
            given["id"],
            given["offset"],
            given["limit"],
            given["query"],
            given["stream"],
            given["bytes"],
        )
    elif name == "search":
        answer = _guarded("search", mcp_tools.search_session, given["query"], given["limit"], state)
    else:
        answer = _guarded("stats", mcp_tools.session_stats, state)
    return to_result(answer)


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """The answer to ``initialize``: the client's protocol revision when known, else the newest."""
    asked = params.get("protocolVersion")
    version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1]
    return {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": SERVER_NAME, "title": "tersh", "version": VERSION},
        "instructions": INSTRUCTIONS,
    }


class Server:
    """One stdio session: reads requests from ``inbox``, writes answers to ``outbox``."""

    def __init__(self, inbox: IO[bytes], outbox: IO[bytes]) -> None:
        self.inbox = inbox
        self.outbox = outbox
        self._write_lock = threading.Lock()
        self._workers: list[threading.Thread] = []
        self._state: ServerState | None = None
        self._state_lock = threading.Lock()
        self._started = time.time()  # the session's start: `search` looks at captures since

    def state(self) -> ServerState:
        """This server's own totals (made on the first tool call)."""
        with self._state_lock:
            if self._state is None:
                from tersh.mcp.tools import ServerState

                self._state = ServerState(started=self._started)
            return self._state

    def send(self, message: dict[str, Any]) -> None:
        """Write one JSON-RPC message as one line (thread-safe)."""
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        with self._write_lock:
            self.outbox.write(line)
            self.outbox.flush()

    def reply(self, ident: Any, result: dict[str, Any]) -> None:
        """Answer request ``ident`` with ``result``."""
        self.send({"jsonrpc": "2.0", "id": ident, "result": result})

    def fail(self, ident: Any, code: int, message: str) -> None:
        """Answer request ``ident`` with a JSON-RPC error."""
        self.send({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}})

    def serve(self) -> None:
        """Answer requests until the client closes the connection, then let running calls end."""
        for raw in self.inbox:
            if raw.strip():
                self.handle(raw)
        for worker in self._workers:
            worker.join()

    def handle(self, raw: bytes) -> None:
        """One line from the client: a request, a notification, or something to refuse."""
        try:
            message = json.loads(raw)
        except ValueError:
            self.fail(None, PARSE_ERROR, "parse error: a line that is not JSON")
            return
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return  # a client's answer to a request this server never sends
            self.fail(None, INVALID_REQUEST, "invalid request: expected a JSON-RPC object")
            return
        if "id" not in message:
            return  # notifications (initialized, cancelled…) need no answer
        ident, method = message["id"], message["method"]
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "initialize":
            self.reply(ident, initialize_result(params))
        elif method == "ping":
            self.reply(ident, {})
        elif method == "tools/list":
            self.reply(ident, {"tools": TOOLS})
        elif method == "tools/call":
            self.start_call(ident, params)
        else:
            self.fail(ident, METHOD_NOT_FOUND, f"method not found: {method}")

    def start_call(self, ident: Any, params: dict[str, Any]) -> None:
        """Run one tool call in its own thread, so pings and other calls are answered meanwhile."""
        name = params.get("name")
        arguments = params.get("arguments")
        if name not in TOOL_NAMES:
            self.fail(ident, INVALID_PARAMS, f"unknown tool: {name!r}")
            return
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            self.fail(ident, INVALID_PARAMS, "tool arguments must be a JSON object")
            return

        def work() -> None:
            try:
                result = call_tool(str(name), arguments, self.state())
            except Exception as exc:  # never leave a request unanswered
                result = {
                    "content": [
                        {
                            "type": "text",
                            "text": f"[tersh] {name} failed inside tersh: {type(exc).__name__}: {exc}",
                        }
                    ],
                    "isError": True,
                }
            self.reply(ident, result)

        worker = threading.Thread(target=work, name=f"tersh-mcp-{name}", daemon=True)
        self._workers = [alive for alive in self._workers if alive.is_alive()] + [worker]
        worker.start()


def _private_streams() -> tuple[IO[bytes], IO[bytes]]:
    """The protocol's own copies of fds 0 and 1; fd 0 becomes /dev/null and fd 1 stderr."""
    inbox = os.fdopen(os.dup(0), "rb")
    outbox = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return inbox, outbox


def serve() -> int:
    """Serve the tools on stdin/stdout until the client closes the connection."""
    os.environ.setdefault("TERSH_HOST", "mcp")  # ledger rows of this server's calls
    sys.stdout.flush()
    inbox, outbox = _private_streams()
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):  # the client went away
        Server(inbox, outbox).serve()
    return 0
