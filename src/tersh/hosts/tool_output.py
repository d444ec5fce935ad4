"""Hand one tool output to ``tersh.tools.compress``; None whenever it changed nothing.

``tersh.tools`` is imported only when a host hands over an output; an error inside it or an
unchanged result means "leave the host's output alone".
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import Any

    TextOrBlocks = str | list[dict[str, Any]]

#: Host names of the ``tersh mcp`` tools (server registered as "tersh"): compressing their
#: results again would cut the pages `retrieve` returns and the previews `run` already bounded.
OWN_MCP_TOOLS = ("mcp__tersh__",)


def compress(tool: str, output: TextOrBlocks, metadata: dict[str, Any]) -> TextOrBlocks | None:
    """The compressed output (same type as ``output``) or None when nothing was gained."""
    if tool.startswith(OWN_MCP_TOOLS):  # tersh's own MCP results are already bounded pages
        return None
    try:
        if isinstance(output, str):  # the common case: a short output, decided without the compressor
            from tersh.settings import load_or_defaults
            from tersh.tools import trigger

            if trigger.below_trigger(output, load_or_defaults()[0]):
                return None
        from tersh import tools

        result = tools.compress(tool, output, metadata)
    except Exception:  # fail open: the host keeps the original output
        return None
    if not getattr(result, "changed", False):
        return None
    new_output = getattr(result, "output", None)
    if isinstance(output, str) and isinstance(new_output, str):
        return new_output
    if isinstance(output, list) and isinstance(new_output, list):
        return new_output
    return None
