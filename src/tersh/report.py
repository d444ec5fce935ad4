"""The short capture report that ends a result whenever its text leaves something out."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tersh.result import CaptureRef

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
    """Where the complete output is and how to read it (id, folder, stream sizes, commands)."""
    if not captures:
        return ""
    first = captures[0]
    folder = str(Path(first.path).parent)
    sizes = ", ".join(f"{c.stream} {human_bytes(c.bytes)}" for c in captures)
    lines_note = f"{total_lines:,} lines; " if total_lines is not None else ""
    text = [f"[tersh] full output in capture {first.id} ({lines_note}{sizes}): {folder}/"]
    if note:
        text.append(f"[tersh] {note}")
    text.append(f"[tersh] read more: tersh retrieve {first.id} --offset N --limit M, or --query TEXT")
    return "\n".join(text)
