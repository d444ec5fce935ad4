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

from tersh.compact import _diag, verify
from tersh.compact.base import Invocation

NAME = "cargobuild"
CATEGORY = "builds"
SWITCH = "builds"
PROGRAMS = ("cargo build", "cargo check", "cargo clippy", "cargo rustc", "cargo doc", "cargo b",
            "cargo c", "cargo fix", "rustc", "cargo-clippy", "clippy-driver")  # fmt: skip

_PROGRESS = re.compile(
    r"^\s+(?:Compiling|Checking|Downloaded|Downloading|Updating|Fresh|Locking|Adding|Blocking"
    r"|Packaging|Verifying|Documenting|Fetching|Unpacking|Building|Archiving|Scraping|Generated"
    r"|Packaged|Removing|Removed|Updated|Unchanged|Waiting|Dirty)\b"
)
_HEADER = re.compile(r"^(?:error|warning|note|help)(?:\[[\w-]+\])?: |^\s*(?:-->|:::) |^\s*= (?:note|help)")
_OUTCOME = re.compile(r"^\s+Finished |^\s+Running |^\s+Executable ")
_SNIFF = re.compile(
    r"^(?:error|warning)(?:\[E\d{4}\])?: .*\n\s*--> \S+:\d+:\d+|^\s+Compiling \S+ v\d|"
    r"^error: could not compile `",
    re.MULTILINE,
)


@_diag.without_gc
def compact(text: str, inv: Invocation) -> str | None:
    """Drop progress and quoted source; None when the output is not a Rust build's."""
    out: list[str] = []
    dropped = {"progress line": 0, "code-frame line": 0}
    paths: dict[str, None] = {}
    recognised = other = 0
    for line in _diag.lines_of(text):
        if _PROGRESS.match(line) and not verify.is_diagnostic(line):
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
    if recognised == 0 or other > recognised or not any(dropped.values()):
        return None
    kept = "\n".join(out)
    missing = [path for path in paths if path not in kept]
    extra = f"paths named by omitted lines: {' '.join(missing)}" if missing else ""
    out = _squeeze_blank(out)
    out.append(_diag.omission_note(dropped, extra))
    return _diag.finish(text, out)


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
