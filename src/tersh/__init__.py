"""tersh: cut the output reaching an AI coding agent to what it needs, losing nothing.

The library API mirrors the command line: :func:`run` runs a command, :func:`compact` compacts
output recorded elsewhere, :func:`retrieve` pages or searches a capture. Imports are lazy so that
``import tersh`` stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup

if TYPE_CHECKING:
    from typing import Any

    from tersh.entry import VERSION as __version__
    from tersh.execution.orchestrate import run
    from tersh.execution.pipeline import compact
    from tersh.result import Result
    from tersh.retrieval.pages import Page, retrieve

__all__ = ["Page", "Result", "__version__", "compact", "retrieve", "run"]


def __getattr__(name: str) -> Any:
    if name == "run":
        from tersh.execution import orchestrate

        return orchestrate.run
    if name == "compact":
        from tersh.execution import pipeline

        return pipeline.compact
    if name == "__version__":
        from tersh.entry import VERSION

        return VERSION
    if name == "Result":
        from tersh.result import Result

        return Result
    if name in {"retrieve", "Page"}:
        from tersh.retrieval import pages as retrieval

        return getattr(retrieval, name)
    raise AttributeError(f"module 'tersh' has no attribute {name!r}")
