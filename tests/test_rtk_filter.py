"""RTK's filtered text held to the verifier, with the fake rtk for what a real one cannot do on
demand: hang, crash, answer garbage, flood, print a green summary over a failure.

The real RTK 1.1.0 runs the same paths in tests/test_rtk_real.py.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tersh.execution import pipeline, rewrite
from tersh.execution.rewrite import rtk_filter
from tests.test_rewrite import conf, install_fake, logged

FAILING = """\
============================= test session starts ==============================
rootdir: /work/proj
collected 3 items

test_a.py .F.                                                            [100%]

=================================== FAILURES ===================================
___________________________________ test_bad ___________________________________
test_a.py:7: in test_bad
E   AssertionError: value mismatch
=========================== short test summary info ============================
FAILED test_a.py::test_bad - AssertionError: value mismatch
========================= 1 failed, 2 passed in 0.12s ==========================
"""
FACTS = ("test_a.py:7", "AssertionError: value mismatch", "1 failed, 2 passed")


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    return install_fake(tmp_path / "bin")


def filtered(fake: Path, exit_code: int = 1, data: str = FAILING) -> pipeline.Result:
    return pipeline.compact("pytest", exit_code, combined=data.encode(), rtk_pipe=(str(fake), "pytest"))


def assert_tersh_compacted(result: pipeline.Result) -> None:
    assert result.rule != "rtk:pytest"
    for fact in FACTS:
        assert fact in result.text


# ------------------------------------------------------------------ unit pieces


@pytest.mark.parametrize(
    ("candidate", "name"),
    [
        ("rtk pytest -q", "pytest"),
        ("rtk cargo test --release", "cargo-test"),
        ("cd api && rtk go test ./...", "go-test"),
        ("FOO=1 rtk tsc --noEmit", "tsc"),
        ("rtk ruff check .", "ruff-check"),
        ("rtk git status", "git-status"),
        ("rtk git branch", ""),
        ("rtk ls -la", ""),
        ("rtk read README.md", ""),
        ("rtk grep -rn foo .", ""),
        ("rtk git log -3", ""),
        ("rtk git diff", ""),
        ("rtk pytest && rtk cargo test", ""),
        ("pytest", ""),
        ("rtk 'pytest", ""),
    ],
)
def test_filter_for_the_rtk_form(candidate: str, name: str) -> None:
    assert rtk_filter.filter_for(candidate) == name


def test_rtk_chatter_is_removed_and_nothing_else() -> None:
    text = "\n".join(
        [
            "Pytest: 1 failed",
            "[rtk] /!\\ No hook installed — run `rtk init -g` for automatic token savings",
            "  Telemetry enabled. Disable anytime: rtk telemetry disable",
            "Telemetry enabled. Disable anytime: rtk telemetry disable",
            "[full output: rtk recall c9cde1efe2ba2400]",
            "[+12 hidden: rtk recall c9cde1efe2ba2400]",
            "test_a.py:7: AssertionError",
            "note: [rtk] in the middle is output",
        ]
    )
    assert rtk_filter.without_chatter(text).split("\n") == [
        "Pytest: 1 failed",
        "  Telemetry enabled. Disable anytime: rtk telemetry disable",
        "test_a.py:7: AssertionError",
        "note: [rtk] in the middle is output",
    ]


def test_every_rtk_call_runs_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RTK_SUPPRESS_HOOK_WARNING", "0")
    env = rtk_filter.quiet_env()
    assert env["RTK_SUPPRESS_HOOK_WARNING"] == "1"
    assert env["RTK_TELEMETRY_DISABLED"] == "1" and env["RTK_RECALL"] == "0"
    assert env["PATH"] == os.environ["PATH"]


# ------------------------------------------------------------- RTK's text, judged


def test_rtk_text_without_the_facts_is_refused(fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_RTK_PIPE", "keep-errors")
    result = filtered(fake)
    info = result.details["rtk"]
    assert info["outcome"] == "refused" and "protected facts missing" in info["reason"]
    assert info["rtk_bytes"] > 0 and info["filter"] == "pytest"
    assert_tersh_compacted(result)
    assert "[rtk]" not in result.text


def test_a_green_summary_under_a_failing_exit_code_is_refused(
    fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_RTK_PIPE", "green")
    source = "".join(f"collecting module_{i} ...\n" for i in range(40)) + "Interrupted\n"
    result = filtered(fake, data=source)
    assert result.details["rtk"]["outcome"] == "refused"
    assert "reads as success with exit code 1" in result.details["rtk"]["reason"]
    assert "all tests passed" not in result.text


def test_an_accepted_text_reaches_the_model_with_the_capture_report(
    fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_RTK_PIPE", "keep-errors")
    lines = [f"step {i}: fine" for i in range(80)]
    lines[40] = "src/db.py:88: error: database timeout"
    result = filtered(fake, data="\n".join(lines) + "\n")
    assert result.details["rtk"]["outcome"] == "accepted", result.details
    assert result.rule == "rtk:pytest" and result.category == "rtk"
    assert result.text.startswith("src/db.py:88: error: database timeout\n")
    assert "[rtk]" not in result.text and "No hook installed" not in result.text
    assert not result.complete and "tersh retrieve" in result.text


@pytest.mark.parametrize(
    ("mode", "outcome", "reason"),
    [
        ("echo", "refused", "not smaller"),
        ("flood", "refused", "not smaller"),
        ("garbage", "failed", "not UTF-8"),
        ("crash", "failed", "exited -11"),
        ("exit:3", "failed", "exited 3"),
    ],
)
def test_rtk_pipe_failures_fall_back_to_tersh(
    fake: Path, monkeypatch: pytest.MonkeyPatch, mode: str, outcome: str, reason: str
) -> None:
    monkeypatch.setenv("FAKE_RTK_PIPE", mode)
    result = filtered(fake)
    assert result.details["rtk"]["outcome"] == outcome
    assert reason in result.details["rtk"]["reason"]
    assert_tersh_compacted(result)
    assert result.exit_code == 1


def test_a_hanging_rtk_pipe_is_killed_quickly(fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_RTK_PIPE", "sleep:30")
    monkeypatch.setattr(rtk_filter, "PIPE_TIMEOUT_S", 0.5)
    monkeypatch.setattr(rtk_filter.run_pipe, "__defaults__", (0.5,))
    started = time.monotonic()
    result = filtered(fake)
    assert time.monotonic() - started < 5
    assert result.details["rtk"] == {
        "filter": "pytest",
        "outcome": "failed",
        "rtk_bytes": 0,
        "reason": "rtk pipe timed out after 0.5 s",
    }
    assert_tersh_compacted(result)


def test_a_missing_rtk_at_filter_time_falls_back(tmp_path: Path) -> None:
    result = pipeline.compact(
        "pytest", 1, combined=FAILING.encode(), rtk_pipe=(str(tmp_path / "gone"), "pytest")
    )
    assert result.details["rtk"]["outcome"] == "failed"
    assert "could not start" in result.details["rtk"]["reason"]
    assert_tersh_compacted(result)


def test_binary_output_is_not_given_to_rtk(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_RTK_LOG", str(log))
    result = pipeline.compact("pytest", 1, combined=b"bin\x00ary\n" * 50, rtk_pipe=(str(fake), "pytest"))
    assert result.details["rtk"]["outcome"] == "failed"
    assert logged(log) == []


# ------------------------------------------------------------- the whole run


def test_tersh_run_runs_the_command_once_unchanged_and_records_rtk(
    fake: Path, tmp_path: Path, tersh_home: Path
) -> None:
    """The requested command runs once, as asked; RTK is asked twice (rewrite, pipe)."""
    counter = tmp_path / "runs"
    script = tmp_path / "pytest"
    script.write_text(
        "#!/bin/sh\necho run >> " + str(counter) + "\ncat <<'EOF'\n" + FAILING + "EOF\nexit 1\n"
    )
    script.chmod(0o755)
    log = tmp_path / "calls.log"
    (tersh_home / "settings.toml").write_text(f'enabled = true\n[rtk]\npath = "{fake}"\ntimeout_ms = 10000\n')
    env = {
        **os.environ,
        "TERSH_HOME": str(tersh_home),
        "FAKE_RTK_LOG": str(log),
        "FAKE_RTK_PIPE": "keep-errors",
        "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tersh", "run", "--format", "json", "--", "pytest"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert counter.read_text() == "run\n"
    result = json.loads(done.stdout)
    assert result["executed_command"] == result["requested_command"] == "pytest"
    assert result["details"]["rewrite"]["verdict"] == "filtered"
    assert result["details"]["rtk"]["outcome"] == "refused"
    calls = [ast.literal_eval(line).split("\0") for line in logged(log)]
    assert calls == [["--version"], ["rewrite", "pytest"], ["pipe", "-f", "pytest"]]
    for fact in FACTS:
        assert fact in result["text"]


def test_a_rewrite_touching_a_switched_off_class_is_not_filtered() -> None:
    class Offers:
        NAME = "stub"

        def propose(self, command: str, settings: object) -> rewrite.Proposal:
            return rewrite.Proposal("filtered", "rtk docker ps", command, "stub", "pytest")

    off = rewrite.rewrite("make", conf(**{"classes.containers": False}), provider=Offers())
    assert (off.verdict, off.pipe_filter) == ("skipped", "")
    kept = rewrite.rewrite("make", conf(), provider=Offers())
    assert (kept.verdict, kept.executed, kept.pipe_filter) == ("filtered", "make", "pytest")
