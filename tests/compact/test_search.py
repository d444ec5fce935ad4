"""The search rule (grep, rg, git grep, ag, ack) on real search output.

Fixtures under fixtures/search/ were recorded here with GNU grep 3.8, ripgrep 13.0.0, git 2.39,
ag 2.2.0 and ack 3.6.0 on copies of the Python 3.11 json, email and logging packages, with a
binary file, a dangling symlink, and paths holding a space, a colon and ``-1-`` added; and on
/usr/include (``grep-rn-c-headers``), the stdlib (``grep-include-py``) and this repository
(``rg-C3-tersh``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.clean import clean
from tersh.compaction.rules import search as rule
from tersh.compaction.verify import holds as verify
from tests import corpus
from tests.compact import support

FIXTURES = Path(__file__).parent / "fixtures" / "search"
DECLINED = {"grep-rc-def", "grep-rl-def", "rg-heading", "rg-vimgrep"}  # counts, lists, grouped, few
_COUNT = re.compile(r" \(\d+\)$")
_NOTE = re.compile(
    r"^\[tersh\] paths written once per file: ([\d,]+) match(?:es)?(?: \(\+([\d,]+) context lines?\))?"
    r" in ([\d,]+) files?(?:; ([\d,]+) -- separators? between files dropped)?$"
)


def expand(proposal: str, ag: bool = False) -> list[str]:
    """The lines a grouped proposal stands for: ``header:entry`` (``header-entry`` for a
    ``12-`` context entry, ``header:entry`` with ``ag``), ``header + entry`` for an entry that
    starts with its separator; ``--`` inside a group as ``--``; other lines as they are."""
    lines = proposal.split("\n")
    if proposal.endswith("\n"):
        lines.pop()
    out: list[str] = []
    header: str | None = None
    for index, line in enumerate(lines):
        if index == 0 and line.startswith("[tersh]"):
            continue
        if line.startswith(" ") and header is not None:
            entry = line[1:]
            if entry == "--" or entry[:1] in (":", "-"):
                out.append("--" if entry == "--" else header + entry)
                continue
            number = re.match(r"\d+([:-])", entry)
            assert number is not None, line
            sep = ":" if ag or number.group(1) == ":" else "-"
            out.append(header + sep + entry)
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if following.startswith(" "):
            header = _COUNT.sub("", line)
            continue
        header = None
        out.append(line)
    return out


def source_lines(text: str) -> list[str]:
    """The lines of ``text`` split at ``\\n`` only."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def assert_lossless(text: str, proposal: str, ag: bool = False) -> None:
    """Every line of ``text`` comes back from ``proposal``, in order and byte for byte, but the
    ``--`` separators the note says were dropped; the note's counts are the true ones."""
    back = expand(proposal, ag)
    source = source_lines(text)
    assert [line for line in back if line != "--"] == [line for line in source if line != "--"]
    note = _NOTE.match(proposal.split("\n", 1)[0])
    assert note is not None, proposal.split("\n", 1)[0]
    dropped = int((note[4] or "0").replace(",", ""))
    assert source.count("--") - back.count("--") == dropped
    grouped_paths = {_COUNT.sub("", line) for line in proposal.split("\n") if _COUNT.search(line)}
    assert len(grouped_paths) <= int(note[3].replace(",", ""))


def fixture(name: str) -> tuple[str, str, int]:
    """(cleaned text, command, exit code) of a recorded fixture."""
    text = clean((FIXTURES / f"{name}.out").read_bytes().decode("utf-8", "replace"))
    command = (FIXTURES / f"{name}.cmd").read_text().strip()
    return text, command, int((FIXTURES / f"{name}.exit").read_text())


def propose(text: str, command: str, exit_code: int = 0) -> str | None:
    return rule.compact(text, detect.invocation(command, exit_code))


FIXTURE_NAMES = sorted(path.stem for path in FIXTURES.glob("*.out"))


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_every_fixture_is_grouped_losslessly_or_declined(name: str) -> None:
    text, command, exit_code = fixture(name)
    proposal = propose(text, command, exit_code)
    if name in DECLINED:
        assert proposal is None
        return
    assert proposal is not None
    assert_lossless(text, proposal, ag=command.startswith("ag "))
    assert len(proposal) <= 0.85 * len(text)
    assert support.token_saving(text, proposal) >= 0.15
    inv = detect.invocation(command, exit_code)
    assert verify.refusal(text, proposal, inv) is None  # the gate sees every line rebuilt


def test_corpus_grep_rn_def_large(snapshot: SnapshotAssertion) -> None:
    case = support.case("other__grep-rn-def-large")
    text = clean(case.combined)
    proposal = propose(text, case.cmd)
    assert proposal is not None
    assert corpus.lost_facts(case, proposal) == []
    assert_lossless(text, proposal)
    assert proposal.startswith("[tersh] paths written once per file: 588 matches in 17 files\n")
    assert "src/click/_compat.py (" in proposal
    assert support.token_saving(case.combined, proposal) >= 0.22
    assert proposal == snapshot


def test_the_gate_accepts_grouped_matches_that_rebuild_every_line() -> None:
    case = support.case("other__grep-rn-def-large")
    outcome = support.run(rule, case.combined, case.cmd, case.exit_code)
    assert outcome.applied, outcome.refused
    assert corpus.lost_facts(case, outcome.text) == []
    assert len(outcome.text) < 0.85 * len(clean(case.combined))


def test_the_gate_refuses_a_grouped_entry_whose_text_changed() -> None:
    case = support.case("other__grep-rn-def-large")
    outcome = support.run(rule, case.combined, case.cmd, case.exit_code)
    first = next(line for line in outcome.text.split("\n") if line.startswith(" ") and ":def " in line)
    edited = outcome.text.replace(first, first.replace(":def ", ":def  renamed_"), 1)
    verdict = verify.refusal(clean(case.combined), edited, detect.invocation(case.cmd, case.exit_code))
    assert verdict is not None and "protected facts missing" in verdict
    moved = outcome.text.replace(first, " 1" + first.lstrip(), 1)  # another line number
    verdict = verify.refusal(clean(case.combined), moved, detect.invocation(case.cmd, case.exit_code))
    assert verdict is not None and "protected facts missing" in verdict


def test_match_text_is_kept_byte_for_byte_after_its_line_number() -> None:
    text, command, _ = fixture("grep-rn-def")
    proposal = propose(text, command)
    assert proposal is not None
    assert (
        "\n./json/__init__.py (7)\n 60:    >>> def as_complex(dct):\n 75:    >>> def encode_complex(obj):\n"
        in (proposal)
    )
    assert "\n 31:    def __init__(self, msg, doc, pos):\n" in proposal


def test_notices_and_paths_that_cannot_head_a_group_stay_as_printed() -> None:
    text, command, _ = fixture("grep-rn-def")
    proposal = propose(text, command)
    assert proposal is not None
    kept = proposal.split("\n")
    for line in ("grep: ./blob.bin: binary file matches", "./my dir/a b.py:1:def spaced():",
                 "./odd:name.py:1:def colon():", "./x-1-y.py:1:def dash():"):  # fmt: skip
        assert line in kept


def test_git_grep_binary_notice_and_grep_errors_stay_in_place() -> None:
    text, command, _ = fixture("gitgrep-n")
    proposal = propose(text, command)
    assert proposal is not None and proposal.split("\n")[1] == "Binary file blob.bin matches"
    text, command, exit_code = fixture("grep-R-dangling")
    proposal = propose(text, command, exit_code)
    assert proposal is not None
    assert proposal.endswith(
        "\ngrep: dangling.py: No such file or directory\ngrep: nope.py: No such file or directory\n"
    )
    text, command, exit_code = fixture("rg-missing")
    proposal = propose(text, command, exit_code)
    assert proposal is not None and "\nnope: No such file or directory (os error 2)\n" in proposal


def test_context_separators_stay_inside_a_file_and_go_between_files() -> None:
    text, command, _ = fixture("gitgrep-C1")
    proposal = propose(text, command)
    assert proposal is not None
    assert proposal.startswith(
        "[tersh] paths written once per file: 262 matches (+470 context lines) in 31 files; 30 --"
    )
    assert "\nemail/__init__.py (4)\n 34-\n 35:    Optional _class and strict" in proposal
    assert "\n --\n 42-\n" in proposal
    assert "\n--\n" not in proposal


def test_unnumbered_lines_keep_their_separator() -> None:
    text, command, _ = fixture("rg-A1-nonum")
    proposal = propose(text, command)
    assert proposal is not None
    assert (
        "\nemail/_policybase.py (8)\n :class _PolicyBase:\n -\n --\n :    This class is useless" in proposal
    )


def test_ag_context_lines_keep_the_colon_after_the_path() -> None:
    text, command, _ = fixture("ag-C1-big")
    proposal = propose(text, command)
    assert proposal is not None
    assert_lossless(text, proposal, ag=True)
    assert (
        "\njson/decoder.py (" in proposal and "\n 35-        ValueError.__init__(self, errmsg)\n" in proposal
    )


def test_colour_codes_are_cleaned_before_grouping() -> None:
    text, command, _ = fixture("grep-color-big")
    assert "\x1b" not in text  # clean() ran
    proposal = propose(text, command)
    assert proposal is not None and "\njson/__init__.py (7)\n 60:    >>> def as_complex(dct):\n" in proposal


def _numbered(files: int, per_file: int, prefix: str = "src/pkg") -> str:
    return "".join(
        f"{prefix}/module_{f}.py:{n * 7 + 1}:    value = compute_{n}(alpha, beta)  # ratio 3:4:5\n"
        for f in range(files)
        for n in range(per_file)
    )


def test_few_matches_stay_as_printed() -> None:
    assert propose(_numbered(3, 20), "grep -rn value src") is None  # 60 matches
    proposal = propose(_numbered(3, 21), "grep -rn value src")
    assert proposal is not None and proposal.startswith(
        "[tersh] paths written once per file: 63 matches in 3 files"
    )


def test_a_path_holding_line_number_shapes_is_read_from_its_neighbours() -> None:
    lines = []
    for n in range(70):
        lines += [f"lib/x-1-y.py-{n * 10 + 1}-    # before", f"lib/x-1-y.py:{n * 10 + 2}:x = 'a:12:b'"]
        lines += [f"lib/x-1-y.py-{n * 10 + 3}-    # after", "--"]
    text = "\n".join(lines) + "\n"
    proposal = propose(text, "grep -rn -C1 x lib")
    assert proposal is not None
    assert_lossless(text, proposal)
    assert proposal.split("\n")[1:6] == [
        "lib/x-1-y.py (70)",
        " 1-    # before",
        " 2:x = 'a:12:b'",
        " 3-    # after",
        " --",
    ]
    odd = "".join(f"lib/a:9:b.py:{n}:other = 1\nlib/c.py:{n}:x\n" for n in range(1, 80))
    assert propose(odd, "grep -rn x lib") is None  # every file one line at a time: nothing to share


def test_windows_paths_and_spaced_paths_are_not_grouped() -> None:
    windows = "".join(f"C:\\src\\app\\main.c:{n}:    int x{n} = {n};\n" for n in range(1, 90))
    assert propose(windows, "rg -n int") is None
    spaced = "".join(f"my docs/notes file.md:{n}:line {n}\n" for n in range(1, 90))
    assert propose(spaced, "grep -rn line .") is None


def test_not_search_output_is_declined() -> None:
    listing = "".join(f"src/pkg/module_{n}.py\n" for n in range(200))
    assert propose(listing, "grep -rl value src") is None
    grouped = "src/a.py\n" + "".join(f"{n}:value = {n}\n" for n in range(1, 200))
    assert propose(grouped, "rg --heading -n value") is None
    assert propose(grouped, "rg -n value") is None
    assert propose("", "grep -rn x .") is None
    assert propose(_numbered(5, 30), "rg --json value") is None


def test_registry_and_sniffer() -> None:
    for command in ("grep -rn x .", "rg -n x", "git grep -n x", "ag x", "ack x", "egrep -r x .",
                    "grep -rn x . | head -50", "cd src && rg x"):  # fmt: skip
        assert rule_for_program(detect.invocation(command, 0)) is rule, command
    context, _, _ = fixture("gitgrep-C1")
    assert rule.sniff(context) >= 0.9
    notice, _, _ = fixture("gitgrep-n")
    assert rule.sniff(notice) >= 0.9  # "Binary file blob.bin matches"
    assert rule.sniff(_numbered(3, 30)) < 0.6  # compilers print path:line: too
    assert rule.sniff(clean(support.case("lint__flake8-boltons").combined)) < 0.6
    assert rule.sniff("x\n") == 0.0


_PATHS = st.lists(
    st.text(alphabet="ab-1:./_ ", min_size=1, max_size=12).map(lambda s: f"d/{s}.py"), min_size=1, max_size=4
)
_TEXTS = st.text(alphabet="ab :-12\t", max_size=15)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(1, 999), st.sampled_from(":-"), _TEXTS), max_size=150),
    _PATHS,
    st.booleans(),
)
def test_any_search_like_output_round_trips(
    rows: list[tuple[int, int, str, str]], paths: list[str], numbered: bool
) -> None:
    lines = []
    for index, number, sep, body in rows:
        path = paths[index % len(paths)]
        lines.append(f"{path}{sep}{number}{sep}{body}" if numbered else f"{path}{sep}{body}")
        if number % 17 == 0:
            lines.append("--")
    text = "\n".join(lines) + "\n"
    proposal = propose(text, "grep -rn -C1 a d")
    if proposal is not None:
        assert_lossless(text, proposal)
