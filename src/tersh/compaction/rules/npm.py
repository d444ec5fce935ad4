"""Compact ``npm``/``pnpm``/``bun`` installs and ``npm ls``: the outcome and every warning.

Dropped: spinner frames, ``N packages are looking for funding`` / ``run `npm fund```, npm's
update ``notice``, the ``npm http|verbose|info`` lines of a raised ``--loglevel``, pnpm's
``Progress:`` lines, ``+++`` bars and store locations, bun's resolve progress; repeated
identical warnings are written once with a count. Kept as written: ``added N packages …``,
``up to date …``, audit summaries, every ``warn``/``error``/``ERR_PNPM`` line. ``npm ls`` keeps
every package; only the tree glyphs become indentation.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit.base import Invocation
from tersh.compaction.kit.core import BYTES_PER_TOKEN, PADDING_BYTES_PER_TOKEN, SPINNER_BYTES_PER_TOKEN
from tersh.compaction.kit.omit import SNIFF_CHARS, Omissions
from tersh.compaction.verify import holds as verify

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re

NAME = "npm"
CATEGORY = "packages"
PROGRAMS = (
    "npm install", "npm i", "npm ci", "npm add", "npm update", "npm uninstall", "npm remove",
    "npm rm", "npm ls", "npm list", "npm ll", "npm la", "npm audit", "npm dedupe", "npm prune",
    "pnpm install", "pnpm i", "pnpm add", "pnpm update", "pnpm up", "pnpm remove", "pnpm rm",
    "pnpm ls", "pnpm list", "bun install", "bun i", "bun add", "bun remove", "bun update",
)
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (" package", "npm warn deprecated ", "Progress: resolved ")
#: A line form the head holds whenever ``sniff`` picks it: the outcome line or a hint's line.
SNIFF_LINE = (r"^(?:added|removed|changed) \d+ packages?(?:, and audited \d+ packages?)? in "
              r"|npm warn deprecated |Progress: resolved ")
_OUTCOME = lazy(SNIFF_LINE.split("|npm warn", 1)[0], MULTILINE)  # the outcome line alone

#: How dropped spinner lines are counted in the note.
SPINNER_LABEL = "spinner line"
_SPINNER = lazy(r"^[\u2800-\u28ff|/\\\- ]+$")
_CHATTER: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("funding line", lazy(
        r"^(?:\d+ packages? (?:is|are) looking for funding|\s+run `npm fund` for details)$"
    )),
    ("npm notice", lazy(
        r"^npm notice(?: New (?:major|minor|patch) version of npm available!.*"
        r"| Changelog: \S+| To update run: npm install -g npm@\S+)?$"
    )),
    # --loglevel http / verbose / info (and timing, silly): registry fetches, cache hits, the
    # run's own settings; a line naming a path or holding a diagnostic stays.
    ("npm log line", lazy(r"^npm (?:http|verbose|info|timing|silly) \S.*$")),
    ("progress line", lazy(
        r"^(?:Progress: resolved \d+, reused \d+, downloaded \d+, added \d+(?:, done)?"
        r"|[+-]{1,}|Resolving dependencies|Resolved, downloaded and extracted \[\d+\]"
        r"|Packages are (?:hard linked|copied|cloned) from the content-addressable store.*"
        r"|\s+(?:Content-addressable store|Virtual store) is at: .*)$"
    )),
)
# One unit of `npm ls` tree drawing: "├── ", "└── ", "├─┬ ", "│ ", "  " (npm 7+ draws 2 wide).
_TREE_PREFIX = lazy(r"^(?P<tree>(?:[│ ] |[├└]─[─┬] ?)+)(?P<rest>\S.*)$")
_TREE_JOINT = lazy(r"[├└]─")
_LISTINGS = frozenset({"ls", "list", "ll", "la"})


def untree(line: str) -> str:
    """``│ ├── a@1`` -> ``    a@1``: tree glyphs become two spaces per level."""
    match = _TREE_PREFIX.match(line)
    if not match:
        return line
    tree = match["tree"]
    depth = tree.count("│ ") + tree.count("  ") + len(_TREE_JOINT.findall(tree))
    return "  " * depth + match["rest"]


def _listing(lines: list[str], source: str) -> str | None:
    # A line the verifier reads as a diagnostic ("http-errors@2.0.1") keeps its own glyphs.
    kept = [line if verify.is_diagnostic(line) else untree(line) for line in lines if line.strip()]
    if kept == lines:
        return None
    omissions = Omissions()
    omissions.reformatted = "tree glyphs"
    return omissions.proposal(kept, source, PADDING_BYTES_PER_TOKEN)


def drop_chatter(lines: list[str], chatter: tuple[tuple[str, re.Pattern[str]], ...]) -> tuple[
    list[str], Omissions
]:
    """Drop spinner frames, blank lines and ``chatter``; write repeated warnings once, counted."""
    kept: list[str] = []
    omissions = Omissions()
    seen: dict[str, int] = {}
    repeats: dict[int, int] = {}
    for line in lines:
        if not line.strip():
            omissions.blank += 1
            continue
        if _SPINNER.match(line):
            omissions.count(SPINNER_LABEL)
            continue
        label = next((label for label, pattern in chatter if pattern.match(line)), None)
        if label and omissions.drop(label, line):
            continue
        if "warn" in line.lower():
            if line in seen:
                repeats[seen[line]] = repeats.get(seen[line], 1) + 1
                omissions.count("repeated warning")
                continue
            seen[line] = len(kept)
        kept.append(line)
    for index, count in repeats.items():
        kept[index] += f" (×{count})"
    return kept, omissions


def compact(text: str, inv: Invocation) -> str | None:
    """Drop install chatter, or turn ``ls`` tree glyphs into indentation."""
    lines = text.splitlines()
    if inv.subcommand in _LISTINGS:
        return _listing(lines, text)
    kept, omissions = drop_chatter(lines, _CHATTER)
    if not omissions.total:
        return None
    # A braille spinner frame costs about a token per byte, four times an ASCII byte: the byte
    # floor would keep a short install that is mostly spinner.
    spinner = SPINNER_LABEL in omissions.counts  # braille frames cost more tokens a byte
    return omissions.proposal(kept, text, SPINNER_BYTES_PER_TOKEN if spinner else BYTES_PER_TOKEN)


def sniff(text: str) -> float:
    """Sure when npm's or pnpm's install outcome line is there."""
    ends = (text[:SNIFF_CHARS], text[-SNIFF_CHARS:])  # each searched alone: no line made at the seam
    if any(_OUTCOME.search(end) for end in ends):
        return 0.95
    if any("npm warn deprecated " in end or "Progress: resolved " in end for end in ends):
        return 0.9
    return 0.0
