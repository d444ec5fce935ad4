"""The Anthropic Messages API as the real Claude Code binary speaks it, for :mod:`fakemodel`.

The scripted model is stateless: the number of ``tool_use`` blocks already in the conversation
says which scripted tool call comes next, so one ``claude -p`` run walks a whole list of calls
(one per turn, the next after each tool result) and then ends with a short text answer.

Wire shapes from the Messages API streaming reference (https://docs.anthropic.com/en/api/messages-streaming):
``message_start``, ``content_block_start`` / ``content_block_delta`` (``text_delta`` or
``input_json_delta``) / ``content_block_stop``, ``message_delta`` with the stop reason,
``message_stop``. Side requests the host makes (session title, quota probe, token counting)
get a plain short answer; only requests that offer the scripted tool advance the script.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from tests.e2e.fakemodel import Reply, Request, json_reply, sse_reply

MODEL = "claude-sonnet-4-5"


class ToolCall(NamedTuple):
    """One tool call the scripted model makes."""

    name: str
    input: dict[str, Any]


def bash(command: str, **extra: Any) -> ToolCall:
    """A Bash tool call running ``command`` (``timeout`` in milliseconds, ``description`` …)."""
    return ToolCall("Bash", {"command": command, "description": "scripted", **extra})


def conversation_tool_uses(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every ``tool_use`` block of the assistant turns in a request, oldest first."""
    return [block for block in _blocks(body, "assistant") if block.get("type") == "tool_use"]


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every ``tool_result`` block of the user turns in a request, oldest first."""
    return [block for block in _blocks(body, "user") if block.get("type") == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    """The text of one ``tool_result`` block (a string or a list of text blocks)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _blocks(body: dict[str, Any], role: str) -> Iterator[dict[str, Any]]:
    for message in body.get("messages") or []:
        if message.get("role") != role or not isinstance(message.get("content"), list):
            continue
        yield from (block for block in message["content"] if isinstance(block, dict))


def offered_tools(body: object) -> list[str]:
    """The names of the tools a request offers the model."""
    if not isinstance(body, dict):
        return []
    return [str(tool.get("name")) for tool in body.get("tools") or [] if isinstance(tool, dict)]


class ScriptedModel:
    """A responder that makes the scripted tool calls in order, then answers ``done``."""

    def __init__(self, calls: Sequence[ToolCall]) -> None:
        self.calls = list(calls)

    def __call__(self, request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if request.path.split("?")[0].endswith("/count_tokens"):
            return json_reply({"input_tokens": 10})
        if not request.path.split("?")[0].endswith("/v1/messages"):
            return json_reply({})
        step = len(conversation_tool_uses(body))
        names = offered_tools(body)
        if step < len(self.calls) and self.calls[step].name in names:
            return _answer(body, tool=self.calls[step], tool_id=f"toolu_{step:04d}")
        return _answer(body, text="done")

    def main_requests(self, requests: Sequence[Request]) -> list[Request]:
        """The requests of the main conversation (those that offer the scripted tools)."""
        return [r for r in requests if self.calls and self.calls[0].name in offered_tools(r.body)]


def _answer(body: dict[str, Any], text: str = "", tool: ToolCall | None = None, tool_id: str = "") -> Reply:
    model = str(body.get("model") or MODEL)
    if tool is not None:
        block: dict[str, Any] = {"type": "tool_use", "id": tool_id, "name": tool.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(tool.input)}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": text}
        stop = "end_turn"
    usage = {"input_tokens": 10, "output_tokens": 5}
    if not body.get("stream"):
        final = dict(block)
        if tool is not None:
            final["input"] = tool.input
        else:
            final["text"] = text
        message = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [final],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }
        return json_reply(message)
    start = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return sse_reply(
        [
            ("message_start", {"type": "message_start", "message": start}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": usage,
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )
