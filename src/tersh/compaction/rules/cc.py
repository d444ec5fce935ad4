"""Compact C/C++ builds: gcc, clang and the make / cmake / ninja runs that drive them.

Kept verbatim: every diagnostic (``file:line:col: error|warning|note: …``), its context lines
(``In function ‘f’:``, ``In file included from …``), linker errors, ``cc1: all warnings being
treated as errors``, make's ``*** [Makefile:83: x.o] Error 1`` and every line the rule does
not recognise. Dropped: compile commands (``gcc … -c x.c``), archive and shell helper
commands, ``make: Entering/Leaving directory``, cmake/ninja/automake progress lines, and the
quoted source and carets of code frames. Link commands (a compiler run without ``-c``) stay:
they say what was built. Every file named only by a dropped line is listed in the note, so no
path is lost. Output that is mostly not a build's (``make test`` running a test suite) is left
to the content sniffer.
"""

from __future__ import annotations

import os

from tersh._startup.lazyre import MULTILINE, lazy
from tersh._startup.lean import lru_cache
from tersh.compaction.kit import core
from tersh.compaction.kit import diag as _diag
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import holds as verify

NAME = "cc"
CATEGORY = "builds"
PROGRAMS = (
    "gcc", "g++", "cc", "c++", "clang", "clang++", "make", "gmake", "cmake", "ninja",
    "icc", "icpc", "emcc", "tcc", "cl", "clang-cl", "mingw32-make", "bear",
)  # fmt: skip
#: Strings one of which the first 20,000 characters hold whenever ``sniff`` scores above the
#: sniffing threshold (the sniffer imports this module only then; tests/test_sniff_hints.py).
SNIFF_HINTS: tuple[str, ...] = (": error: ", ": warning: ", ": note: ", ": *** ", ": In function ")

_COMPILER = lazy(
    r"^(?:[\w.+-]+-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|icc|icpc|emcc|tcc|cpp)(?:-\d+(?:\.\d+)*)?$"
)
_HELPER = lazy(
    r"^(?:[\w.+-]+-)?(?:ar|ranlib|strip|objcopy|nm|ld(?:\.\w+)?|as|nasm|libtool|ln|rm|mkdir|install"
    r"|cp|mv|touch|chmod|sed|echo|printf|cd|test|/bin/sh|/bin/bash|sh|bash|make|gmake)$"
)
_WRAPPERS = frozenset({"ccache", "sccache", "distcc", "env", "time"})
_PROGRESS = lazy(
    r"^(?:\s+(?:CC|CXX|LD|AR|AS|GEN|CCLD|CXXLD|HOSTCC|HOSTLD|INSTALL|LINK|COPY|MKDIR|RANLIB|STRIP"
    r"|OBJCOPY|SIGN|CPP|YACC|LEX|DEP|CHK|UPD|HOSTCXX)\s+\S"
    r"|\[\s*\d+%\] (?:Building|Linking|Built target|Generating|Scanning|Copying|Automatic)"
    r"|\[\d+/\d+\] |Scanning dependencies of target |Consolidate compiler generated dependencies"
    r"|-- (?:The \w+ compiler|Detecting|Check for|Checking|Looking for|Performing Test|Found|Configuring"
    r" done|Generating done|Build files)|libtool: (?:compile|link): )"
)
_MAKE_DIRECTORY = lazy(r"^\S*make(?:\[\d+\])?: (?:Entering|Leaving) directory ")
_DIAGNOSTIC = lazy(
    r"^\S.*?:\d+(?::\d+)?: (?:fatal error|error|warning|note|remark)\b|^In file included from "
    r"|^\S+: In (?:function|member function|constructor|destructor|instantiation|static member"
    r" function|lambda function)|^\S+:(?: At top level:| In function )|^\S*make(?:\[\d+\])?: \*\*\* "
    r"|^(?:cc1\w*|collect2|\S*ld(?:\.\w+)?): |^\s+(?:from|required from) "
)
#: A line form the head holds whenever ``sniff`` picks it (one or more such lines).
SNIFF_LINE = (
    r"^\S+\.(?:c|cc|cpp|cxx|h|hpp|m|mm):\d+:\d+: (?:error|warning|note): |^\S*make(?:\[\d+\])?: \*\*\* |"
    r"^\S+: In function [‘'`]"
)
_SNIFF = lazy(SNIFF_LINE, MULTILINE)


def compact(text: str, inv: Invocation) -> str | None:
    """Drop build chatter around the diagnostics; None when the output is not a build's."""
    out: list[str] = []
    dropped = {"compiler command": 0, "helper command": 0, "make directory line": 0,
               "progress line": 0, "code-frame line": 0}  # fmt: skip
    paths: dict[str, None] = {}
    recognised = other = 0
    continuation: str | None = None
    for line in _diag.lines_of(text):
        if continuation is not None:  # a command continued with a trailing backslash
            _collect_paths(line, paths)
            dropped[continuation] += 0
            continuation = continuation if line.rstrip().endswith("\\") else None
            continue
        if not line.strip():
            continue
        kind = _command_kind(line)
        if kind == "link":
            recognised += 1
            out.append(line)
        elif kind is not None:
            recognised += 1
            dropped[kind] += 1
            _collect_paths(line, paths)
            continuation = kind if line.rstrip().endswith("\\") else None
        elif _MAKE_DIRECTORY.match(line) or (_PROGRESS.match(line) and not verify.is_diagnostic(line)):
            recognised += 1
            dropped["make directory line" if _MAKE_DIRECTORY.match(line) else "progress line"] += 1
            _collect_paths(line, paths)
        elif _diag.is_frame_line(line):
            recognised += 1
            reduced = _diag.reduce_frame_line(line)
            if reduced is None:
                dropped["code-frame line"] += 1
            else:
                out.append(reduced)
        else:
            if _DIAGNOSTIC.match(line):
                recognised += 1
            else:
                other += 1
            out.append(line)
    if recognised == 0 or other > recognised or not any(dropped.values()):
        return None
    kept = "\n".join(out)
    missing = [path for path in paths if path not in kept]
    extra = f"files named by omitted lines: {' '.join(missing)}" if missing else ""
    out.append(_diag.omission_note(dropped, extra))
    return core.finish(text, out)


def _command_kind(line: str) -> str | None:
    """``compiler command`` / ``link`` / ``helper command`` for a command line, else None."""
    if line[:1].isspace() or len(line) < 4:
        return None
    words = line.split()
    while words and os.path.basename(words[0]) in _WRAPPERS:
        words = words[1:]
    if len(words) < 2:
        return None
    program = os.path.basename(words[0])
    if _COMPILER.match(program) and any(w.startswith("-") for w in words[1:]):
        if "-c" in words or "-E" in words or "-S" in words or "-M" in words or "-MM" in words:
            return "compiler command"
        return "link"
    if _HELPER.match(program) or _HELPER.match(words[0]):
        return "helper command"
    return None


def _collect_paths(line: str, paths: dict[str, None]) -> None:
    if "/" in line or "." in line:
        for word in line.split():
            if "/" in word or "." in word:
                paths.update(_paths_of_word(word))


@lru_cache(maxsize=1 << 14)
def _paths_of_word(word: str) -> dict[str, None]:
    """The paths in one word of a command (flags repeat on every line: cached)."""
    return dict.fromkeys(verify.iter_paths(word))


def sniff(text: str) -> float:
    """Sure on gcc/clang ``file.c:1:2: error:`` lines or make's ``*** … Error`` line."""
    hits = len(_SNIFF.findall(_diag.head(text)))
    return 0.9 if hits >= 2 else 0.6 if hits else 0.0
