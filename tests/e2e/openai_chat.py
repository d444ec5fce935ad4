"""An OpenAI Chat Completions responder for the fake model server (streamed, SSE).

The scripted model calls one tool per turn: the ``n``-th request that carries tools is answered
with the ``n``-th scripted call (``n`` counts the tool results already in the conversation), and
once the script is done with a short text. Requests without tools (a host's title or summary
call) get a short text too. Wire format: https://platform.openai.com/docs/api-reference/chat-streaming
(``chat.completion.chunk`` objects, ``data: [DONE]`` at the end).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

from tests.e2e.fakemodel import Reply, Request, sse_reply

DONE_TEXT = "All scripted calls are done."


class ToolCall(NamedTuple):
    """One tool call the scripted model makes: a tool name and its JSON arguments."""

    name: str
    arguments: dict[str, Any]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _text_events(text: str) -> Iterator[tuple[str | None, object]]:
    yield None, _chunk({"role": "assistant", "content": ""})
    yield None, _chunk({"content": text})
    yield None, _chunk({}, "stop")
    yield None, "[DONE]"


def _call_events(call: ToolCall, number: int) -> Iterator[tuple[str | None, object]]:
    tool_call = {
        "index": 0,
        "id": f"call_{number}",
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
    }
    yield None, _chunk({"role": "assistant", "content": None, "tool_calls": [tool_call]})
    yield None, _chunk({}, "tool_calls")
    yield None, "[DONE]"


def tool_results(body: Any) -> list[dict[str, Any]]:
    """The ``role: tool`` messages of a recorded request body, in order."""
    if not isinstance(body, dict):
        return []
    return [m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "tool"]


def tool_calls(body: Any) -> list[dict[str, Any]]:
    """The assistant's tool calls (``{"name", "arguments"}``, arguments decoded) in a request body."""
    calls = []
    if not isinstance(body, dict):
        return calls
    for message in body.get("messages") or []:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except ValueError:
                arguments = function.get("arguments")
            calls.append({"name": function.get("name"), "arguments": arguments})
    return calls


def content_text(message: dict[str, Any]) -> str:
    """A message's content as one string (plain, or the text parts joined)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


#: A scripted step: a fixed call, or one made from the request so far (its decoded body).
Step = ToolCall | Callable[[dict[str, Any]], ToolCall]


def scripted(calls: Sequence[Step]) -> Any:
    """A responder making ``calls`` one per turn, then answering with :data:`DONE_TEXT`.

    A callable step sees the request body, so a call can use what an earlier result said.
    """

    def respond(request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if not request.path.endswith("/chat/completions"):
            return Reply(404, "application/json", [b'{"error":{"message":"not found"}}'])
        if not body.get("tools"):
            return sse_reply(_text_events("Scripted session"))
        done = len(tool_results(body))
        if done < len(calls):
            step = calls[done]
            call = step if isinstance(step, ToolCall) else step(body)
            return sse_reply(_call_events(call, done))
        return sse_reply(_text_events(DONE_TEXT))

    return respond
