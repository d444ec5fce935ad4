"""The one rule kit: every kit and rule shares core's plural, finish, fact predicate, minimum
saving (from settings) and the verifier's severity words."""

from __future__ import annotations

import itertools
from types import ModuleType

import pytest

from tersh import settings
from tersh.compaction import preview
from tersh.compaction.kit import core, diag, omit, testrun
from tersh.compaction.verify import holds
from tests.corpus import cases

FLOOR_BYTES = settings.MIN_SAVED_TOKENS * core.BYTES_PER_TOKEN


@pytest.mark.parametrize("module", [diag, omit, testrun])
def test_kits_share_the_core(module: ModuleType) -> None:
    for name in ("MARK", "CHUNK_CHARS", "plural", "finish", "carries_fact"):
        assert getattr(module, name, getattr(core, name)) is getattr(core, name), name
    own = [name for name in vars(module) if name.startswith("MIN_")]
    assert all(vars(module)[name] is getattr(settings, name, None) for name in own), own


def test_finish_needs_the_minimum_saving_from_settings() -> None:
    source = "x" * 9_999 + "\n"  # 10,000 bytes: the share is 1,000 of them
    need = int(settings.MIN_SAVED_SHARE * len(source))
    assert core.finish(source, ["x" * (len(source) - need - 1)]) is not None
    assert core.finish(source, ["x" * (len(source) - need)]) is None
    small = "y" * (FLOOR_BYTES * 2) + "\n"
    assert core.finish(small, ["y" * (FLOOR_BYTES - 1)]) is not None
    assert core.finish(small, ["y" * (FLOOR_BYTES + 1)]) is None
    # Padding is cheap in tokens: the same bytes saved must be more.
    assert core.finish(small, ["y" * (FLOOR_BYTES - 1)], core.PADDING_BYTES_PER_TOKEN) is None


def test_the_pipeline_floor_defaults_to_the_same_share() -> None:
    assert settings.DEFAULTS["tools.min_saving"] == settings.MIN_SAVED_SHARE


def test_plural() -> None:
    assert core.plural(1, "line") == "1 line"
    assert core.plural(1204, "line") == "1,204 lines"
    assert core.plural(2, "dependency") == "2 dependencies"
    assert core.plural(2, "key") == "2 keys"


def test_every_diagnostic_holds_a_severity_word() -> None:
    """The one list of severity words finds every line the verifier calls a diagnostic."""
    assert preview.SEVERITY_WORDS is holds.SEVERITY_WORDS
    lines = itertools.chain.from_iterable(case.combined.splitlines() for case in cases())
    checked = 0
    for line in lines:
        if line.isascii() and holds.is_diagnostic(line) and not next(holds.iter_locations(line), None):
            checked += 1
            assert any(word in line.lower() for word in holds.SEVERITY_WORDS), line
            assert core.MAYBE_SEVERITY.search(line.lower())
    assert checked or not cases()


@pytest.mark.parametrize(
    ("line", "paths", "expected"),
    [
        ("src/app.py:12:3: E501 line too long", False, True),
        ("error: could not compile", False, True),
        ("HEAD is now at 1a2b3c4d fix", False, True),
        ("Collecting requests", False, False),
        ("  src/app.py", False, False),
        ("  src/app.py", True, True),
    ],
)
def test_one_fact_predicate(line: str, paths: bool, expected: bool) -> None:
    assert core.carries_fact(line, paths=paths) is expected


def test_rules_define_no_saving_floor_of_their_own() -> None:
    from tersh import compaction
    from tersh.compaction._mapping import RULES

    for name in RULES:
        rule = vars(compaction.load_rule(name))
        own = [key for key in rule if key.startswith("MIN_SAVED") or key.startswith("MIN_SQUEEZED")]
        assert own == [], name
