"""The shell rewrite: when a command may run through ``tersh run -c``, and its exact quoting."""

from __future__ import annotations

import shlex
import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.hosts import shell_rewrite

TERSH = "/opt/bin/tersh"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")))
def test_wrap_hands_the_shell_exactly_the_original_text(command: str) -> None:
    words = shlex.split(shell_rewrite.wrap(command, TERSH))
    assert words == [TERSH, "run", "-c", command]


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF), max_size=40))
def test_bash_receives_the_original_text_byte_for_byte(text: str) -> None:
    original = f"printf '%s' {shlex.quote(text)}"
    # What `tersh run -c STRING` passes on to the shell is STRING: check bash sees it unchanged.
    wrapped = shell_rewrite.wrap(original, "printf '%s\\n'")
    shown = subprocess.run(["bash", "-c", wrapped], capture_output=True, text=True, check=True)
    assert shown.stdout == f"run\n-c\n{original}\n"


def test_plain_commands_are_wrapped() -> None:
    assert shell_rewrite.rewrite("pytest -q", TERSH) == f"{TERSH} run -c 'pytest -q'"
    assert shell_rewrite.rewrite("make 2>&1 | tail -5", TERSH) == (f"{TERSH} run -c 'make 2>&1 | tail -5'")


def test_bypass_marker_empty_and_already_wrapped_commands_run_unchanged() -> None:
    assert shell_rewrite.rewrite("pytest -q # no-opt", TERSH) is None
    assert shell_rewrite.rewrite("pytest -q   # no-opt  ", TERSH) is None
    assert shell_rewrite.rewrite("   ", TERSH) is None
    assert shell_rewrite.rewrite(f"{TERSH} run -c 'ls'", TERSH) is None
    assert shell_rewrite.rewrite("tersh run -- ls", TERSH) is None


def test_commands_that_change_the_hosts_shell_are_not_wrapped() -> None:
    for command in [
        "cd src",
        "cd src && pytest",
        "pytest; cd ..",
        "export FOO=1",
        "source .venv/bin/activate && pytest",
        ". ./env.sh",
        "pushd /tmp",
        "FOO=1 cd x",
    ]:
        assert shell_rewrite.rewrite(command, TERSH) is None, command


def test_words_inside_arguments_do_not_count_as_builtins() -> None:
    assert shell_rewrite.rewrite("grep -r 'cd ' src", TERSH) is not None
    assert shell_rewrite.rewrite("echo export", TERSH) is not None
    assert shell_rewrite.rewrite("FOO=1 pytest", TERSH) is not None


def test_command_words_sees_every_simple_command() -> None:
    words = shell_rewrite.command_words("A=1 make all && (cd x; ls) | wc -l || true")
    assert words == ["make", "cd", "ls", "wc", "true"]


# --- the hook path's hand-written matchers agree with the regular expressions they replace ---

import re as _re  # noqa: E402 - the oracles below only

from hypothesis import given as _given  # noqa: E402
from hypothesis import strategies as _st  # noqa: E402

from tersh.commands import hook as _hook  # noqa: E402
from tersh.hosts import shell_rewrite as _rewrite  # noqa: E402

_SEGMENTS = _re.compile(r"&&|\|\||[;&|\n(){}]")
_ASSIGNMENT = _re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_TOP_LEVEL = _re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\s*=\s*\S.*|\[[^\[\]]+\]\s*(?:#.*)?")
_ENABLED = _re.compile(r"enabled\s*=\s*(true|false)\s*(?:#.*)?")
_shellish = _st.text(alphabet="ab=_1 ;&|\n(){}'\"$", max_size=30)
_tomlish = _st.lists(_st.sampled_from(["enabled", "true", "false", "=", " ", "#", "[", "]", ".", "a",
                                        "-", "\t"]), max_size=12).map("".join)


def _oracle_words(command: str) -> list[str]:
    words = []
    for segment in _SEGMENTS.split(command):
        parts = segment.strip().split()
        while parts and _ASSIGNMENT.match(parts[0]):
            parts = parts[1:]
        if parts:
            words.append(parts[0].strip("'\""))
    return words


@_given(_shellish)
def test_command_words_agree_with_the_regex_split(command: str) -> None:
    assert _rewrite.command_words(command) == _oracle_words(command)


@_given(_tomlish)
def test_settings_line_checks_agree_with_the_regexes(line: str) -> None:
    line = line.strip()
    assert _hook._top_level_line(line) == bool(_TOP_LEVEL.fullmatch(line))
    found = _ENABLED.fullmatch(line)
    assert _hook._enabled_value(line) == (None if found is None else found.group(1) == "true")
