"""Whether a proposal keeps every protected fact of its source, or what it lost.

The facts are ``facts``' (found in bulk by ``scan``). A fact is kept when the proposal holds it:
as the same location, path or commit id, on a line that reads the same (white space collapsed,
or without its locations), or anywhere in the proposal with white space collapsed (its brace
groups read as the lines they stand for, ``renderings.brace_expansions``). A source line the
proposal holds as it is, or restates in one of the forms of ``renderings``, keeps every fact it
yields and is not read. Whitespace differences never matter.

Beside the facts, each source line that names a place with no path (``facts.place_line``) must
be held so, or be found whole in the proposal with white space collapsed (``_unkept_places``).
"""

from __future__ import annotations

from itertools import repeat

from tersh._startup.lazyre import IGNORECASE, lazy
from tersh.compaction.ansi import strip_ansi
from tersh.compaction.kit.base import Invocation

# A name imported ``as`` itself is re-exported: the rule kit and the rules read it as
# ``verify.<name>`` (``from tersh.compaction.verify import holds as verify``).
from tersh.compaction.verify.facts import _EXT as _EXT
from tersh.compaction.verify.facts import _PATH as _PATH
from tersh.compaction.verify.facts import (
    _SEVERITY,
    Fact,
    _listing,
    _searching,
    _without_locations,
    _word_path,
    normalize,
    place_lines,
)
from tersh.compaction.verify.facts import LISTING_PROGRAMS as LISTING_PROGRAMS
from tersh.compaction.verify.facts import SEARCH_PROGRAMS as SEARCH_PROGRAMS
from tersh.compaction.verify.facts import SEVERITY_WORDS as SEVERITY_WORDS
from tersh.compaction.verify.facts import _is_path as _is_path
from tersh.compaction.verify.facts import is_diagnostic as is_diagnostic
from tersh.compaction.verify.facts import iter_commits as iter_commits
from tersh.compaction.verify.facts import iter_locations as iter_locations
from tersh.compaction.verify.facts import iter_paths as iter_paths
from tersh.compaction.verify.renderings import (
    _ALL_FORMS,
    _LEADING_ENTRY_LOCATIONS,
    _brace_held_lines,
    _listing_held_lines,
    _read_groups,
    _Rebuilt,
    _search_held_lines,
    _source_forms,
)
from tersh.compaction.verify.scan import _HEX_MARKS as _HEX_MARKS
from tersh.compaction.verify.scan import (
    _LINE_MASK,
    _LINE_SHIFT,
    _bare_lines,
    _chunks,
    _commit_matches,
    _Facts,
    _line_bounds,
    _line_starts_of,
    _location_triples,
    _normalized,
    _path_word_set,
    _severity_line_starts,
    _stem_line_starts,
    _stem_positions,
    _without_urls,
)
from tersh.compaction.verify.scan import _SEVEN_HEX as _SEVEN_HEX
from tersh.compaction.verify.scan import extract_facts as extract_facts

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Iterator

#: How many missing facts to collect before stopping (one is enough to refuse).
MAX_REPORTED = 8


class _Index:
    """What a proposal contains. Each part is built on first need (most checks end early), and
    every part is a set, so that checking thousands of facts stays linear.

    A fact is kept when it is in one of the parts of its kind (``_PARTS``) or, failing that,
    anywhere in the proposal with white space collapsed (``flat``). The ``paths`` and ``commits``
    parts only hold words of the proposal: they never admit a fact ``flat`` would refuse.
    """

    def __init__(self, proposal: str) -> None:
        self.proposal = strip_ansi(proposal)
        self._parts: dict[str, set[str]] = {}
        self._flat: str | None = None
        #: The line forms worth rebuilding from grouped entries (see ``_read_entry``): only
        #: those the source shows, so that the rebuilt lines cost no memory in vain.
        self.rebuild: frozenset[str] = _ALL_FORMS

    @property
    def flat(self) -> str:
        """The whole proposal, white space collapsed, then each line its brace groups stand for
        (``renderings.brace_expansions``), one after the other."""
        if self._flat is None:
            self._flat = normalize(self.proposal)
            braced = self.part("brace_held")
            if braced:
                self._flat = " ".join((self._flat, *sorted(braced)))
        return self._flat

    def part(self, name: str) -> set[str]:
        """One part of the index (see ``_PARTS``), built on first need."""
        found = self._parts.get(name)
        if found is None:
            if name.startswith("group"):
                names = ("group_lines", "group_locations", "group_held", "group_entries")
                self._parts.update(zip(names, self._groups(), strict=True))
            else:
                self._parts[name] = _PART_BUILDERS[name](self.proposal)
            found = self._parts[name]
        return found

    def _groups(self) -> tuple[set[str], set[str], set[str], set[str]]:
        lines: set[str] = set()
        locations: set[str] = set()
        rebuilt: _Rebuilt = (set(), set())
        headers: tuple[str, ...] = ()
        for chunk in _chunks(self.proposal):
            headers = _read_groups(chunk, headers, lines, locations, rebuilt, self.rebuild)
        return lines, locations, *rebuilt

    def has(self, fact: Fact) -> bool:
        """Whether the proposal keeps ``fact``."""
        return self.holds(fact.kind, fact.text)

    def holds(self, kind: str, text: str) -> bool:
        """Whether the proposal keeps the fact of ``kind`` written ``text``."""
        return any(text in self.part(name) for name in _PARTS.get(kind, _LINE_PARTS)) or (text in self.flat)


def _distinct_lines(proposal: str) -> Iterator[str]:
    """The chunks of ``proposal``, each line once (first one first). The parts below are sets
    of what each line holds, and no fact of theirs runs past the end of its line: a line that
    repeats adds nothing, so it is not read again."""
    for chunk in _chunks(proposal):
        yield "\n".join(dict.fromkeys(chunk.split("\n")))


def _plain_lines(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _distinct_lines(proposal):
        found.update(_normalized(chunk.split("\n")))
    return found


def _bare_line_set(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _distinct_lines(proposal):
        found.update(_bare_lines(chunk))
    return found


def _location_set(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _distinct_lines(proposal):
        for path, row, col in _location_triples(_without_urls(chunk)):
            found.add(f"{path}:{row}")
            if col:
                found.add(f"{path}:{row}:{col}")
    return found


def _path_set(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _distinct_lines(proposal):
        urlfree = _without_urls(chunk)
        if "/" in urlfree or "." in urlfree:
            words = _path_word_set(urlfree)
            found.update(path for path in map(_word_path, words) if path is not None)
    return found


def _commit_set(proposal: str) -> set[str]:
    found: set[str] = set()
    for chunk in _distinct_lines(proposal):
        found.update(match.group() for match in _commit_matches(chunk))
    return found


def _held_lines(proposal: str) -> set[str]:
    """Every line of the proposal, stripped of spaces and tabs around it."""
    found: set[str] = set()
    for chunk in _distinct_lines(proposal):
        found.update(map(str.strip, chunk.split("\n"), repeat(" \t")))
    return found


_PART_BUILDERS = {
    "held": _held_lines, "search_held": _search_held_lines, "listing_held": _listing_held_lines,
    "brace_held": _brace_held_lines,
    "lines": _plain_lines,
    "bare": _bare_line_set, "locations": _location_set, "paths": _path_set, "commits": _commit_set,
}  # fmt: skip
# The parts that may hold a fact of each kind, cheapest first (a fact is kept when any holds it;
# the group parts are built for locations before lines are looked for).
_LINE_PARTS = ("lines", "group_lines", "bare")
_PARTS = {
    "location": ("group_locations", "locations"),
    "path": ("paths", *_LINE_PARTS),
    "commit": ("commits", *_LINE_PARTS),
}


def missing_facts(source: str, proposal: str, inv: Invocation | None = None) -> list[Fact]:
    """The protected facts of ``source`` that ``proposal`` lost (at most MAX_REPORTED)."""
    return _missing_in(strip_ansi(source), _Index(proposal), inv)


def _missing_in(source: str, index: _Index, inv: Invocation | None) -> list[Fact]:
    """The protected facts of ``source`` (colour codes removed) missing from ``index``.

    A line the proposal holds as it is (spaces and tabs around it aside) keeps every fact it
    yields: each is found the same way in the proposal's line, and a git commit message (which
    depends on the lines around it) is read from the whole source. So those lines are not read;
    nor those a simple grouped entry stands for (``_read_entry``): their location is the entry's,
    their message the entry's, their paths and commit ids the header's and the message's.
    """
    skip: tuple[set[str], ...] = (index.part("held"),)
    if _searching(inv):  # a search's match is its whole line: only an exact rebuild stands for it
        skip = (*skip, index.part("search_held"))
    elif _listing(inv):  # so is a listed path (header + entry, see _listing_held_lines)
        skip = (*skip, index.part("listing_held"))
    else:
        if "group_held" not in index._parts:
            index.rebuild = _source_forms(source)
        entries = index.part("group_entries")
        braces = index.part("brace_held")
        skip = (*skip, index.part("group_held"), entries | braces if braces else entries)
    # first only whether each fact is there (cheaper); where the missing ones are, when some are
    missing = _unkept(_Facts(source, inv, skip, placed=False), index)
    if missing:
        missing = _unkept(_Facts(source, inv, skip), index)
    found = [Fact(kind, text, (key >> _LINE_SHIFT) & _LINE_MASK) for key, kind, text in missing]
    if len(found) < MAX_REPORTED and not _searching(inv) and not _listing(inv):
        found += _unkept_places(source, index, skip)[: MAX_REPORTED - len(found)]
    return found


def _unkept_places(source: str, index: _Index, skip: tuple[set[str], ...]) -> list[Fact]:
    """The lines of ``source`` that name a place with no path (``facts.place_line``) and that
    ``index`` neither holds (as it is, rebuilt, or in ``skip``: the lines held as they are,
    rebuilt by a grouped entry, or, white space collapsed, standing as an entry or in a brace
    group) nor has anywhere, white space collapsed (at most MAX_REPORTED)."""
    held, *others = skip
    missing: list[Fact] = []
    for first, chunk in _numbered_chunks(source):
        lines = chunk.split("\n")
        for at in place_lines(chunk):
            line = lines[at]
            stripped = line.strip(" \t")
            if stripped in held or any(stripped in part for part in others[:1]):
                continue
            flat = normalize(line)
            if any(flat in part for part in others[1:]) or flat in index.flat:
                continue
            missing.append(Fact("place", flat, first + at + 1))
            if len(missing) >= MAX_REPORTED:
                return missing
    return missing


def _numbered_chunks(source: str) -> Iterator[tuple[int, str]]:
    """``(index of its first line, chunk)`` for each chunk of ``source`` (``scan._chunks``)."""
    first = 0
    for chunk in _chunks(source):
        yield first, chunk
        first += chunk.count("\n") + (0 if chunk.endswith("\n") else 1)


def _unkept(facts: _Facts, index: _Index) -> list[tuple[int, str, str]]:
    """(sort key, kind, text) of the first facts (at most MAX_REPORTED) ``index`` lacks."""
    missing: list[tuple[int, str, str]] = []
    for kind, found in facts.by_kind.items():
        unsure = list(found)
        for name in _PARTS.get(kind, _LINE_PARTS):
            if not unsure:
                break
            part = index.part(name)
            unsure = [text for text in unsure if text not in part]
        lost = 0
        for key, text in sorted((found[text], text) for text in unsure):
            if text not in index.flat:
                missing.append((key, kind, text))
                lost += 1
                if lost >= MAX_REPORTED:
                    break
    missing.sort()
    return missing[:MAX_REPORTED]


_SUCCESS_CLAIM = lazy(
    r"\ball (?:\w+ )?(?:tests? )?(?:passed|succeeded|ok)\b|\bno (?:errors|failures|problems|issues)\b"
    r"|(?<![\d,])0 (?:errors?|failures?|failed)\b|\bno tests (?:ran|collected|found)\b"
    r"|\bsucce(?:ss|ssful|ssfully|eded)\b|\bbuild ok\b",
    IGNORECASE,
)
_FAILURE_CLAIM = lazy(
    r"\b[1-9][\d,]* (?:failed|failures?|errors?)\b|\bFAILED\b|\bfailed\b", IGNORECASE
)


# Every claim match holds one of these, lower-cased (see _SEVERITY_STEMS).
_SUCCESS_STEMS = (
    "all ", "no errors", "no failures", "no problems", "no issues", "0 error", "0 failure",
    "0 failed", "no tests ", "succe", "build ok",
)  # fmt: skip
_FAILURE_STEMS = ("fail", "error")


def contradiction(source: str, proposal: str, exit_code: int) -> str | None:
    """A reason when the text a rule wrote itself reads against the exit code, else None."""
    claim, stems = (_SUCCESS_CLAIM, _SUCCESS_STEMS) if exit_code != 0 else (_FAILURE_CLAIM, _FAILURE_STEMS)
    claims: list[str] = []
    for chunk in _chunks(proposal):
        claims += _claim_lines(chunk, claim, stems, at_stems=exit_code != 0)
    if not claims or (exit_code == 0 and _has_severity_line(source)):
        return None
    source_lines = _normalized_in(source, {normalize(line) for line in claims} - {""})
    flat: list[str] = []  # the whole source, normalised on first need

    def quoted(line: str) -> bool:
        """Whether ``line`` only re-expresses a tool message (located or grouped) of the source."""
        rest = _LEADING_ENTRY_LOCATIONS.sub("", _without_locations(line))
        if len(rest) < 12:
            return False
        if not flat:
            flat.append(normalize(source))
        return rest in flat[0]

    for line in claims:
        text = normalize(line)
        if text and text not in source_lines and not quoted(line):
            verdict = "success" if exit_code != 0 else "failure"
            return f"reads as {verdict} with exit code {exit_code}: {text[:80]!r}"
    return None


def _claim_lines(chunk: str, claim: re.Pattern[str], stems: tuple[str, ...], at_stems: bool) -> list[str]:
    """The lines of ``chunk`` (a chunk of ``scan._chunks``) ``claim`` finds something on, in
    order: only lines holding one of ``stems`` (lower-cased, every match holds one) are read.
    With ``at_stems`` (every match starts where a stem does: the success claims), ``claim`` is
    only tried at those places, else it searches each such line (``_claim_lines_by_line``)."""
    if not at_stems:
        return _claim_lines_by_line(chunk, claim, stems)
    positions = _stem_positions(chunk, stems)
    if positions is None:
        return _claim_lines_by_line(chunk, claim, stems)
    # (a match holds no line break and reads the break around its line as a line's end)
    match, rfind = claim.match, chunk.rfind
    starts = {rfind("\n", 0, position) + 1 for position in positions if match(chunk, position)}
    return [chunk[slice(*_line_bounds(chunk, start))] for start in sorted(starts)]


def _claim_lines_by_line(chunk: str, claim: re.Pattern[str], stems: tuple[str, ...]) -> list[str]:
    """``_claim_lines``, ``claim`` searched on each line that holds a stem (or, when unsure,
    on each line it finds something on in ``chunk``)."""
    starts = _stem_line_starts(chunk, stems)
    if starts is None:
        starts = _line_starts_of(chunk, (match.start() for match in claim.finditer(chunk)))
    lines = (chunk[slice(*_line_bounds(chunk, start))] for start in starts)
    return [line for line in lines if claim.search(line)]


def _normalized_in(text: str, wanted: set[str]) -> set[str]:
    """``wanted & _normalized_lines(text)`` (``wanted``: normalised lines, none empty), reading
    only the lines of ``text`` that hold the longest word of one of ``wanted`` (a line that
    normalises to it holds each of its words)."""
    found: set[str] = set()
    for chunk in _chunks(text):
        find, rfind = chunk.find, chunk.rfind
        for line in wanted - found:
            word = max(line.split(), key=len)
            position = find(word)
            while position >= 0:
                start = rfind("\n", 0, position) + 1
                end = find("\n", position)
                end = len(chunk) if end < 0 else end
                if " ".join(chunk[start:end].split()) == line:
                    found.add(line)
                    break
                position = find(word, end)
    return found


def _normalized_lines(text: str) -> set[str]:
    """``{normalize(line) for line in text.splitlines()}``, built a chunk at a time."""
    lines: set[str] = set()  # may hold "" for a line that is not there: no caller asks for ""
    for chunk in _chunks(text):
        lines.update(_normalized(set(chunk.split("\n"))))  # each distinct line once
    return lines


def _has_severity_line(text: str) -> bool:
    """Whether some line of ``text``, normalised, holds a severity word."""
    for chunk in _chunks(text):
        starts = _severity_line_starts(chunk)
        if starts is None:
            lines = chunk.split("\n")
        else:
            lines = [chunk[slice(*_line_bounds(chunk, start))] for start in starts]
        if any(_SEVERITY.search(normalize(line)) for line in lines):
            return True
    return False


def refusal(source: str, proposal: str, inv: Invocation | None = None) -> str | None:
    """Why ``proposal`` may not replace ``source`` (None when it is proven safe)."""
    if len(proposal.encode("utf-8", "surrogateescape")) >= len(source.encode("utf-8", "surrogateescape")):
        return "not smaller"
    if inv is not None:
        reason = contradiction(source, proposal, inv.exit_code)
        if reason:
            return reason
    missing = missing_facts(source, proposal, inv)
    if missing:
        shown = "; ".join(f"{f.kind} {f.text[:60]!r} (line {f.line})" for f in missing[:3])
        more = "+" if len(missing) >= MAX_REPORTED else ""
        return f"{len(missing)}{more} protected facts missing: {shown}"
    return None


def describe(facts: Iterable[Fact]) -> dict[str, int]:
    """Count facts by kind (for details and benchmarks)."""
    counts: dict[str, int] = {}
    for fact in facts:
        counts[fact.kind] = counts.get(fact.kind, 0) + 1
    return counts
