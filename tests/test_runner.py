"""The runner: PATH search like a shell, exact exit codes, streams in order, signals, timeouts.

Most tests run with separate streams (``merged=False``) to see which stream a message went to;
the merged runs (one pipe, the default) are tested for the order the command wrote.
"""

from __future__ import annotations

import os
import signal
import stat
import sys
import time
from pathlib import Path

import pytest

from tersh.execution import spawn as runner


def _collect(argv: list[str], **kwargs: object) -> tuple[runner.Exit, list[tuple[str, bytes]]]:
    chunks: list[tuple[str, bytes]] = []
    kwargs.setdefault("merged", False)
    done = runner.run_streaming(argv, lambda stream, data: chunks.append((stream, data)),
                                **kwargs)  # type: ignore[arg-type]
    return done, chunks


def _joined(chunks: list[tuple[str, bytes]], stream: str) -> bytes:
    return b"".join(data for name, data in chunks if name == stream)


def _script(folder: Path, name: str, body: str, mode: int = 0o755) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(mode)
    return path


def test_bare_name_is_found_on_path_and_argv0_is_kept(tmp_path: Path) -> None:
    _script(tmp_path, "hello", "echo hi")
    found = runner.find_program("hello", {"PATH": f"/nonexistent:{tmp_path}"})
    assert found == str(tmp_path / "hello")
    done, chunks = _collect(["hello"], env={"PATH": f"{tmp_path}:/usr/bin:/bin"})
    assert done.code == 0 and _joined(chunks, "stdout") == b"hi\n"
    done, chunks = _collect(["sh", "-c", 'echo "$0"'])  # the name as given, not the found path
    assert _joined(chunks, "stdout") == b"sh\n"


def test_unknown_program_is_127_with_the_shell_message_on_stderr() -> None:
    done, chunks = _collect(["no-such-program-for-tersh"])
    assert done.code == runner.NOT_FOUND_EXIT == 127
    assert _joined(chunks, "stderr") == b"tersh: no-such-program-for-tersh: command not found\n"
    assert _joined(chunks, "stdout") == b""


@pytest.mark.parametrize("kind", ["plain file", "folder"])
def test_a_path_that_cannot_be_executed_is_126(tmp_path: Path, kind: str) -> None:
    if kind == "folder":
        target = tmp_path / "sub"
        target.mkdir()
        reason = "Is a directory"
    else:
        target = _script(tmp_path, "notes", "echo never", mode=0o644)
        reason = "Permission denied"
    if os.geteuid() == 0 and kind == "plain file":
        assert not os.access(target, os.X_OK)  # root still needs an execute bit
    done, chunks = _collect([str(target)])
    assert done.code == runner.NOT_EXECUTABLE_EXIT == 126
    assert _joined(chunks, "stderr") == f"tersh: {target}: {reason}\n".encode()


def test_missing_path_is_127_and_a_path_hit_without_x_bit_is_126(tmp_path: Path) -> None:
    with pytest.raises(runner.NotRunnable) as missing:
        runner.find_program("./not-here", cwd=str(tmp_path))
    assert missing.value.exit_code == 127 and "No such file or directory" in str(missing.value)
    _script(tmp_path, "tool", "echo x", mode=0o644)
    with pytest.raises(runner.NotRunnable) as denied:
        runner.find_program("tool", {"PATH": str(tmp_path)})
    assert denied.value.exit_code == 126 and str(denied.value).endswith("Permission denied")


def test_streams_arrive_in_order_and_exit_code_is_exact() -> None:
    script = ("import sys\nfor i in range(3):\n    print(i, flush=True)\n"
              "    print(-i, file=sys.stderr, flush=True)\nsys.exit(42)")
    done, chunks = _collect([sys.executable, "-c", script])
    assert done.code == 42 and not done.timed_out
    assert _joined(chunks, "stdout") == b"0\n1\n2\n"
    assert _joined(chunks, "stderr") == b"0\n-1\n-2\n"


#: Back-to-back writes to both streams: builtins of one shell, microseconds apart.
_INTERLEAVED = "for i in 1 2 3; do echo out$i; echo err$i >&2; done"


def test_merged_output_keeps_the_order_the_command_wrote() -> None:
    done, chunks = _collect(["bash", "-c", _INTERLEAVED], merged=True)
    assert done.code == 0
    assert {name for name, _ in chunks} == {"combined"}
    assert _joined(chunks, "combined") == b"out1\nerr1\nout2\nerr2\nout3\nerr3\n"
    many = "for i in $(seq 2000); do echo o$i; echo e$i >&2; done; exit 5"
    done, chunks = _collect(["bash", "-c", many], merged=True)
    expected = "".join(f"o{i}\ne{i}\n" for i in range(1, 2001)).encode()
    assert done.code == 5 and _joined(chunks, "combined") == expected


def test_separate_streams_keep_each_stream_exact_but_not_their_order() -> None:
    done, chunks = _collect(["bash", "-c", _INTERLEAVED], merged=False)
    assert done.code == 0 and {name for name, _ in chunks} <= {"stdout", "stderr"}
    assert _joined(chunks, "stdout") == b"out1\nout2\nout3\n"
    assert _joined(chunks, "stderr") == b"err1\nerr2\nerr3\n"


def test_merged_stdout_and_stderr_are_one_pipe_not_a_terminal() -> None:
    probe = ("import os, stat, sys\nout, err = os.fstat(1), os.fstat(2)\n"
             "sys.exit(0 if stat.S_ISFIFO(out.st_mode) and out.st_ino == err.st_ino"
             " and not os.isatty(1) and not os.isatty(2) else 9)")
    assert _collect([sys.executable, "-c", probe], merged=True)[0].code == 0
    assert _collect([sys.executable, "-c", probe], merged=False)[0].code == 9


def test_merged_runs_report_a_missing_program_in_the_combined_stream() -> None:
    done, chunks = _collect(["no-such-program-for-tersh"], merged=True)
    assert done.code == 127
    assert chunks == [("combined", b"tersh: no-such-program-for-tersh: command not found\n")]


def test_merged_runs_time_out_with_124_and_keep_the_output(tmp_path: Path) -> None:
    _script(tmp_path, "slow", "echo started; echo warned >&2; sleep 30")
    done, chunks = _collect([str(tmp_path / "slow")], merged=True, timeout=0.5,
                            cwd=str(tmp_path))
    assert done.code == runner.TIMEOUT_EXIT and done.timed_out
    assert _joined(chunks, "combined") == b"started\nwarned\n"


def test_death_by_signal_is_128_plus_n() -> None:
    done, _ = _collect(["sh", "-c", "kill -USR1 $$"])
    assert done.code == 128 + signal.SIGUSR1


def test_the_child_gets_sigpipe_back_like_under_a_shell() -> None:
    # Python ignores SIGPIPE; an ignored signal survives exec, so `yes` would see EPIPE instead.
    done, chunks = _collect(["sh", "-c", "yes | head -n 1"])
    assert done.code == 0
    assert _joined(chunks, "stdout") == b"y\n"
    assert b"Broken pipe" not in _joined(chunks, "stderr")


def test_timeout_stops_the_whole_group_with_124() -> None:
    started = time.monotonic()
    done, chunks = _collect(["sh", "-c", "echo started; sleep 30 & wait"], timeout=0.5)
    assert done.code == runner.TIMEOUT_EXIT and done.timed_out
    assert _joined(chunks, "stdout") == b"started\n"
    assert time.monotonic() - started < 10


def test_a_child_that_ignores_term_is_killed_after_the_grace() -> None:
    script = "trap '' TERM; echo armed; while :; do sleep 0.05; done"
    done, chunks = _collect(["sh", "-c", script], timeout=0.3)
    assert done.code == runner.TIMEOUT_EXIT
    assert _joined(chunks, "stdout") == b"armed\n"


def test_a_working_folder_is_honoured_for_the_child_and_relative_programs(tmp_path: Path) -> None:
    _script(tmp_path, "here", "pwd")
    done, chunks = _collect(["./here"], cwd=str(tmp_path))
    assert done.code == 0
    assert _joined(chunks, "stdout").decode().strip() == os.path.realpath(tmp_path)


def test_a_failing_sink_is_reported_after_the_command_ends_with_its_code() -> None:
    def sink(stream: str, data: bytes) -> None:
        raise OSError("disk full")

    with pytest.raises(runner.SinkFailed) as failed:
        runner.run_streaming(["sh", "-c", "echo a; echo b >&2; exit 3"], sink)
    assert failed.value.exit_code == 3 and isinstance(failed.value.cause, OSError)


def test_passthrough_keeps_code_and_reports_a_missing_program(capfd: pytest.CaptureFixture[str]) -> None:
    assert runner.run_passthrough(["sh", "-c", "exit 7"]) == 7
    assert runner.run_passthrough(["no-such-program-for-tersh"]) == 127
    assert "tersh: no-such-program-for-tersh: command not found" in capfd.readouterr().err
    assert runner.run_passthrough(["sleep", "5"], timeout=0.2) == runner.TIMEOUT_EXIT


def test_pipe_ends_never_land_on_stdio(tmp_path: Path) -> None:
    read_end, write_end = runner._pipe()
    try:
        assert read_end > 2 and write_end > 2
        assert not os.get_inheritable(read_end) and not os.get_inheritable(write_end)
        assert stat.S_ISFIFO(os.fstat(read_end).st_mode)
    finally:
        os.close(read_end)
        os.close(write_end)


def test_shell_strings_run_in_bash_unless_the_user_shell_is_bash_or_zsh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_bash = _script(tmp_path, "bash", "exit 0")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("SHELL", "/bin/sh")  # a plain sh does not know $'..' that agents write
    assert runner.shell_argv("true") == [str(fake_bash), "-c", "true"]
    zsh = _script(tmp_path, "zsh", "exit 0")
    monkeypatch.setenv("SHELL", str(zsh))
    assert runner.shell_argv("true") == [str(zsh), "-c", "true"]
    fake_bash.unlink()
    monkeypatch.setenv("SHELL", "/bin/sh")
    assert runner.shell_argv("true") == ["/bin/sh", "-c", "true"]
    monkeypatch.setenv("SHELL", "relative/sh")
    assert runner.shell_argv("true") == ["/bin/sh", "-c", "true"]


def test_ansi_c_quoting_works_when_shell_is_plain_sh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    done, chunks = _collect(runner.shell_argv("printf '%s|' $'tab\\there'"))
    assert done.code == 0 and _joined(chunks, "stdout") == b"tab\there|"


def test_the_child_gets_this_process_environment_byte_for_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERSH_TEST_SPACED", "a b=c é")
    monkeypatch.setenv("TERSH_TEST_RAW", os.fsdecode(b"\xff\xfe raw"))  # not UTF-8: kept as bytes
    monkeypatch.delenv("TERSH_TEST_GONE", raising=False)
    done, chunks = _collect(["env", "-0"])
    assert done.code == 0
    entries = [entry for entry in _joined(chunks, "stdout").split(b"\0") if entry]
    assert sorted(entries) == sorted(key + b"=" + value for key, value in os.environb.items())
