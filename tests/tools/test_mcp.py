"""MCP content lists: slots compressed in place, media and links untouched, order kept."""

from __future__ import annotations

import copy
import re

from tersh.settings import Settings
from tersh.tools import compress

ID = re.compile(r"tersh retrieve (o[0-9a-f]{12})")
BIG = "\n".join(f"record {i}: " + "field " * 8 for i in range(800))


def items() -> list[dict[str, object]]:
    return [
        {"type": "text", "text": BIG, "annotations": {"audience": ["assistant"]}},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "file:///a.md", "mimeType": "text/markdown", "text": BIG}},
        {"type": "resource_link", "uri": "file:///b", "name": "b"},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "resource", "resource": {"uri": "file:///c.png", "mimeType": "image/png", "text": BIG}},
        {"type": "text", "text": "tiny"},
    ]


def test_slots_are_compressed_in_place_and_everything_else_is_identical() -> None:
    original = items()
    result = compress("mcp__docs__fetch", copy.deepcopy(original))
    out = result.output
    assert result.changed and isinstance(out, list)
    assert [i["type"] for i in out] == [i["type"] for i in original]
    for index in (1, 3, 4, 5, 6):  # media, link, non-textual resource, small text
        assert out[index] == original[index]
    assert out[0]["annotations"] == {"audience": ["assistant"]}
    assert out[2]["resource"]["uri"] == "file:///a.md"
    first, second = ID.search(out[0]["text"]), ID.search(out[2]["resource"]["text"])
    assert first and second
    assert result.metrics["applied"] and result.metrics["saving"] > 0.5
    assert len(out[0]["text"]) + len(out[2]["resource"]["text"]) <= 2500 * 4 + 600


def test_input_list_is_not_mutated() -> None:
    original = items()
    snapshot = copy.deepcopy(original)
    compress("mcp__x", original)
    assert original == snapshot


def test_small_results_pass_through() -> None:
    small = [{"type": "text", "text": "hello"}, {"type": "image", "data": "x", "mimeType": "image/png"}]
    result = compress("mcp__x", small)
    assert result.output is small and not result.changed


def test_huge_results_are_left_to_the_host() -> None:
    result = compress("mcp__x", items(), settings=Settings({"cache.entry_bytes": 50_000}))
    assert not result.changed and "left to the host" in result.metrics["reason"]


def test_small_slots_are_never_cut() -> None:
    many_small = [{"type": "text", "text": "x" * 700} for _ in range(40)]
    result = compress("mcp__x", many_small)
    assert not result.changed and result.output is many_small
    assert result.metrics["reason"] == "no slot could be shortened"


def test_whole_result_gate_applies() -> None:
    # The big slot alone shrinks a lot, but the whole result saves under 10%: nothing changes.
    content = [{"type": "text", "text": "w " * 6500}] + [{"type": "text", "text": "y" * 700}] * 200
    result = compress("mcp__x", content)
    assert not result.changed and result.output is content
    assert "not above minimum" in result.metrics["reason"]
