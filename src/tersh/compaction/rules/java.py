"""Compact Java builds: javac, Maven (mvn, mvnw) and Gradle (gradle, gradlew).

javac prints ``path:line: error|warning: message``, the quoted source line, a caret line and
detail lines (``  symbol: …``, ``  location: …``); the quoted source and caret go (unless the
source carries a protected fact), the rest stays, with ``N errors`` / ``N warnings`` and the
``Note:`` lines. Maven's ``[INFO]`` chatter (downloads, plugin banners, rulers, blank lines) goes,
its ``[ERROR]`` / ``[WARNING]`` lines and the build outcome (``BUILD FAILURE``, ``Tests run:``,
``Total time:``, the reactor summary) stay. Gradle's task lines (except failed ones),
configuration banners, progress and the ``* Try:`` boilerplate go; ``* What went wrong:``,
``BUILD SUCCESSFUL in 3s`` and ``N actionable tasks`` stay.
"""

from __future__ import annotations

from tersh._startup.lazyre import MULTILINE, lazy
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation

NAME = "java"
CATEGORY = "builds"
PROGRAMS = ("javac", "mvn", "mvnw", "gradle", "gradlew", "ecj", "kotlinc")
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (".java:", "BUILD ", "> Task :")

_JAVAC = lazy(r"^\S.*\.(?:java|kt):\d+: (?:error|warning): ")
_CARET = lazy(r"^\s*\^\s*$")
_MAVEN_KEEP = lazy(
    r"BUILD (?:SUCCESS|FAILURE)|Tests run:|Total time|Finished at|Reactor Summary|\bSUCCESS\b"
    r"|\bFAILURE\b|\bSKIPPED\b|Results:|Failed tests|Tests in error"
)
_MAVEN_INFO = lazy(r"^\[INFO\]")
_MAVEN_PROGRESS = lazy(r"^Progress \(\d+\): |^Download(?:ing|ed) from ")
_GRADLE_DROP = lazy(
    r"^> (?:Task :\S+(?: (?:UP-TO-DATE|NO-SOURCE|FROM-CACHE|SKIPPED))?\s*$|Configure project )"
    r"|^<[=-]+> \d+% |^Starting a Gradle Daemon|^Download https?://|^> Run with --|^> Get more help at"
    r"|^\* Try:\s*$|^\* Get more help at|^Reusing configuration cache|^Configuration cache entry"
)
_SNIFF = lazy(
    r"^\S+\.java:\d+: (?:error|warning): |^\[INFO\] BUILD (?:SUCCESS|FAILURE)|^BUILD (?:SUCCESSFUL|FAILED)"
    r" in \d|^> Task :",
    MULTILINE,
)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop build chatter and quoted source around Java diagnostics; None if not a Java build."""
    out: list[str] = []
    dropped = {"quoted source or caret line": 0, "build chatter line": 0}
    recognised = False
    after_header = 0  # lines seen since a javac diagnostic header (1 = source, 2 = caret)
    for line in _diag.lines_of(text):
        if _JAVAC.match(line):
            recognised, after_header = True, 1
            out.append(line)
            continue
        if after_header == 1 and line.strip():
            after_header = 2
            if not core.carries_fact(line, paths=True):
                dropped["quoted source or caret line"] += 1
                continue
        elif after_header == 2 and _CARET.match(line):
            after_header = 0
            dropped["quoted source or caret line"] += 1
            continue
        else:
            after_header = 0
        if _is_chatter(line):
            recognised = True
            dropped["build chatter line"] += 1
            continue
        recognised = recognised or bool(_SNIFF.match(line))
        out.append(line)
    if not recognised:
        return None
    out.append(_diag.omission_note(dropped))
    return core.finish(text, out)


def _is_chatter(line: str) -> bool:
    if _MAVEN_PROGRESS.match(line):
        return True
    if _MAVEN_INFO.match(line):
        return not _MAVEN_KEEP.search(line) and not core.carries_fact(line, paths=True)
    if _GRADLE_DROP.match(line):
        return not core.carries_fact(line, paths=True)
    return False


def sniff(text: str) -> float:
    """Sure on javac's ``File.java:12: error:`` lines or Maven's / Gradle's outcome lines."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.9 if hits >= 2 else 0.6 if hits else 0.0
