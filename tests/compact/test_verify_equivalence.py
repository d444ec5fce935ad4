"""The verifier's fast paths give what its plain per-line definitions give.

The verifier reads large texts a chunk at a time with whole-text scans and cheap literal
pre-tests; these properties hold the results to the slow, obvious forms (one line at a time,
one regex per line), on real outputs cut into tiny chunks and on generated text.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.compaction import detect, find_rule
from tersh.compaction.clean import clean
from tersh.compaction.kit import diag as _diag
from tersh.compaction.verify import facts, renderings, scan
from tersh.compaction.verify import holds as verify
from tests import corpus

TEXTS = [clean(case.combined) for case in corpus.cases()]
LINES = sorted({line for text in TEXTS for line in text.splitlines()[:300]})
# Characters that make the fast paths take their other branches: every kind of line break,
# folded letters, URLs, locations, severity words, hex runs, white space of all kinds.
ALPHABET = st.sampled_from(
    [*"ab/.:(),-_~+@ 0179fe\t\"", "\n", "\r", "\r\n", "\x0c", "\x1c", "\x85", "\u2028", "\u00a0",
       "\u017f", "\u212a", "\u0130", "\u2713", "ERROR", "error", "Warning", "FAILED", "PASSED", "ok",
       "File \"", "\", line ", "https://x.io/a.py:1", "x.py:12:3", "f.ts(4,5)", "deadbee1",
       "segmentation fault", "all tests passed", "0 errors", "1 failed", "  12:4 ", "src/a.py (3)\n"]
)  # fmt: skip
GENERATED = st.lists(ALPHABET, max_size=120).map("".join)


@pytest.fixture
def tiny_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "CHUNK_CHARS", 64)
    monkeypatch.setattr(_diag, "CHUNK_CHARS", 64)


@pytest.mark.parametrize("index", range(0, len(TEXTS), 3))
def test_facts_of_real_outputs_cut_in_tiny_chunks(index: int, tiny_chunks: None) -> None:
    text = TEXTS[index]
    assert scan.extract_facts(text) == facts.plain_facts(text)


@pytest.mark.parametrize("case", corpus.cases(), ids=lambda case: case.name)
def test_facts_of_real_outputs_with_their_command(case: corpus.Case, tiny_chunks: None) -> None:
    """Every kind, search matches and git commit messages too, as the command's output gives them."""
    text = clean(case.combined)
    inv = detect.invocation(case.cmd, case.exit_code)
    assert scan.extract_facts(text, inv) == facts.plain_facts(text, inv)


COMMANDS = st.sampled_from(["rg -n x", "git grep x", "git log", "git log --oneline --graph", "ls", "make"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=GENERATED, cmd=COMMANDS, log=st.booleans())
def test_facts_of_generated_text_with_a_command(text: str, cmd: str, log: bool) -> None:
    if log:  # a commit header and message lines among the generated ones
        text = f"commit deadbeef1\nAuthor: a\n\n    {text}\n* 1234abc {text}\n"
    inv = detect.invocation(cmd, 0)
    assert scan.extract_facts(text, inv) == facts.plain_facts(text, inv)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=GENERATED)
def test_facts_of_generated_text(text: str) -> None:
    assert scan.extract_facts(text) == facts.plain_facts(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=GENERATED, cut=st.integers(0, 100), drop=st.integers(0, 5))
def test_missing_facts_agree_with_the_plain_check(text: str, cut: int, drop: int) -> None:
    lines = text.splitlines()
    proposal = "\n".join(lines[:cut] + lines[cut + drop :])
    assert verify.missing_facts(text, proposal) == _plain_missing(text, proposal)


@settings(max_examples=300, deadline=None)
@given(text=GENERATED)
def test_lines_of_is_splitlines(text: str) -> None:
    assert list(_diag.lines_of(text)) == text.splitlines()


def test_lines_of_small_chunks(tiny_chunks: None) -> None:
    for text in TEXTS[::4]:
        assert list(_diag.lines_of(text)) == text.splitlines()


_OLD_SPACE = re.compile(r"\s+")


@given(text=GENERATED)
def test_normalize_is_the_regex_form(text: str) -> None:
    assert facts.normalize(text) == _OLD_SPACE.sub(" ", text).strip()
    assert facts.normalize(text * 500) == _OLD_SPACE.sub(" ", text * 500).strip()


def _plain_paths(line: str) -> list[str]:
    line = facts._strip_urls(line)
    paths = (m.group(0).rstrip(".") for m in facts._PATH.finditer(line))
    return [facts._norm_path(p) for p in paths if facts._is_path(p)]


@given(line=GENERATED.map(lambda t: t.replace("\n", " ").replace("\r", " ")))
def test_paths_found_from_candidate_words_only(line: str) -> None:
    assert list(facts.iter_paths(line)) == _plain_paths(line)


def test_paths_on_real_lines() -> None:
    assert [list(facts.iter_paths(x)) for x in LINES] == [_plain_paths(x) for x in LINES]


@given(text=GENERATED)
def test_severity_pre_test_misses_no_line(text: str) -> None:
    chunk = next(scan._chunks(text), "")
    starts = scan._severity_line_starts(chunk)
    if starts is None:  # the regex reads that chunk itself
        return
    for match in facts._SEVERITY.finditer(chunk):
        assert chunk.rfind("\n", 0, match.start()) + 1 in starts


def _plain_is_diagnostic(line: str) -> bool:
    severe = any(not facts._in_option(line, match.start()) for match in facts._SEVERITY.finditer(line))
    return severe and facts._not_passing(line)


@given(line=GENERATED.map(lambda t: t.replace("\n", " ").replace("\r", " ")))
def test_a_diagnostic_is_what_the_severity_pattern_finds(line: str) -> None:
    assert facts.is_diagnostic(line) == _plain_is_diagnostic(line)


def test_diagnostics_on_real_lines() -> None:
    assert [facts.is_diagnostic(x) for x in LINES] == [_plain_is_diagnostic(x) for x in LINES]


def test_passing_pre_test_misses_no_line() -> None:
    assert all(facts._may_pass(x) for x in LINES if facts._PASSING.search(x))


@settings(max_examples=200, deadline=None)
@given(source=GENERATED, proposal=GENERATED, exit_code=st.sampled_from([0, 1]))
def test_contradiction_agrees_with_the_per_line_form(source: str, proposal: str, exit_code: int) -> None:
    source_lines = {facts.normalize(line) for line in source.splitlines()}
    authored = [
        line for line in proposal.splitlines()
        if facts.normalize(line) and facts.normalize(line) not in source_lines
    ]  # fmt: skip
    claim = verify._SUCCESS_CLAIM if exit_code else verify._FAILURE_CLAIM
    blocked = exit_code == 0 and any(facts._SEVERITY.search(line) for line in source_lines)
    claims = [] if blocked else [line for line in authored if claim.search(line)]
    reason = verify.contradiction(source, proposal, exit_code)
    if reason is not None:
        assert claims
    elif claims:  # every claim only quotes a tool message of the source
        rests = (renderings._LEADING_ENTRY_LOCATIONS.sub("", facts._without_locations(x)) for x in claims)
        assert all(len(rest) >= 12 and rest in facts.normalize(source) for rest in rests)


# Words of the success claims in other cases and with what a claim may not stand after.
CLAIM_WORDS = st.sampled_from(
    ["all ", "ALL ", "All", "no ", "No ", "tests ", "test ", "passed", "PASSED", "ok", "OK", "succeeded",
     "success", "SUCCESSFUL", "successfully", "succeed", "errors", "failures", "problems", "issues",
     "0 ", "10 ", ",0 ", "1,0 ", "error", "failure", "failed", "ran", "found", "build ok", "Build OK",
     "xall ", "_all ", "ball ", "0", ",", "\u212a", "\u017f", "\u0130", "\u00e9", " ", "\t", "\n", "-"]
)  # fmt: skip
CLAIM_TEXT = st.one_of(GENERATED, st.lists(CLAIM_WORDS, max_size=40).map("".join))


def _plain_stem_positions(text: str, stems: tuple[str, ...]) -> list[int] | None:
    lowered = text.lower()
    if len(lowered) != len(text) or any(letter in text for letter in scan.FOLDING):
        return None
    return [match.start() for stem in stems for match in re.finditer(re.escape(stem), lowered)]


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(CLAIM_TEXT, st.text(max_size=40)))
def test_stems_found_in_the_ascii_bytes_as_in_the_text_lower_cased(text: str) -> None:
    for stems in (verify._SUCCESS_STEMS, verify._FAILURE_STEMS, ("ab", "a")):
        assert scan._stem_positions(text, stems) == _plain_stem_positions(text, stems)


@settings(max_examples=300, deadline=None)
@given(text=CLAIM_TEXT)
def test_success_claims_tried_at_their_stems_only(text: str) -> None:
    for chunk in scan._chunks(text):
        lines = verify._claim_lines(chunk, verify._SUCCESS_CLAIM, verify._SUCCESS_STEMS, at_stems=True)
        assert lines == verify._claim_lines_by_line(chunk, verify._SUCCESS_CLAIM, verify._SUCCESS_STEMS)


def test_success_claims_on_real_lines() -> None:
    for text in TEXTS:
        for chunk in scan._chunks(text):
            stems = verify._SUCCESS_STEMS
            lines = verify._claim_lines(chunk, verify._SUCCESS_CLAIM, stems, at_stems=True)
            assert lines == verify._claim_lines_by_line(chunk, verify._SUCCESS_CLAIM, stems)


@settings(max_examples=300, deadline=None)
@given(text=CLAIM_TEXT, others=st.lists(CLAIM_TEXT, max_size=4))
def test_normalized_lines_looked_up_by_their_longest_word(text: str, others: list[str]) -> None:
    lines = verify._normalized_lines(text)
    wanted = {line for line in map(facts.normalize, [*text.splitlines()[:5], *others]) if line}
    assert verify._normalized_in(text, wanted) == wanted & lines


# Real outputs repeated until their lines are dense enough for the whole-chunk paths (colon
# locations read by one split, diagnostics blanked out in one scan per form).
# (Without a command, git logs are left out: see test_facts_of_real_outputs_with_their_command.)
NOT_GIT = [text for text in TEXTS if not facts._looks_like_git_log(None, text.splitlines()[:50])]
DENSE = [text * (1 + 400 // max(1, text.count("\n"))) for text in NOT_GIT if text.count(":") > 20]


@pytest.mark.parametrize("index", range(len(DENSE)))
def test_facts_of_dense_real_outputs(index: int) -> None:
    text = DENSE[index]
    assert scan.extract_facts(text) == facts.plain_facts(text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=GENERATED)
def test_facts_of_dense_generated_text(text: str) -> None:
    dense = (text + "\nsrc/a.py:3:1: E1 x\n") * 70
    assert scan.extract_facts(dense) == facts.plain_facts(dense)


def _plain_missing(source: str, proposal: str) -> list[facts.Fact]:
    """The facts of ``source`` the proposal lacks, then the lines naming a place with no path
    (``facts.place_line``) it neither holds, rebuilds nor has anywhere (white space collapsed)."""
    index = verify._Index(proposal)
    found = [f for f in facts.plain_facts(source) if not index.holds(f.kind, f.text)][: verify.MAX_REPORTED]
    for number, line in enumerate(source.splitlines(), 1):
        if facts.place_line(line) and not _place_kept(index, line):
            found.append(facts.Fact("place", facts.normalize(line), number))
    return found[: verify.MAX_REPORTED]


def _place_kept(index: verify._Index, line: str) -> bool:
    stripped, flat = line.strip(" \t"), facts.normalize(line)
    return (
        stripped in index.part("held") or stripped in index.part("group_held")
        or flat in index.part("group_entries") or flat in index.part("brace_held") or flat in index.flat
    )  # fmt: skip


def _edited(text: str, every: int, how: str) -> str:
    """``text`` with every ``every``-th line dropped, re-indented or changed."""
    lines = text.splitlines()
    if how == "drop":
        return "\n".join(line for number, line in enumerate(lines) if number % every)
    if how == "indent":
        return "\n".join(f"\t  {line} " if number % every == 0 else line for number, line in enumerate(lines))
    changed = (line.replace(":", ";") if number % every == 0 else line for number, line in enumerate(lines))
    return "\n".join(changed)


@pytest.mark.parametrize("how", ["drop", "indent", "change"])
@pytest.mark.parametrize("index", range(0, len(NOT_GIT), 2))
def test_missing_facts_of_edited_real_outputs(index: int, how: str) -> None:
    """Lines the proposal holds as they are are skipped: the result is the plain check's."""
    text = NOT_GIT[index]
    for every in (2, 5):
        proposal = _edited(text, every, how)
        assert verify.missing_facts(text, proposal) == _plain_missing(text, proposal)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=GENERATED, every=st.integers(1, 4), how=st.sampled_from(["drop", "indent", "change"]))
def test_missing_facts_of_edited_generated_text(text: str, every: int, how: str) -> None:
    proposal = _edited(text, every, how)
    assert verify.missing_facts(text, proposal) == _plain_missing(text, proposal)


def _plain_location_set(text: str) -> set[str]:
    found: set[str] = set()
    for line in text.splitlines():
        for path, row, col in facts.iter_locations(line):
            found.add(f"{path}:{row}")
            if col:
                found.add(f"{path}:{row}:{col}")
    return found


@pytest.mark.parametrize("index", range(len(DENSE)))
def test_location_part_of_dense_real_outputs(index: int) -> None:
    assert verify._location_set(DENSE[index]) == _plain_location_set(DENSE[index])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=GENERATED)
def test_location_part_of_generated_text(text: str) -> None:
    dense = (text + "\nsrc/a.ts(3,1): x.py:2:3 E1\n") * 12
    assert verify._location_set(text) == _plain_location_set(text)
    assert verify._location_set(dense) == _plain_location_set(dense)


@given(text=GENERATED)
def test_urls_removed_line_by_line_as_by_one_scan(text: str) -> None:
    chunk = next(scan._chunks(text * 9), "")
    assert scan._without_urls(chunk) == facts._URL.sub(" ", chunk)


@given(text=GENERATED.map(lambda t: t.replace("\u017f", "s").replace("\u212a", "K")))
def test_severe_lines_are_the_lines_with_a_severity_word_outside_an_option(text: str) -> None:
    chunk = next(scan._chunks(text + " -Werror x\n--no-warn error\n"), "")
    starts = scan._severe_line_starts(chunk)
    if starts is None:  # letters that fold: is_diagnostic reads each line
        return
    lines = chunk.split("\n")
    offsets = [sum(len(x) + 1 for x in lines[:n]) for n in range(len(lines))]
    expected = [
        offset for offset, line in zip(offsets, lines, strict=True)
        if any(not facts._in_option(line, m.start()) for m in facts._SEVERITY.finditer(line))
    ]  # fmt: skip
    assert starts == expected


# Group reading as the verifier first did it (one regex over the text, header decided lazily).
_OLD_ENTRY_OR_TOP = re.compile(r"^(?:(?P<entry>[^\S\n]+\d+(?::\d+)?\b)|(?![^\S\n]))", re.MULTILINE)


def _old_groups(text: str) -> tuple[set[str], set[str]]:
    lines: set[str] = set()
    locations: set[str] = set()
    header: str | None = None
    for chunk in scan._chunks(text):
        pending = -1
        end = len(chunk) - 1 if chunk.endswith("\n") else len(chunk)
        for match in _OLD_ENTRY_OR_TOP.finditer(chunk, 0, end):
            if match["entry"] is None:
                pending = match.start()
                continue
            if pending >= 0:
                header, pending = renderings._group_header(_old_line_at(chunk, pending)), -1
            if header is not None:
                raw = _old_line_at(chunk, match.start())
                at = 0
                while located := renderings._ENTRY_LOCATION.match(raw, at):
                    locations.add(f"{header}:{located['line']}")
                    if located["col"]:
                        locations.add(f"{header}:{located['line']}:{located['col']}")
                    at = located.end()
                lines.add(facts.normalize(raw[at:]).strip(facts._TRIM))
        if pending >= 0:
            header = renderings._group_header(_old_line_at(chunk, pending))
    return lines, locations


def _old_line_at(chunk: str, start: int) -> str:
    end = chunk.find("\n", start)
    return chunk[start:] if end < 0 else chunk[start:end]


GROUPED = st.lists(
    st.sampled_from(
        ["src/a.py (3)", "src/b.ts:", "x/y.c", "", " ", "\t", "  12:4 E1 msg", "  3 7:1  two", "  9x",
         "\t4:2 ok", "  5:1:", "not/a header here", "  ١٢ msg", "[tersh] note", "a.py\r", "  8 "]
    ),
    max_size=30,
).map("\n".join)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(text=GROUPED, trailing=st.booleans())
def test_group_parts_are_read_as_before(text: str, trailing: bool) -> None:
    text += "\n" if trailing else ""
    index = verify._Index(text)
    assert (index.part("group_lines"), index.part("group_locations")) == _old_groups(index.proposal)


def _proposals() -> list[str]:
    """What the rules make of the real outputs (grouped ones among them)."""
    found = []
    for case in corpus.cases():
        text = clean(case.combined)
        rule = find_rule(text, detect.invocation(case.cmd, case.exit_code))
        proposal = rule.compact(text, detect.invocation(case.cmd, case.exit_code)) if rule else None
        found.append(proposal or text)
    return found


def test_group_parts_of_real_grouped_proposals_are_read_as_before(tiny_chunks: None) -> None:
    for text in _proposals():
        index = verify._Index(text)
        assert (index.part("group_lines"), index.part("group_locations")) == _old_groups(index.proposal)


def _rebuilt_lines_are_kept(proposal: str) -> None:
    """Every line rebuilt from a grouped entry yields only facts the proposal keeps."""
    index = verify._Index(proposal)
    for line in index.part("group_held"):
        lost = [f for f in facts.plain_facts(line) if not index.holds(f.kind, f.text)]
        assert lost == [], line
    for entry in index.part("group_entries"):  # a source line that reads so, spaced any way
        for line in (entry, f"  {entry.replace(' ', '  ')}", "\t" + entry.replace(" ", "\u00a0")):
            lost = [f for f in facts.plain_facts(line) if not index.holds(f.kind, f.text)]
            assert lost == [], line


def test_rebuilt_lines_of_real_grouped_proposals_are_kept() -> None:
    for proposal in _proposals():
        _rebuilt_lines_are_kept(proposal)


ENTRY_TEXT = st.lists(
    st.sampled_from(
        ["E501", "error:", "x.py", "a/b", "(3)", "x.ts(4,5)", ":", "9", "12:4", " ", "  ", "deadbee1", "[c]",
         "File \"q.py\", line 2", "warning", "-", "ok", "http://h:8/a.py:1", "\t", "é", "~", "#"]
    ),
    max_size=8,
).map("".join)  # fmt: skip
HEADER = st.sampled_from(
    ["src/a.py", "a.py", "./a.py", "x", "a b.py", "deadbee1/x.c", "x(1).py", "a.py:", "-a.py"]
)


@settings(max_examples=400, deadline=None)
@given(header=HEADER, places=st.lists(st.sampled_from(["3", "3:4", "12:1"]), min_size=1, max_size=3),
       message=ENTRY_TEXT)  # fmt: skip
def test_rebuilt_lines_of_generated_entries_are_kept(header: str, places: list[str], message: str) -> None:
    _rebuilt_lines_are_kept(f"{header} (2)\n  {' '.join(places)} {message}\n")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(header=HEADER, message=ENTRY_TEXT, row=st.integers(1, 99), drop=st.booleans())
def test_missing_facts_with_rebuilt_lines_agree_with_the_plain_check(
    header: str, message: str, row: int, drop: bool
) -> None:
    source = f"{header}:{row}:2: {message.strip()}\n{header}:7: other {message}\n"
    source += f"{header}({row},2): {message}\n"
    proposal = f"{header} (2)\n  {row}:2 {message}\n" + ("" if drop else f"  7 other {message}\n")
    assert verify.missing_facts(source, proposal) == _plain_missing(source, proposal)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message=ENTRY_TEXT, rows=st.lists(st.integers(1, 30), min_size=1, max_size=4), drop=st.booleans())
def test_missing_facts_of_linter_entries_agree_with_the_plain_check(
    message: str, rows: list[int], drop: bool
) -> None:
    """A linter's own grouped output (eslint's stylish form), regrouped with merged messages."""
    source = "src/app.js\n" + "".join(f"  {row}:5  error  {message}  rule-x\n" for row in rows)
    kept = rows[:-1] if drop else rows
    proposal = f"src/app.js ({len(kept)})\n  {' '.join(f'{row}:5' for row in kept)} error {message} rule-x\n"
    assert verify.missing_facts(source, proposal) == _plain_missing(source, proposal)


@settings(max_examples=300, deadline=None)
@given(text=GENERATED)
def test_bare_lines_of_a_chunk_are_its_lines_without_locations(text: str) -> None:
    for chunk in (next(scan._chunks(text), ""), next(scan._chunks(text * 12), "")):
        lines = chunk.split("\n")
        assert scan._bare_lines(chunk) == [facts._without_locations(line) for line in lines]


def test_bare_lines_of_real_outputs_are_their_lines_without_locations() -> None:
    for text in TEXTS:
        for chunk in scan._chunks(text):
            lines = chunk.split("\n")
            assert scan._bare_lines(chunk) == [facts._without_locations(line) for line in lines]


# Lines of code frames (ruff, rustc, gcc, biome, babel) and their look-alikes (tables, lists).
FRAME_LINE = st.sampled_from(
    ["  |", "   |     ^^^^ expected `u32`", "12 |     raise ValueError(\"error\")", "> 3 │ warn(x)",
     "    │   ^^^", " 9 | fatal error", "15 +     if x is None:", "   -     if x == None:", "  ...",
     " 1 | error | disk full", "- failed item", "x.py:3:1: E1 error", "help: fix the error", "",
     "  --> a.py:9:9", "7 | open('a.py:3') # error", "| a | failed |", "error: e", "----+-----",
     "    4 4 │   var failed", "    2   │ - error()", "      2 │ + error()", "2   const error = 1;",
     "          ~~~~~", "~~~~", "1 error found", "  = note: warn"]
)  # fmt: skip
FRAMED = st.lists(FRAME_LINE, max_size=90).map("\n".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=FRAMED, chunk_chars=st.sampled_from([16, 64, 1 << 20]))
def test_facts_of_code_frames_across_chunks(text: str, chunk_chars: int) -> None:
    """Whether a line is quoted source depends on the lines around it, in any chunk."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan, "CHUNK_CHARS", chunk_chars)
        assert scan.extract_facts(text) == facts.plain_facts(text)


def test_quoted_source_of_a_code_frame_is_no_diagnostic() -> None:
    frame = '  |\n9 |         raise ValueError("error: bad value")\n  |         ^^^^^\n'
    table = " id | level\n----+------\n  1 | error | disk full\n"
    assert [f for f in facts.plain_facts(frame) if f.kind == "diagnostic"] == []
    assert facts.Fact("diagnostic", "1 | error | disk full", 3) in facts.plain_facts(table)
    far = "  |\n" + "".join(f"{n} | x\n" for n in range(1, 40)) + "40 | error\n"
    assert any(f.kind == "diagnostic" for f in facts.plain_facts(far))  # no gutter within reach


# A log with a time of day on every line (a colon and a digit everywhere, no location there)
# and locations and reports on some: the colon form is found from the colons after a lettered
# path, and the lines' messages are blanked out line by line or all in one scan.
_LOG_LINE = st.sampled_from(
    [
        "10:11:12.345 INFO worker-3 handled request in 12 ms",
        "2026-12-01 10:59:21 ERROR disk full",
        "10:11:12 WARN src/app.py:42:7: slow path",
        "10:11:12 error at lib/x.ts(3,4) and 12:30",
        "[10:11:12] Traceback: https://h.io/a.py:3 then b.py:9",
        "10:11 fail 7:8 ab:1 a1:2:3 ./c/d.rs:4:5x",
        "a.py:1:2x warning 0:00:01",
        "12:04 \u2713 ok 3:4",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LOG_LINE, min_size=1, max_size=40), st.integers(min_value=1, max_value=12))
def test_facts_of_logs_with_times_of_day(lines: list[str], copies: int) -> None:
    text = "\n".join(lines * copies) + "\n"
    assert scan.extract_facts(text) == facts.plain_facts(text)
    proposal = "\n".join(lines[: len(lines) // 2])
    assert verify.missing_facts(text, proposal) == _plain_missing(text, proposal)
