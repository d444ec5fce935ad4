"""The preview bound: never over a bound, never a split character, every line shown or counted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction.preview import (
    CUT_MARKER_BYTES,
    bound_file,
    bound_lines,
    bound_text,
    cut_line,
    gap_marker,
)
from tersh.execution import pipeline

_GAP = re.compile(r"^\[tersh: ([\d,]+) lines? omitted\]$")
_CUT = re.compile(r" \[tersh: [\d,]+ more bytes on this line\]$")

line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
    max_size=300,
)
diagnostic = st.sampled_from(["src/app.py:12: error: boom", "WARNING: disk", "FAILED t::x", "ok"])


def _accounted(source: list[str], text: str, digest_lines: int = 0) -> None:
    """Every source line is shown (maybe cut) in order, or counted by exactly one gap marker
    (after the index, which takes the first ``digest_lines`` lines)."""
    if not source:
        assert text == ""
        return
    shown = text.split("\n")[digest_lines:]
    index = 0
    for line in shown:
        gap = _GAP.match(line)
        if gap and not (index < len(source) and source[index] == line):
            index += int(gap.group(1).replace(",", ""))
            continue
        assert index < len(source), "preview shows more lines than the source has"
        expected = source[index]
        if line != expected:
            head = _CUT.sub("", line)
            assert _CUT.search(line) and expected.startswith(head), (line[:80], expected[:80])
        index += 1
    assert index == len(source)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    lines=st.lists(st.one_of(line_text, diagnostic), max_size=400),
    max_lines=st.integers(min_value=5, max_value=120),
    max_bytes=st.integers(min_value=600, max_value=6000),
)
def test_bounds_characters_and_accounting(lines: list[str], max_lines: int, max_bytes: int) -> None:
    preview = bound_lines(lines, max_lines, max_bytes)
    text = preview.text
    assert len(text.encode("utf-8")) <= max_bytes
    assert text.count("\n") + 1 <= max_lines
    text.encode("utf-8")  # a split character would have left a lone surrogate: this would raise
    _accounted(lines, text, preview.digest_lines)
    assert preview.complete == (preview.omitted_lines == 0 and preview.cut_lines == 0)
    # A text over the bounds is never shown complete (the pipeline's pricing relies on it:
    # it does not bound a source too large only to find the preview cut).
    whole = "\n".join(lines)
    fits = len(lines) <= max_lines and len(whole.encode("utf-8")) <= max_bytes
    assert preview.complete == (fits or not lines)
    body = whole[:-1] if whole.endswith("\n") else whole  # bound_text: no line after a final newline
    assert bound_text(whole, max_lines, max_bytes).complete == pipeline._fits(body, max_lines, max_bytes)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
          deadline=None)
@given(lines=st.lists(st.one_of(line_text, diagnostic), min_size=1, max_size=300),
       max_lines=st.integers(min_value=5, max_value=80))
def test_file_and_memory_previews_agree(tmp_path: Path, lines: list[str], max_lines: int) -> None:
    path = tmp_path / "out.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    in_memory = bound_text(path.read_text(encoding="utf-8"), max_lines, 3000)
    from_file = bound_file(path, max_lines, 3000, clean=False)
    assert from_file.text == in_memory.text


def test_diagnostics_in_the_middle_survive_a_cut() -> None:
    lines = [f"compiling module {i}" for i in range(20000)]
    lines[9000] = "src/deep/module.c:812:4: error: expected ';' before '}' token"
    lines[15000] = "warning: unused variable 'x'"
    preview = bound_lines(lines, 2000, 50 * 1024)
    assert "src/deep/module.c:812:4: error: expected ';' before '}' token" in preview.text
    assert "warning: unused variable 'x'" in preview.text
    assert not preview.complete


def test_a_ten_megabyte_line_is_cut_on_a_character_boundary() -> None:
    line = "é" * (5 * 1024 * 1024)  # 10 MB of two-byte characters
    preview = bound_lines([line], 2000, 50 * 1024)
    assert len(preview.text.encode()) <= 50 * 1024
    assert preview.text.startswith("éé") and "more bytes on this line" in preview.text
    assert preview.cut_lines == 1 and not preview.complete


def test_cut_line_never_splits_a_character() -> None:
    for width in range(1, 80):
        text, cut = cut_line("日本語テキスト" * 20, width + 64)
        assert cut
        text.encode("utf-8")


def test_small_text_is_returned_whole() -> None:
    preview = bound_text("a\nb\nc\n", 2000, 50 * 1024)
    assert preview.text == "a\nb\nc" and preview.complete


def test_gap_marker_wording() -> None:
    assert gap_marker(1) == "[tersh: 1 line omitted]"
    assert gap_marker(12345) == "[tersh: 12,345 lines omitted]"


def test_huge_file_preview_reads_in_bounded_memory(tmp_path: Path) -> None:
    import resource

    path = tmp_path / "big.log"
    with open(path, "wb") as handle:
        block = b"".join(b"progress %08d ok\n" % i for i in range(100000))
        for _ in range(30):  # ~ 60 MB
            handle.write(block)
        handle.write(b"src/x.py:1: error: the one that matters\n")
        for _ in range(10):
            handle.write(block)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    preview = bound_file(path, 2000, 50 * 1024)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert "src/x.py:1: error: the one that matters" in preview.text
    assert (after - before) < 64 * 1024  # KiB: far less than the file's size


def test_file_and_memory_scans_agree_across_chunk_edges(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from tersh.compaction import preview
    from tersh.compaction.clean import clean

    lines = [f"step {i}: compiling unit {i}" for i in range(60000)]
    for at in range(1000, 59000, 997):
        lines[at] = f"src/unit_{at}.c:{at}:7: error: expected expression"
    lines[30000] = "def outline_marker():"
    lines[30001] = "\x1b[31mWARNING\x1b[0m: colour inside"
    path = tmp_path / "build.log"
    path.write_text("\n".join(lines) + "\n")
    whole = bound_file(path, 2000, 50 * 1024)
    monkeypatch.setattr(preview, "SCAN_CHUNK", 4099)  # chunk edges fall inside lines
    chunked = bound_file(path, 2000, 50 * 1024)
    in_memory = bound_text(clean("\n".join(lines)), 2000, 50 * 1024)
    assert chunked.text == whole.text == in_memory.text
    assert lines[1000 + 997 * 29] in whole.text
    assert "def outline_marker():" in whole.text
    assert "WARNING: colour inside" in whole.text


def test_commit_lines_subjects_and_group_headers_survive_the_middle_cut() -> None:
    log: list[str] = []
    for n in range(60):
        log += [f"commit {n:040x}", "Author: A <a@b>", "Date:   Mon Nov 30", "", f"    subject {n}", "",
                f"diff --git a/f{n} b/f{n}", *[f"+line {i} of change {n}" for i in range(200)]]
    shown = bound_lines(log, 2000, 50 * 1024).text
    for n in range(60):
        assert f"commit {n:040x}" in shown and f"    subject {n}\n" in shown + "\n"
    grouped: list[str] = []
    for n in range(300):
        grouped += [f"src/module_{n}.py (40)", *[f" {i}:    value = compute_{i}(x)" for i in range(40)]]
    shown = bound_lines(grouped, 2000, 50 * 1024).text
    assert all(f"src/module_{n}.py (40)" in shown for n in range(300))


def test_file_headers_of_a_diff_without_git_headers_survive_the_cut(tmp_path: Path) -> None:
    """A formatter's diff (``ruff format --diff``, ``black --diff``: ``--- path`` / ``+++ path``
    per file, no ``diff --git`` line) far over the bound: every file's ``+++`` line is shown,
    by the in-memory scan and by the file scans (grep, and in bulk)."""
    diff: list[str] = []
    for n in range(120):
        diff += [f"--- src/pkg/module_{n}.py", f"+++ src/pkg/module_{n}.py", f"@@ -{n + 10},7 +{n + 10},9 @@",
                 *[f"-    value_{i} = compute(x, y)  # {n}" for i in range(60)],
                 *[f"+    value_{i} = compute(\n+        x, y\n+    )" for i in range(60)]]
    diff.append("120 files would be reformatted, 3 files already formatted")
    in_memory = bound_lines(diff, 2000, 50 * 1024).text
    path = tmp_path / "diff.txt"
    path.write_text("\n".join(diff) + "\n")
    assert path.stat().st_size > 256 << 10  # read in bulk / by grep
    from_file = bound_file(path, 2000, 50 * 1024).text
    for shown in (in_memory, from_file):
        assert all(f"+++ src/pkg/module_{n}.py\n" in shown for n in range(120))
        assert "120 files would be reformatted" in shown


def _cut_by_encoding(line: str, max_bytes: int) -> tuple[str, bool]:
    """What cut_line gives, the straightforward way: the whole line encoded, its head decoded."""
    encoded = line.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return line, False
    head = encoded[: max(0, max_bytes - CUT_MARKER_BYTES)].decode("utf-8", "ignore")
    left = len(encoded) - len(head.encode("utf-8", "surrogatepass"))
    return f"{head} [tersh: {left:,} more bytes on this line]", True


@settings(max_examples=300, deadline=None)
@given(line=st.one_of(st.text(st.sampled_from("ab 0:é日\U0001f600"), max_size=400),
                      st.text(st.characters(max_codepoint=0x7F), max_size=400), st.text(max_size=200)),
       max_bytes=st.integers(0, 500))
def test_cut_line_is_the_cut_of_the_encoded_line(line: str, max_bytes: int) -> None:
    assert cut_line(line, max_bytes) == _cut_by_encoding(line, max_bytes)


def _letters(number: int) -> str:
    word = ""
    while True:
        number, digit = divmod(number, 26)
        word = chr(ord("a") + digit) + word
        if not number:
            return word


def test_a_flood_of_fact_lines_each_of_its_own_shape_streams_in_bounded_memory(tmp_path: Path) -> None:
    """A type checker's run over many files (every line a fact line naming another file, so no
    two lines share a shape) reaches the streaming preview; its process stays under 64 MB."""
    import json
    import subprocess
    import sys

    from tests.clihelp import enable

    enable()
    path = tmp_path / "tsc.log"
    rows = (
        f"src/{_letters(i)}/{_letters(i * 7)}.ts({i % 500 + 1},{i % 40 + 1}): error TS{2300 + i % 90}: "
        f"Type '{_letters(i * 3)}' is not assignable to type '{_letters(i * 5)}'.\n"
        for i in range(120_000)
    )
    path.write_text("".join(rows) + "Found 120000 errors in 120000 files.\n")
    parent = (  # a parent of one child: the child's peak RSS is RUSAGE_CHILDREN's
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps({'code': done.returncode, 'peak_kb': peak, 'head': done.stdout[:4000].decode()}))\n"
    )
    argv = [sys.executable, "-c", "import json\n" + parent, sys.executable, "-m", "tersh", "run", "--", "cat",
            str(path)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(done.stdout)
    assert report["code"] == 0
    assert report["head"].startswith("[tersh] index of the 120,001 fact lines")
    assert "TS2300 ×" in report["head"] and "src/a/a.ts:1:1" in report["head"]
    assert report["peak_kb"] < 64 * 1024, f"peak RSS {report['peak_kb'] / 1024:.1f} MB"


def test_findings_grouped_under_their_files_with_wide_code_frames_stream_in_bounded_memory(
        tmp_path: Path) -> None:
    """Groups of findings under their file (``path (N)``, entries ``  12:4 …``) among code
    frames of characters past the Basic Multilingual Plane: the preview reads the group entries
    back a megabyte at a time, so its process stays under 64 MB (a 4 MB chunk decoded, cleaned
    and searched at once took it to 76 MB on 40 MB)."""
    import json
    import subprocess
    import sys

    from tests.clihelp import enable

    enable()
    path = tmp_path / "grouped.log"
    blocks, size, index = [], 0, 0
    while size < 40_000_000:
        block = (f"src/pkg{index % 97}/mod{index}.py (2)\n  12:4 E501 line too long\n"
                 f"  30:1 F401 unused import\n"
                 + "".join(f"    \u2502 {n:3d} \u2502 let \U0001d465 = na\u00efve code line {index} {n}\n"
                           for n in range(20)))
        blocks.append(block)
        size += len(block.encode())
        index += 1
    path.write_text("".join(blocks))
    parent = (  # a parent of one child: the child's peak RSS is RUSAGE_CHILDREN's
        "import json, resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps({'code': done.returncode, 'peak_kb': peak, 'head': done.stdout[:4000].decode()}))\n"
    )
    argv = [sys.executable, "-c", parent, sys.executable, "-m", "tersh", "run", "--", "cat", str(path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(done.stdout)
    assert report["code"] == 0
    assert "src/pkg0/mod0.py" in report["head"]
    assert report["peak_kb"] < 64 * 1024, f"peak RSS {report['peak_kb'] / 1024:.1f} MB"
