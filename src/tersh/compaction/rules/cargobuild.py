"""Compact Rust builds: ``cargo build`` / ``check`` / ``clippy`` / ``rustc`` and ``rustc`` itself.

Kept verbatim: every diagnostic header (``error[E0308]: mismatched types``, ``warning: unused
import``), its location arrows (``  --> src/lib.rs:4:5``, ``  ::: …``), ``= note:`` / ``= help:``
and ``help:`` / ``note:`` lines, suggested edits (``71 + code``), the labels under the carets
(drawing removed), cargo's summaries (``warning: `x` (lib) generated 4 warnings``, ``error: could
not compile…``, ``Finished…``) and every line the rule does not recognise. Dropped: cargo's
progress lines (``Compiling``, ``Checking``, ``Downloaded``, ``Updating``…; paths they name are
listed in the note) and the quoted source and bare gutter lines of code frames. Output that is
mostly not the compiler's (``cargo run`` printing a program's output) is left alone.
"""

from __future__ import annotations

import re

from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify

NAME = "cargobuild"
CATEGORY = "builds"
PROGRAMS = ("cargo build", "cargo check", "cargo clippy", "cargo rustc", "cargo doc", "cargo b",
            "cargo c", "cargo fix", "rustc", "cargo-clippy", "clippy-driver")  # fmt: skip
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("--> ", "Compiling ", "error: could not compile `")

_PROGRESS = re.compile(
    r"^\s+(?:Compiling|Checking|Downloaded|Downloading|Updating|Fresh|Locking|Adding|Blocking"
    r"|Packaging|Verifying|Documenting|Fetching|Unpacking|Building|Archiving|Scraping|Generated"
    r"|Packaged|Removing|Removed|Updated|Unchanged|Waiting|Dirty)\b"
)
_HEADER = re.compile(r"^(?:error|warning|note|help)(?:\[[\w-]+\])?: |^\s*(?:-->|:::) |^\s*= (?:note|help)")
_OUTCOME = re.compile(r"^\s+Finished |^\s+Running |^\s+Executable ")
# The first line of a diagnostic block (not cargo's own "error: could not compile" summaries,
# which have no location arrow and so never merge).
_BLOCK_START = re.compile(r"^(?:error|warning)(?:\[[\w-]+\])?: ")
# A block's primary location: the first arrow under its header.
_ARROW = re.compile(r"^\s*--> (\S+:\d+:\d+)\s*$")
# A suggested edit's line number ("71 -     code", "71 +     code").
_EDIT_NUMBER = re.compile(r"^\d+(?=\s*[+~-](?:\s|$))")
# clippy's pointer to a lint's documentation, printed under every finding of that lint.
_HELP_LINK = re.compile(r"^\s*= help: for further information visit \S+\s*$")
# A suggested edit's line number ("71 -     code", "71 +     code").
_EDIT_NUMBER = re.compile(r"^\d+(?=\s*[+~-](?:\s|$))")
# clippy's pointer to a lint's documentation, printed under every finding of that lint.
_HELP_LINK = re.compile(r"^\s*= help: for further information visit \S+\s*$")
# --message-format short: "src/lib.rs:7:9: error[E0308]: mismatched types: expected …".
_SHORT = re.compile(r"^\S+:\d+:\d+: (?:error|warning)(?:\[[\w-]+\])?: ")
_SNIFF = re.compile(
    r"^(?:error|warning)(?:\[E\d{4}\])?: .*\n\s*--> \S+:\d+:\d+|^\s+Compiling \S+ v\d|"
    r"^error: could not compile `",
    re.MULTILINE,
)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop progress and quoted source; None when the output is not a Rust build's."""
    out: list[str] = []
    dropped = {"progress line": 0, "code-frame line": 0}
    paths: dict[str, None] = {}
    recognised = other = 0
    short = 0
    for line in _diag.lines_of(text):
        if (": error" in line or ": warning" in line) and _SHORT.match(line):
            recognised += 1
            short += 1
            out.append(line)
        elif _PROGRESS.match(line) and not verify.is_diagnostic(line):
            recognised += 1
            dropped["progress line"] += 1
            if "/" in line or "." in line:
                paths.update(dict.fromkeys(verify.iter_paths(line)))
        elif _diag.is_frame_line(line):
            recognised += 1
            reduced = _diag.reduce_frame_line(line)
            if reduced is None:
                dropped["code-frame line"] += 1
            else:
                out.append(reduced)
        else:
            if _HEADER.match(line) or _OUTCOME.match(line):
                recognised += 1
            elif line.strip():
                other += 1
            out.append(line)
    if recognised == 0 or other > recognised:
        return None
    kept = "\n".join(out)
    missing = [path for path in paths if path not in kept]
    extra = f"paths named by omitted lines: {' '.join(missing)}" if missing else ""
    if short > _diag.FEW_FINDINGS:  # --message-format short: one line per diagnostic
        return _short_grouped(text, out, dropped, extra)
    out, merged = _merge_repeated(_squeeze_blank(out))
    dropped["repeated diagnostic"] = merged
    out, dropped["repeated help link"] = _first_help_links(out)
    if not any(dropped.values()):
        return None
    out.append(_diag.omission_note(dropped, extra))
    return core.finish(text, out)


def _short_grouped(text: str, lines: list[str], dropped: dict[str, int], extra: str) -> str | None:
    """Many one-line diagnostics (``--message-format short``), grouped by file."""
    items: list[_diag.Finding | str] = []
    for line in lines:
        finding = _diag.line_finding(line) if _SHORT.match(line) else None
        items.append(line if finding is None else finding)
    return _diag.render(text, items, dropped, extra)


def _merge_repeated(lines: list[str]) -> tuple[list[str], int]:
    """Diagnostic blocks that say the same thing at other places, merged into the first one.

    A block runs from its ``error[…]: `` / ``warning: `` line to the next blank line; two blocks
    are the same when every line but the first ``-->`` arrow matches (white space aside). The
    first keeps its lines and gets ``[tersh] same diagnostic also at: loc loc …``; the others
    go. Returns the lines and how many blocks went.
    """
    blocks: list[list[str]] = []
    for line in lines:
        starts = line[:1] in "ew" and _BLOCK_START.match(line) is not None
        if starts or not blocks or not line.strip() or not blocks[-1][-1].strip():
            blocks.append([line])
        else:
            blocks[-1].append(line)
    first: dict[tuple[str, ...], list[str]] = {}  # block key -> places of the later copies
    keep: list[tuple[list[str], tuple[str, ...] | None]] = []
    merged = 0
    for block in blocks:
        key = _block_key(block)
        if key is None:
            keep.append((block, None))
        elif key in first:
            first[key].append(_arrow_place(block))
            merged += 1
        else:
            first[key] = []
            keep.append((block, key))
    out: list[str] = []
    for block, key in keep:
        out.extend(block)
        if key is not None and first[key]:
            out.append(f"{core.MARK} same diagnostic also at: {' '.join(first[key])}")
    return _squeeze_blank(out), merged


def _block_key(block: list[str]) -> tuple[str, ...] | None:
    """What a diagnostic block says, without its primary place (None: not a located block).

    A suggested edit counts without its line number (``8 -     return total;``): the same fix
    at another place."""
    if not _BLOCK_START.match(block[0]):
        return None
    for index, line in enumerate(block):
        if "-->" in line and _ARROW.match(line):
            rest = map(str.strip, block[:index] + block[index + 1 :])
            return tuple(_EDIT_NUMBER.sub("", x, count=1) if x[:1].isdigit() else x for x in rest)
    return None


def _first_help_links(lines: list[str]) -> tuple[list[str], int]:
    """Each ``= help: for further information visit <url>`` line (clippy's, one per lint) kept
    only where it first appears; how many repeats went."""
    seen: set[str] = set()
    kept: list[str] = []
    for line in lines:
        if "for further information visit" in line and _HELP_LINK.match(line):
            link = line.strip()
            if link in seen:
                continue
            seen.add(link)
        kept.append(line)
    return kept, len(lines) - len(kept)


def _arrow_place(block: list[str]) -> str:
    return next(match[1] for match in map(_ARROW.match, block) if match)


def _squeeze_blank(lines: list[str]) -> list[str]:
    squeezed: list[str] = []
    for line in lines:
        if line.strip() or (squeezed and squeezed[-1].strip()):
            squeezed.append(line)
    return squeezed


def sniff(text: str) -> float:
    """Sure on ``error[E0308]: …`` followed by an arrow, or cargo's progress lines."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.95 if hits >= 2 else 0.7 if hits else 0.0
