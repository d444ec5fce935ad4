"""The cc rule (gcc, clang, make, cmake, ninja) on real builds."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import cc as rule
from tests.compact import support

FIXTURES = {  # name: (command, exit code, applied)
    "make-link-error": ("make", 2, True),
    "cmake-build-warning": ("cmake -S . -B build && cmake --build build", 0, True),
    "make-recursive": ("make", 0, True),
}


@pytest.mark.parametrize("name", FIXTURES)
def test_recorded_build(name: str, snapshot: SnapshotAssertion) -> None:
    cmd, exit_code, applied = FIXTURES[name]
    outcome = support.check_text_fixture(rule, "cc", name, cmd, exit_code)
    assert outcome.applied is applied, outcome.refused
    assert outcome.text == snapshot


def test_link_errors_and_make_failure_are_kept() -> None:
    text = support.check_text_fixture(rule, "cc", "make-link-error", "make", 2).text
    assert "undefined reference to `missing'" in text
    assert "collect2: error: ld returned 1 exit status" in text
    assert "make: *** [Makefile:3: app] Error 1" in text
    assert "util.c:2:42: warning: conversion from ‘double’ to ‘int’ may change value" in text
    assert "-c -o main.o" not in text
    assert "gcc -o app main.o util.o" in text  # the link command says what was built


def test_make_directory_lines_and_progress_go_but_paths_stay() -> None:
    text = support.check_text_fixture(rule, "cc", "make-recursive", "make", 0).text
    assert "Entering directory" not in text
    assert "main.c:9:5: warning: implicit declaration" in text
    assert "/home/dev/work/proj/lib" in text  # named only by a dropped line: listed in the note
    assert "parse.c" in text and "lex.c" in text


def test_output_that_is_not_a_build_is_left_to_the_sniffer() -> None:
    pytest_run = "\n".join(f"tests/test_a.py::test_{i} PASSED" for i in range(30))
    text = "cc -O2 -c -o a.o a.c\n" + pytest_run + "\n"
    assert rule.compact(text, detect.invocation("make check", 0)) is None


def test_empty_and_unrelated_input() -> None:
    inv = detect.invocation("make", 0)
    assert rule.compact("", inv) is None
    assert rule.compact("make: Nothing to be done for 'all'.\n", inv) is None


def test_a_lossy_variant_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rule.compact

    def lossy(text: str, inv: detect.Invocation) -> str | None:
        proposal = original(text, inv)
        return proposal and proposal.replace("collect2: error: ld returned 1 exit status\n", "")

    monkeypatch.setattr(rule, "compact", lossy)
    outcome = support.check_text_fixture(rule, "cc", "make-link-error", "make", 2)
    assert not outcome.applied
    assert outcome.refused and "missing" in outcome.refused


def test_registry_and_sniffer() -> None:
    assert rule_for_program(detect.invocation("make -j8 all", 0)) is rule
    assert rule_for_program(detect.invocation("cd build && ninja", 0)) is rule
    assert rule.sniff(support.text_fixture("cc", "make-link-error")) >= 0.6
    assert rule.sniff(support.case("build__make-cjson-werror").combined) >= 0.6
    assert rule.sniff("hello world\n") == 0.0
