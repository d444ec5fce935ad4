"""Claude Code decides every command of the parity table the same with tersh as without it.

One ``claude -p`` run per rule set and side walks the whole table (one Bash call per turn);
the outcome of each case is judged on the files it touched, and the history the model is sent
must hold the command it asked for, with no trace of tersh's wrapper in any result.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e import anthropic, anthropic_claude, parity
from tests.e2e.hostbin import pinned_version

CALLS = [anthropic.bash(case.command()) for case in parity.CASES]
WRAPPER_TRACES = ("shell-prefix", "tersh run", "CLAUDE_CODE_SHELL_PREFIX")


def test_the_pinned_version_is_the_one_these_tests_know() -> None:
    assert pinned_version("claude") == anthropic_claude.PINNED


def walk_table(root: Path, rules: parity.RuleSet, tersh: bool) -> tuple[dict[str, parity.Outcome], list[str]]:
    side = "with" if tersh else "without"
    workdir = root / side / "work"
    parity.prepare(workdir)
    run = anthropic_claude.run_claude(
        workdir,
        CALLS,
        settings={"permissions": anthropic_claude.permissions(rules)},
        tersh=tersh,
        home=root / side / "home",
    )
    assert run.code == 0, run.stderr[-2000:]
    assert run.asked() == [case.command() for case in parity.CASES]  # the history holds what was asked
    results = run.results()
    assert len(results) == len(parity.CASES)
    for case, text in zip(parity.CASES, results, strict=True):
        for trace in WRAPPER_TRACES:
            assert trace not in text, (case.name, text[:500])
    return parity.outcomes(workdir), results


@pytest.mark.parametrize("rules", parity.RULE_SETS, ids=[r.name for r in parity.RULE_SETS])
def test_outcomes_with_tersh_equal_outcomes_without(rules: parity.RuleSet, tmp_path: Path) -> None:
    without, _ = walk_table(tmp_path, rules, tersh=False)
    with_tersh, results = walk_table(tmp_path, rules, tersh=True)
    assert parity.differences(without, with_tersh) == {}
    # The harness itself can tell a blocked command from a run one.
    plain = without["plain"]
    assert plain.victim_kept == (bool(rules.deny or rules.ask) or rules.mode == "default")
    if rules.allow:
        assert without["touch"].created and without["python-remove"].victim_kept  # allowed / not
    seq = results[[case.name for case in parity.CASES].index("seq-output")]
    if not without["seq-output"].created and rules.mode == "bypass":
        pytest.fail("seq-output did not run")
    if with_tersh["seq-output"].created:
        assert "tersh retrieve" in seq and len(seq) <= 30_000  # compacted, report inside
