"""The cargo dependency-command rule: per-crate downloads and compiles go, outcome stays."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import cargo_deps as rule
from tests.compact import support

FIXTURES = support.fixtures_for(rule, "cargo_deps")


def test_build_and_test_commands_are_not_routed_here() -> None:
    assert rule_for_program(detect.invocation("cargo install ripgrep", 0)) is rule
    for command in ("cargo build", "cargo test", "cargo check"):
        assert rule_for_program(detect.invocation(command, 0)) is not rule


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_recorded_mode(fixture: support.Fixture, snapshot: SnapshotAssertion) -> None:
    floor = 0.6 if fixture.name == "install-ripgrep" else 0.0
    assert support.check_fixture(rule, fixture, floor) == snapshot


def test_install_keeps_totals_and_the_installed_binary() -> None:
    text = support.outcome_text(rule, next(f for f in FIXTURES if f.name == "install-ripgrep"))
    assert "  Downloaded 26 crates (3.1 MB) in 1.06s" in text
    assert "   Installed package `ripgrep v14.1.1` (executable `rg`)" in text
    assert "warning: be sure to add `/root/.cargo/bin` to your PATH" in text
    assert "Compiling" not in text and "Downloaded memchr" not in text


def test_failures_and_updates_pass_unchanged() -> None:
    for name in ("fetch-offline", "update"):
        fixture = next(f for f in FIXTURES if f.name == name)
        assert support.outcome_text(rule, fixture) == support.clean(fixture.text)
    assert rule.compact("", detect.invocation("cargo fetch", 0)) is None


def test_sniff() -> None:
    install = next(f for f in FIXTURES if f.name == "install-ripgrep")
    assert rule.sniff(support.clean(install.text)) >= 0.9
    assert support.foreign_sniffs(rule, set()) == {}
