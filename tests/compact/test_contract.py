"""Contract tests over every registered rule, and the whole corpus through `tersh compact`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh import compaction as rules
from tersh.compaction._mapping import PROGRAMS, RULES
from tersh.compaction.kit.base import Invocation
from tersh.execution import pipeline
from tersh.execution.pipeline import estimate_tokens
from tersh.settings import MIN_SAVED_SHARE, Settings
from tests.clihelp import tersh
from tests.corpus import cases, lost_facts

CATEGORIES = {"tests", "builds", "linters", "git", "packages", "search"}
FIXTURES = Path(__file__).parent / "fixtures"
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_rules.py"


@pytest.mark.parametrize("name", RULES)
def test_rule_metadata(name: str) -> None:
    rule = rules.load_rule(name)
    assert name == rule.NAME
    assert rule.CATEGORY in CATEGORIES
    assert rule.PROGRAMS and all(p == p.lower() and p.strip() == p for p in rule.PROGRAMS)
    assert callable(rule.compact) and callable(rule.sniff)


def test_every_program_maps_to_one_rule() -> None:
    shared = {program: names for program, names in PROGRAMS.items() if len(names) > 1}
    assert shared == {}


def test_mapping_is_generated_and_current() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, check=False)
    assert done.returncode == 0, done.stdout.decode()


@pytest.mark.parametrize("name", RULES)
def test_every_rule_has_a_real_fixture_or_corpus_case(name: str) -> None:
    rule = rules.load_rule(name)
    in_corpus = any(rules.rule_for_program(_inv(c.cmd, c.exit_code)) is rule for c in cases())
    fixtures = FIXTURES / name
    recorded = any(
        rules.rule_for_program(_inv(cmd.read_text().strip(), 0)) is rule
        for cmd in FIXTURES.glob("*/*.cmd")
    )
    assert in_corpus or recorded or (fixtures.is_dir() and any(fixtures.iterdir())), name


def _inv(command: str, exit_code: int) -> Invocation:
    from tersh.compaction.detect import invocation

    return invocation(command, exit_code)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=2000), exit_code=st.sampled_from([0, 1, 2, 101]))
def test_no_rule_crashes_the_gate_and_sniffers_stay_in_range(text: str, exit_code: int) -> None:
    for name in RULES:
        rule = rules.load_rule(name)
        inv = Invocation("x", rule.PROGRAMS[0].split()[0], tuple(rule.PROGRAMS[0].split()[1:]),
                         exit_code)
        outcome = rules.apply(rule, text, inv)
        assert outcome.text == text or outcome.applied
        assert 0.0 <= rules._safe_sniff(rule, text) <= 1.0


class _LossyRule:
    NAME = "lossy"
    CATEGORY = "tests"
    PROGRAMS = ("lossy",)

    @staticmethod
    def compact(text: str, inv: Invocation) -> str | None:
        return "\n".join(line for line in text.splitlines() if "error" not in line.lower())

    @staticmethod
    def sniff(text: str) -> float:
        return 0.0


@pytest.mark.parametrize("case", [c for c in cases() if c.exit_code != 0], ids=lambda c: c.name)
def test_a_lossy_rule_is_refused_on_every_failing_case(case: object) -> None:
    from tests.corpus import Case

    assert isinstance(case, Case)
    text = case.combined
    inv = _inv(case.cmd, case.exit_code)
    outcome = rules.apply(_LossyRule(), text, inv)  # type: ignore[arg-type]
    dropped = [line for line in text.splitlines() if "error" in line.lower()]
    if dropped:
        assert not outcome.applied and outcome.text == text


CONF = Settings({"enabled": True})


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_corpus_case_through_the_pipeline(case: object) -> None:
    from tests.corpus import Case

    assert isinstance(case, Case)
    raw = (case.path / "combined").read_bytes()
    result = pipeline.compact(case.cmd, case.exit_code, combined=raw, conf=CONF)
    assert lost_facts(case, result.text) == []
    assert estimate_tokens(result.text) <= estimate_tokens(raw.decode("utf-8", "replace"))
    assert len(result.text.encode()) <= 50 * 1024
    assert result.text.count("\n") < 2000
    assert result.exit_code == case.exit_code


def test_compact_cli_json_on_a_corpus_case() -> None:
    case = next(c for c in cases() if c.name == "test__pytest-click-default-failures")
    done = tersh(["compact", "--command", case.cmd, "--exit-code", str(case.exit_code),
                  "--combined", str(case.path / "combined"), "--format", "json"])
    data = json.loads(done.stdout)
    assert data["rule"] == "pytest" and data["category"] == "tests"
    assert lost_facts(case, data["text"]) == []
    assert data["complete"] is False and data["captures"][0]["id"] in data["text"]


def test_the_minimum_saving_holds_inside_its_block_only() -> None:
    from tersh.compaction.kit import base, core

    source = "x" * 10_000
    assert base.min_share() == MIN_SAVED_SHARE
    assert core.saves_enough(len(source), 3_000)
    with base.minimum_saving(0.5):
        assert base.min_share() == 0.5
        assert not core.saves_enough(len(source), 3_000)
        assert core.finish(source, ["x" * 7_000]) is None
    assert base.min_share() == MIN_SAVED_SHARE
    assert core.finish(source, ["x" * 7_000]) is not None


def test_the_minimum_saving_is_each_threads_own_and_blocks_nest() -> None:
    import threading

    from tersh.compaction.kit import base

    inside, seen = threading.Event(), []

    def other() -> None:
        inside.wait(10)
        seen.append(base.min_share())  # while the main thread is inside its block

    worker = threading.Thread(target=other)
    worker.start()
    with base.minimum_saving(0.5):
        with base.minimum_saving(0.25):
            assert base.min_share() == 0.25
        assert base.min_share() == 0.5
        inside.set()
        worker.join(10)
    assert seen == [MIN_SAVED_SHARE]
    assert base.min_share() == MIN_SAVED_SHARE
