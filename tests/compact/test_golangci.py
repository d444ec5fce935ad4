"""The golangci rule (golangci-lint, staticcheck, go vet, go build) on recorded output."""

from __future__ import annotations

from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import golangci as rule
from tests.compact import support


def _many() -> str:
    text = support.text_fixture("golangci", "golangci-v1")
    head, body = text.split("\n", 1)
    summary = "48 issues:\n* errcheck: 12\n* gofmt: 12\n* ineffassign: 12\n* unused: 12\n"
    return head + "\n" + body * 12 + summary


def test_quoted_source_goes_findings_stay(snapshot: SnapshotAssertion) -> None:
    outcome = support.run(rule, _many(), "golangci-lint run", 1)
    assert outcome.applied, outcome.refused
    text = outcome.text
    assert "internal/store/store.go (24)" in text
    assert "Error return value of `rows.Close` is not checked (errcheck)" in text
    assert "defer rows.Close()" not in text
    assert "level=warning" in text and "48 issues:" in text
    assert text == snapshot


def test_downloads_go_but_module_paths_stay() -> None:
    downloads = "".join(f"go: downloading github.com/acme/mod{i} v1.{i}.0\n" for i in range(30))
    text = downloads + "# example.com/app\n./main.go:5:2: undefined: foo\n"
    outcome = support.run(rule, text, "go build ./...", 1)
    assert outcome.applied, outcome.refused
    assert "./main.go:5:2: undefined: foo" in outcome.text
    assert "github.com/acme/mod29" in outcome.text and "go: downloading" not in outcome.text


def test_few_findings_stay_as_printed() -> None:
    outcome = support.check_text_fixture(rule, "golangci", "golangci-v1", "golangci-lint run", 1)
    assert not outcome.applied


def test_empty_input_and_registry() -> None:
    assert rule.compact("", detect.invocation("go vet ./...", 0)) is None
    assert rule_for_program(detect.invocation("go vet ./...", 1)) is rule
    assert rule_for_program(detect.invocation("golangci-lint run", 1)) is rule
    assert rule.sniff(_many()) >= 0.9
    assert rule.sniff("x\n") == 0.0
