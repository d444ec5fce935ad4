"""The git log/show rule: one header line per commit, every id and message line kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import apply, detect
from tersh.compaction.rules import git_log as rule
from tersh.compaction.verify import holds as verify
from tests.compact import support
from tests.compact.golden_table import GOLDEN

CASES = support.cases_for(rule)
FIXTURES = support.fixtures_for(rule, "git")
LINES = support.rule_fragment_lines(rule, "git")


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    floor = 0.0 if fixture.name == "log-stat-merge" else 0.2
    assert support.check_fixture(rule, fixture, floor) == snapshot


def test_header_is_folded_to_id_day_and_author() -> None:
    case = next(c for c in CASES if c.name == "git__log-default-huge")
    text = support.check_corpus_case(rule, case, 0.25, applied=True)
    assert text.startswith(
        "53b41d0cddd80bf33fdc631bdd32e3ba53842b89 2026-05-08 Roberto I\n"
        "    Avoid warning in some compilers\n"
        "    In function 'funcargs', some compilers can complain that 'args' can be\n"
    )
    assert "Author:" not in text and "roberto@inf.puc-rio.br" not in text
    assert text.count("\n") > 2500  # every commit still has its own header line


def test_merges_graphs_and_committers_are_kept() -> None:
    stat = next(f for f in FIXTURES if f.name == "log-stat-merge")
    merge = rule.compact(support.clean(stat.text) * 3, detect.invocation(stat.cmd, 0)) or ""
    assert support.outcome_text(rule, stat) == support.clean(stat.text)  # too small to pay off
    assert "2026-05-08 Ada Lovelace (merge of 6055b5d 40af9c1)\n    Merge branch 'feature'" in merge
    # errors.py's row reads as a diagnostic to the verifier, so it keeps its bar (kept whole)
    assert " src/errors.py | 2 ++\n 1 file changed, 2 insertions(+)" in merge
    assert verify.missing_facts(support.clean(stat.text) * 3, merge, detect.invocation(stat.cmd, 0)) == []
    graph = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "log-graph-medium"))
    assert graph.startswith("*   2013e56a38e55d04c054e6938a439d33d9d812fb 2026-05-08 Ada Lovelace")
    assert "\n|\\\n" in graph and "\n|/\n" in graph  # the fork and the join are still drawn
    fuller = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "log-fuller"))
    assert "CommitDate" not in fuller and "ada@example.com" not in fuller


def test_dates_and_people_in_short_form() -> None:
    assert rule.short_date("Fri May 8 15:01:59 2026 -0300") == "2026-05-08"
    assert rule.short_date("2026-05-08 15:01:59 -0300") == "2026-05-08"
    assert rule.short_date("3 days ago") == "3 days ago"
    assert rule.short_person("Roberto I <roberto@inf.puc-rio.br>") == "Roberto I"
    # A mail the verifier reads as a file path stays, so the gate does not refuse the log.
    assert rule.short_person("Dev <dev@site.sh>") == "Dev <dev@site.sh>"


def test_patch_context_lines_that_are_a_single_space_are_kept() -> None:
    case = next(c for c in CASES if c.name == "git__log-patch")
    proposal = rule.compact(support.clean(case.combined), detect.invocation(case.cmd, 0))
    assert proposal is None or "\n \n" in proposal


def test_other_shapes_are_declined() -> None:
    inv = detect.invocation("git log", 0)
    assert rule.compact("", inv) is None
    assert rule.compact("tag v1.0\nTagger: A <a@b>\n\n    release\n", inv) is None


def test_a_rule_that_drops_a_message_line_is_refused() -> None:
    fixture = next(f for f in FIXTURES if f.name == "log-graph-medium")
    text = support.clean(fixture.text)
    inv = detect.invocation(fixture.cmd, 0)
    proposal = rule.compact(text, inv)
    assert proposal is not None

    class Lossy:
        NAME, CATEGORY = "lossy", "git"

        @staticmethod
        def compact(text: str, inv: object) -> str:
            return proposal.replace("Body line explaining the change.", "")

    outcome = apply(Lossy, text, inv)  # type: ignore[arg-type]
    assert not outcome.applied and "message" in (outcome.refused or "")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=60))
def test_fragments_never_crash_or_lose_a_fact(lines: list[str]) -> None:
    header = "commit 53b41d0cddd80bf33fdc631bdd32e3ba53842b89"
    support.check_command_fragments(rule, [header, *lines], "git log", 0)


def test_sniff_claims_only_medium_log_output() -> None:
    huge = next(c for c in CASES if c.name == "git__log-default-huge")
    assert rule.sniff(support.clean(huge.combined)) >= 0.9
    assert support.foreign_sniffs(rule, set(GOLDEN["git_log"])) == {}


_LOG_PIECES = (
    "commit 53b41d0cddd80bf33fdc631bdd32e3ba53842b89\nAuthor: Ana Lima <ana@example.com>\n"
    "Date:   Fri May 8 15:01:59 2026 -0300\n\n",
    "commit 36c1f6d949a4d3dfcbe898d80b1be1efe8e5325c (HEAD -> main, origin/main)\n"
    "Author:\tBo <bo@src/x.py>\nDate:   2026-04-29 15:17:55 +0200\n\n",
    "commit 0da6d320f757bc9241a33df06f3597598845cf0a\nMerge: 1a2b3c4 5d6e7f8\n"
    "Author: Cy <cy@x.org>\nDate:   Tue Apr 28 13:44:29 2026 -0300\n\n",
    "commit ae23e726018bd31a25c1279600328d90207ec81c\nAuthor: Di <di@x.org>\n"
    "AuthorDate: Thu Apr 23 18:00:23 2026 -0300\nCommit: Ed <ed@x.org>\n"
    "CommitDate: Fri Apr 24 10:00:00 2026 -0300\n\n",
    "commit 4c5d5063a54c0088729b16fb25a333f0f9f836b0\nAuthor: Fe <fe@x.org>\nDate: x\n",
    "    Fix the reader in src/lua.c:12\n",
    "    \n",
    "    \t \n",
    "\n",
    "\n\n",
    " src/lua.c | 4 ++--\n",
    " 1 file changed, 2 insertions(+), 2 deletions(-)\n",
    "diff --git a/src/lua.c b/src/lua.c\n",
    " \n",
    "+    added\n",
    "Author: not in a header\n",
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LOG_PIECES), max_size=40), st.sampled_from(("", "x", "\n")))
def test_whole_header_and_message_reading_is_line_by_line_reading(pieces: list[str], end: str) -> None:
    text = _LOG_PIECES[0] + "".join(pieces) + end
    assert rule._compact_plain(text) == rule._compact_lines(text)
    assert rule.compact(text, detect.invocation("git log", 0)) == rule._compact_lines(text)


# Message lines a commit's whole-block reading splits at (white space only, of several kinds, no
# line break but "\n": other texts are read line by line), and message-like lines it must not take.
_MESSAGE_PIECES = (
    "    \u2003\n",
    "    \t\u00a0\n",
    "     x\u2003\n",
    "   three spaces\n",
    "    last line without a break",
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LOG_PIECES[:6] + _MESSAGE_PIECES + _LOG_PIECES[8:10]), max_size=40))
def test_commit_blocks_with_odd_message_lines_are_read_line_by_line(pieces: list[str]) -> None:
    text = _LOG_PIECES[0] + "".join(pieces)
    assert rule._compact_plain(text) == rule._compact_lines(text)


# Date lines a header may carry: the default form (one or two digits of day), near misses of it
# (an unknown month, trailing white space, other digits, a missing part) and other forms.
_DATES = (
    "Fri May 8 15:01:59 2026 -0300",
    "Wed Apr 29 15:17:55 2026 +0200",
    "Wed Foo 29 15:17:55 2026 +0200",
    "Mon Jan 1 00:00:00 1999 -0000   ",
    "Mon Jan \u0661 00:00:00 1999 -0000",
    "Mon Jan 1 00:00:00 1999",
    "Mon Jan 123 00:00:00 1999 -0000",
    "2026-04-29 15:17:55 +0200",
    "yesterday",
)
_AUTHORS = ("Ana Lima <ana@example.com>", "<bo@x.org>", "Cy", "Di <di@src/x.py>")
_MERGES = ("", "Merge: 1a2b3c4 5d6e7f8\n", "Merge:   \n")
_MESSAGES = ("    Fix it\n", "", "    Fix\n    \n    it\n")
_HEADERS = st.tuples(st.sampled_from(_DATES), st.sampled_from(_AUTHORS), st.sampled_from(_MERGES),
                     st.sampled_from(_MESSAGES))  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_HEADERS, min_size=1, max_size=12))
def test_headers_read_whole_are_folded_as_line_by_line(commits: list[tuple[str, str, str, str]]) -> None:
    text = "".join(
        f"commit {index:07x}{'a' * 33}\n{merge}Author: {author}\nDate:   {date}\n\n{message}\n"
        for index, (date, author, merge, message) in enumerate(commits)
    )
    assert rule._compact_plain(text) == rule._compact_lines(text)


def test_all_default_dates_is_the_default_date_pattern() -> None:
    for date in _DATES:
        assert rule._all_default_dates([date]) == (
            (found := rule._DEFAULT_DATE_LINE.match(f"\n{date}\n")) is not None
            and found.end() == len(date) + 1
            and date == date.rstrip()
            and date.isascii()
            and date.split(" ")[1] in rule._MONTHS
        ), date
