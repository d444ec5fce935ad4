"""A missing shared corpus fails a CI run instead of collecting no corpus case."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import corpus


def test_a_missing_corpus_is_an_error_when_required(tmp_path: Path) -> None:
    with pytest.raises(corpus.CorpusMissing, match="TERSH_CORPUS"):
        corpus.read_cases(tmp_path / "nowhere", require=True)
    with pytest.raises(corpus.CorpusMissing):
        corpus.read_cases(tmp_path, require=True)  # there, but holds no case


def test_a_missing_corpus_gives_no_case_when_not_required(tmp_path: Path) -> None:
    assert corpus.read_cases(tmp_path / "nowhere", require=False) == ()


@pytest.mark.parametrize(
    ("env", "expected"),
    [({}, False), ({"CI": "true"}, True), ({"CI": "false"}, False), ({"TERSH_REQUIRE_CORPUS": "1"}, True)],
)
def test_ci_or_the_setting_requires_the_corpus(
    env: dict[str, str], expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TERSH_REQUIRE_CORPUS", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert corpus.required() is expected


def test_a_corpus_test_module_fails_on_ci_without_the_corpus(tmp_path: Path) -> None:
    """The whole pytest run fails (collection error), it does not pass with 0 cases."""
    root = Path(__file__).resolve().parents[1]
    env = {"CI": "true", "TERSH_CORPUS": str(tmp_path / "nowhere"), "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_tokens.py"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode != 0, run.stdout
    assert "CorpusMissing" in run.stdout
