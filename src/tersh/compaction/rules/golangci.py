"""Compact Go diagnostics: golangci-lint, staticcheck, ``go vet`` and ``go build``.

All print ``path:line:col: message`` (golangci-lint adds ``(linter)``, and by default quotes the
source line with a caret under it). The rule drops the quoted source and carets (unless the
source carries a protected fact) and ``go: downloading …`` chatter (module paths listed in the
note), keeps package headers (``# example.com/pkg``), ``level=…`` log lines and the summary
(``3 issues:`` with its per-linter counts), and groups findings by file when there are many.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify

NAME = "golangci"
CATEGORY = "linters"
PROGRAMS = ("golangci-lint", "staticcheck", "go vet", "go build", "go install", "revive", "errcheck")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (".go:", " issue")

_CARET = lazy(r"^\s*\^\s*$")
_CHATTER = lazy(r"^go: (?:downloading|finding|extracting) ")
_SNIFF = lazy(r"^\S+\.go:\d+:\d+: .+\(\w[\w-]*\)$|^\d+ issues?:$", MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop quoted source and download chatter; None when nothing is gained."""
    with _diag.collector_paused():
        return _compact(text, inv)


def _compact(text: str, inv: Invocation) -> str | None:
    items: list[_diag.Finding | str] = []
    dropped = {"quoted source or caret line": 0, "download line": 0}
    paths: dict[str, None] = {}
    run = _diag.FindingRun(items)
    recognised = False

    for line in _diag.lines_of(text):
        finding = _diag.line_finding(line) if ".go:" in line else None
        if finding is not None:
            run.close()
            run.current, recognised = finding, True
        elif line.startswith("go: ") and _CHATTER.match(line):
            dropped["download line"] += 1
            paths.update(dict.fromkeys(verify.iter_paths(line)))
        elif run.current is not None and (line.startswith("\t") or _CARET.match(line)):
            if core.carries_fact(line, paths=True) and not _CARET.match(line):
                run.extra.append(line)
            else:
                dropped["quoted source or caret line"] += 1
        elif line.strip():
            run.close()
            items.append(line)
    run.close()
    if not recognised and not dropped["download line"]:
        return None
    missing: list[str] = []
    if paths:
        kept = "\n".join(item if isinstance(item, str) else item.source_line for item in items)
        missing = [path for path in paths if path not in kept]
    summary = f"paths named by omitted lines: {' '.join(missing)}" if missing else ""
    return _diag.render(text, items, dropped, summary)


def sniff(text: str) -> float:
    """Sure on golangci-lint's ``file.go:1:2: message (linter)`` lines and ``N issues:``."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.9 if hits >= 2 else 0.5 if hits else 0.0
