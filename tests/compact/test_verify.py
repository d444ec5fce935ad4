"""The verifier: what it counts as a protected fact, and the compact forms it understands."""

from __future__ import annotations

from tersh.compaction import detect
from tersh.compaction.kit.base import Invocation
from tersh.compaction.verify import facts, renderings, scan
from tersh.compaction.verify import holds as verify


def test_grouped_entry_may_list_several_locations_for_one_message() -> None:
    source = "a/b.py:3:1: E501 line too long\na/b.py:9:4: E501 line too long\n"
    proposal = "a/b.py (2)\n  3:1 9:4  E501 line too long\n"
    assert verify.missing_facts(source, proposal) == []


def test_grouped_entry_list_still_needs_every_location() -> None:
    source = "a/b.py:3:1: E501 line too long\na/b.py:9:4: E501 line too long\n"
    proposal = "a/b.py (2)\n  3:1  E501 line too long\n"
    missing = verify.missing_facts(source, proposal)
    assert [f.text for f in missing] == ["a/b.py:9:4"]


def test_caret_markers_are_not_part_of_a_message() -> None:
    source = "In x.sh line 3:\necho $a\n     ^-- SC2086 (warning): Double quote to prevent globbing.\n"
    proposal = "x.sh\n  3:6 SC2086 (warning): Double quote to prevent globbing.\n"
    assert verify.missing_facts(source, proposal) == []


def test_transfer_rates_and_abbreviations_are_not_paths() -> None:
    line = "Downloaded lib/foo.jar (2.1 kB at 12 kB/s) 3.4 MiB/s 40 it/s N/A I/O"
    assert list(facts.iter_paths(line)) == ["lib/foo.jar"]
    assert list(facts.iter_paths("see src/io/read.c")) == ["src/io/read.c"]


def test_a_tool_message_regrouped_is_not_a_claim_of_the_rule() -> None:
    source = (
        "In a.sh line 4:\n[ $(ls) ]\n  ^-- SC2243 (style): Prefer explicit -n to check for output"
        " (or run command without [/[[ to check for success).\n"
    )
    proposal = (
        "a.sh (1)\n  4:3 SC2243 (style): Prefer explicit -n to check for output"
        " (or run command without [/[[ to check for success).\n"
    )
    assert verify.contradiction(source, proposal, 1) is None


def test_a_success_claim_the_rule_wrote_is_still_refused() -> None:
    source = "a.py:1:1: E501 line too long\n" * 3
    assert verify.contradiction(source, "[tersh] all checks succeeded\n", 1) is not None
    assert verify.contradiction(source, "  1:1 no errors remain in this file\n", 1) is not None


def test_severity_words_inside_options_report_nothing() -> None:
    command = "gcc -Wall -Werror -Wfatal-errors -Wno-deprecated -c -o lapi.o lapi.c"
    assert not facts.is_diagnostic(command)
    assert facts.is_diagnostic("x.c:1:2: error: bad [-Werror=shadow]")
    assert facts.is_diagnostic("-- warning: something went wrong")
    assert facts.is_diagnostic("cc1: all warnings being treated as errors")


def test_graph_log_message_lines_are_protected() -> None:
    # `git log --graph` draws columns left of each message line; the message is still a fact.
    from tersh.compaction.kit.base import Invocation

    source = (
        "* commit 40af9c117647504e4e2d90173ac3e0691d62ebf7\n"
        "| Author: Ada <ada@example.com>\n"
        "| Date:   Fri May 8 15:01:59 2026 -0300\n"
        "| \n"
        "|     Add errors module\n"
        "| |     Body line explaining the change.\n"
    )
    inv = Invocation("git log --graph", "git", ("log", "--graph"), 0)
    facts = {fact.text for fact in scan.extract_facts(source, inv) if fact.kind == "message"}
    assert facts == {"Add errors module", "Body line explaining the change."}
    lossy = "* 40af9c117647504e4e2d90173ac3e0691d62ebf7 Ada\n|     Add errors module\n"
    assert [f.text for f in verify.missing_facts(source, lossy, inv)] == ["Body line explaining the change."]


def test_an_option_word_with_a_slash_is_not_a_path() -> None:
    # pytest -v ids such as "test_flag[--flag/--no-flag-opt0]" name options, not files.
    line = "tests/test_options.py::test_flag[--flag/--no-flag-opt_params0] PASSED [ 40%]"
    assert list(facts.iter_paths(line)) == ["tests/test_options.py"]
    assert "src/a/b.py" in list(facts.iter_paths("see src/a/b.py and -x/y"))


def test_a_line_kept_as_it_is_keeps_its_facts_even_reindented() -> None:
    source = "x/a.c:3:1: warning: unused x\nnoise line one\nx/b.c:9:2: error: bad y\n"
    proposal = "  x/a.c:3:1: warning: unused x\t\n\tx/b.c:9:2: error: bad y\n[tersh] omitted: 1 line\n"
    assert verify.missing_facts(source, proposal) == []


def test_a_line_whose_inner_spacing_changed_is_still_read() -> None:
    source = 'File "x/a.py", line 3, in f\n'
    proposal = 'File  "x/a.py", line 3, in f\n'  # no longer a Python location
    missing = verify.missing_facts(source, proposal)
    assert [(f.kind, f.text, f.line) for f in missing] == [("location", "x/a.py:3", 1)]


def test_git_messages_are_read_around_kept_lines() -> None:
    source = "commit 1a2b3c4d5e6f\nAuthor: Ann\n\n    Fix the parser\n    second line\n"
    proposal = "commit 1a2b3c4d5e6f\n    Fix the parser\n"
    missing = verify.missing_facts(source, proposal)
    assert [(f.kind, f.text, f.line) for f in missing] == [("message", "second line", 5)]


def test_rebuilt_forms_follow_what_the_source_shows() -> None:
    """Only the forms a source shows are rebuilt from grouped entries (memory), and each works."""
    assert renderings._source_forms("a/b.py:3:1: E1 x\n") == {"colon"}
    assert renderings._source_forms("src/a.ts(3,1): error TS1: x\n") == {"paren"}
    assert renderings._source_forms("src/a.js\n  3:1  error  x  rule\n") == {"entry"}
    assert renderings._source_forms("F401 x\n  --> a/b.py:3:1\n") == {"arrow", "message"}
    proposal = "a/b.py (2)\n  3:1 9:4 E501 line too long\n"
    for source in ("a/b.py:3:1: E501 line too long\n", "  3:1  E501  line too long\n",
                   "E501 line too long\n  --> a/b.py:9:4\n"):  # fmt: skip
        assert verify.missing_facts(source, proposal) == []


_FIND_SOURCE = (
    "./src/tersh/cli.py\n./src/tersh/rules/verify.py\n./src/tersh/rules/search.py\n"
    "./src/tersh/rules/listing.py\n./My Docs/a b.txt\n./My Docs/c.txt\n"
)
_FIND_GROUPED = (
    "./src/tersh/cli.py\n./src/tersh/rules/\n verify.py\n search.py\n listing.py\n"
    "./My Docs/\n a b.txt\n c.txt\n"
)


def _listing_inv(command: str = "find . -type f") -> Invocation:
    return detect.invocation(command, 0)


def test_a_grouped_listing_stands_for_its_paths_rebuilt_exactly() -> None:
    for command in ("find . -type f", "fdfind -t f", "git ls-files", "locate tersh"):
        assert verify.refusal(_FIND_SOURCE, _FIND_GROUPED, _listing_inv(command)) is None


def test_a_grouped_listing_of_a_real_find_passes_the_gate() -> None:
    from tests.compact import support

    case = support.case("other__find-large-tree")
    lines = case.stdout.splitlines()
    out: list[str] = []
    for line in lines:  # one header per line's folder, however short the run
        folder = line[: line.rfind("/") + 1]
        out.extend([folder, " " + line[len(folder) :]])
    proposal = "\n".join(out) + "\n"
    inv = _listing_inv(case.cmd)
    assert verify.missing_facts(case.stdout, proposal, inv) == []


def test_a_grouped_entry_changed_or_cut_by_one_character_is_refused() -> None:
    inv = _listing_inv()
    for edited in (" verify.py\n", " search.py\n"):
        for lossy in (edited[:-3] + edited[-2:], edited[:2] + "X" + edited[3:], "  " + edited[2:]):
            proposal = _FIND_GROUPED.replace(edited, lossy)
            assert proposal != _FIND_GROUPED
            assert verify.missing_facts(_FIND_SOURCE, proposal, inv), lossy
    dropped = _FIND_GROUPED.replace(" c.txt\n", "")
    missing = verify.missing_facts(_FIND_SOURCE, dropped, inv)
    assert [f.text for f in missing] == ["Docs/c.txt"]  # the path word after the space


def test_a_header_typo_or_a_header_without_its_slash_is_refused() -> None:
    inv = _listing_inv()
    for header in ("./src/tersh/rule/\n", "./src/tersh/rules\n", "./src/ters/rules/\n"):
        proposal = _FIND_GROUPED.replace("./src/tersh/rules/\n", header)
        assert verify.missing_facts(_FIND_SOURCE, proposal, inv), header


def test_grouped_paths_count_only_for_listing_programs() -> None:
    for command in ("cat paths.txt", "grep -rl x .", "git status"):
        assert verify.missing_facts(_FIND_SOURCE, _FIND_GROUPED, _listing_inv(command))


def test_an_entry_only_stands_under_a_header_in_force() -> None:
    inv = _listing_inv()
    source = "./a/x.py\n./a/y.py\nfind: './b': Permission denied\n./a/z.py\n"
    no_header_again = "./a/\n x.py\n y.py\nfind: './b': Permission denied\n z.py\n"
    assert [f.text for f in verify.missing_facts(source, no_header_again, inv)] == ["a/z.py"]
    header_again = "./a/\n x.py\n y.py\nfind: './b': Permission denied\n./a/\n z.py\n"
    assert verify.missing_facts(source, header_again, inv) == []


def test_refs_git_reports_unchanged_yield_no_fact_but_moved_ones_do() -> None:
    source = "\n".join(
        [
            "From /srv/git/app",
            " = [up to date]      feature/topic-1    -> origin/feature/topic-1",
            " = [up to date]      fix/error-handling -> origin/fix/error-handling",
            "   238ef93..1832d48  feature/topic-300  -> origin/feature/topic-300",
            " * [new branch]      feature/new-one    -> origin/feature/new-one",
            " ! [rejected]        feature/topic-9    -> localx  (non-fast-forward)",
        ]
    )
    inv = detect.invocation("git fetch -v", 1)
    found = {fact.text for fact in facts.plain_facts(source, inv)}
    assert "origin/feature/topic-1" not in found and "fix/error-handling" not in found
    assert not any("error-handling" in text for text in found)  # a branch name reports nothing
    assert {"origin/feature/topic-300", "238ef93", "origin/feature/new-one", "feature/topic-9"} <= found
    assert scan.extract_facts(source, inv) == facts.plain_facts(source, inv)
    kept = "\n".join(line for line in source.split("\n") if "[up to date]" not in line)
    assert verify.missing_facts(source, kept, inv) == []
    moved = [line for line in kept.split("\n") if "new-one" not in line]
    assert verify.missing_facts(source, "\n".join(moved), inv) != []  # a new branch is a fact


def test_an_unchanged_ref_line_is_only_git_s_exact_shape() -> None:
    assert facts.unchanged_ref(" = [up to date]      main       -> origin/main")
    assert facts.unchanged_ref(" = [up to date]\tv1.0 -> v1.0 ")
    for line in (
        " = [up to date]      main -> origin/main  error: disk full",  # more than a ref pair
        "= [up to date]      main -> origin/main",
        " = [up to date]      main",
        " * [new branch]      main -> origin/main",
    ):
        assert not facts.unchanged_ref(line)
    line = " = [up to date]      a/b.py -> origin/a/b.py"
    grep = detect.invocation("grep -h 'up to date' log.txt", 0)
    assert facts.plain_facts(line, grep) != []
    assert scan.extract_facts(line, grep) == facts.plain_facts(line, grep)
    assert facts.blank_unchanged_refs(f"x\n{line}\ny/z.py\n") == "x\n\ny/z.py\n"
