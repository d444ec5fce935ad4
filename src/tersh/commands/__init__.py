"""One module per ``tersh`` subcommand: ``add_arguments(parser, name)`` and ``main(args, name)``."""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Callable

#: Exit codes tersh stores: every POSIX status and every 32-bit Windows one (SQLite holds 64 bits).
EXIT_CODE_RANGE = (-(2**31), 2**32 - 1)
#: Offsets and limits in lines or bytes.
COUNT_RANGE = (0, 2**62)


def int_between(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type`` taking an integer from ``low`` to ``high`` (else a one-line error)."""

    def parse(text: str) -> int:
        import argparse

        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low}..{high})")
        return value

    parse.__name__ = "integer"
    return parse
