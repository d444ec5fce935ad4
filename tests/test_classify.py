"""Wrappers, classes and the real program behind a command line (also detect.invocation)."""

from __future__ import annotations

import json

import pytest

from tersh.command import classify
from tersh.compaction.detect import invocation
from tests import corpus


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["env", "X=1", "-u", "Y", "pytest", "-q"], ["pytest", "-q"]),
        (["sudo", "-u", "app", "-E", "make", "all"], ["make", "all"]),
        (["timeout", "60", "cargo", "test"], ["cargo", "test"]),
        (["timeout", "-k", "5", "1m", "go", "test"], ["go", "test"]),
        (["time", "-p", "make"], ["make"]),
        (["nice", "-n", "5", "nohup", "npm", "start"], ["npm", "start"]),
        (["xargs", "-0", "-I{}", "grep", "x", "{}"], ["grep", "x", "{}"]),
        (["xargs", "-n", "1", "rg", "foo"], ["rg", "foo"]),
        (["npx", "--yes", "tsc", "--noEmit"], ["tsc", "--noEmit"]),
        (["uv", "run", "--with", "rich", "pytest"], ["pytest"]),
        (["poetry", "run", "python", "-m", "mypy", "src"], ["mypy", "src"]),
        (["pnpm", "exec", "--", "vitest"], ["vitest"]),
        (["bundle", "exec", "rspec"], ["rspec"]),
        (["python3.11", "-m", "pytest"], ["pytest"]),
        (["python", "-mpytest", "-x"], ["pytest", "-x"]),
        (["/usr/bin/python3", "script.py"], ["/usr/bin/python3", "script.py"]),
        (["rtk", "git", "status"], ["git", "status"]),
        (["rtk", "read", "f.txt"], ["cat", "f.txt"]),
        (["rtk", "test", "cargo", "test"], ["cargo", "test"]),
        (["watch", "-n", "2", "ls", "-la"], ["sh", "-c", "ls -la"]),
        (["FOO=1"], []),
        ([], []),
    ],
)
def test_unwrap(words: list[str], expected: list[str]) -> None:
    assert classify.unwrap(words) == expected


def test_unwrap_reports_what_it_stepped_over() -> None:
    crossed: list[str] = []
    classify.unwrap(["sudo", "timeout", "5", "rtk", "pytest"], crossed)
    assert crossed == ["sudo", "timeout", "rtk"]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["cat", "x"], "file_reads"),
        (["git", "status"], "git"),
        (["git-lfs", "ls-files"], "git"),
        (["docker", "build", "."], "containers"),
        (["gh", "pr", "view"], "github"),
        (["pytest"], "tests"),
        (["cargo", "nextest", "run"], "tests"),
        (["npm", "run", "test:e2e"], "tests"),
        (["npm", "run", "dev"], "other"),
        (["yarn", "run", "lint"], "builds"),
        (["make", "check"], "tests"),
        (["make", "-C", "src"], "builds"),
        (["just", "test"], "tests"),
        (["mvn", "-q", "verify"], "tests"),
        (["gradle", "assemble"], "builds"),
        (["go", "mod", "tidy"], "packages"),
        (["go", "run", "."], "other"),
        (["dotnet", "test"], "tests"),
        (["uv", "lock"], "packages"),
        (["deno", "check", "main.ts"], "builds"),
        (["node", "--test"], "tests"),
        (["node", "server.js"], "other"),
        (["apt", "list", "--installed"], "packages"),
        (["CMAKE.EXE"], "builds"),
        (["cd", "x"], ""),
        (["export", "A=1"], ""),
        (["frobnicate"], "other"),
        ([], ""),
    ],
)
def test_classify(words: list[str], expected: str) -> None:
    assert classify.classify(words) == expected


def test_inline_scripts() -> None:
    assert classify.inline_script(["bash", "-c", "make && ls"]) == "make && ls"
    assert classify.inline_script(["sh", "-ec", "pytest"]) == "pytest"
    assert classify.inline_script(["bash", "script.sh"]) is None
    assert classify.inline_script(["eval", "grep", "x"]) == "grep x"
    assert classify.inline_script(["ls", "-c"]) is None


def test_git_subcommand_skips_global_options() -> None:
    assert classify.git_subcommand(["-C", "x", "-c", "a=b", "--no-pager", "log", "-1"]) == (
        "log", ["-1"])
    assert classify.git_subcommand(["--version"]) == ("", [])


@pytest.mark.parametrize(
    ("command", "program", "args"),
    [
        ("python -m pytest -q", "pytest", ("-q",)),
        ("uv run pytest", "pytest", ()),
        ("npx tsc --noEmit", "tsc", ("--noEmit",)),
        ("env X=1 timeout 60 cargo test", "cargo", ("test",)),
        ("cd web && npm test", "npm", ("test",)),
        ("make && echo ok", "make", ()),
        ("pytest -x | tail -50", "pytest", ("-x",)),
        ("sudo apt-get install -y tree", "apt-get", ("install", "-y", "tree")),
        ("time go test ./...", "go", ("test", "./...")),
        ("bash -c 'cd x && make check'", "make", ("check",)),
        ("(cd api && go vet ./...) 2>&1", "go", ("vet", "./...")),
        ("FOO='a b' pytest 'tests/test x.py'", "pytest", ("tests/test x.py",)),
        ("echo hi", "echo", ("hi",)),
        ("", "", ()),
        ("echo 'unterminated", "echo", ("unterminated",)),
    ],
)
def test_invocation(command: str, program: str, args: tuple[str, ...]) -> None:
    inv = invocation(command, 3)
    assert (inv.program, inv.args, inv.exit_code, inv.command) == (program, args, 3, command)


_TOOL_PROGRAM = {"cargo test": "cargo", "cargo build": "cargo", "make+gcc": "make",
                 "node --test": "node"}


@pytest.mark.parametrize("case", corpus.cases(), ids=lambda c: c.name)
def test_invocation_finds_the_corpus_tool(case: corpus.Case) -> None:
    tool = json.loads((case.path / "meta.json").read_text())["tool"]
    assert invocation(case.cmd, case.exit_code).program == _TOOL_PROGRAM.get(tool, tool)


def test_classify_command_picks_the_main_program() -> None:
    assert classify.classify_command("cd x && pytest | tail") == "tests"
    assert classify.classify_command("npm ci && npm run build && echo done") == "builds"
    assert classify.classify_command("cd x") == "other"


# The one owner of "what is this command": the class, the rule and the subcommand a rule reads
# all come from classify's subcommand finder and its one table of options that take a value.
@pytest.mark.parametrize(
    ("command", "cls", "rule", "subcommand"),
    [
        ("cargo +nightly build", classify.BUILDS, "cargobuild", "build"),
        ("uv --quiet run pytest", classify.TESTS, "pytest", ""),
        ("npm --prefix web install", classify.PACKAGES, "npm", "install"),
        ("git -C repo status -s", classify.GIT, "git_status", "status"),
        ("pnpm -C web install", classify.PACKAGES, "npm", "install"),
    ],
)
def test_one_subcommand_finder(command: str, cls: str, rule: str, subcommand: str) -> None:
    from tersh import compaction

    inv = invocation(command, 0)
    found = compaction.rule_for_program(inv)
    assert classify.classify_command(command) == cls
    assert found is not None
    assert rule == found.NAME
    assert inv.subcommand == subcommand


#: What each rule category is classed as; the exceptions are the programs whose class depends
#: on more than the rule's family (git's subcommands are all "git"; ``node`` runs tests only
#: with ``--test``; ``go install`` is packages though it prints build diagnostics).
_CATEGORY_CLASS = {"tests": classify.TESTS, "builds": classify.BUILDS, "linters": classify.BUILDS,
                   "git": classify.GIT, "packages": classify.PACKAGES, "search": classify.FILE_READS}
_OTHER_CLASS = {"git grep": classify.GIT, "git ls-files": classify.GIT, "node": classify.OTHER,
                "go install": classify.PACKAGES}


def test_every_rule_program_is_classed_as_its_rule() -> None:
    from tersh import compaction
    from tersh.compaction._mapping import PROGRAMS

    wrong = {}
    for program, names in PROGRAMS.items():
        expected = _OTHER_CLASS.get(program) or _CATEGORY_CLASS[compaction.load_rule(names[0]).CATEGORY]
        if classify.classify_command(program) != expected:
            wrong[program] = classify.classify_command(program)
    assert wrong == {}


def test_search_programs_have_one_list() -> None:
    from tersh.compaction.rules import listing, search
    from tersh.compaction.verify import holds

    assert holds.SEARCH_PROGRAMS <= classify.SEARCH and holds.LISTING_PROGRAMS <= classify.SEARCH
    assert {p for p in search.PROGRAMS if " " not in p} <= classify.CONTENT_SEARCH
    assert {p for p in listing.PROGRAMS if " " not in p} <= classify.NAME_SEARCH
    assert all(classify.search_program([p]) == p for p in classify.SEARCH)
