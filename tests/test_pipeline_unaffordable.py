"""A proposal that could not pay for its capture report is refused before the verifier runs
(``pipeline._Pricing.affordable``): the model's text must be exactly the one the verifier-first
path gives, on real small outputs (git status in every state, the corpus cases under 2 KB)."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.command import parsed as parsing
from tersh.command import policy
from tersh.compaction import UNAFFORDABLE
from tersh.execution import pipeline
from tersh.recording import captures
from tersh.result import Result
from tersh.settings import Settings
from tests import corpus

CONF = Settings({"enabled": True})


def _both(
    command: str, exit_code: int, data: bytes, monkeypatch: pytest.MonkeyPatch
) -> tuple[Result, Result]:
    """(with the shortcut, verifier first) for one capture of ``data`` (one capture: same report)."""
    cap = captures.store_files(command, {"combined": io.BytesIO(data)}, exit_code)
    parsed = parsing.parse(command)
    decision = policy.decide(command, script=parsed.script)

    def run() -> Result:
        return pipeline.process(
            cap,
            requested=command,
            executed=command,
            exit_code=exit_code,
            conf=CONF,
            decision=decision,
            parsed=parsed,
        )

    shortcut = run()
    with monkeypatch.context() as patch:
        patch.setattr(pipeline._Pricing, "affordable", lambda self, proposal: True)
        verified = run()
    return shortcut, verified


def _same(command: str, exit_code: int, data: bytes, monkeypatch: pytest.MonkeyPatch) -> Result:
    shortcut, verified = _both(command, exit_code, data, monkeypatch)
    assert (shortcut.text, shortcut.complete) == (verified.text, verified.complete), command
    assert (shortcut.rule, shortcut.category) == (verified.rule, verified.category), command
    return shortcut


def _git(repo: Path, *args: str) -> bytes:
    done = subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        capture_output=True,
        check=False,
        timeout=60,
    )
    return done.stdout + done.stderr


def _repo(path: Path, files: int = 4) -> Path:
    path.mkdir()
    _git(path, "init", "-q")
    for index in range(files):
        (path / f"file{index}.py").write_text(f"value = {index}\n")
    _git(path, "add", "-A")
    _git(path, "commit", "-qm", "first")
    return path


def _git_status_outputs(tmp_path: Path) -> dict[str, bytes]:
    """`git status` (long, short, branch) in the states a user meets mid-work."""
    states: dict[str, Path] = {}
    states["clean"] = _repo(tmp_path / "clean")
    mid = states["changes"] = _repo(tmp_path / "changes")
    (mid / "file0.py").write_text("changed\n")
    (mid / "file1.py").write_text("staged\n")
    _git(mid, "add", "file1.py")
    (mid / "notes.txt").write_text("todo\n")
    (mid / "sub").mkdir()
    (mid / "sub" / "new.py").write_text("x = 1\n")
    many = states["many"] = _repo(tmp_path / "many", files=30)
    for index in range(0, 30, 2):
        (many / f"file{index}.py").write_text("changed\n")
    for index in range(12):
        (many / f"untracked{index}.txt").write_text("u\n")
    moved = states["renamed"] = _repo(tmp_path / "renamed")
    _git(moved, "mv", "file0.py", "renamed.py")
    _git(moved, "rm", "-q", "file1.py")
    (moved / "file2.py").unlink()
    conflict = states["conflict"] = _repo(tmp_path / "conflict")
    _git(conflict, "checkout", "-qb", "other")
    (conflict / "file0.py").write_text("theirs\n")
    _git(conflict, "commit", "-qam", "theirs")
    _git(conflict, "checkout", "-q", "main")
    (conflict / "file0.py").write_text("ours\n")
    _git(conflict, "commit", "-qam", "ours")
    _git(conflict, "merge", "-q", "other")
    detached = states["detached"] = _repo(tmp_path / "detached")
    _git(detached, "checkout", "-q", "--detach", "HEAD")
    (detached / "file3.py").write_text("changed\n")
    outputs: dict[str, bytes] = {}
    for state, repo in states.items():
        for args in (("status",), ("status", "-s"), ("status", "-sb")):
            outputs[f"git {' '.join(args)} ({state})"] = _git(repo, *args)
    return outputs


def test_git_status_text_is_the_same_with_the_shortcut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs = _git_status_outputs(tmp_path)
    refused_unverified = 0
    for name, data in outputs.items():
        command = name.split(" (")[0]
        for exit_code in (0, 1):
            result = _same(command, exit_code, data, monkeypatch)
            refused_unverified += result.details.get("refused") == UNAFFORDABLE
    assert refused_unverified  # the shortcut was taken, not only the verifier's path


def test_the_shortcut_gives_the_plain_source_for_a_small_repo_with_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _git_status_outputs(tmp_path)["git status (changes)"]
    shortcut, verified = _both("git status", 0, data, monkeypatch)
    assert shortcut.text == data.decode().rstrip("\n") == verified.text and shortcut.complete
    assert shortcut.details["refused"] == UNAFFORDABLE
    assert verified.details["kept_source"] == "compaction saved too little to pay for its report"


_NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_/.", min_size=1, max_size=24).filter(
    lambda name: name.strip("/.") == name and "//" not in name
)


@settings(max_examples=60, deadline=None)
@given(
    staged=st.lists(_NAMES, max_size=5),
    modified=st.lists(_NAMES, max_size=5),
    untracked=st.lists(_NAMES, max_size=6),
    ahead=st.integers(0, 3),
)
def test_git_status_shaped_text_is_the_same_with_the_shortcut(
    staged: list[str], modified: list[str], untracked: list[str], ahead: int
) -> None:
    lines = ["On branch main"]
    if ahead:
        lines += [
            f"Your branch is ahead of 'origin/main' by {ahead} commit{'s' * (ahead > 1)}.",
            '  (use "git push" to publish your local commits)',
            "",
        ]
    if staged:
        lines += [
            "Changes to be committed:",
            '  (use "git restore --staged <file>..." to unstage)',
            *(f"\tmodified:   {name}" for name in staged),
            "",
        ]
    if modified:
        lines += [
            "Changes not staged for commit:",
            '  (use "git add <file>..." to update what will be committed)',
            '  (use "git restore <file>..." to discard changes in working directory)',
            *(f"\tmodified:   {name}" for name in modified),
            "",
        ]
    if untracked:
        lines += [
            "Untracked files:",
            '  (use "git add <file>..." to include in what will be committed)',
            *(f"\t{name}" for name in untracked),
            "",
        ]
    if not (staged or modified or untracked):
        lines.append("nothing to commit, working tree clean")
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same("git status", 0, ("\n".join(lines) + "\n").encode(), monkeypatch)


SMALL = [case for case in corpus.cases() if len(case.combined.encode()) < 2048]


@pytest.mark.parametrize("case", SMALL, ids=[case.name for case in SMALL])
def test_small_corpus_outputs_are_the_same_with_the_shortcut(
    case: corpus.Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    _same(case.cmd, case.exit_code, case.combined.encode(), monkeypatch)


def test_no_generic_compaction_after_a_rule_text_that_cannot_pay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git status mid-work: its rule's text cannot pay for the report, so the generic compactor
    (a coarser reading of the same output) is not asked either; the source is the answer."""
    from tersh.compaction import generic

    data = _git_status_outputs(tmp_path)["git status (changes)"]
    calls: list[str] = []
    monkeypatch.setattr(generic, "compact", lambda text, inv: calls.append(text))
    shortcut, verified = _both("git status", 0, data, monkeypatch)
    assert shortcut.text == verified.text == data.decode().rstrip("\n")
    assert shortcut.details["refused"] == UNAFFORDABLE
    assert len(calls) == 0
