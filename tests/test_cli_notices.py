"""What a new user sees on the real command line: the disabled notice, timeouts, retrieve's notes."""

from __future__ import annotations

import json
import time

from tests.clihelp import enable, tersh

NOTICE = "tersh: disabled, so this command ran untouched (turn tersh on: tersh enable)"


def test_a_disabled_run_says_so_once_per_session_on_stderr_only() -> None:
    session = {"TERSH_SESSION": "first-hour"}
    first = tersh(["run", "-c", "echo hello; exit 3"], env=session)
    assert first.returncode == 3
    assert first.stdout == b"hello\n"  # the command's own output, untouched
    assert first.stderr.decode().splitlines() == [NOTICE]
    again = tersh(["run", "-c", "echo hello; exit 3"], env=session)
    assert (again.returncode, again.stdout, again.stderr) == (3, b"hello\n", b"")
    other = tersh(["run", "-c", "echo hello"], env={"TERSH_SESSION": "another-agent"})
    assert other.stderr.decode().splitlines() == [NOTICE]


def test_enabled_runs_print_no_disabled_notice() -> None:
    enable()
    done = tersh(["run", "-c", "echo hello"], env={"TERSH_SESSION": "s1"})
    assert done.stderr == b"" and done.stdout == b"hello\n"


def test_a_timeout_says_so_in_the_text_and_keeps_124() -> None:
    enable()
    started = time.monotonic()
    done = tersh(["run", "--timeout", "2", "-c", "echo started; sleep 10"])
    assert time.monotonic() - started < 9
    assert done.returncode == 124
    lines = done.stdout.decode().splitlines()
    assert lines[0] == "started"
    assert lines[-1].startswith("[tersh] timed out after 2 s")
    as_json = json.loads(tersh(["run", "--format", "json", "--timeout", "1", "-c", "sleep 5"]).stdout)
    assert as_json["exit_code"] == 124 and "[tersh] timed out after 1 s" in as_json["text"]


def test_a_command_that_exits_124_itself_is_not_called_timed_out() -> None:
    enable()
    done = tersh(["run", "--timeout", "30", "-c", "echo own; exit 124"])
    assert done.returncode == 124 and b"timed out" not in done.stdout + done.stderr


def test_a_disabled_timeout_is_said_on_stderr_and_stdout_stays_the_commands() -> None:
    done = tersh(["run", "--timeout", "1", "-c", "echo started; sleep 10"])
    assert done.returncode == 124 and done.stdout == b"started\n"
    assert "tersh: timed out after 1 s" in done.stderr.decode()


def _capture_of(command: str) -> str:
    enable()
    done = tersh(["run", "--format", "json", "-c", command])
    return str(json.loads(done.stdout)["capture_id"])


def test_retrieve_past_the_end_and_an_empty_stream_say_so() -> None:
    # A document on stdout: the run keeps separate streams, so its (empty) stderr exists.
    capture = _capture_of("seq 1 243 | python3 -m json.tool --json-lines")
    past = tersh(["retrieve", capture, "--offset", "5000"])
    assert past.returncode == 0
    assert past.stdout.decode().strip() == "[tersh: offset 5000 is past the end (243 lines)]"
    empty = tersh(["retrieve", capture, "--stream", "stderr"])
    assert empty.stdout.decode().strip() == f"[tersh: the stderr of {capture} is empty (0 bytes)]"
    searched = tersh(["retrieve", capture, "--stream", "stderr", "--query", "1"])
    assert "is empty" in searched.stdout.decode()
    past_bytes = tersh(["retrieve", capture, "--offset", "5000", "--bytes"])
    assert "offset 5000 is past the end (" in past_bytes.stdout.decode()


def test_more_counts_the_lines_left_in_text_and_json_and_both_modes() -> None:
    capture = _capture_of("seq 1 243")
    text = tersh(["retrieve", capture, "--offset", "1", "--limit", "2"]).stdout.decode()
    assert text.splitlines() == ["2: 2", "3: 3", "[tersh: 240 more lines; next: --offset 3]"]
    page = json.loads(
        tersh(["retrieve", capture, "--offset", "1", "--limit", "2", "--format", "json"]).stdout
    )
    assert (page["more"], page["next_offset"], page["total_lines"]) == (240, 3, 243)
    # bytes "1\n2\n3\n" are the first 6: lines 4..243 remain
    by_bytes = json.loads(tersh(["retrieve", capture, "--limit", "6", "--bytes", "--format", "json"]).stdout)
    assert (by_bytes["text"], by_bytes["more"], by_bytes["next_offset"]) == ("1\n2\n3\n", 240, 6)
    last = json.loads(tersh(["retrieve", capture, "--offset", "240", "--format", "json"]).stdout)
    assert last["more"] == 0 and last["next_offset"] is None and len(last["lines"]) == 3
