"""The shellcheck rule on real shellcheck output."""

from __future__ import annotations

from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import shellcheck as rule
from tests.compact import support


def test_every_comment_keeps_its_line_and_column() -> None:
    case = support.case("lint__shellcheck-neofetch-all-optional")
    text = support.run(rule, case.combined, case.cmd, case.exit_code).text
    assert text.startswith("neofetch (926)\n  40:6 940:10 941:22 ")
    assert "Did you mean" not in text
    assert "  https://www.shellcheck.net/wiki/SC2154 -- ADD is referenced but not assigned." in text


def test_few_comments_keep_their_blocks(snapshot: SnapshotAssertion) -> None:
    outcome = support.check_text_fixture(rule, "shellcheck", "shellcheck-few", "shellcheck deploy.sh", 1)
    assert outcome.applied, outcome.refused
    text = outcome.text
    assert "In deploy.sh line 31:\n  31:1 SC2164 (warning): Use 'cd ... || exit'" in text
    assert "  20 SC2154 (warning): status is referenced but not assigned." in text  # tab: no column
    assert "cp $SRC /opt/app/releases/" in text  # quoted code naming a path stays
    assert text == snapshot


def test_empty_and_foreign_input() -> None:
    inv = detect.invocation("shellcheck x.sh", 0)
    assert rule.compact("", inv) is None
    assert rule.compact("hello\n", inv) is None


def test_registry_and_sniffer() -> None:
    assert rule_for_program(detect.invocation("shellcheck -x scripts/*.sh", 1)) is rule
    assert rule.sniff(support.text_fixture("shellcheck", "shellcheck-few")) >= 0.9
    assert rule.sniff("x\n") == 0.0


def test_error_level_comments_keep_their_written_location_when_grouped() -> None:
    """Many comments are grouped by file, but an error keeps `In FILE line N:` / `FILE:N:C: error:`."""
    from pathlib import Path

    recorded = Path(__file__).parent / "fixtures" / "regression"
    for case, wanted in (("lint__shellcheck-tty-multi-errors", "In xdg-mime line 346:"),
                         ("lint__shellcheck-gcc-format-multi", "xdg-mime:346:25: error:")):
        text = (recorded / case / "combined").read_text()
        cmd = (recorded / case / "cmd").read_text().strip()
        out = rule.compact(text, detect.invocation(cmd, 1))
        assert out is not None and len(out) < len(text)
        assert wanted in out
        assert "xdg-mime (" in out  # the other comments are still grouped by file
