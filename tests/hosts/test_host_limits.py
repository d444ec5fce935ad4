"""Under a host, what tersh prints fits that host's own inline limit, capture report included."""

from __future__ import annotations

import pytest

from tersh.hosts import gemini, limits, shell_rewrite
from tersh.settings import Settings
from tests.clihelp import enable, tersh

#: 3,000 distinct findings, each with its own location: nothing a rule may drop (~190 KB).
FINDINGS = (
    'for i in $(seq 1 3000); do echo "src/mod$i.py:$i:7: error: E$i name$i is not defined"; done;'
    " exit 1"
)


@pytest.mark.parametrize("host", sorted(limits.INLINE_CHARS))
def test_the_text_fits_the_hosts_inline_limit_with_the_report_inside(host: str) -> None:
    enable()
    done = tersh(["run", "--host", host, "-c", FINDINGS])
    assert done.returncode == 1
    text = done.stdout.decode()
    assert len(text) <= limits.INLINE_CHARS[host]
    assert "[tersh]" in text.splitlines()[-1]  # the capture report is the last line, inside the limit
    assert "src/mod1.py:1:7" in text


def test_without_a_host_the_setting_alone_bounds_the_text() -> None:
    enable()
    text = tersh(["run", "-c", FINDINGS]).stdout.decode()
    assert len(text) > max(limits.INLINE_CHARS.values())  # the host bound above really cut


def test_a_smaller_setting_wins_over_the_host_limit() -> None:
    small = Settings({"preview.max_bytes": 10_000})
    assert limits.bounded(small, "gemini").int("preview.max_bytes") == 10_000
    assert limits.bounded(Settings(), "gemini").int("preview.max_bytes") == 40_000
    assert limits.bounded(Settings(), "no-such-host") == Settings()


def test_the_gemini_rewrite_names_its_host() -> None:
    rewritten = shell_rewrite.rewrite("pytest -q", "/abs/tersh", host=gemini.NAME)
    assert rewritten == "/abs/tersh run --host gemini -c 'pytest -q'"
