"""What each agent host would have shown the model of a command's output, without tersh.

Hosts already bound tool output, so "tersh saved 95%" against the raw output overstates what
tersh adds. These functions rebuild the text a host puts in front of the model (its own preview
and notice included) so that savings can also be reported against that. The limits below are
the hosts' documented or published defaults as of late 2025; a user who changed them (for
example ``BASH_MAX_OUTPUT_LENGTH``) gets figures for the defaults. Sizes are UTF-8 bytes.
"""

from __future__ import annotations

from collections.abc import Callable

# Claude Code, Bash tool. Output longer than 30,000 characters (BASH_MAX_OUTPUT_LENGTH, default
# 30_000, upper bound 150_000 — utils/shell/outputLimits.ts in the published source) is not put
# inline: the full text is saved under the project's tool-results folder and the model gets a
# <persisted-output> block: "Output too large (<size>). Full output saved to: <path>", then a
# preview of the first 2,000 bytes (cut back to the last newline when one falls in the second
# half of the preview), then "...". See the v2.0.52 change log ("Tool Result Persistence") and
# anthropics/claude-code#19901 on the 30,000-character limit. JavaScript counts string length
# in UTF-16 code units, so we do too.
CLAUDE_MAX_CHARS = 30_000
CLAUDE_PREVIEW_BYTES = 2_000
#: A typical path: ~/.claude/projects/<project>/<session uuid>/tool-results/<tool use id>.txt
CLAUDE_SAVED_PATH = (
    "/home/user/.claude/projects/-home-user-project/"
    "0b4c5e1a-7d2f-4c3b-9a8e-1f2d3c4b5a69/tool-results/toolu_01ABCDEFGHIJKLMNOPQRSTUV.txt"
)

# OpenCode, every tool (packages/opencode/src/tool/truncation.ts, Truncate.output): output of
# more than 2,000 lines or 50 KiB is cut to the first lines that fit both limits, followed by
# "...N lines truncated..." (or "N bytes") and a hint naming the saved file.
OPENCODE_MAX_LINES = 2_000
OPENCODE_MAX_BYTES = 50 * 1024
OPENCODE_SAVED_PATH = "/home/user/.local/share/opencode/tool-output/tool_0123456789abcdefABCDEFGH"

# Codex CLI (codex-rs utils/output-truncation, TruncationPolicy::Tokens(10_000) for the GPT-5
# family in model_info.rs): output over the byte budget (10,000 tokens at 4 bytes per token) is
# cut in the middle — half the budget from the head, half from the tail, on line boundaries
# where possible — with a "…N tokens truncated…" marker, under a header giving the original
# token count and the total line count.
CODEX_TOKEN_BUDGET = 10_000
CODEX_BYTES_PER_TOKEN = 4
CODEX_BYTE_BUDGET = CODEX_TOKEN_BUDGET * CODEX_BYTES_PER_TOKEN


def claude_code(text: str) -> str:
    """The text Claude Code's Bash tool would put in front of the model for ``text``."""
    if _utf16_length(text) <= CLAUDE_MAX_CHARS:
        return text
    data = text.encode("utf-8")
    preview = _head_bytes(data, CLAUDE_PREVIEW_BYTES)
    newline = preview.rfind(b"\n")
    if newline > CLAUDE_PREVIEW_BYTES // 2:
        preview = preview[:newline]
    return (
        "<persisted-output>\n"
        f"Output too large ({_human_size(len(data))}). Full output saved to: {CLAUDE_SAVED_PATH}\n"
        "\n"
        f"Preview (first {_human_size(CLAUDE_PREVIEW_BYTES)}):\n"
        f"{preview.decode('utf-8', 'replace')}\n"
        "...\n"
        "</persisted-output>"
    )


def opencode(text: str) -> str:
    """The text OpenCode's generic truncation would put in front of the model for ``text``."""
    data = text.encode("utf-8")
    line_count = data.count(b"\n") + 1
    if line_count <= OPENCODE_MAX_LINES and len(data) <= OPENCODE_MAX_BYTES:
        return text
    kept, used, hit_bytes, start = 0, 0, False, 0
    while kept < min(line_count, OPENCODE_MAX_LINES):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        size = end - start + (1 if kept else 0)
        if used + size > OPENCODE_MAX_BYTES:
            hit_bytes = True
            break
        used += size
        kept += 1
        start = end + 1
    preview = data[: max(used, 0)].decode("utf-8", "replace")
    removed, unit = (len(data) - used, "bytes") if hit_bytes else (line_count - kept, "lines")
    hint = (
        "The tool call succeeded but the output was truncated. Full output saved to: "
        f"{OPENCODE_SAVED_PATH}\n"
        "Use Grep to search the full content or Read with offset/limit to view specific sections."
    )
    return f"{preview}\n\n...{removed} {unit} truncated...\n\n{hint}"


def codex(text: str) -> str:
    """The text Codex CLI would put in front of the model for ``text`` (middle cut)."""
    data = text.encode("utf-8")
    if len(data) <= CODEX_BYTE_BUDGET:
        return text
    total_lines = len(text.splitlines())
    estimate = -(-len(data) // CODEX_BYTES_PER_TOKEN)
    head_end, tail_start = _middle_cut(data, CODEX_BYTE_BUDGET - 40)
    removed = -(-(tail_start - head_end) // CODEX_BYTES_PER_TOKEN)
    body = (
        data[:head_end].decode("utf-8", "replace")
        + f"…{removed} tokens truncated…\n"
        + data[tail_start:].decode("utf-8", "replace")
    )
    return (
        f"Warning: truncated output (original token count: {estimate})\n"
        f"Total output lines: {total_lines}\n\n{body}"
    )


#: Host name (as recorded in the ledger) -> what that host would show.
HOSTS: dict[str, Callable[[str], str]] = {
    "claude_code": claude_code,
    "opencode": opencode,
    "codex": codex,
}


def shown_bytes(text: str) -> dict[str, int]:
    """For each host, how many UTF-8 bytes of ``text`` (or of its notice) the model would get."""
    return {name: len(view(text).encode("utf-8")) for name, view in HOSTS.items()}


def _middle_cut(data: bytes, budget: int) -> tuple[int, int]:
    """Head end and tail start keeping ``budget`` bytes, on newlines where the halves have one."""
    left = budget // 2
    right = budget - left
    head = data[:left]
    newline = head.rfind(b"\n")
    head_end = newline + 1 if newline >= 0 else len(_head_bytes(data, left))
    tail_start = len(data) - right
    newline = data.find(b"\n", tail_start)
    if newline >= 0:
        tail_start = newline + 1
    else:
        while tail_start < len(data) and data[tail_start] & 0xC0 == 0x80:
            tail_start += 1
    return head_end, max(tail_start, head_end)


def _head_bytes(data: bytes, limit: int) -> bytes:
    """At most ``limit`` bytes from the start, never cutting inside a UTF-8 character."""
    end = min(limit, len(data))
    while 0 < end < len(data) and data[end] & 0xC0 == 0x80:
        end -= 1
    return data[:end]


def _utf16_length(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
