"""Text a `\\r` redraw overwrites is what a terminal hides; a fact in it (an error, a location,
a commit id) still reaches the model."""

from __future__ import annotations

import pytest

from tersh.compaction.clean import clean
from tests.faults.support import set_mode, tersh

PROGRESS_HIDING_AN_ERROR = "Downloading 10%%\\rERROR: disk quota exceeded\\rDownloading 100%%\\ndone\\n"


def test_an_error_overwritten_by_progress_reaches_the_model() -> None:
    set_mode("enabled")
    done = tersh(["run", "-c", f"printf '{PROGRESS_HIDING_AN_ERROR}'; exit 1"])
    assert done.returncode == 1
    assert b"ERROR: disk quota exceeded" in done.stdout
    assert b"done" in done.stdout


@pytest.mark.parametrize(
    "hidden",
    [
        "ERROR: disk quota exceeded",
        "src/net/pool.py:237: warning: unused",
        "Traceback (most recent call last):",
    ],
)
def test_cleaning_keeps_an_overwritten_fact(hidden: str) -> None:
    assert hidden in clean(f"step 1\r{hidden}\rstep 2 of 2 finished ok\n")


def test_plain_progress_still_collapses_to_its_final_state() -> None:
    bar = "".join(f"{percent}%\r" for percent in range(100)) + "100%\n"
    assert clean(bar) == "100%\n"
