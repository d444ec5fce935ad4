"""The MCP tool bodies in-process: the fail-open paths that a live server can hardly provoke."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tersh.command import policy
from tersh.execution import orchestrate
from tersh.mcp import tools as mcp_tools
from tersh.mcp.tools import ServerState
from tersh.result import Result


def test_a_lost_capture_returns_what_reached_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    def lose(call: orchestrate.Call, **kwargs: Any) -> Result:
        kwargs["fallback"].write(b"first half\nsecond half\n")
        raise orchestrate.CaptureLost("capture write failed (disk full)", 5)

    monkeypatch.setattr(orchestrate, "run_call", lose)
    answer = mcp_tools.run_command("make")
    assert answer.blocks[0] == "first half\nsecond half\n"
    assert "disk full" in answer.blocks[1] and answer.blocks[-1] == "[tersh] exit code 5"
    assert answer.is_error and answer.data["exit_code"] == 5 and answer.data["capture_id"] is None


def test_an_unexpected_failure_never_runs_the_command_twice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    marker = tmp_path / "runs"
    real_run = orchestrate.run_call

    def run_then_crash(call: orchestrate.Call, **kwargs: Any) -> Result:
        real_run(call, **kwargs)
        raise RuntimeError("bug after the run")

    monkeypatch.setattr(orchestrate, "run_call", run_then_crash)
    answer = mcp_tools.run_command(f"echo x >> {marker}")
    assert answer.is_error and "not run again" in answer.blocks[0]
    assert marker.read_text() == "x\n"


def test_a_policy_failure_runs_the_command_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(command: str, **kwargs: object) -> policy.Decision:
        raise ValueError("lexer bug")

    monkeypatch.setattr(policy, "decide", broken)
    answer = mcp_tools.run_command("echo plain; echo err >&2; exit 6")
    assert answer.blocks[0] == "plain\nerr\n"
    assert "policy failed (ValueError)" in answer.blocks[1]
    assert answer.data["exit_code"] == 6 and answer.is_error


def test_plain_run_keeps_partial_output_on_timeout() -> None:
    answer = mcp_tools.run_plain("echo begun; sleep 30", 0.5, None, "no capture")
    assert answer.blocks[0] == "begun\n"
    assert answer.data["exit_code"] == 124 and "stopped after 0.5 s" in answer.blocks[1]


def test_plain_run_reports_a_missing_folder_as_error() -> None:
    answer = mcp_tools.run_plain("true", None, "/no/such/folder", "no capture")
    assert answer.is_error and "could not start" in answer.blocks[0]


def test_result_answer_states_empty_output_timeout_and_exit_code() -> None:
    quiet = Result(text="", exit_code=0, requested_command="true", executed_command="true")
    assert mcp_tools.result_answer(quiet).blocks == ["[tersh] no output"]
    assert mcp_tools.result_answer(quiet).is_error is False
    stopped = Result(
        text="half", exit_code=124, requested_command="x", executed_command="x", details={"timed_out": 2.5}
    )
    answer = mcp_tools.result_answer(stopped)
    assert answer.blocks == ["half", "[tersh] stopped after the 2.5 s timeout", "[tersh] exit code 124"]
    assert answer.data["timed_out"] is True


def test_server_state_counts_only_measured_bytes() -> None:
    state = ServerState()
    state.count(
        Result(
            text="ab",
            exit_code=0,
            requested_command="a",
            executed_command="a",
            input_bytes=10,
            output_bytes=2,
        )
    )
    state.count(
        Result(
            text="raw",
            exit_code=0,
            requested_command="b",
            executed_command="b",
            input_bytes=99,
            output_bytes=3,
            measured=False,
        )
    )
    totals = (state.calls, state.measured_calls, state.input_bytes, state.output_bytes)
    assert totals == (2, 1, 10, 2)


def test_run_counts_into_the_server_state() -> None:
    state = ServerState()
    answer = mcp_tools.run_command(f"{sys.executable} -c \"print('x' * 10)\"", state=state)
    assert answer.blocks == ["x" * 10]
    assert state.calls == 1 and state.input_bytes == 11


def test_stats_render_without_token_counts() -> None:
    figures = {
        "calls": 1,
        "measured_calls": 1,
        "unmeasured_calls": 0,
        "input_bytes": 2048,
        "output_bytes": 1024,
        "saving": 0.5,
        "retrieved_bytes": None,
        "input_tokens": None,
    }
    text = mcp_tools.render_stats("s1", figures, "ledger off")
    assert text.splitlines() == [
        "[tersh] session s1: 1 call, 1 measured, 0 unmeasured (excluded from savings)",
        "bytes: 2.0 KB in, 1.0 KB shown: 50.0% saved",
        "tokens: not counted",
        "[tersh] ledger off",
    ]


def test_retrieve_rejects_ids_before_touching_any_path() -> None:
    for bad in ("c123", "C0123456789ab", "c0123456789ab/..", "x0123456789ab", ""):
        answer = mcp_tools.retrieve_entry(bad)
        assert answer.is_error and "malformed id" in answer.blocks[0]


def test_server_wrapper_turns_a_crash_into_an_error_result() -> None:
    from tersh.mcp import server as mcp_server

    def crash() -> mcp_tools.Answer:
        raise KeyError("boom")

    result = mcp_server.to_result(mcp_server._guarded("stats", crash))
    assert result["isError"] is True and "structuredContent" not in result
    assert result["content"][0]["type"] == "text" and "KeyError" in result["content"][0]["text"]


def test_host_hooks_leave_tersh_own_mcp_results_alone() -> None:
    from tersh.hosts import tool_output

    page = "\n".join(f"{n}: result line {n} with some words in it" for n in range(1, 2001))
    assert tool_output.compress("mcp__tersh__retrieve", page, {}) is None
    assert tool_output.compress("mcp__tersh__run", page, {}) is None
    other = tool_output.compress("mcp__other__fetch", page, {})
    assert isinstance(other, str) and len(other) < len(page)
