"""The shell lexer: structure on hand-picked inputs, and word splitting checked against bash."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tersh.command import shell

BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")


def words(text: str) -> list[tuple[str, ...]]:
    return [c.words for c in shell.parse(text).commands]


# ----------------------------------------------------------------- structure


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("git status", [("git", "status")]),
        ("  ls   -la  ", [("ls", "-la")]),
        ("echo 'a b' \"c d\" e\\ f", [("echo", "a b", "c d", "e f")]),
        ("echo $'x\\ty\\n' $'\\x41\\101\\'' ", [("echo", "x\ty\n", "AA'")]),
        ('echo "a\\"b\\$c\\d"', [("echo", 'a"b$c\\d')]),
        ("echo a\\\nb", [("echo", "ab")]),
        ("a && b || c; d & e", [("a",), ("b",), ("c",), ("d",), ("e",)]),
        ("a | b |& c", [("a",), ("b",), ("c",)]),
        ("echo hi >out 2>&1 <in", [("echo", "hi")]),
        ("cmd &>log", [("cmd",)]),
        ("X=1 Y='2 3' make", [("make",)]),
        ("echo a#b # comment", [("echo", "a#b")]),
        ("(cd x && make)", [("cd", "x"), ("make",)]),
        ("{ a; b; }", [("a",), ("b",)]),
        ("echo }", [("echo", "}")]),
        ("echo {a,b}", [("echo", "{a,b}")]),
        ("echo ${HOME:-/x} $((1 + 2))", [("echo", "${HOME:-/x}", "$((1 + 2))")]),
    ],
)
def test_words_of_simple_inputs(text: str, expected: list[tuple[str, ...]]) -> None:
    assert words(text) == expected
    assert shell.parse(text).problems == ()


def test_substitutions_are_parsed_and_marked_nested() -> None:
    script = shell.parse('echo "$(grep -r x .)" `find . -name y` <(ls a)')
    nested = {c.words[0]: c.nested for c in script.commands}
    assert nested == {"grep": True, "find": True, "ls": True, "echo": False}
    grep = next(c for c in script.commands if c.words[0] == "grep")
    assert grep.context == shell.SUBSTITUTION
    assert grep.first_span == (8, 12)


def test_pipelines_and_stages() -> None:
    script = shell.parse("a | b && c | d | e")
    assert [(c.words[0], c.stage) for c in script.commands] == [
        ("a", 0), ("b", 1), ("c", 0), ("d", 1), ("e", 2)]
    assert len({c.pipeline for c in script.commands}) == 2
    assert script.pipes == 3


def test_redirections_and_assignments_are_kept_apart() -> None:
    (command,) = shell.parse("FOO=1 BAR=\"x y\" pytest -q 2>&1 >out.txt <<<'in'").commands
    assert command.assignments == ("FOO=1", "BAR=x y")
    assert command.words == ("pytest", "-q")
    assert command.redirects == ("2>&1", ">out.txt", "<<<in")


def test_heredocs_bodies_are_skipped_and_expanding_ones_scanned() -> None:
    script = shell.parse("cat <<EOF | sh\nrm -rf / $(rg x)\nEOF\necho done")
    assert [c.words for c in script.commands if not c.nested] == [("cat",), ("sh",), ("echo", "done")]
    assert [c.words for c in script.commands if c.nested] == [("rg", "x")]
    quoted = shell.parse("cat <<'EOF'\n$(rg x)\nEOF")
    assert [c.words for c in quoted.commands] == [("cat",)]
    tabs = shell.parse("cat <<-END\n\tbody\n\tEND\nls")
    assert [c.words for c in tabs.commands] == [("cat",), ("ls",)]
    assert tabs.heredocs == 1 and tabs.problems == ()


def test_case_patterns_are_not_commands_or_pipes() -> None:
    script = shell.parse("case $x in a|b) make;; (c) pytest;& *) ls;;& esac; echo end")
    assert [c.words for c in script.commands] == [("make",), ("pytest",), ("ls",), ("echo", "end")]
    assert script.pipes == 0
    assert "case" in script.compound
    assert script.problems == ()


def test_compound_keywords_are_separators() -> None:
    script = shell.parse("if make; then pytest; elif x; then y; else z; fi")
    assert [c.words[0] for c in script.commands] == ["make", "pytest", "x", "y", "z"]
    loop = shell.parse("for f in $(ls); do cat \"$f\"; done")
    assert [c.words for c in loop.commands] == [("ls",), ("cat", "$f")]
    assert shell.parse("[[ -f a && ( -d b ) ]] && make").problems == ()
    assert words("[[ -f a && ( -d b ) ]] && make") == [("make",)]


def test_comment_is_reported_with_its_offset() -> None:
    script = shell.parse("git status # no-opt")
    assert script.comment == " no-opt"
    assert script.comment_start == 11
    assert shell.parse("echo '# no'").comment is None
    assert shell.parse("# one\nls").comment is None


@pytest.mark.parametrize(
    "text",
    ["echo 'x", 'echo "x', "echo $(ls", "echo `ls", "echo ${x", "a |", "a &&", "| a", "; a",
     "a; ; b", "(a", "a )", "{ a;", "case x in a) b", "cat <<EOF\nno end", "for x in a", "[[ a",
     "coproc x", "echo $'x", "echo $((1+2", "fi", "if a; then b", "while a; do b", "done",
     "if a; do b; done"],
)
def test_what_cannot_be_modelled_is_reported(text: str) -> None:
    assert shell.parse(text).problems


def test_fast_path_matches_the_full_lexer() -> None:
    for text in ["git status", " a  b ", "ls -la src/x.py", "make -j8 all"]:
        slow = shell._lex(text, 0, False, 0)
        assert shell.parse(text).commands[0].words == slow.commands[0].words
        assert shell.parse(text).commands[0].first_span == slow.commands[0].first_span


def test_quote_round_trips() -> None:
    for word in ["", "a b", "it's", "$HOME", "a\nb", "--x=1", "ü"]:
        assert shell.split(f"echo {shell.quote(word)}") == ["echo", word]


# ----------------------------------------------------- properties against bash

_PLAIN = st.text(alphabet="abcxyzXYZ0129-_./=,:@%+^*?![]#é", min_size=1, max_size=6)
_SQ = st.text(alphabet="ab \"\\$`|&;()<>*#\n\t", max_size=6).map(lambda s: f"'{s}'")
_DQ_PART = st.one_of(
    st.text(alphabet="ab '|&;()<>*#\n\té", min_size=1, max_size=4),
    st.sampled_from(["\\$", '\\"', "\\\\", "\\`", "\\a", "\\n", "\\\n", "\\'"]),
)
_DQ = st.lists(_DQ_PART, max_size=4).map(lambda parts: '"' + "".join(parts) + '"')
_ANSI_PART = st.one_of(
    st.text(alphabet="ab \"$|;", min_size=1, max_size=3),
    st.sampled_from(["\\n", "\\t", "\\\\", "\\'", '\\"', "\\x41", "\\x7e", "\\101", "\\7", "\\a",
                     "\\e", "\\E", "\\v", "\\q", "\\?", "\\cA"]),
)
_ANSI = st.lists(_ANSI_PART, max_size=4).map(lambda parts: "$'" + "".join(parts) + "'")
_ESCAPED = st.sampled_from(list(" '\"\\$`|&;()<>*?#{}~!a\n\t")).map(lambda c: "\\" + c)
_SEGMENT = st.one_of(_PLAIN, _SQ, _DQ, _ANSI, _ESCAPED)
_WORD = st.lists(_SEGMENT, min_size=1, max_size=4).map("".join).filter(
    lambda w: not w.startswith("#")
)
_BLANK = st.sampled_from([" ", "  ", "\t", " \\\n "])
_LINE = st.tuples(st.lists(_WORD, max_size=5), st.lists(_BLANK, min_size=5, max_size=5))


def _join(line: tuple[list[str], list[str]]) -> str:
    parts, blanks = line
    return "".join(f"{blanks[i % 5]}{word}" for i, word in enumerate(parts))


def _bash_words(script: str) -> list[str] | None:
    """The words bash's printf received, or None when bash refused the script."""
    assert BASH is not None
    done = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", "set -f\n" + script],
        capture_output=True, timeout=20, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
    )
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


@needs_bash
@settings(max_examples=int(os.environ.get("TERSH_SHELL_EXAMPLES", "150")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_LINE, st.booleans())
def test_word_splitting_matches_bash(line: tuple[list[str], list[str]], comment: bool) -> None:
    script = "printf '%s\\0' START" + _join(line) + (" # trailing 'comment" if comment else "")
    parsed = shell.parse(script)
    expected = _bash_words(script)
    if expected is None:  # e.g. an escaped newline that makes a comment of the rest
        assert parsed.problems
        return
    assert parsed.problems == ()
    (command,) = parsed.commands
    assert list(command.words[3:]) == expected[1:]


@needs_bash
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, min_size=1, max_size=4), st.lists(st.sampled_from([";", "&&", "\n", " ;\n"]),
                                                          min_size=4, max_size=4))
def test_lists_of_commands_match_bash(lines: list[tuple[list[str], list[str]]],
                                      separators: list[str]) -> None:
    script = ""
    for index, line in enumerate(lines):
        if index:
            script += separators[index - 1]
        script += f"printf '%s\\0' L{index}" + _join(line)
    parsed = shell.parse(script)
    expected = _bash_words(script)
    if expected is None:
        assert parsed.problems
        return
    assert parsed.problems == ()
    assert len(parsed.commands) == len(lines)
    ours = [word for c in parsed.commands for word in c.words[2:]]
    assert ours == expected


_SOUP = st.lists(
    st.sampled_from(["a", "b", "|", "&&", "||", ";", "&", "(", ")", "\n", "'x'", '"y"', "{", "}",
                     "<f", ">g", "2>&1", "$(c)", "#z\n"]),
    min_size=1, max_size=8,
)


@needs_bash
@settings(max_examples=int(os.environ.get("TERSH_SHELL_EXAMPLES", "150")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_SOUP)
def test_no_problem_means_bash_accepts_the_syntax(tokens: list[str]) -> None:
    text = " ".join(tokens)
    if shell.parse(text).problems:
        return
    assert BASH is not None
    done = subprocess.run([BASH, "--norc", "-n", "-c", text], capture_output=True, timeout=20)
    assert done.returncode == 0, (text, done.stderr)


_ANY_SHELLISH = st.text(alphabet=st.sampled_from(list("ab $'\"\\`|&;()<>{}#\n\t=*!-")) | st.characters(),
                        max_size=60)


@settings(max_examples=400, deadline=None)
@given(_ANY_SHELLISH)
def test_the_lexer_never_raises(text: str) -> None:
    script = shell.parse(text)
    for command in script.commands:
        assert all(isinstance(word, str) for word in command.words)
        if command.first_span is not None:
            start, end = command.first_span
            assert 0 <= start <= end <= len(text)


@pytest.mark.parametrize("text", ["( a ) ( a )", "{ a; } ( b )", "a && (b) (c)", "((1)) (a)",
                                  "( a ) if true; then b; fi", "( a ) { b; }"])
def test_a_command_started_right_after_a_compound_one_is_a_problem(text: str) -> None:
    assert shell.parse(text).problems  # bash: syntax error near unexpected token


@pytest.mark.parametrize("text", ["if (a) then b; fi", "while false; do (a) done", "(a) && (b)",
                                  "(a) > f", "f() (a)"])
def test_what_may_follow_a_compound_command_is_no_problem(text: str) -> None:
    assert shell.parse(text).problems == ()
