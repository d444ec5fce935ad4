"""What every rule shares: its mark, its counts in words, the one fact predicate, the minimum
saving and the one way a proposal is finished.

The builds and linters kit (``diag``), the test-runner kit (``testrun``) and the git and
package kit (``omit``) build on these; a rule never defines its own.
"""

from __future__ import annotations

from tersh._startup.lazyre import escape, lazy
from tersh._startup.lean import lru_cache
from tersh.compaction.kit.base import min_share
from tersh.compaction.verify import facts as verify  # not holds: its checks import it when needed
from tersh.settings import MIN_SAVED_TOKENS

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterable

#: Prefix of every line a rule writes itself.
MARK = "[tersh]"

#: Rules read and check a text this many characters at a time (whole lines), which bounds the
#: extra memory a rule needs.
CHUNK_CHARS = 1 << 20

#: How many bytes of prose or code make a token, roughly (o200k). Padding (runs of spaces) and
#: braille spinner frames differ: see ``PADDING_BYTES_PER_TOKEN`` and ``SPINNER_BYTES_PER_TOKEN``.
BYTES_PER_TOKEN = 4
#: Runs of spaces cost about one token per ten bytes.
PADDING_BYTES_PER_TOKEN = 10
#: Spinner frames (braille) cost about one token per two bytes.
SPINNER_BYTES_PER_TOKEN = 2

#: A cheap pre-test for the verifier's diagnostic lines: a lower-cased line without one of its
#: severity words is never one (the words are the verifier's own list).
MAYBE_SEVERITY = lazy("|".join(map(escape, verify.SEVERITY_WORDS)))
# Letters that the verifier's case-blind pattern folds onto ASCII letters but ``lower()`` keeps.
_FOLDED = lazy("[\u0130\u0131\u017f\u212a]")
# A location's path holds a "." or a "/" ("eta 0:00:00" has neither).
_MAYBE_LOCATION = lazy(r"[./][\w.@+~/-]*:\d|\.\w+\(\d|File \"")
MAYBE_COMMIT = lazy(r"[0-9a-f]{7}")


def plural(count: int, word: str) -> str:
    """``1 line``, ``1,204 lines`` (a trailing consonant + ``y`` becomes ``ies``)."""
    if count == 1:
        return f"1 {word}"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return f"{count:,} {word[:-1]}ies"
    return f"{count:,} {word}s"


def maybe_diagnostic(line: str) -> bool:
    """Whether the verifier reads ``line`` as a diagnostic (cheap when it plainly is not)."""
    maybe = MAYBE_SEVERITY.search(line.lower()) is not None or (
        not line.isascii() and _FOLDED.search(line) is not None
    )
    return maybe and verify.is_diagnostic(line)


def maybe_location(line: str) -> bool:
    """Whether the verifier finds a location on ``line`` (cheap when it plainly does not)."""
    if ":" not in line and "(" not in line:
        return False
    return _MAYBE_LOCATION.search(line) is not None and next(verify.iter_locations(line), None) is not None


@lru_cache(maxsize=1 << 14)
def carries_fact(line: str, paths: bool = False) -> bool:
    """Whether ``line`` holds a protected fact that only the whole line keeps: a diagnostic, a
    location or a commit id; with ``paths``, a file path too (for rules whose omission notes do
    not list the paths of the lines they drop)."""
    if maybe_diagnostic(line) or maybe_location(line):
        return True
    if MAYBE_COMMIT.search(line) is not None and next(verify.iter_commits(line), None) is not None:
        return True
    return paths and ("/" in line or "." in line) and next(verify.iter_paths(line), None) is not None


def saves_enough(source_bytes: float, saved_bytes: float, bytes_per_token: float = BYTES_PER_TOKEN) -> bool:
    """Whether saving ``saved_bytes`` of a source of ``source_bytes`` meets the minimum saving
    (``settings.MIN_SAVED_TOKENS``, and the share ``kit.base.min_share()``), at ``bytes_per_token``."""
    return saved_bytes >= max(MIN_SAVED_TOKENS * bytes_per_token, min_share() * source_bytes)


def finish(source: str, lines: Iterable[str], bytes_per_token: float = BYTES_PER_TOKEN) -> str | None:
    """Join ``lines`` into the proposal (blank lines at either end dropped, one ``\\n`` at the
    end), or None when it does not save enough of ``source`` (see
    :func:`saves_enough`)."""
    proposal = "\n".join(lines).strip("\n") + "\n"
    before, after = utf8_size(source), utf8_size(proposal)
    return proposal if saves_enough(before, before - after, bytes_per_token) else None


def utf8_size(text: str) -> int:
    """UTF-8 length of ``text``, encoded a chunk at a time (no full copy)."""
    if text.isascii():
        return len(text)
    return sum(
        len(text[start : start + CHUNK_CHARS].encode("utf-8", "surrogateescape"))
        for start in range(0, len(text), CHUNK_CHARS)
    )
