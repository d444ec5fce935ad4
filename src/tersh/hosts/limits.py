"""How much shell output each host shows its model inline, and tersh's preview bound under it.

A host that receives more than its own inline limit replaces tersh's text with its own short
preview (or a file), so the model would never see tersh's capture report. Under a host, tersh's
preview bound is therefore the smaller of its own setting and the host's limit:

* Claude Code 2.1.332 moves a Bash result over 30,000 characters to a file and shows a short
  preview ("Bash tool" output limit; measured in the real binary by the e2e tests);
* Gemini CLI 0.61 cuts a shell result at about 40,000 characters (measured: ``seq 1 300000``
  reaches the model as 40,291 characters without tersh).

A character is at least one byte, so bounding the preview's bytes bounds its characters.
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from tersh.settings import Settings

#: Characters of shell output each host shows inline (hosts with no fixed limit are absent).
INLINE_CHARS = {"claude-code": 30_000, "gemini": 40_000}


def bounded(conf: Settings, host: str) -> Settings:
    """``conf`` with ``preview.max_bytes`` no larger than ``host``'s inline limit."""
    from tersh.settings import Settings

    limit = INLINE_CHARS.get(host)
    if limit is None or conf.int("preview.max_bytes") <= limit:
        return conf
    return Settings({**conf.overrides, "preview.max_bytes": limit})
