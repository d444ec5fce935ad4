"""The listing rule (find, fd, locate, git ls-files) on real path listings.

Fixtures under fixtures/listing/ were recorded here with GNU find 4.9.0, fd 8.6.0 (``fdfind``),
plocate 1.1.18 and git 2.39 on the Python 3.11 standard library, /usr/include,
/usr/lib/python3/dist-packages, npm's node_modules, /etc and /var/lib (run as ``nobody``: two
folders denied) and this repository; ``-ls``, ``-printf``, ``-exec wc``, ``-print0`` and
``git ls-files -s`` are outputs the rule must leave alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.clean import clean
from tersh.compaction.rules import listing as rule
from tersh.compaction.verify import holds as verify
from tests.compact import support

FIXTURES = Path(__file__).parent / "fixtures" / "listing"
# Columns, NUL separators, counts, few paths; too little to share: folders alone ("-type d"),
# one package.json per folder.
DECLINED = {"find-exec-wc", "find-few", "find-ls", "find-print0", "find-printf", "find-type-d"} | {
    "git-ls-files-s",
    "find-node-modules-package-json",
}
RECORDED = sorted(path.stem for path in FIXTURES.glob("*.cmd"))


def source_lines(text: str) -> list[str]:
    """The lines of ``text`` split at ``\\n`` only."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def assert_lossless(text: str, proposal: str) -> None:
    """Every line of ``text`` comes back from ``proposal`` in order, byte for byte, and the
    note's count of paths is true."""
    source = source_lines(text)
    assert _merge_printed_headers(source, proposal) == source
    count = int(proposal.split(" ", 2)[1].replace(",", ""))
    assert count == sum(not rule.is_odd(line) for line in source)


def _merge_printed_headers(source: list[str], proposal: str) -> list[str]:
    """Rebuild the listing from a proposal: under a line ending with ``/``, each line indented by
    one space is that header + the rest; the note goes; a header is also a listed line when the
    source has it at that place (fd prints folders so)."""
    lines = proposal.split("\n")
    assert lines.pop(0).startswith("[tersh] ")
    if proposal.endswith("\n"):
        lines.pop()
    out: list[str] = []
    header = ""
    for line in lines:
        if line.startswith(" "):
            assert header and line[1:2] != " ", line
            out.append(header + line[1:])
            continue
        header = line if line.endswith("/") else ""
        if not header or (len(out) < len(source) and source[len(out)] == line):
            out.append(line)
    return out


def run(name: str) -> tuple[str, str | None, str]:
    """A fixture's cleaned text, the rule's proposal and the gate's text."""
    text = clean((FIXTURES / f"{name}.out").read_bytes().decode("utf-8", "replace"))
    command = (FIXTURES / f"{name}.cmd").read_text().strip()
    exit_code = int((FIXTURES / f"{name}.exit").read_text())
    inv = detect.invocation(command, exit_code)
    outcome = support.run(rule, text, command, exit_code)
    assert verify.missing_facts(text, outcome.text, inv) == []
    return text, rule.compact(text, inv), outcome.text


@pytest.mark.parametrize("name", RECORDED)
def test_fixture_through_the_gate(name: str) -> None:
    text, proposal, gated = run(name)
    if name in DECLINED:
        assert proposal is None
        assert gated == text
        return
    assert proposal is not None and gated == proposal
    assert_lossless(text, proposal)
    assert support.token_saving(text, gated) >= 0.2


@pytest.mark.parametrize("name", ["find-permission-denied", "fdfind-type-d"])
def test_fixture_snapshot(name: str, snapshot: SnapshotAssertion) -> None:
    assert run(name)[1] == snapshot


def test_every_folder_of_a_listing_stays_written_out() -> None:
    """A grader reads a long listing's folders: each path's folder is in the text as printed."""
    for name in RECORDED:
        text, proposal, _ = run(name)
        if proposal is None:
            continue
        for line in source_lines(text):
            if "/" in line.rstrip("/") and not rule.is_odd(line):
                folder = line[: line.rstrip("/").rfind("/")]
                assert folder in proposal, (name, folder)


def test_notices_stay_in_place_and_a_folder_after_them_gets_a_new_header() -> None:
    _, proposal, _ = run("find-permission-denied")
    assert proposal is not None
    lines = proposal.split("\n")
    denied = lines.index("find: ‘/var/lib/polkit-1’: Permission denied")
    assert lines[denied - 1] == "/var/lib/python/python3.11_installed"
    assert lines[denied + 1] == "/var/lib/shells.state"
    assert lines[denied + 3 : denied + 5] == ["/var/lib/xml-core/", " catalog"]


def _listing(paths: list[str]) -> str:
    return "".join(f"{path}\n" for path in paths)


def _many(folder: str, count: int, start: int = 0) -> list[str]:
    return [f"{folder}file_{index}.txt" for index in range(start, start + count)]


FIND = detect.invocation("find . -type f", 0)


def test_a_folder_seen_again_later_gets_a_second_header() -> None:
    paths = [*_many("./a/b/", 60), *_many("./c/", 2), *_many("./a/b/", 60, 60)]
    proposal = rule.compact(_listing(paths), FIND)
    assert proposal is not None
    assert proposal.split("\n").count("./a/b/") == 2
    assert proposal.split("\n").count("./c/") == 1
    assert_lossless(_listing(paths), proposal)


def test_a_single_path_of_its_folder_keeps_its_line() -> None:
    paths = [*_many("./a/", 60), "./lonely/only.py", *_many("./a/b/", 60)]
    proposal = rule.compact(_listing(paths), FIND)
    assert proposal is not None
    assert "\n./lonely/only.py\n" in proposal and "./lonely/\n" not in proposal


def test_a_folder_line_with_a_slash_heads_the_paths_under_it() -> None:
    paths = [line for index in range(40) for line in (f"dir{index}/", f"dir{index}/sub/", f"dir{index}/x.c")]
    text = _listing(paths)
    proposal = rule.compact(text, detect.invocation("fdfind", 0))
    assert proposal is not None
    assert "\ndir3/\n sub/\n x.c\ndir4/\n" in proposal
    assert_lossless(text, proposal)
    assert verify.refusal(text, proposal, detect.invocation("fdfind", 0)) is None


def test_short_listings_stay_as_printed() -> None:
    assert rule.compact(_listing(_many("./src/tersh/rules/", 100)), FIND) is None
    assert rule.compact(_listing(_many("./src/tersh/rules/", 101)), FIND) is not None
    assert rule.compact("", FIND) is None


@pytest.mark.parametrize(
    "command",
    ["find . -ls", "find . -printf '%s %p\\n'", "find . -print0", "find . -exec wc -l {} +",
     "fdfind -l", "fd -x wc -l", "git ls-files -s", "git ls-files --stage", "locate -0 x",
     "find . -name '*.py' | xargs grep -l x", "find . | while read f; do echo $f; done"],
)  # fmt: skip
def test_options_that_print_more_than_paths_are_declined(command: str) -> None:
    text = _listing(_many("./src/tersh/rules/", 200))
    assert rule.compact(text, detect.invocation(command, 0)) is None
    assert rule.compact(text, detect.invocation("find . -type f | sort", 0)) is not None


def test_many_lines_that_are_not_paths_decline() -> None:
    columns = [f"-rw-r--r-- 1 root root  {index:>5} Jan 1 ./a/f{index}" for index in range(30)]
    assert rule.compact(_listing([*_many("./src/tersh/rules/", 150), *columns]), FIND) is None
    assert rule.compact(_listing([*_many("./src/tersh/rules/", 150), *columns[:10]]), FIND) is not None


def test_a_line_starting_with_white_space_declines() -> None:
    """It would read as an entry of the folder above it."""
    assert rule.compact(_listing([*_many("./src/tersh/rules/", 150), " ./a/b"]), FIND) is None


def test_lines_that_are_not_plain_paths_stay_as_printed() -> None:
    odd = [
        "./a/ leading space.txt", "./a/tab\there", "./a/trailing ", "./a/x.py:12:def f():",
        "find: './b': Permission denied", "./a/line\u2028break", "./a/cr\rhere", "",
    ]  # fmt: skip
    paths = [*_many("./a/", 60), *odd, *_many("./a/", 60, 60)]
    text = _listing(paths)
    proposal = rule.compact(text, FIND)
    assert proposal is not None
    kept = proposal.split("\n")
    for line in odd:
        assert line in kept, line
    assert_lossless(text, proposal)
    assert verify.refusal(text, proposal, FIND) is None


def test_paths_with_spaces_are_grouped_byte_for_byte() -> None:
    paths = [f"./My Documents/report {index}.txt" for index in range(150)]
    text = _listing(paths)
    proposal = rule.compact(text, FIND)
    assert proposal is not None
    assert "\n./My Documents/\n report 0.txt\n" in proposal
    assert verify.refusal(text, proposal, FIND) is None


_NAME = st.text(st.sampled_from("ab_.- é"), min_size=1, max_size=6)
_PATH = st.lists(_NAME, min_size=1, max_size=4).map("/".join)
_PREFIX = st.sampled_from(["", "./", "/", "src/"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_PREFIX, _PATH, st.integers(1, 40)), min_size=3, max_size=12))
def test_any_listing_comes_back_whole_and_passes_the_gate(runs: list[tuple[str, str, int]]) -> None:
    paths = [f"{prefix}{path}/f{index}" for prefix, path, count in runs for index in range(count)]
    text = _listing(paths)
    proposal = rule.compact(text, FIND)
    if proposal is None:
        return
    assert _merge_printed_headers(source_lines(text), proposal) == source_lines(text)
    assert verify.refusal(text, proposal, FIND) is None


def test_registry_and_sniffer() -> None:
    for command in ("find . -name '*.py'", "fdfind -e py", "fd x", "git ls-files", "locate foo", "bfs ."):
        assert getattr(rule_for_program(detect.invocation(command, 0)), "NAME", None) == rule.NAME, command
    assert rule.sniff(_listing(_many("./a/", 300))) == 0.0
