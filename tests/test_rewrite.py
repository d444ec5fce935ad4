"""Rewriting through RTK: a fake rtk for every documented behaviour, the real one when present."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tersh.execution import rewrite
from tersh.execution.rewrite import Proposal, Rewrite, rtk
from tersh.recording import status
from tersh.settings import Settings

FAKE = Path(__file__).parent / "fake_rtk" / "rtk"


def install_fake(folder: Path) -> Path:
    """Copy the fake rtk into ``folder`` (0755), run by this interpreter without site (fast)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "rtk"
    body = FAKE.read_text().split("\n", 1)[1]
    target.write_text(f"#!{sys.executable} -S\n{body}")
    target.chmod(0o755)
    return target


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    """A private copy of the fake rtk in its own folder."""
    return install_fake(tmp_path / "bin")


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake's call log (one line per invocation)."""
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_RTK_LOG", str(log))
    return log


def conf(path: Path | str = "", **overrides: Any) -> Settings:
    """Settings pinning ``path``; a generous timeout, as a loaded machine can be slow."""
    return Settings({"rtk.path": str(path), "rtk.timeout_ms": 10000, **overrides})


def logged(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def run_rewrite(command: str, settings: Settings) -> Rewrite:
    return rewrite.rewrite(command, settings, platform="linux")


# ------------------------------------------------------------------ happy path


def test_an_offer_with_a_pipe_filter_runs_the_command_unchanged(fake: Path, calls: Path) -> None:
    result = run_rewrite("git status", conf(fake))
    assert result.verdict == "filtered"
    assert result.provider == "rtk"
    assert result.executed == "git status"  # RTK filters its capture; the command runs as asked
    assert result.pipe_filter == "git-status"
    assert result.recorded == "rtk git status"
    assert str(fake) not in result.recorded
    assert result.classes == ("git",)
    assert logged(calls)[-1] == repr("rewrite\0git status")


def test_rtk_found_on_path_through_a_symlink(fake: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    links = tmp_path / "links"
    links.mkdir()
    (links / "rtk").symlink_to(fake)
    monkeypatch.setenv("PATH", f"relative/dir{os.pathsep}{links}{os.pathsep}/usr/bin:/bin")
    probe = rtk.current(conf())
    assert probe.verified and probe.path == str(fake.resolve())
    chained = run_rewrite("cd x && cargo test", conf())
    assert (chained.executed, chained.pipe_filter) == ("cd x && cargo test", "cargo-test")


def test_exit_3_is_a_candidate_and_says_the_host_decides(fake: Path) -> None:
    result = run_rewrite("cargo test", conf(fake))
    assert result.verdict == "filtered"
    assert "exit 3" in result.reason


def test_path_with_spaces_is_quoted(tmp_path: Path) -> None:
    target = install_fake(tmp_path / "my tools")
    assert run_rewrite("pytest -q", conf(target)).verdict == "filtered"
    executed, refusal = rtk.bind("rtk pytest -q", "pytest -q", str(target))
    assert (executed, refusal) == (f"'{target}' pytest -q", "")
    done = subprocess.run(["bash", "-n", "-c", executed], check=False)
    assert done.returncode == 0


def test_an_offer_without_a_pipe_filter_is_not_used(fake: Path) -> None:
    result = run_rewrite("make -j4", conf(fake))  # the fake offers `rtk make -j4`
    assert (result.verdict, result.executed, result.pipe_filter) == ("none", "make -j4", "")
    assert "no pipe filter" in result.reason and "'rtk make -j4'" in result.reason


# ----------------------------------------------------------- exit codes, junk


@pytest.mark.parametrize(
    ("mode", "verdict", "reason"),
    [
        ("exit:0", "filtered", "offered"),
        ("exit:3", "filtered", "exit 3"),
        ("exit:1", "none", "no equivalent"),
        ("exit:2", "declined", "declined"),
        ("exit:4", "none", "exited 4"),
        ("exit:127", "none", "exited 127"),
        ("crash", "none", "crashed"),
        ("garbage", "none", "not UTF-8"),
        ("multiline", "none", "more than one line"),
        ("empty", "none", "nothing"),
        ("nonewline", "filtered", "offered"),
        ("crlf", "filtered", "offered"),
        ("foreign", "failed", "'curl'"),
    ],
)
def test_documented_exit_codes_and_bad_answers(fake: Path, monkeypatch: pytest.MonkeyPatch,
                                               mode: str, verdict: str, reason: str) -> None:
    monkeypatch.setenv("FAKE_RTK_MODE", mode)
    result = run_rewrite("pytest -q", conf(fake))
    assert (result.verdict, result.provider) == (verdict, "rtk")
    assert reason in result.reason
    assert result.executed == result.requested == "pytest -q"
    if verdict == "filtered":
        assert (result.recorded, result.pipe_filter) == ("rtk pytest -q", "pytest")
    else:
        assert result.recorded == "pytest -q" and not result.pipe_filter


def test_no_equivalent_and_declined_from_the_table(fake: Path) -> None:
    assert run_rewrite("echo hi", conf(fake)).verdict == "none"
    declined = run_rewrite("rm -rf build", conf(fake))
    assert declined.verdict == "declined" and declined.executed == "rm -rf build"


@pytest.mark.parametrize("mode", ["sleep:5", "grandchild"])
def test_slow_rtk_times_out_quickly(fake: Path, monkeypatch: pytest.MonkeyPatch,
                                    mode: str) -> None:
    settings = conf(fake, **{"rtk.timeout_ms": 400})
    assert rtk.current(settings).verified  # probe outside the timed part
    monkeypatch.setenv("FAKE_RTK_MODE", mode)
    started = time.monotonic()
    result = run_rewrite("git status", settings)
    elapsed = time.monotonic() - started
    assert result.verdict == "none" and "timed out after 400 ms" in result.reason
    assert result.executed == "git status"
    assert elapsed < 3.0


@pytest.mark.parametrize(
    ("code", "out", "verdict"),
    [
        (0, b"rtk git status\n", "rewritten"),
        (0, b"rtk git status", "rewritten"),
        (3, b"rtk git status\r\n", "rewritten"),
        (0, b"rtk a\nrtk b\n", "none"),
        (0, b"\n", "none"),
        (0, b"  \n", "none"),
        (0, b"rtk \x1b[31mx", "none"),
        (1, b"rtk git status\n", "none"),
        (2, b"", "declined"),
        (-11, b"", "none"),
        (255, b"rtk x\n", "none"),
    ],
)
def test_interpret(code: int, out: bytes, verdict: str) -> None:
    answer = rtk.interpret(code, out)
    assert answer.verdict == verdict
    if verdict == "rewritten":
        assert answer.candidate == "rtk git status"


def test_bind_pins_every_rtk_and_refuses_new_commands() -> None:
    assert rtk.bind("cd x && rtk pytest | tail", "cd x && pytest | tail", "/opt/rtk") == (
        "cd x && /opt/rtk pytest | tail", "")
    assert rtk.bind("FOO=1 rtk make", "FOO=1 make", "/o/rtk")[0] == "FOO=1 /o/rtk make"
    assert rtk.bind("rtk a && rtk b", "a && b", "/o/rtk")[0] == "/o/rtk a && /o/rtk b"
    assert rtk.bind("echo $(rtk ls)", "echo $(ls)", "/o/rtk")[1]
    assert rtk.bind("rm -rf / && rtk ls", "ls", "/o/rtk")[1]
    assert rtk.bind("ls", "ls", "/o/rtk")[1] == "rtk's answer does not run rtk"
    assert rtk.bind("rtk 'ls", "ls", "/o/rtk")[1]


# ------------------------------------------------------------------ policy first


def test_policy_refusals_never_ask_rtk(fake: Path, calls: Path) -> None:
    settings = conf(fake)
    for command in ["git log -3", "grep -r x .", "ls | rg y", "kubectl get po -o json",
                    "git status # no-opt", "for f in *; do ls; done", "rtk git status"]:
        result = run_rewrite(command, settings)
        assert result.verdict == "skipped" and result.executed == command, command
        assert result.provider is None
    assert not [line for line in logged(calls) if "rewrite" in line]


def test_windows_pipe_is_skipped(fake: Path) -> None:
    result = rewrite.rewrite("git status | head", conf(fake), platform="win32")
    assert result.verdict == "skipped" and "Windows" in result.reason


def test_switched_off_class_of_the_request_is_skipped_before_asking(fake: Path,
                                                                     calls: Path) -> None:
    result = run_rewrite("git status", conf(fake, **{"classes.git": False}))
    assert result.verdict == "skipped" and "git" in result.reason
    assert not [line for line in logged(calls) if "rewrite" in line]


class _Offers:
    """A provider that answers a fixed candidate (the Protocol is structural)."""

    NAME = "stub"

    def __init__(self, candidate: str) -> None:
        self.candidate = candidate

    def propose(self, command: str, settings: Settings) -> Proposal:
        return Proposal("rewritten", self.candidate, f"/x/{self.candidate}", "stub offered")


def test_switched_off_class_of_the_rewrite_discards_it() -> None:
    settings = Settings({"classes.containers": False})
    result = rewrite.rewrite("make", settings, provider=_Offers("rtk docker ps"))
    assert result.verdict == "skipped" and "containers" in result.reason
    assert result.executed == "make" and result.classes == ("containers", "builds")
    kept = rewrite.rewrite("make", Settings(), provider=_Offers("rtk make"))
    assert kept.verdict == "rewritten" and kept.executed == "/x/rtk make"


def test_a_crashing_provider_fails_open() -> None:
    class Broken:
        NAME = "broken"

        def propose(self, command: str, settings: Settings) -> Proposal:
            raise RuntimeError("bug")

    result = rewrite.rewrite("make", Settings(), provider=Broken())
    assert (result.verdict, result.executed) == ("failed", "make")


# ------------------------------------------------------------------- the probe


def test_missing_rtk_is_skipped_with_a_reason(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = run_rewrite("git status", conf())
    assert result.verdict == "skipped" and "not found on PATH" in result.reason
    assert result.executed == "git status"
    published = status.read()["rtk"]
    assert published["found"] is False and "not found" in published["reason"]


@pytest.mark.parametrize(
    ("setting", "reason"),
    [("bin/rtk", "absolute"), ("/nonexistent/rtk", "does not exist")],
)
def test_bad_rtk_path_setting(setting: str, reason: str) -> None:
    probe = rtk.current(conf(setting))
    assert not probe.found and reason in probe.reason


@pytest.mark.parametrize(
    ("version", "verified", "reason"),
    [("1.1.0", True, "verified"), ("1.1.9", True, "verified"), ("1.0.9", False, "outside"),
     ("0.28.2", False, "outside"), ("1.2.0", False, "outside"), ("2.3.4-beta", False, "outside")],
)
def test_version_must_be_in_the_pinned_range(fake: Path, monkeypatch: pytest.MonkeyPatch,
                                             version: str, verified: bool, reason: str) -> None:
    monkeypatch.setenv("FAKE_RTK_VERSION", version)
    probe = rtk.retry(conf(fake))
    assert (probe.found, probe.verified) == (True, verified)
    assert reason in probe.reason


def test_unusable_version_answers(fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_RTK_MODE", "version-garbage")
    assert "no version" in rtk.retry(conf(fake)).reason
    monkeypatch.setenv("FAKE_RTK_MODE", "version-slow")
    monkeypatch.setattr(rtk, "VERSION_TIMEOUT_S", 0.3)
    probe = rtk.retry(conf(fake))
    assert not probe.verified and "timed out" in probe.reason


def test_sha256_pin(fake: Path) -> None:
    import hashlib

    digest = hashlib.sha256(fake.read_bytes()).hexdigest()
    assert rtk.retry(conf(fake, **{"rtk.sha256": digest.upper()})).verified
    wrong = rtk.retry(conf(fake, **{"rtk.sha256": "0" * 64}))
    assert not wrong.verified and "does not match" in wrong.reason


def test_writable_by_everyone_is_refused(fake: Path) -> None:
    fake.chmod(0o777)
    probe = rtk.retry(conf(fake))
    assert probe.found and not probe.verified and "every user" in probe.reason
    fake.chmod(0o644)
    assert "not executable" in rtk.retry(conf(fake)).reason


def test_probe_is_cached_until_the_executable_changes(fake: Path, calls: Path) -> None:
    settings = conf(fake)
    first = rtk.current(settings)
    rtk.current(settings)
    run_rewrite("git status", settings)
    versions = [line for line in logged(calls) if "--version" in line]
    assert first.verified and len(versions) == 1
    stamp = time.time() + 5
    os.utime(fake, (stamp, stamp))
    rtk.current(settings)
    assert len([line for line in logged(calls) if "--version" in line]) == 2
    rtk.retry(settings)
    assert len([line for line in logged(calls) if "--version" in line]) == 3


def test_probe_cache_and_status_are_private(fake: Path, tersh_home: Path) -> None:
    rtk.retry(conf(fake))
    cache = tersh_home / "state" / rtk.PROBE_FILE
    assert cache.stat().st_mode & 0o777 == 0o600
    assert (tersh_home / "state").stat().st_mode & 0o777 == 0o700
    stored = json.loads(cache.read_text())
    assert {k: stored[k] for k in ("found", "verified", "version")} == {
        "found": True, "verified": True, "version": "1.1.0"}
    assert status.read()["rtk"]["path"] == str(fake.resolve())


def test_failed_retry_keeps_its_reason_and_rewriting_falls_back(fake: Path) -> None:
    good = conf(fake)
    assert rtk.retry(good).verified
    fake.unlink()
    probe = rtk.retry(good)
    assert not probe.verified and "does not exist" in probe.reason
    assert status.read()["rtk"]["reason"] == probe.reason
    assert run_rewrite("git status", good).executed == "git status"


# ------------------------------------------------------------------- commands


def tersh(*args: str, home: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TERSH_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "tersh", *args], capture_output=True, text=True,
                          env=env, input=stdin, timeout=60, check=False)


def test_cli_rewrite_json_and_text(fake: Path, tersh_home: Path) -> None:
    (tersh_home / "settings.toml").write_text(f'[rtk]\npath = "{fake}"\ntimeout_ms = 10000\n')
    done = tersh("rewrite", "--format", "json", "git status", home=tersh_home)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["requested"] == "git status"
    assert report["executed"] == "git status"
    assert report["recorded"] == "rtk git status"
    assert (report["provider"], report["verdict"], report["classes"]) == (
        "rtk", "filtered", ["git"])
    text = tersh("rewrite", "git", "log", home=tersh_home)
    assert "RTK:     skipped: lossy git form" in text.stdout
    piped = tersh("rewrite", "-", "--format", "json", home=tersh_home, stdin="ls -la\n")
    assert json.loads(piped.stdout)["requested"] == "ls -la"
    windows = tersh("rewrite", "--platform=win32", "--format=json", "ls | head", home=tersh_home)
    assert json.loads(windows.stdout)["verdict"] == "skipped"
    helped = tersh("rewrite", "--help", home=tersh_home)  # not plain argv: argparse answers
    assert helped.returncode == 0 and "--format" in helped.stdout
    bad = tersh("rewrite", "--format", "yaml", "ls", home=tersh_home)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_cli_rewrite_without_rtk(tersh_home: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    done = tersh("rewrite", "--format", "json", "pytest -q", home=tersh_home)
    report = json.loads(done.stdout)
    assert (report["verdict"], report["executed"]) == ("skipped", "pytest -q")
    assert "not found" in report["reason"]


def test_cli_rtk_retry_and_status(fake: Path, tersh_home: Path) -> None:
    (tersh_home / "settings.toml").write_text(f'[rtk]\npath = "{fake}"\ntimeout_ms = 10000\n')
    retry = tersh("rtk", "retry", home=tersh_home)
    assert retry.returncode == 0 and "1.1.0" in retry.stdout and "verified" in retry.stdout
    shown = json.loads(tersh("rtk", "status", "--format", "json", home=tersh_home).stdout)
    assert shown["verified"] is True and shown["path"] == str(fake.resolve())
    (tersh_home / "settings.toml").write_text('[rtk]\npath = "/nonexistent/rtk"\n')
    failed = tersh("rtk", "retry", home=tersh_home)
    assert failed.returncode == 1 and "does not exist" in failed.stdout


# The real RTK 1.1.0 runs through these paths in tests/test_rtk_real.py.


def test_tersh_rewrite_starts_lean(tersh_home: Path, tmp_path: Path) -> None:
    """The quick path loads no typing, argparse, pathlib, TOML parser, subprocess or json."""
    probe = (
        "import sys\n"
        "from tersh.cli import main\n"
        "code = main(['rewrite', 'git status'])\n"
        "heavy = {'typing', 'argparse', 'pathlib', 'tomllib', 'subprocess', 'json', 'sqlite3',\n"
        "         'platformdirs', 're'}\n"
        "print(sorted(heavy & set(sys.modules)), code, file=sys.stderr)\n"
    )
    env = {**os.environ, "TERSH_HOME": str(tersh_home), "PATH": str(tmp_path)}
    for _ in range(2):  # the first run writes the probe cache (json, fsutil); the second reads it
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              env=env, timeout=60, check=False)
    assert done.stderr.strip().splitlines()[-1] == "[] 0", done.stderr
    assert "RTK:     not used (" in done.stdout


def test_without_rtk_the_provider_loads_once_then_a_cached_absence_answers(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from tersh.execution import rewrite\n"
        "from tersh.settings import Settings\n"
        "answer = rewrite.rewrite('git status', Settings())\n"
        "loaded = 'tersh.execution.rewrite.rtk' in sys.modules\n"
        "print(answer.verdict, answer.provider, loaded, answer.reason)\n"
    )
    env = {**os.environ, "PATH": str(tmp_path)}  # no rtk anywhere
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                           timeout=60, check=True).stdout.split(" ", 3) for _ in range(2)]
    assert [run[:3] for run in runs] == [["skipped", "rtk", "True"], ["skipped", "rtk", "False"]]
    reason = "rtk unavailable: rtk not found on PATH (set rtk.path to use one elsewhere)\n"
    assert runs[0][3] == runs[1][3] == reason
    assert status.read()["rtk"]["found"] is False  # the first run probed and published
