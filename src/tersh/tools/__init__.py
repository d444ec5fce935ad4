"""Compress and recover the outputs of an agent's non-shell tools (SPEC §2).

:func:`compress` takes a tool name, its output (text, or a list of MCP content items) and the
host's metadata, and returns a :class:`ToolResult`: the compressed output or the original,
``changed``, and the metadata with a ``tersh`` metrics entry. Nothing raised inside ever
reaches the caller: on any problem the original comes back (fail open).

Both names are loaded on first use (from :mod:`tersh.tools.compressor`), so a hook can ask
:mod:`tersh.tools.trigger` whether an output is worth a look without loading the compressor.
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from tersh.tools.compressor import ToolResult, compress

__all__ = ["ToolResult", "compress"]


def __getattr__(name: str) -> object:
    """``ToolResult`` and ``compress``, imported from the compressor when first asked for."""
    if name in __all__:
        from tersh.tools import compressor

        value = getattr(compressor, name)
        globals()[name] = value  # later lookups skip this function (serve asks per request)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
