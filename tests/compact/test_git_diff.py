"""The git diff rule: patches are data and pass unchanged; diffstat rows lose their padding."""

from __future__ import annotations

from tersh.compaction import detect
from tersh.compaction.rules import git_diff as rule
from tests.compact import support

CASES = support.cases_for(rule)


def test_stat_rows_keep_path_and_count_but_not_the_bar() -> None:
    case = next(c for c in CASES if c.name == "git__diff-stat-reformat")
    text = support.check_corpus_case(rule, case, 0.3, applied=True)
    assert " boltons/strutils.py | 533\n" in text and "++" not in text
    assert " 60 files changed, 4307 insertions(+), 2948 deletions(-)\n" in text
    assert "[tersh] diffstat column padding and +/- bars omitted" in text


def test_a_patch_is_never_touched() -> None:
    inv = detect.invocation("git diff --stat -p", 0)
    text = " a.py | 2 +-\n 1 file changed\n\ndiff --git a/a.py b/a.py\n@@ -1 +1 @@\n-x\n+y\n"
    assert rule.compact(text, inv) is None
    assert rule.compact("", inv) is None
    assert rule.sniff(text) < 0.6
