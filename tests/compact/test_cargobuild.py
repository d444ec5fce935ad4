"""The cargobuild rule (cargo build/check/clippy, rustc) on real Rust builds."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compact import cargobuild as rule
from tersh.compact import detect, rule_for_program
from tests.compact import buildlint_support as support

CASES = {
    "build__cargo-build-ripgrep-offline": (False, 0.0),
    "build__cargo-build-semver-errors": (True, 0.1),
    "build__cargo-build-semver-warnings": (True, 0.05),
}


@pytest.mark.parametrize("name", CASES)
def test_corpus_case(name: str, snapshot: SnapshotAssertion) -> None:
    applied, floor = CASES[name]
    assert support.check_case(rule, name, floor, applied) == snapshot


def test_recorded_errors(snapshot: SnapshotAssertion) -> None:
    outcome = support.check_fixture(rule, "cargobuild", "cargo-build-errors", "cargo build", 101)
    assert outcome.applied, outcome.refused
    text = outcome.text
    assert "error[E0308]: mismatched types" in text
    assert " --> src/main.rs:3:9" in text
    assert "| expected `u32`, found `u64`" in text  # the label under the carets stays
    assert "= help: the trait `Add<u64>` is not implemented for `u32`" in text
    assert "Compiling demo" not in text and "/home/dev/work/rs/demo" in text
    assert "|     a + b" not in text
    assert text == snapshot


def test_program_output_is_not_touched() -> None:
    program = "\n".join(f"row {i}: value={i * 3}" for i in range(40))
    head = "   Compiling demo v0.1.0\n    Finished `dev` profile\n     Running `target/debug/demo`\n"
    text = head + program
    assert rule.compact(text, detect.invocation("cargo run", 0)) is None


def test_empty_input() -> None:
    assert rule.compact("", detect.invocation("cargo build", 0)) is None


def test_registry_and_sniffer() -> None:
    assert rule_for_program(detect.invocation("cargo clippy --all-targets", 101)) is rule
    assert rule_for_program(detect.invocation("cargo check", 0)) is rule
    assert rule.sniff(support.case("build__cargo-build-semver-errors").combined) >= 0.9
    assert rule.sniff("all good\n") == 0.0
