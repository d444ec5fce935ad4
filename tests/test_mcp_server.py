"""`tersh mcp` through the SDK's own client: `python -m tersh mcp` on stdio, every tool called."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import CallToolResult, TextContent

from tests import corpus
from tests.clihelp import enable, tersh

T = TypeVar("T")
CAPTURE_ID = re.compile(r"^c[0-9a-f]{12}$")


def serve(
    scenario: Callable[[ClientSession], Awaitable[T]],
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    errlog: Path | None = None,
) -> T:
    """Start `python -m tersh mcp` with this test's TERSH_HOME, run ``scenario`` against it."""
    server_env = {"TERSH_HOME": os.environ["TERSH_HOME"], **(env or {})}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tersh", "mcp"], env=server_env, cwd=cwd
    )
    log_path = errlog or Path(os.environ["TERSH_HOME"]) / "server-stderr.log"

    async def main() -> T:
        with open(log_path, "a", encoding="utf-8") as log:
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await scenario(session)

    return anyio.run(main)


def texts(result: CallToolResult) -> list[str]:
    """The text of every content block (all of them must be text blocks)."""
    assert all(isinstance(block, TextContent) for block in result.content)
    return [block.text for block in result.content if isinstance(block, TextContent)]


def data(result: CallToolResult) -> dict[str, Any]:
    """The call's record, which tersh keeps in ``_meta`` (the model reads only the text)."""
    assert result.structured_content is None  # a host may show it instead of the text (Codex)
    assert isinstance(result.meta, dict)
    record = result.meta["tersh/record"]
    assert isinstance(record, dict)
    return record


def run_tool(**arguments: Any) -> CallToolResult:
    """One `run` call on a fresh server."""

    async def scenario(session: ClientSession) -> CallToolResult:
        return await session.call_tool("run", arguments)

    return serve(scenario)


# --- tools/list ---------------------------------------------------------------------------------


def test_lists_four_tools_with_descriptions_schemas_and_hints() -> None:
    async def scenario(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in serve(scenario)}
    assert set(tools) == {"run", "retrieve", "search", "stats"}
    for tool in tools.values():
        assert tool.description and len(tool.description) > 60
        assert tool.input_schema["type"] == "object"
    assert tools["run"].input_schema["required"] == ["command"]
    assert set(tools["run"].input_schema["properties"]) == {"command", "timeout_seconds", "cwd"}
    assert tools["retrieve"].input_schema["required"] == ["id"]
    assert set(tools["retrieve"].input_schema["properties"]) == {
        "id",
        "offset",
        "limit",
        "query",
        "stream",
        "bytes",
    }
    assert tools["search"].input_schema["required"] == ["query"]
    assert tools["stats"].input_schema.get("required") in (None, [])
    for tool in tools.values():  # an output schema obliges structured content: none is sent
        assert tool.output_schema is None
    for name in ("retrieve", "search", "stats"):
        annotations = tools[name].annotations
        assert annotations is not None and annotations.read_only_hint is True
    run_hints = tools["run"].annotations
    assert run_hints is not None and run_hints.read_only_hint is False


def test_server_identifies_itself_and_explains_its_tools() -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tersh", "mcp"], env={"TERSH_HOME": os.environ["TERSH_HOME"]}
    )

    async def main() -> Any:
        with open(Path(os.environ["TERSH_HOME"]) / "stderr.log", "a", encoding="utf-8") as log:
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                return await session.initialize()

    init = anyio.run(main)
    assert init.server_info.name == "tersh"
    assert init.instructions and "retrieve" in init.instructions and "# no-opt" in init.instructions


# --- run ----------------------------------------------------------------------------------------


def test_run_success_returns_output_and_structured_record() -> None:
    result = run_tool(command="echo hello; echo world")
    assert result.is_error is False
    assert texts(result) == ["hello\nworld"]
    record = data(result)
    assert record["exit_code"] == 0
    assert CAPTURE_ID.match(record["capture_id"])
    assert record["complete"] is True
    assert record["input_bytes"] == len(b"hello\nworld\n")
    assert record["timed_out"] is False
    capture = Path(os.environ["TERSH_HOME"]) / "captures" / record["capture_id"] / "combined"
    assert capture.read_bytes() == b"hello\nworld\n"


def test_run_failure_is_an_error_with_the_exit_code_in_the_text() -> None:
    result = run_tool(command="echo partial; echo boom >&2; exit 3")
    assert result.is_error is True
    blocks = texts(result)
    assert blocks[0] == "partial\nboom"
    assert "exit code 3" in blocks[-1]
    assert data(result)["exit_code"] == 3


def test_run_always_compacts_even_when_the_profile_is_disabled() -> None:
    # A new profile is disabled: `tersh run` would pass through; the MCP tool still captures.
    result = run_tool(command="seq 1 5000")
    record = data(result)
    assert CAPTURE_ID.match(record["capture_id"])
    assert record["complete"] is False
    assert record["output_bytes"] < record["input_bytes"]
    assert f"tersh retrieve {record['capture_id']}" in texts(result)[0]


def test_run_text_is_exactly_what_tersh_run_prints(tmp_path: Path) -> None:
    tests_file = tmp_path / "test_sample.py"
    tests_file.write_text(
        "import pytest\n\n"
        "@pytest.mark.parametrize('n', range(3000))\n"
        "def test_many(n):\n    assert n >= 0\n\n"
        "def test_broken():\n    assert 2 + 2 == 5, 'arithmetic is off'\n",
        encoding="utf-8",
    )
    # COLUMNS and CI fix pytest's line width and summary style (pytest does not shorten the
    # summary under CI): the two runs must not depend on the caller's terminal or environment.
    # Both runs start in the same folder, so pytest prints the same relative paths.
    command = (
        f"cd {tmp_path} && CI=true COLUMNS=80 {sys.executable} -m pytest"
        f" -p no:cacheprovider --rootdir={tmp_path} {tests_file.name}"
    )
    enable()
    cli = tersh(["run", "-c", command]).stdout.decode()
    result = run_tool(command=command)

    def normal(text: str) -> str:
        text = re.sub(r"c[0-9a-f]{12}", "CAPTURE", text)
        return re.sub(r"\d+\.\d+s", "T", text).rstrip("\n")

    assert normal(texts(result)[0]) == normal(cli)
    assert result.is_error is True and data(result)["exit_code"] == 1
    assert data(result)["category"] == "tests"
    assert "test_broken" in texts(result)[0] and "arithmetic is off" in texts(result)[0]


CORPUS_CASES = [
    "test__pytest-click-default-failures",
    "lint__ruff-boltons-default-full",
    "build__mypy-click-injected-errors",
    "git__log-oneline-300",
]


@pytest.mark.parametrize("name", CORPUS_CASES)
def test_run_keeps_every_fact_of_real_tool_output(name: str, tmp_path: Path) -> None:
    case = next((c for c in corpus.cases() if c.name == name), None)
    if case is None:
        pytest.skip("shared corpus not present")
    program = case.cmd.split()[0]
    shim = tmp_path / "bin" / program  # replays the real output under the real program name
    shim.parent.mkdir()
    shim.write_text(f"#!/bin/sh\ncat '{case.path / 'combined'}'\nexit {case.exit_code}\n")
    shim.chmod(0o755)
    env = {"PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}"}

    async def scenario(session: ClientSession) -> CallToolResult:
        return await session.call_tool("run", {"command": case.cmd})

    result = serve(scenario, env=env, cwd=tmp_path)
    assert corpus.lost_facts(case, "\n".join(texts(result))) == []
    assert data(result)["exit_code"] == case.exit_code
    assert result.is_error is (case.exit_code != 0)
    assert data(result)["input_bytes"] == (case.path / "combined").stat().st_size


def test_run_respects_the_bypass_marker_and_cleans_otherwise() -> None:
    async def scenario(session: ClientSession) -> tuple[CallToolResult, CallToolResult]:
        plain = await session.call_tool("run", {"command": r"printf '\033[31mred\033[0m\n'"})
        raw = await session.call_tool("run", {"command": r"printf '\033[31mred\033[0m\n' # no-opt"})
        return plain, raw

    plain, raw = serve(scenario)
    assert texts(plain)[0] == "red"
    assert "\x1b[31mred\x1b[0m" in texts(raw)[0]


def test_run_returns_machine_readable_output_byte_exact() -> None:
    script = "import json; print(json.dumps({'b': [1, 2], 'a': {'x':   None}}, indent=3))"
    result = run_tool(command=f'{sys.executable} -c "{script}" --json')
    expected = json.dumps({"b": [1, 2], "a": {"x": None}}, indent=3) + "\n"
    assert texts(result)[0] == expected
    assert json.loads(texts(result)[0]) == {"b": [1, 2], "a": {"x": None}}


def test_run_timeout_stops_the_command_with_124() -> None:
    result = run_tool(command="echo started; sleep 30", timeout_seconds=0.5)
    assert result.is_error is True
    record = data(result)
    assert record["exit_code"] == 124 and record["timed_out"] is True
    assert texts(result)[0] == "started"
    assert any("timeout" in block for block in texts(result))


def test_commands_cannot_read_or_write_the_protocol_streams() -> None:
    async def scenario(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool("run", {"command": "cat; echo after-cat"}),
            await session.call_tool("run", {"command": "echo direct > /dev/stdout; echo tty-ok"}),
            await session.call_tool("run", {"command": "echo still-alive"}),
        ]

    reading, writing, last = serve(scenario)
    assert texts(reading)[0] == "after-cat"
    assert texts(writing)[0] == "direct\ntty-ok"
    assert texts(last)[0] == "still-alive"


def test_run_in_a_given_folder_and_refuses_a_missing_one(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool("run", {"command": "pwd", "cwd": str(tmp_path)}),
            await session.call_tool("run", {"command": "touch made", "cwd": str(tmp_path / "no")}),
        ]

    here, missing = serve(scenario)
    assert texts(here)[0] == str(tmp_path)
    assert missing.is_error is True and "no such folder" in texts(missing)[0]
    assert not (tmp_path / "no").exists()


def test_run_fails_open_when_no_capture_can_be_made(tmp_path: Path) -> None:
    home = Path(os.environ["TERSH_HOME"])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "captures").symlink_to(elsewhere)  # the capture store refuses a symlinked folder
    result = run_tool(command="echo still here; echo err >&2; exit 4")
    blocks = texts(result)
    assert blocks[0] == "still here\nerr\n"
    assert any("exit code 4" in block for block in blocks)
    assert result.is_error is True
    assert data(result)["capture_id"] is None and data(result)["exit_code"] == 4
    assert list(elsewhere.iterdir()) == []


def test_run_rejects_bad_arguments_as_tool_errors() -> None:
    async def scenario(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool("run", {}),
            await session.call_tool("run", {"command": "true", "timeout_seconds": -1}),
            await session.call_tool("run", {"command": "   "}),
        ]

    for result in serve(scenario):
        assert result.is_error is True
        assert texts(result)[0]


# --- retrieve -----------------------------------------------------------------------------------


def test_retrieve_pages_lines_bytes_streams_and_searches() -> None:
    command = "seq 1 3000; echo needle-in-stderr >&2; exit 2"
    # A document on stdout (python's json.tool: no jq needed) keeps its own stream.
    document = (
        "python3 -c 'print(list(range(3000)))' | python3 -m json.tool; echo needle-in-stderr >&2; exit 2"
    )

    async def scenario(session: ClientSession) -> dict[str, CallToolResult]:
        ran = await session.call_tool("run", {"command": command})
        ident = data(ran)["capture_id"]
        separate = data(await session.call_tool("run", {"command": document}))["capture_id"]
        return {
            "ran": ran,
            "page": await session.call_tool("retrieve", {"id": ident, "offset": 10, "limit": 3}),
            "bytes": await session.call_tool("retrieve", {"id": ident, "bytes": True, "limit": 6}),
            "merged": await session.call_tool("retrieve", {"id": ident, "stream": "stderr"}),
            "err": await session.call_tool("retrieve", {"id": separate, "stream": "stderr"}),
            "query": await session.call_tool("retrieve", {"id": ident, "query": "NEEDLE"}),
            "past": await session.call_tool("retrieve", {"id": ident, "offset": 99999}),
        }

    got = serve(scenario)
    assert texts(got["page"])[0].splitlines()[:3] == ["11: 11", "12: 12", "13: 13"]
    assert data(got["page"])["next_offset"] == 13
    assert data(got["page"])["total_lines"] == 3001
    assert texts(got["bytes"])[0].startswith("1\n2\n3\n")
    assert texts(got["err"])[0] == "1: needle-in-stderr"
    assert got["merged"].is_error is True  # one channel: no stderr of its own to page through
    assert "no separate stderr" in texts(got["merged"])[0]
    assert "--stream combined" in texts(got["merged"])[0]
    assert texts(got["query"])[0] == "3001: needle-in-stderr"
    assert got["past"].is_error is False
    assert texts(got["past"])[0] == "[tersh: offset 99999 is past the end (3,001 lines)]"
    for name in ("page", "bytes", "err", "query"):
        assert got[name].is_error is False


def test_retrieve_reports_malformed_and_unknown_ids_as_errors() -> None:
    async def scenario(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool("retrieve", {"id": "../../etc/passwd"}),
            await session.call_tool("retrieve", {"id": "c0123456789ab"}),
            await session.call_tool("retrieve", {"id": "o0123456789ab"}),
            await session.call_tool("retrieve", {"id": "c0123456789ab", "limit": 0}),
        ]

    malformed, unknown_capture, unknown_output, bad_limit = serve(scenario)
    assert malformed.is_error and "malformed id" in texts(malformed)[0]
    assert unknown_capture.is_error and "c0123456789ab" in texts(unknown_capture)[0]
    assert unknown_output.is_error and "o0123456789ab" in texts(unknown_output)[0]
    assert bad_limit.is_error


def test_retrieve_reads_a_tool_output_cache_entry() -> None:
    from tersh.recording import tool_cache as cache

    body = "".join(f"line {n}\n" for n in range(1, 501)).encode()
    entry = cache.default().put(body, "Read")

    async def scenario(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool("retrieve", {"id": entry, "offset": 498}),
            await session.call_tool("retrieve", {"id": entry, "query": "LINE 49"}),
        ]

    page, found = serve(scenario)
    assert texts(page)[0] == "499: line 499\n500: line 500"
    assert texts(found)[0].splitlines()[:2] == ["49: line 49", "490: line 490"]
    assert len(texts(found)[0].splitlines()) == 11


# --- search -------------------------------------------------------------------------------------


def test_search_finds_lines_across_the_session_with_line_numbers() -> None:
    async def scenario(session: ClientSession) -> dict[str, CallToolResult]:
        first = await session.call_tool(
            "run", {"command": "seq 1 50; echo 'src/app.py:12: error: undefined name frobnicate'"}
        )
        second = await session.call_tool("run", {"command": "printf 'alpha\\nfrobnicate twice\\n'"})
        return {
            "first": first,
            "second": second,
            "hit": await session.call_tool("search", {"query": "frobnicate"}),
            "phrase": await session.call_tool("search", {"query": "app.py:12 undefined"}),
            "prefix": await session.call_tool("search", {"query": "frobni"}),
            "none": await session.call_tool("search", {"query": "zebra"}),
            "punct": await session.call_tool("search", {"query": "::"}),
            "one": await session.call_tool("search", {"query": "frobnicate", "limit": 1}),
        }

    got = serve(scenario)
    first, second = data(got["first"])["capture_id"], data(got["second"])["capture_id"]
    matches = data(got["hit"])["matches"]
    assert {(m["capture_id"], m["line"]) for m in matches} == {(first, 51), (second, 2)}
    assert matches[0]["capture_id"] == second  # newest capture first
    text = texts(got["hit"])[0]
    assert f"{first} $ seq 1 50" in text and "51: src/app.py:12: error: undefined name" in text
    assert data(got["phrase"])["matches"] == [{"capture_id": first, "line": 51}]
    assert len(data(got["prefix"])["matches"]) == 2
    assert got["none"].is_error is False and data(got["none"])["matches"] == []
    assert "no line matches 'zebra'" in texts(got["none"])[0]
    assert data(got["punct"])["matches"] == []  # no line holds '::', found by substring scan
    assert data(got["punct"])["engine"] == "substring"
    assert len(data(got["one"])["matches"]) == 1 and data(got["one"])["more"] == 1


def test_search_session_is_the_ledger_session(tmp_path: Path) -> None:
    from tersh.execution import pipeline

    other = pipeline.compact("echo other", 0, combined=b"shared-word from another session\n")
    assert CAPTURE_ID.match(other.capture_id or "")

    async def scenario(session: ClientSession) -> CallToolResult:
        await session.call_tool("run", {"command": "echo shared-word here"})
        return await session.call_tool("search", {"query": "shared-word"})

    result = serve(scenario, env={"TERSH_SESSION": "mcp-test-session"})
    assert [m["line"] for m in data(result)["matches"]] == [1]
    assert other.capture_id not in texts(result)[0]


def test_search_with_no_captures_says_so() -> None:
    async def scenario(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool("search", {"query": "anything"}),
            await session.call_tool("search", {"query": ""}),
        ]

    empty, blank = serve(scenario)
    assert empty.is_error is False and "no captures yet" in texts(empty)[0]
    assert blank.is_error is True


def test_search_index_is_private(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> CallToolResult:
        await session.call_tool("run", {"command": "echo secret-ish"})
        return await session.call_tool("search", {"query": "secret"})

    serve(scenario)
    folder = Path(os.environ["TERSH_HOME"]) / "search"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for entry in folder.iterdir():
        assert stat.S_IMODE(entry.stat().st_mode) & 0o077 == 0, entry


# --- stats --------------------------------------------------------------------------------------


def test_stats_reports_the_session_savings_in_bytes_and_tokens() -> None:
    async def scenario(session: ClientSession) -> tuple[list[CallToolResult], CallToolResult]:
        runs = [
            await session.call_tool("run", {"command": "seq 1 4000"}),
            await session.call_tool("run", {"command": "echo small"}),
        ]
        return runs, await session.call_tool("stats", {})

    runs, stats = serve(scenario, env={"TERSH_SESSION": "stats-session"})
    record = data(stats)
    assert record["session"] == "stats-session" and record["source"] == "ledger"
    assert record["calls"] == 2 and record["measured_calls"] == 2
    assert record["input_bytes"] == sum(data(r)["input_bytes"] for r in runs)
    assert record["output_bytes"] == sum(data(r)["output_bytes"] for r in runs)
    assert record["input_tokens"] > record["output_tokens"] > 0
    text = texts(stats)[0]
    assert "2 calls" in text and "saved" in text and "tokens (o200k)" in text


def test_stats_without_a_ledger_counts_this_servers_runs() -> None:
    from tersh import settings

    settings.save({"ledger.enabled": False})

    async def scenario(session: ClientSession) -> CallToolResult:
        await session.call_tool("run", {"command": "seq 1 3000"})
        return await session.call_tool("stats", {})

    record = data(serve(scenario))
    assert record["source"] == "server" and record["calls"] == 1
    assert record["input_bytes"] > record["output_bytes"] > 0


# --- the wire protocol, line by line ------------------------------------------------------------


def raw_session(lines: list[str]) -> list[dict[str, Any]]:
    """Send ``lines`` to `python -m tersh mcp`, close stdin, return every answer line."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "tersh", "mcp"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "TERSH_HOME": os.environ["TERSH_HOME"]},
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def request(ident: int, method: str, params: dict[str, Any] | None = None) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}})


def test_protocol_version_is_the_clients_when_known_else_the_newest() -> None:
    known, unknown = raw_session(
        [
            request(1, "initialize", {"protocolVersion": "2024-11-05", "capabilities": {}}),
            request(2, "initialize", {"protocolVersion": "1999-01-01", "capabilities": {}}),
        ]
    )
    assert known["result"]["protocolVersion"] == "2024-11-05"
    assert unknown["result"]["protocolVersion"] == "2025-11-25"
    assert known["result"]["capabilities"] == {"tools": {"listChanged": False}}


def test_bad_lines_get_json_rpc_errors_and_the_server_carries_on() -> None:
    answers = raw_session(
        [
            "this is not json",
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            request(3, "server/discover"),
            request(4, "tools/call", {"name": "no-such-tool", "arguments": {}}),
            request(5, "tools/call", {"name": "run", "arguments": ["echo"]}),
            request(
                6, "tools/call", {"name": "retrieve", "arguments": {"id": "c0123456789ab", "limit": "ten"}}
            ),
            request(7, "tools/call", {"name": "run", "arguments": {"command": "echo x", "shell": 1}}),
            request(8, "ping"),
        ]
    )
    by_id = {answer.get("id"): answer for answer in answers}
    assert by_id[None]["error"]["code"] == -32700  # the notification got no answer at all
    assert len(answers) == 7
    assert by_id[3]["error"]["code"] == -32601
    assert by_id[4]["error"]["code"] == -32602 and by_id[5]["error"]["code"] == -32602
    for ident, words in ((6, "limit must be a number"), (7, "unknown argument 'shell'")):
        assert by_id[ident]["result"]["isError"] is True
        assert words in by_id[ident]["result"]["content"][0]["text"]
    assert by_id[8]["result"] == {}


def test_calls_are_answered_while_a_long_one_runs() -> None:
    answers = raw_session(
        [
            request(1, "tools/call", {"name": "run", "arguments": {"command": "sleep 1; echo slow"}}),
            request(2, "tools/call", {"name": "run", "arguments": {"command": "echo quick"}}),
        ]
    )
    assert [answer["id"] for answer in answers] == [2, 1]  # the quick one did not wait
    assert answers[1]["result"]["content"][0]["text"] == "slow"
