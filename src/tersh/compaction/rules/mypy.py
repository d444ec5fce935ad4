"""Compact Python type-checker output: mypy / dmypy and pyright / basedpyright.

mypy prints ``path:line[:col]: error: message  [code]`` (and ``note:`` lines); with ``--pretty``
it wraps long messages and quotes the source with carets under each. The rule joins wrapped
messages back onto their line, drops the quoted source and carets (unless such a line carries a
protected fact), and groups findings by file when there are many. pyright prints each file
alone on a line and then ``  path:line:col - error: message (rule)`` entries with indented
continuation lines; the file lines and start-up chatter go. Summaries (``Found 5 errors in 3
files (checked 28 source files)``, ``Success: no issues found…``, ``1 error, 0 warnings,
0 informations``) are kept verbatim.
"""

from __future__ import annotations

import sys

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify

NAME = "mypy"
CATEGORY = "builds"
PROGRAMS = ("mypy", "dmypy", "pyright", "basedpyright", "pyright-langserver")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (
    ": error: ",
    ": note: ",
    "Found ",
    "Success: no issues found in",
    " - error: ",
    " warning",
)

_SEVERITY_TEXT = lazy(r"^(?:-\s+)?(?:error|warning|note|information):")
_SUMMARY = lazy(
    r"^(?:Found \d[\d,]* errors? in \d|Success: no issues found|\d[\d,]* errors?, \d[\d,]* warnings?"
    r"|Daemon |Restarting: |Checking |mypy: |Interrupted|Traceback|\w*Error: )"
)
_CARETS = lazy(r"^\s*\^[~^]*(?:\.\.\.)?\s*$")
# --show-error-end: "path:line:col:end_line:end_col: error: message".
_END_RANGE = lazy(
    r"^(?P<path>[^\s:()\[\]]+?):(?P<line>\d+):(?P<col>\d+):\d+:\d+: (?P<text>(?:error|warning|note):.*)$"
)
# --show-error-context: "path: note: In function "f":", "path: note: At top level:".
_CONTEXT = lazy(r"^\S+\.pyi?: note: (?:In |At top level)")
_PYRIGHT_CHATTER = lazy(
    r"^(?:Searching for source files|Found \d+ source files?|No configuration file found|"
    r"No pyproject\.toml file found|Assuming Python (?:version|platform)|Auto-excluding |"
    r"No include entries specified|pyright \d|basedpyright \d|Loading configuration file|"
    r"Found \d+ files?)"
)
# The rule pyright names at the end of a finding's last line: " (reportReturnType)".
_PYRIGHT_RULE = lazy(r" \(report[A-Z][A-Za-z]*\)$")
#: A line form the head holds whenever ``sniff`` picks it (one or more such lines).
SNIFF_LINE = (
    r"^\S+\.pyi?:\d+(?::\d+)?: (?:error|note): .*(?:\[[a-z-]+\])?$|^Found \d+ errors? in \d+ files?"
    r" \(checked|^Success: no issues found in|^\s+\S+\.pyi?:\d+:\d+ - error: |"
    r"^\d+ errors?, \d+ warnings?, \d+ informations?"
)
_SNIFF = lazy(SNIFF_LINE, MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Join wrapped messages, drop quoted source; None when nothing is gained."""
    items: list[_diag.Finding | str] = []
    dropped = {"quoted source or caret line": 0, "file heading or start-up line": 0}
    run = _diag.FindingRun(items)
    recognised = False

    for line in _diag.lines_of(text):
        finding = _finding(line)
        if finding is not None and run.current is not None and _is_note_on(finding, run.current):
            run.extra.append(line)  # a note on the finding above (overload variants, hints)
            continue
        if finding is not None:
            run.close()
            run.current, recognised = finding, True
            continue
        if not line.strip():
            continue
        if _SUMMARY.match(line) or _CONTEXT.match(line):
            run.close()
            recognised = True
            items.append(line)
        elif run.current is not None and _continues(line, run.current):
            run.extra.append(line)  # pyright's continuation lines
        elif run.current is not None and (line.startswith("    ") or _CARETS.match(line)):
            if core.carries_fact(line, paths=True) and not _CARETS.match(line):
                run.extra.append(line)
            else:
                dropped["quoted source or caret line"] += 1
        elif (run.current is not None and not line[:1].isspace() and not run.extra
              and not run.current.source_line[:1].isspace()):
            run.current = _joined(run.current, line)  # mypy --pretty wrapped the message
        elif _is_heading(line):
            run.close()
            dropped["file heading or start-up line"] += 1
        else:
            run.close()
            items.append(line)
    run.close()
    if not recognised:
        return None
    items = [_code_first(item) if not isinstance(item, str) and item.extra else item for item in items]
    summary = ""
    findings = [item for item in items if isinstance(item, _diag.Finding)]
    if len(findings) > _diag.FEW_FINDINGS:  # grouped: a context line would stand apart from its errors
        kept = [item for item in items if not (isinstance(item, str) and _is_bare_context(item))]
        dropped["error-context line"] = len(items) - len(kept)
        items = kept
        if any(_END_RANGE.match(f.source_line.lstrip()) for f in findings):
            summary = "error end positions omitted"
    return _diag.render(text, items, dropped, summary)


def _finding(line: str) -> _diag.Finding | None:
    stripped = line.lstrip()
    finding = _diag.line_finding(stripped)
    if finding is None and (": error:" in stripped or ": note:" in stripped or ": warning:" in stripped):
        ranged = _END_RANGE.match(stripped)
        if ranged is not None:
            location = f"{ranged['line']}:{ranged['col']}"
            return _diag.make_finding(
                (sys.intern(ranged["path"]), location, sys.intern(ranged["text"]), line, ())
            )
    if finding is None or not _SEVERITY_TEXT.match(finding.text):
        return None
    return finding if stripped is line else _diag.make_finding((*finding[:3], line, finding[4]))


def _is_bare_context(line: str) -> bool:
    """An error-context line that says nothing a group header does not (its path may hold a
    severity word: ``click/exceptions.py: note: In member …`` must stay)."""
    return bool(_CONTEXT.match(line)) and not verify.is_diagnostic(line)


def _code_first(finding: _diag.Finding) -> _diag.Finding:
    """A pyright finding whose rule (``(reportReturnType)``) ends its last continuation line,
    with the rule moved onto the finding's own line: a line kept alone still says its rule."""
    last = finding.extra[-1]
    rule = _PYRIGHT_RULE.search(last)
    if rule is None or not finding.source_line[:1].isspace() or verify.is_diagnostic(last):
        return finding  # (a line the verifier protects stays as it is)
    path, location, text, source_line, extra = finding
    moved = last[: rule.start()]
    return _diag.make_finding((path, location, text + rule.group(), source_line + rule.group(),
                               (*extra[:-1], moved) if moved.strip() else extra[:-1]))


def _continues(line: str, finding: _diag.Finding) -> bool:
    """Whether ``line`` continues pyright's indented ``finding``: it is indented deeper than the
    finding's own line (pyright indents with spaces, then no-break spaces in newer releases)."""
    own = finding.source_line
    indent = len(own) - len(own.lstrip())
    return indent > 0 and len(line) - len(line.lstrip()) > indent


def _is_note_on(note: _diag.Finding, finding: _diag.Finding) -> bool:
    return (
        note.text.startswith("note:")
        and note.path == finding.path
        and note.location == finding.location
        and not finding.text.startswith("note:")
    )


def _joined(finding: _diag.Finding, line: str) -> _diag.Finding:
    tail = line.strip()
    path, location, text, source_line, extra = finding
    return _diag.make_finding((path, location, f"{text} {tail}", f"{source_line} {tail}", extra))


def _is_heading(line: str) -> bool:
    if _PYRIGHT_CHATTER.match(line.strip()):
        return not core.carries_fact(line, paths=True)
    # pyright names each file alone on a line before its findings (the findings repeat it).
    stripped = line.strip()
    return " " not in stripped and "/" in stripped and stripped.endswith((".py", ".pyi"))


def sniff(text: str) -> float:
    """Sure on mypy's ``path:line: error: … [code]`` lines and summary, or pyright's."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.95 if hits >= 2 else 0.6 if hits else 0.0
