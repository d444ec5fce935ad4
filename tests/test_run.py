"""`tersh run`: real subprocesses, exact exit codes, signals, timeouts, stdin, passthrough."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.clihelp import enable, tersh


def test_disabled_profile_passes_output_through_byte_exact() -> None:
    payload = bytes(range(256)) * 4 + b"\x1b[31mred\x1b[0m\r\n"
    script = f"import sys; sys.stdout.buffer.write({payload!r}); sys.exit(7)"
    done = tersh(["run", "--", sys.executable, "-c", script])
    assert done.returncode == 7
    assert done.stdout == payload


def test_enabled_run_keeps_exit_code_and_shows_output() -> None:
    enable()
    done = tersh(["run", "-c", "echo hello; echo oops >&2; exit 3"])
    assert done.returncode == 3
    assert done.stdout.decode().splitlines() == ["hello", "oops"]


@pytest.mark.parametrize("code", [0, 1, 2, 42, 255])
def test_exit_codes_are_exact(code: int) -> None:
    enable()
    assert tersh(["run", "-c", f"exit {code}"]).returncode == code


def test_death_by_signal_is_128_plus_n() -> None:
    enable()
    assert tersh(["run", "-c", "kill -TERM $$"]).returncode == 128 + signal.SIGTERM
    assert tersh(["run", "--", "sh", "-c", "kill -KILL $$"]).returncode == 128 + signal.SIGKILL


def test_timeout_stops_the_command_with_124() -> None:
    enable()
    started = time.monotonic()
    done = tersh(["run", "--timeout", "0.5", "-c", "echo started; sleep 30"])
    assert done.returncode == 124
    assert b"started" in done.stdout
    assert time.monotonic() - started < 20


def test_stdin_reaches_the_command() -> None:
    enable()
    done = tersh(["run", "--", "tr", "a-z", "A-Z"], input=b"shout\n")
    assert done.stdout == b"SHOUT\n"


def test_sigterm_to_tersh_is_forwarded_to_the_child(tmp_path: Path) -> None:
    enable()
    marker = tmp_path / "got-term"
    script = f"trap 'echo term > {marker}; exit 9' TERM; echo ready; sleep 30 & wait"
    process = subprocess.Popen([sys.executable, "-m", "tersh", "run", "-c", script],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ)
    deadline = time.monotonic() + 20
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.3)
        # The capture means nothing shows before the end; wait for the child to start.
        if any(p for p in Path("/proc").glob("[0-9]*") if _cmdline(p).startswith("sleep 30")):
            process.send_signal(signal.SIGTERM)
            break
    out, _ = process.communicate(timeout=30)
    assert marker.read_text().strip() == "term"
    assert process.returncode == 9
    assert b"ready" in out


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_argv_form_is_not_reinterpreted_by_a_shell() -> None:
    enable()
    done = tersh(["run", "--", "printf", "%s|", "a b", "$HOME", "*"])
    assert done.stdout.decode().strip() == "a b|$HOME|*|"


def test_unwritable_profile_fails_open(tmp_path: Path) -> None:
    enable()
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    home = os.environ["TERSH_HOME"]
    (Path(home) / "captures").rename(tmp_path / "moved") if (Path(home) / "captures").exists() else None
    os.symlink(blocker, Path(home) / "captures")  # the store is unusable: a link, not a folder
    done = tersh(["run", "-c", "echo still here; exit 5"])
    assert done.returncode == 5
    assert done.stdout == b"still here\n"
    assert done.stderr.decode().count("\n") == 1 and "tersh:" in done.stderr.decode()


def test_corrupt_settings_fail_open() -> None:
    Path(os.environ["TERSH_HOME"]).mkdir(parents=True, exist_ok=True)
    (Path(os.environ["TERSH_HOME"]) / "settings.toml").write_text("enabled = [broken")
    done = tersh(["run", "-c", "echo fine; exit 4"])
    assert done.returncode == 4
    assert done.stdout == b"fine\n"
    assert b"not valid TOML" in done.stderr


def test_full_disk_mid_run_still_delivers_every_byte() -> None:
    enable()
    # RLIMIT_FSIZE makes capture writes fail (EFBIG) after 64 KiB, like a full disk would.
    lines = "".join(f"line {i}\n" for i in range(40000))
    script = "import sys; sys.stdout.write(''.join(f'line {i}\\n' for i in range(40000))); sys.exit(6)"
    wrapper = (
        "import resource, signal, subprocess, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))\n"
        f"sys.exit(subprocess.call([sys.executable, '-m', 'tersh', 'run', '--', sys.executable,"
        f" '-c', {script!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, timeout=60,
                          env=os.environ, check=False)
    assert done.returncode == 6
    assert done.stdout.decode() == lines
    assert b"capture write failed" in done.stderr


def test_enable_takes_effect_on_the_next_command() -> None:
    raw = tersh(["run", "-c", "printf '\\033[1mbold\\033[0m\\n'"])
    assert raw.stdout == b"\x1b[1mbold\x1b[0m\n"
    enable()
    cleaned = tersh(["run", "-c", "printf '\\033[1mbold\\033[0m\\n'"])
    assert cleaned.stdout == b"bold\n"
    assert tersh(["disable"]).returncode == 0
    assert tersh(["run", "-c", "printf '\\033[1mbold\\033[0m\\n'"]).stdout == raw.stdout


def test_the_console_script_and_python_m_flush_everything_before_their_fast_exit(tmp_path: Path) -> None:
    script = "seq 1 20000; echo err >&2; exit 7"
    tersh_script = str(Path(sys.executable).with_name("tersh"))
    for enabled in (False, True):
        if enabled:
            subprocess.run([tersh_script, "enable"], check=True, capture_output=True)
        for argv in ([tersh_script], [sys.executable, "-m", "tersh"]):
            done = subprocess.run([*argv, "run", "-c", script], capture_output=True, timeout=60,
                                  cwd=tmp_path)
            assert done.returncode == 7
            if not enabled:  # passed through byte for byte
                expected = "".join(f"{n}\n" for n in range(1, 20001)).encode()
                notice = b"tersh: disabled, so this command ran untouched (turn tersh on: tersh enable)\n"
                assert (done.stdout, done.stderr.removeprefix(notice)) == (expected, b"err\n")
            else:  # the model's text, bounded, with its report as the very last line
                assert b"\n20000\n" in done.stdout and b"err" in done.stdout
                assert done.stdout.rstrip().endswith(b"--query TEXT")


def test_a_closed_stdout_or_stderr_still_runs_the_command_with_its_exit_code(tmp_path: Path) -> None:
    tersh_script = str(Path(sys.executable).with_name("tersh"))
    inner = "echo out; echo err >&2; exit 5"
    for enabled in (False, True):
        if enabled:
            subprocess.run([tersh_script, "enable"], check=True, capture_output=True)
        for closing in (">&-", "2>&- >&-"):
            line = f"'{tersh_script}' run -- sh -c '{inner}' {closing}; echo \"code=$?\""
            done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=60,
                                  cwd=tmp_path)
            assert done.stdout.strip().endswith("code=5"), (enabled, closing, done.stderr)
            assert "Traceback" not in done.stderr
