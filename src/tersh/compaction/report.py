"""The short capture report that ends a result whenever its text leaves something out."""

from __future__ import annotations

from tersh.result import CaptureRef

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Sequence

#: Room kept free in the preview bounds for the report (lines, bytes).
RESERVE_LINES = 6
RESERVE_BYTES = 1024


def human_bytes(count: int) -> str:
    """``1536`` -> ``1.5 KB``; exact bytes under 1 KB."""
    if count < 1024:
        return f"{count} B"
    size = float(count)
    for unit in ("KB", "MB", "GB"):
        size /= 1024
        if size < 1024 or unit == "GB":
            return f"{size:.1f} {unit}"
    return f"{count} B"


def capture_report(captures: Sequence[CaptureRef], *, total_lines: int | None = None,
                   note: str = "") -> str:
    """Where the complete output is and how to read it: one line with the stream sizes, the
    capture file (its folder's name is the id; a host's own file tools can read it) and the
    ``retrieve`` command, spelled with the tersh that is running so it works as printed from
    the agent's shell even where ``tersh`` is not on PATH.

    The report ends every incomplete result, so it is kept short: the id is written twice (in
    the path and in the command), not three times.
    """
    if not captures:
        return ""
    from tersh.command.quoting import tersh_command

    first = captures[0]
    sizes = ", ".join(f"{c.stream} {human_bytes(c.bytes)}" for c in captures)
    lines_note = f"{total_lines:,} lines; " if total_lines is not None else ""
    text = [f"[tersh] {note}"] if note else []
    text.append(f"[tersh] full output ({lines_note}{sizes}): {first.path}; read: {tersh_command()} "
                f"retrieve {first.id} --offset N --limit M, or --query TEXT")
    return "\n".join(text)
