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

from _operator import is_not, itemgetter, methodcaller, not_, or_
from itertools import chain, compress

from tersh._startup.lazyre import MULTILINE, lazy
from tersh._startup.lean import partial
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterable

NAME = "cargobuild"
CATEGORY = "builds"
PROGRAMS = ("cargo build", "cargo check", "cargo clippy", "cargo rustc", "cargo doc", "cargo b",
            "cargo c", "cargo fix", "rustc", "cargo-clippy", "clippy-driver")  # fmt: skip
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = ("--> ", "Compiling ", "error: could not compile `")

_PROGRESS = lazy(
    r"^\s+(?:Compiling|Checking|Downloaded|Downloading|Updating|Fresh|Locking|Adding|Blocking"
    r"|Packaging|Verifying|Documenting|Fetching|Unpacking|Building|Archiving|Scraping|Generated"
    r"|Packaged|Removing|Removed|Updated|Unchanged|Waiting|Dirty)\b"
)
_HEADER = lazy(r"^(?:error|warning|note|help)(?:\[[\w-]+\])?: |^\s*(?:-->|:::) |^\s*= (?:note|help)")
_OUTCOME = lazy(r"^\s+Finished |^\s+Running |^\s+Executable ")
# The first line of a diagnostic block (not cargo's own "error: could not compile" summaries,
# which have no location arrow and so never merge).
_BLOCK_START = lazy(r"^(?:error|warning)(?:\[[\w-]+\])?: ")
# A block's primary location: the first arrow under its header.
_ARROW = lazy(r"^\s*--> (\S+:\d+:\d+)\s*$")
# The same, or nothing (a match every line has: its group 1 is the place when it is an arrow).
_MAYBE_ARROW = lazy(r"(?:\s*--> (\S+:\d+:\d+)\s*$)?")
# A suggested edit's line number ("71 -     code", "71 +     code").
_EDIT_NUMBER = lazy(r"^\d+(?=\s*[+~-](?:\s|$))")
# clippy's pointer to a lint's documentation, printed under every finding of that lint.
_HELP_LINK = lazy(r"^\s*= help: for further information visit \S+\s*$")
# --message-format short: "src/lib.rs:7:9: error[E0308]: mismatched types: expected …".
_SHORT = lazy(r"^\S+:\d+:\d+: (?:error|warning)(?:\[[\w-]+\])?: ")
#: A line form the head holds whenever ``sniff`` picks it (one or more such lines).
SNIFF_LINE = (
    r"^(?:error|warning)(?:\[E\d{4}\])?: .*\n\s*--> \S+:\d+:\d+|^\s+Compiling \S+ v\d|"
    r"^error: could not compile `"
)
_SNIFF = lazy(SNIFF_LINE, MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop progress and quoted source; None when the output is not a Rust build's."""
    read = _read_bulk(text) if text and not any(mark in text for mark in _diag.OTHER_BREAKS) else None
    out, dropped, paths, recognised, other, short = read or _read_lines(_diag.lines_of(text))
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


#: What a read gives: the kept lines, the dropped counts, the paths the progress lines name,
#: how many lines were recognised, how many not (blank ones aside), how many were short-form.
_Read = tuple[list[str], dict[str, int], dict[str, None], int, int, int]
_SHORT_LINE, _PROGRESS_LINE, _FRAME_DROPPED, _KNOWN, _OTHER, _BLANK = range(6)


def _read_lines(lines: Iterable[str]) -> _Read:
    """Read each line in turn with ``_line_reading``."""
    out: list[str] = []
    dropped = {"progress line": 0, "code-frame line": 0}
    paths: dict[str, None] = {}
    counts = [0] * 6
    for line in lines:
        kind, kept, named = _line_reading(line)
        counts[kind] += 1
        if kept is not None:
            out.append(kept)
        paths.update(dict.fromkeys(named))
    dropped["progress line"], dropped["code-frame line"] = counts[_PROGRESS_LINE], counts[_FRAME_DROPPED]
    recognised = sum(counts[kind] for kind in (_SHORT_LINE, _PROGRESS_LINE, _FRAME_DROPPED, _KNOWN))
    return out, dropped, paths, recognised, counts[_OTHER], counts[_SHORT_LINE]


#: What ``_line_reading`` says of a line.
_LineReading = tuple[int, str | None, tuple[str, ...]]


def _line_reading(line: str) -> _LineReading:
    """What a line is: its kind, the line kept (reduced for a frame line; None: dropped), and
    the paths it names when it is a progress line (the omission note lists those the kept
    lines do not show)."""
    if (": error" in line or ": warning" in line) and _SHORT.match(line):
        return _SHORT_LINE, line, ()
    if _PROGRESS.match(line) and not verify.is_diagnostic(line):
        return _PROGRESS_LINE, None, tuple(verify.iter_paths(line)) if "/" in line or "." in line else ()
    if _diag.is_frame_line(line):
        reduced = _diag.reduce_frame_line(line)
        return (_FRAME_DROPPED, None, ()) if reduced is None else (_KNOWN, reduced, ())
    if _HEADER.match(line) or _OUTCOME.match(line):
        return _KNOWN, line, ()
    return _OTHER if line.strip() else _BLANK, line, ()


def _read_bulk(text: str) -> _Read:
    """``_read_lines`` of a text whose only line break is ``\\n``: each distinct line read once
    (a build log repeats its frame lines, blank lines, progress shapes), the results gathered
    without a Python step per line."""
    lines = text.split("\n") if text else []
    if text.endswith("\n"):
        lines.pop()
    memo: dict[str, _LineReading] = {}
    for line in set(lines):  # each distinct line read once
        memo[line] = _line_reading(line)
    readings = list(map(memo.__getitem__, lines))
    kinds = list(map(itemgetter(0), readings))
    out: list[str] = list(filter(partial(is_not, None), map(itemgetter(1), readings)))
    paths = dict.fromkeys(chain.from_iterable(map(itemgetter(2), readings)))
    counts = [kinds.count(kind) for kind in range(6)]
    dropped = {"progress line": counts[_PROGRESS_LINE], "code-frame line": counts[_FRAME_DROPPED]}
    recognised = sum(counts[kind] for kind in (_SHORT_LINE, _PROGRESS_LINE, _FRAME_DROPPED, _KNOWN))
    return out, dropped, paths, recognised, counts[_OTHER], counts[_SHORT_LINE]


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

    What each distinct line says (a block's start, a blank, its place, its text in a key) is
    read once; blocks are cut where a start, a blank or the line after a blank is.
    """
    if not lines:
        return [], 0
    said = _block_lines(list(set(lines)))
    rows = list(map(said.__getitem__, lines))
    starts = list(map(itemgetter(0), rows))
    blanks = list(map(itemgetter(1), rows))
    keyed = list(map(itemgetter(2), rows))
    places = list(map(itemgetter(3), rows))
    located = list(map(bool, places))
    cuts = list(compress(range(len(lines)), map(or_, map(or_, starts, blanks), chain((True,), blanks))))
    cuts.append(len(lines))
    first: dict[tuple[str, ...], list[str]] = {}  # block key -> places of the later copies
    # in order of place: (start, end, None) a block that goes, (end, end, key) where a first
    # block ends (its note, if copies went); only the blocks a start line opens are read
    events: list[tuple[int, int, tuple[str, ...] | None]] = []
    merged = 0
    for number in compress(range(len(cuts) - 1), map(starts.__getitem__, cuts[:-1])):
        start, end = cuts[number], cuts[number + 1]
        try:
            arrow = located.index(True, start, end)
        except ValueError:
            continue  # no arrow: not a located block, kept as it is
        key = tuple(keyed[start:arrow] + keyed[arrow + 1 : end])
        places_of = first.get(key)
        if places_of is None:
            first[key] = []
            events.append((end, end, key))
        else:
            places_of.append(places[arrow])
            events.append((start, end, None))
            merged += 1
    out: list[str] = []
    done = 0
    for start, end, noted in events:
        out.extend(lines[done:start])
        if noted is not None and first[noted]:
            out.append(f"{core.MARK} same diagnostic also at: {' '.join(first[noted])}")
        done = end
    out.extend(lines[done:])
    return _squeeze_blank(out), merged


def _block_lines(lines: list[str]) -> dict[str, tuple[bool, bool, str, str | None]]:
    """``_block_line`` of each of ``lines`` (the place None when it names none), read at C level."""
    texts = list(map(str.strip, lines))
    keys = [_EDIT_NUMBER.sub("", text, count=1) if text[:1].isdigit() else text for text in texts]
    said = zip(
        map(bool, map(_BLOCK_START.match, lines)),
        map(not_, texts),
        keys,
        map(methodcaller("group", 1), map(_MAYBE_ARROW.match, lines)),
        strict=True,
    )
    return dict(zip(lines, said, strict=True))


def _block_line(line: str) -> tuple[bool, bool, str, str]:
    """What ``_merge_repeated`` reads of a line: whether it starts a diagnostic block, whether
    it is blank, its text in a block's key, and the place its arrow names ('' when none)."""
    starts = line[:1] in "ew" and _BLOCK_START.match(line) is not None
    text = line.strip()
    arrow = _ARROW.match(line) if "-->" in line else None
    key = _EDIT_NUMBER.sub("", text, count=1) if text[:1].isdigit() else text
    return starts, not text, key, arrow[1] if arrow else ""


def _first_help_links(lines: list[str]) -> tuple[list[str], int]:
    """Each ``= help: for further information visit <url>`` line (clippy's, one per lint) kept
    only where it first appears; how many repeats went."""
    links = {
        line: _HELP_LINK.match(line) is not None
        for line in set(lines)
        if "for further information visit" in line
    }
    if not any(links.values()):
        return lines, 0
    seen: set[str] = set()
    repeats: set[int] = set()
    for index in compress(range(len(lines)), map(links.get, lines)):
        link = lines[index].strip()
        if link in seen:
            repeats.add(index)
        seen.add(link)
    kept = [line for index, line in enumerate(lines) if index not in repeats]
    return kept, len(lines) - len(kept)


def _squeeze_blank(lines: list[str]) -> list[str]:
    """``lines`` without blank lines at the start and with each run of blank lines cut to one."""
    filled = list(map(bool, map(str.strip, lines)))
    return list(compress(lines, map(or_, filled, chain((False,), filled))))


def sniff(text: str) -> float:
    """Sure on ``error[E0308]: …`` followed by an arrow, or cargo's progress lines."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.95 if hits >= 2 else 0.7 if hits else 0.0
