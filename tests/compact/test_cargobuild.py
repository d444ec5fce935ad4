"""The cargobuild rule (cargo build/check/clippy, rustc) on real Rust builds."""

from __future__ import annotations

from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import cargobuild as rule
from tests.compact import support


def test_recorded_errors(snapshot: SnapshotAssertion) -> None:
    outcome = support.check_text_fixture(rule, "cargobuild", "cargo-build-errors", "cargo build", 101)
    assert outcome.applied, outcome.refused
    text = outcome.text
    assert "error[E0308]: mismatched types" in text
    assert " --> src/main.rs:3:9" in text
    assert "| expected `u32`, found `u64`" in text  # the label under the carets stays
    assert "= help: the trait `Add<u64>` is not implemented for `u32`" in text
    assert "Compiling demo" not in text and "/home/dev/work/rs/demo" in text
    assert "|     a + b" not in text
    assert text == snapshot


def test_repeated_diagnostics_merge_into_the_first(snapshot: SnapshotAssertion) -> None:
    """11 functions with the same three mistakes (cargo build, 44 errors)."""
    outcome = support.check_text_fixture(rule, "cargobuild", "cargo-repeated-errors", "cargo build", 101)
    assert outcome.applied, outcome.refused
    text = outcome.text
    assert text.count("error[E0308]: mismatched types") == 3  # three different messages
    assert text.count("error[E0277]: cannot add `usize` to `u32`") == 1
    assert "[tersh] same diagnostic also at: src/lib.rs:12:18 src/lib.rs:18:18 " in text
    assert "error: could not compile `demo` (lib) due to 44 previous errors; 2 warnings emitted" in text
    assert "40 repeated diagnostics" in text
    assert support.token_saving(support.text_fixture("cargobuild", "cargo-repeated-errors"), text) >= 0.8
    assert text == snapshot


def test_blocks_that_differ_beyond_their_place_stay_apart() -> None:
    block = "error[E0308]: mismatched types\n --> src/a.rs:{n}:5\n  | expected `u32`, found `{t}`\n\n"
    text = "".join(block.format(n=n, t="u64" if n % 2 else "i8") for n in range(1, 30))
    outcome = support.run(rule, text + "error: could not compile `a`\n", "cargo build", 101)
    assert outcome.applied, outcome.refused
    assert outcome.text.count("error[E0308]") == 2
    assert "also at: src/a.rs:3:5 src/a.rs:5:5" in outcome.text


def test_short_format_many_diagnostics_are_grouped(snapshot: SnapshotAssertion) -> None:
    cmd = "cargo build --message-format short"
    outcome = support.check_text_fixture(rule, "cargobuild", "cargo-short-many", cmd, 101)
    assert outcome.applied, outcome.refused
    assert outcome.text.startswith("src/lib.rs (46)\n")
    assert "error: could not compile `demo` (lib) due to 44 previous errors" in outcome.text
    assert outcome.text == snapshot


def test_clippy_help_links_once_and_same_fixes_merged(snapshot: SnapshotAssertion) -> None:
    """cargo clippy on 5 functions with the same 6 lints (31 warnings)."""
    outcome = support.check_text_fixture(rule, "cargobuild", "clippy-repeated-lints", "cargo clippy", 0)
    assert outcome.applied, outcome.refused
    text = outcome.text
    link = "= help: for further information visit https://rust-lang.github.io/rust-clippy/"
    assert text.count(f"{link}rust-1.95.0/index.html#needless_return") == 1
    assert "[tersh] same diagnostic also at: src/lib.rs:24:5 src/lib.rs:32:5" in text  # 16 - / 24 - …
    assert "warning: `demo` (lib) generated 31 warnings" in text
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
