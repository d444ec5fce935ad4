"""The pipeline on recorded output: JSON shape, structured output, bypass, bad input, reports."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tersh
from tersh.execution import pipeline
from tersh.settings import Settings
from tests.clihelp import tersh as tersh_cli

CONF = Settings({"enabled": True})


def test_compact_json_has_the_stable_fields(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("hello\n")
    done = tersh_cli(["compact", "--command", "echo hello", "--exit-code", "0",
                      "--combined", str(out), "--format", "json"])
    assert done.returncode == 0
    data = json.loads(done.stdout)
    for key in ("text", "category", "rule", "input_bytes", "output_bytes", "complete", "captures",
                "requested_command", "executed_command", "exit_code", "details"):
        assert key in data
    assert data["text"] == "hello"
    assert data["complete"] is True
    assert data["captures"][0]["stream"] == "combined"
    assert Path(data["captures"][0]["path"]).read_bytes() == b"hello\n"


def test_compact_reads_stdin_and_separate_streams(tmp_path: Path) -> None:
    done = tersh_cli(["compact", "--command", "x", "--exit-code", "1"], input=b"from stdin\n")
    assert done.stdout == b"from stdin\n"
    (tmp_path / "o").write_bytes(b"out\n")
    (tmp_path / "e").write_bytes(b"err\n")
    done = tersh_cli(["compact", "--command", "x", "--exit-code", "1", "--stdout",
                      str(tmp_path / "o"), "--stderr", str(tmp_path / "e"), "--format", "json"])
    data = json.loads(done.stdout)
    assert data["text"] == "out\nerr"
    assert {c["stream"] for c in data["captures"]} == {"combined", "stdout", "stderr"}


def test_machine_readable_output_is_the_exact_document() -> None:
    document = b'{"a": [1, 2, 3],\n "b": "\\u00e9"}\n'
    result = pipeline.compact("gh pr list --json number", 0, stdout=document, conf=CONF)
    assert result.text == document.decode()
    assert result.complete
    assert Path(result.captures[0].path).read_bytes() == document


def test_invalid_json_stays_invalid() -> None:
    broken = b'{"a": [1, 2,\n'
    result = pipeline.compact("kubectl get pods -o json", 0, stdout=broken, conf=CONF)
    assert result.text == broken.decode()


def test_machine_readable_too_large_is_marked_incomplete_with_the_stdout_path() -> None:
    document = json.dumps([{"id": i, "name": f"item-{i}"} for i in range(20000)], indent=1).encode()
    result = pipeline.compact("tool --format=json", 0, stdout=document, conf=CONF)
    assert not result.complete
    assert result.text.startswith("[tersh] INCOMPLETE")
    stdout_path = Path(result.captures[0].path).parent / "stdout"
    assert str(stdout_path) in result.text
    assert stdout_path.read_bytes() == document
    assert len(result.text.encode()) <= 50 * 1024


def test_bypass_marker_skips_compaction() -> None:
    noisy = "".join(f"tests/test_x.py::test_{i} PASSED\n" for i in range(50)).encode()
    result = pipeline.compact("pytest -v # no-opt", 0, combined=noisy, conf=CONF)
    assert result.rule is None
    assert result.text == noisy.decode().rstrip("\n")
    assert result.details.get("bypass")


def test_ansi_and_progress_bars_show_final_state_but_capture_keeps_raw_bytes() -> None:
    raw = b"\x1b[32mok\x1b[0m\nDownloading  10%\rDownloading  60%\rDownloading 100%\ndone\n"
    result = pipeline.compact("some-tool", 0, combined=raw, conf=CONF)
    assert result.text == "ok\nDownloading 100%\ndone"
    assert Path(result.captures[0].path).read_bytes() == raw


def test_non_utf8_and_nul_bytes_are_said_and_kept_exact() -> None:
    raw = b"caf\xe9 \x00\x01 bytes\n"
    result = pipeline.compact("cat blob", 0, combined=raw, conf=CONF)
    assert "not valid UTF-8" in result.text
    assert "NUL bytes" in result.text
    assert "caf\ufffd" in result.text
    assert Path(result.captures[0].path).read_bytes() == raw
    assert not result.complete


def test_repeated_lines_are_collapsed_with_a_count() -> None:
    raw = b"start\n" + b"retrying connection...\n" * 500 + b"end\n"
    result = pipeline.compact("some-daemon", 0, combined=raw, conf=CONF)
    assert "retrying connection..." in result.text
    assert "repeated 499 more times" in result.text
    assert "tersh retrieve" in result.text  # something was left out: the report says where


def test_no_report_when_nothing_is_left_out() -> None:
    result = pipeline.compact("echo hi", 0, combined=b"hi\n", conf=CONF)
    assert result.text == "hi" and result.complete
    assert "tersh retrieve" not in result.text


def test_report_names_capture_id_path_size_and_how_to_read() -> None:
    raw = "".join(f"line {i}\n" for i in range(5000)).encode()
    result = pipeline.compact("seq", 0, combined=raw, conf=CONF)
    assert not result.complete
    assert result.capture_id and result.capture_id in result.text
    assert f"tersh retrieve {result.capture_id} --offset N --limit M" in result.text
    assert str(Path(result.captures[0].path).parent) in result.text
    assert len(result.text.encode()) <= 50 * 1024
    assert result.text.count("\n") + 1 <= 2000


def test_capture_files_are_private() -> None:
    result = pipeline.compact("echo secret", 0, combined=b"secret\n", conf=CONF)
    path = Path(result.captures[0].path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700
    assert not str(path).startswith(os.getcwd())


def test_library_api_runs_a_real_command() -> None:
    result = tersh.run(["sh", "-c", "echo from-lib; exit 2"], conf=CONF)
    assert isinstance(result, tersh.Result)
    assert result.exit_code == 2
    assert result.text == "from-lib"
    page = tersh.retrieve(result.capture_id or "", limit=10)
    assert page.lines == [(1, "from-lib")]


def test_zero_output_is_measured_as_zero() -> None:
    result = pipeline.compact("true", 0, combined=b"", conf=CONF)
    assert result.text == "" and result.input_bytes == 0 and result.output_bytes == 0
    assert result.measured


def test_requested_and_executed_commands_are_both_recorded() -> None:
    result = pipeline.compact("git status", 0, combined=b"x\n", conf=CONF,
                              executed="rtk git status")
    assert result.requested_command == "git status"
    assert result.executed_command == "rtk git status"
    assert "rtk" not in result.text


def test_an_ansi_storm_is_cleaned_bounded_and_kept_exact() -> None:
    frames = b"".join(
        b"\x1b[2K\r\x1b[36m[%3d%%]\x1b[0m \x1b[1mbuilding\x1b[0m \x1b]8;;file:///x\x07link\x1b]8;;\x07"
        % (i % 101)
        for i in range(60000)
    )
    raw = frames + b"\n\x1b[31merror\x1b[0m: src/main.c:3:1: expected ';'\n"
    result = pipeline.compact("make -j8", 2, combined=raw, conf=CONF)
    assert "\x1b" not in result.text
    assert "error: src/main.c:3:1: expected ';'" in result.text
    assert len(result.text.encode()) <= 50 * 1024
    assert Path(result.captures[0].path).read_bytes() == raw


def test_token_estimate_stays_near_the_real_count_for_costly_symbols() -> None:
    from tersh import tokens

    for text in ("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ added 3 packages", "src/a.py | 12 ++++++------", "plain words here"):
        exact = tokens.count(text)
        assert 0.6 * exact <= pipeline.estimate_tokens(text) <= 1.6 * exact, text


def _plain_estimate(text: str) -> int:
    """The estimate by its definition: one a match of the token pattern, two more a braille
    character."""
    import re

    count = sum(1 for _ in re.finditer(r"[A-Za-z]+|\d{1,3}|([^\sA-Za-z\d])\1*", text))
    return count + 2 * sum(1 for _ in re.finditer("[\u2800-\u28ff]", text))


@given(st.lists(st.text(alphabet="ab1234 \n\t--==::./⠋⠙é^~", max_size=40), min_size=1, max_size=6))
def test_the_token_estimate_is_its_definition_however_often_it_is_asked(texts: list[str]) -> None:
    for text in [*texts, *texts, "".join(texts)]:  # kept estimates are asked again
        assert pipeline.estimate_tokens(text) == _plain_estimate(text)


def test_a_close_call_on_the_minimum_saving_is_settled_by_exact_counts() -> None:
    from tersh import tokens

    source = "word " * 100
    for kept in range(80, 100):
        candidate = "word " * kept
        exact = tokens.count(candidate) <= 0.9 * tokens.count(source)
        assert pipeline.saves_enough(candidate, source, 0.9) is exact
    assert pipeline.saves_enough("x", "", 0.9) is False
    assert pipeline.saves_enough("a", "a b c d e f g h i j k l m n o p", 0.9) is True  # clear: estimate


# A cargo test log the cargotest rule cuts by about a third (34% of its bytes).
_SAVES_A_THIRD = Path(__file__).parent / "compact" / "fixtures" / "cargotest" / "no-fail-fast-lib-it-doc.out"


def test_the_users_minimum_saving_is_the_rules_minimum_too() -> None:
    raw = _SAVES_A_THIRD.read_bytes()
    default = pipeline.compact("cargo test --no-fail-fast", 101, combined=raw, conf=CONF)
    assert default.rule == "cargotest" and default.output_bytes < 0.75 * len(raw)
    strict_conf = Settings({"enabled": True, "tools.min_saving": 0.5})
    strict = pipeline.compact("cargo test --no-fail-fast", 101, combined=raw, conf=strict_conf)
    assert strict.rule is None and strict.complete
    assert strict.text == raw.decode().rstrip("\n")
    # The rule itself declined (it saw the setting), not only the pipeline's floor after it.
    assert strict.details["refused"] == "rule declined"
    assert "kept_source" not in strict.details


_ALL_BYTES = bytes(range(256))


def test_output_the_clean_up_would_leave_alone_is_what_skips_it() -> None:
    """The pipeline skips the clean-up for output without any byte of ``_NOT_PLAIN``: for every
    other byte, alone and among ordinary text, the clean-up indeed changes nothing."""
    from hypothesis import given
    from hypothesis import strategies as st

    from tersh.compaction import clean

    printable = bytes(b for b in _ALL_BYTES if b not in pipeline._NOT_PLAIN)
    assert b"\x1b" not in printable and b"\r" not in printable

    @given(st.binary(max_size=400).map(lambda data: bytes(printable[b % len(printable)] for b in data)))
    def check(data: bytes) -> None:
        text = data.decode("ascii")
        assert clean.clean(text) == text

    check()


def test_text_the_clean_up_would_leave_alone_is_what_skips_it() -> None:
    """The clean-up is skipped for output without any byte of ``_NEEDS_CLEANING`` (non-ASCII
    allowed, valid UTF-8 or not): decoded as the pipeline decodes it, it is left unchanged."""
    from hypothesis import given
    from hypothesis import strategies as st

    from tersh.compaction import clean

    untouched = bytes(b for b in _ALL_BYTES if b not in pipeline._NEEDS_CLEANING)
    assert b"\x1b" not in untouched and b"\r" not in untouched and b"\xe2" in untouched
    assert set(pipeline._NOT_PLAIN) == set(pipeline._NEEDS_CLEANING) | set(range(128, 256))
    words = st.sampled_from(["é", "—", "✓", "日本", "\ufffd", "\u0085", "\u009b31m", "\u2028"])
    pieces = st.one_of(st.binary(max_size=40), words.map(lambda w: w.encode("utf-8")))

    @given(st.lists(pieces, max_size=20).map(lambda parts: b"".join(parts)))
    def check(data: bytes) -> None:
        data = data.translate(None, pipeline._NEEDS_CLEANING)
        text = data.decode("utf-8", "replace")
        assert clean.clean(text) == text

    check()


def test_the_check_for_bytes_to_clean_reads_every_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_needs_cleaning`` answers for the whole output, read a slice at a time."""
    from hypothesis import given
    from hypothesis import strategies as st

    monkeypatch.setattr(pipeline, "CLEAN_CHECK_SLICE", 7)

    @given(st.binary(max_size=60))
    def check(data: bytes) -> None:
        kept = data.translate(None, pipeline._NEEDS_CLEANING)
        assert pipeline._needs_cleaning(data) == (len(kept) != len(data))

    check()
