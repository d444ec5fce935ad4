"""A scripted model speaking the OpenAI Responses API (``POST /v1/responses``, streamed as SSE).

Codex CLI talks to a custom model provider with ``wire_api = "responses"``; it sends the whole
conversation in every request (``input``), so the script is stateless: the number of
``function_call_output`` items already in the input says which step comes next. Each step is one
tool call (one per turn); after the last step the model answers with a short message.

Event names and item shapes are those of the Responses streaming API
(https://platform.openai.com/docs/api-reference/responses-streaming): ``response.created``,
``response.output_item.done`` (a ``function_call`` or a ``message`` item), ``response.completed``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from tests.e2e.fakemodel import Reply, Request, json_reply, sse_reply

FINAL_TEXT = "done"


class Call(NamedTuple):
    """One tool call the model makes: the tool's name, its JSON arguments, its namespace.

    Codex 0.171 offers an MCP server's tools as a ``namespace`` tool (``mcp__<server>``) whose
    inner functions are called by their own name with that namespace.
    """

    name: str
    arguments: dict[str, Any]
    namespace: str | None = None


#: A step is a call, or a function that builds the call from the request (to use an earlier result).
Step = Call | Callable[[Request], Call]


def shell(command: str) -> Call:
    """A call of Codex's unified-exec shell tool (``exec_command``, 0.171) for ``command``."""
    return Call("exec_command", {"cmd": command, "yield_time_ms": 30000})


def items(request: Request) -> list[dict[str, Any]]:
    """The conversation items of a ``/responses`` request."""
    body = request.body if isinstance(request.body, dict) else {}
    found = body.get("input")
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


def outputs(request: Request) -> list[dict[str, Any]]:
    """The tool results (``function_call_output`` items) the model is sent in ``request``."""
    return [item for item in items(request) if item.get("type") == "function_call_output"]


def output_text(item: dict[str, Any]) -> str:
    """The text of one ``function_call_output`` (a string, or a list of content parts)."""
    output = item.get("output")
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(str(part.get("text", "")) for part in output if isinstance(part, dict))
    return json.dumps(output)


def calls(request: Request) -> list[dict[str, Any]]:
    """The model's own earlier tool calls as the host replays them in ``request``."""
    return [item for item in items(request) if item.get("type") == "function_call"]


def _call_event(step: int, call: Call) -> dict[str, Any]:
    item = {
        "type": "function_call",
        "id": f"fc_{step}",
        "call_id": f"call_{step}",
        "name": call.name,
        "arguments": json.dumps(call.arguments),
    }
    if call.namespace:
        item["namespace"] = call.namespace
    return {"type": "response.output_item.done", "output_index": 0, "item": item}


def _message_event(text: str) -> dict[str, Any]:
    item = {
        "type": "message",
        "role": "assistant",
        "id": "msg_final",
        "content": [{"type": "output_text", "text": text}],
    }
    return {"type": "response.output_item.done", "output_index": 0, "item": item}


class Script:
    """The model's plan: ``steps`` tool calls, one per turn, then :data:`FINAL_TEXT`."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)

    def __call__(self, request: Request) -> Reply:
        """Answer one host request (anything but ``POST …/responses`` gets an empty JSON)."""
        if request.method != "POST" or not request.path.rstrip("/").endswith("/responses"):
            return json_reply({"object": "list", "data": []})
        step = len(outputs(request))
        response_id = f"resp_{step}"
        if step < len(self.steps):
            planned = self.steps[step]
            event = _call_event(step, planned if isinstance(planned, Call) else planned(request))
        else:
            event = _message_event(FINAL_TEXT)
        usage = {"input_tokens": 10, "output_tokens": 1, "total_tokens": 11}
        return sse_reply(
            [
                ("response.created", {"type": "response.created", "response": {"id": response_id}}),
                ("response.output_item.done", event),
                (
                    "response.completed",
                    {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
                ),
            ]
        )


def last_responses_request(requests: Sequence[Request]) -> Request:
    """The last ``/responses`` request (it holds the whole conversation)."""
    found = [r for r in requests if r.method == "POST" and r.path.rstrip("/").endswith("/responses")]
    assert found, "the host sent no /responses request"
    return max(found, key=lambda r: len(items(r)))
