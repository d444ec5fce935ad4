"""tersh.tools.compress: trigger, target, ceiling, the 10% gate, ANSI, recovery, fail open."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tersh.recording.tool_cache import Cache
from tersh.settings import Settings
from tersh.tools import ToolResult, compress, engine
from tests import corpus

ID = re.compile(r"tersh retrieve (o[0-9a-f]{12})")


def source_lines(count: int) -> str:
    return "\n".join(f"{i + 1}: # note {i}" if i % 2 else f"{i + 1}: x_{i} = {i}" for i in range(count))


def cached_original(result: ToolResult) -> str:
    match = ID.search(str(result.output))
    assert match, result.output
    return Cache.from_settings(Settings()).read_text(match.group(1))


def test_below_trigger_is_untouched() -> None:
    text = "a\n" * 5000  # 10,000 chars < 12,000 (3,000 tokens)
    result = compress("read", text)
    assert result.output == text and not result.changed
    assert result.metrics["reason"] == "below trigger"


def test_large_read_meets_the_target_and_is_recoverable() -> None:
    text = source_lines(3000)
    result = compress("read", text, {"filePath": "/r/a.py"})
    assert result.changed
    assert len(result.output) <= 2500 * 4
    assert result.metrics["strategy"] == "minimal+middle"
    assert result.metrics["tokens_after_est"] <= 2500
    assert result.metrics["recovery"]["kind"] == "cache"
    assert cached_original(result) == text
    assert result.metadata["filePath"] == "/r/a.py"


def test_env_overrides_win_over_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "word " * 4000  # 20,000 chars
    settings = Settings({"tools.trigger_tokens": 1000, "tools.target_tokens": 2000})
    assert compress("webfetch", text, settings=settings).changed
    monkeypatch.setenv("TERSH_TRIGGER_TOKENS", "6000")
    assert not compress("webfetch", text, settings=settings).changed
    monkeypatch.setenv("TERSH_TRIGGER_TOKENS", "100")
    monkeypatch.setenv("TERSH_TARGET_TOKENS", "200")
    assert len(compress("webfetch", text, settings=settings).output) <= 800


def test_ceiling_caps_the_payload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERSH_TARGET_TOKENS", "50000")
    monkeypatch.setenv("TERSH_MAX_OUTPUT_CHARS", "5000")
    result = compress("task", "sentence of a report. " * 5000)
    assert result.changed and len(result.output) <= 5000


def test_whole_payload_must_save_more_than_the_minimum() -> None:
    settings = Settings({"tools.trigger_tokens": 10, "tools.target_tokens": 5000})
    # Stripping a few comments saves well under 10%: the original stays.
    lines = [f"{i + 1}: value_{i} = compute({i}) + other({i})" for i in range(400)]
    lines[10] = "11: # one comment"
    text = "\n".join(lines)
    result = compress("read", text, {"filePath": "a.py"}, settings)
    assert not result.changed and result.output == text
    assert "not above minimum" in result.metrics["reason"]


def test_ansi_is_removed_from_compressed_output() -> None:
    text = "\n".join(f"\x1b[31merror\x1b[0m in step {i}: \x1b[1mdetail\x1b[0m" for i in range(2000))
    result = compress("task", text)
    assert result.changed and "\x1b" not in result.output


def test_unicode_survives_the_cut() -> None:
    row = "👨‍👩‍👧‍👦 漢字 e\u0301 🇫🇷 "
    result = compress("webfetch", row * 3000)
    assert result.changed
    body = str(result.output)
    assert "\ufffd" not in body
    body.encode("utf-8")  # no lone surrogates
    for family in re.findall("👨[^ \n]*", body):  # the cut mark starts a line of its own
        assert family == "👨‍👩‍👧‍👦"


def test_host_saved_path_is_reused_and_no_cache_entry_is_made(tersh_home: Path) -> None:
    result = compress("grep", "\n".join(f"a.py:{i}:hit" for i in range(4000)), {"outputPath": "/h/out"})
    assert result.changed
    assert "/h/out" in str(result.output)
    assert result.metrics["recovery"] == {"kind": "host", "path": "/h/out"}
    assert not (tersh_home / "cache").exists()


def test_outputs_above_the_entry_cap_are_left_to_the_host() -> None:
    text = "x" * 200 + "\n"
    result = compress("webfetch", text * 6000, settings=Settings({"cache.entry_bytes": 100_000}))
    assert not result.changed and "left to the host" in result.metrics["reason"]


def test_shell_tools_are_never_cut_here() -> None:
    text = "line\n" * 10000
    assert not compress("bash", text).changed


def test_grep_keeps_every_kept_line_whole_on_real_output() -> None:
    case = next(c for c in corpus.cases() if c.name == "other__grep-rn-def-large")
    result = compress("grep", case.stdout)
    assert result.changed
    original = set(case.stdout.split("\n"))
    body = str(result.output).split("\n")[1:-2]  # header; tail footer; recovery footer
    assert body and all(line in original for line in body)
    assert cached_original(result) == case.stdout


@pytest.mark.parametrize(
    "name", ["other__cat-large-source", "other__cat-changelog", "other__pip-inspect-json"]
)
def test_real_outputs_compress_within_budget_and_recover(name: str) -> None:
    case = next(c for c in corpus.cases() if c.name == name)
    tool = "webfetch" if name.endswith("json") else "read"
    result = compress(tool, case.stdout, {"filePath": case.cmd.split()[-1]})
    assert result.changed and len(result.output) <= 10_000
    assert result.metrics["saving"] > 0.5
    assert cached_original(result) == case.stdout


def test_any_internal_error_returns_the_original(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(engine.strategies, "middle", boom)
    text = "y " * 20000
    result = compress("task", text)
    assert result.output == text and not result.changed
    assert result.metrics["reason"].startswith("error: RuntimeError")


def test_unsupported_output_types_pass_through() -> None:
    result = compress("x", {"not": "supported"})  # type: ignore[arg-type]
    assert result.output == {"not": "supported"} and not result.changed


def test_exact_token_counts_are_added_on_request() -> None:
    result = compress("task", " ".join(["token"] * 5000), exact_tokens=True)
    assert result.metrics["tokens_before"] == 5000
    assert 0 < result.metrics["tokens_after"] < 2600
