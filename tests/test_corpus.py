"""The whole corpus against the reference interpreter: one test per case and variant."""

from __future__ import annotations

import pytest

from harness.conformance.corpus import (
    Case,
    applicable_variants,
    check_cases,
    compare_output,
    load_cases,
)
from harness.conformance.judge import judge
from harness.engine.reference import ReferenceEngine

CASES, PROBLEMS = load_cases()
PAIRS = [(case, slug) for case in CASES for slug in applicable_variants(case)]


def test_the_corpus_loads_and_checks_clean() -> None:
    assert not PROBLEMS, "\n".join(str(p) for p in PROBLEMS)
    problems = check_cases(CASES)
    assert not problems, "\n".join(str(p) for p in problems)


@pytest.mark.parametrize(
    ("case", "slug"), PAIRS, ids=[f"{case.id}[{slug}]" for case, slug in PAIRS]
)
def test_case(case: Case, slug: str) -> None:
    """The reference engine passes the case by the one judge: its answer is the expected
    output, or, for an impossible input, it refuses it (`invalid_input`)."""
    engine = ReferenceEngine(case.ruleset_for(slug))
    found = judge(case.expected, lambda: engine.answer(case.operation, case.input))
    assert found.agrees, f"{case.location} {case.id} [{slug}]: {found.message}"
    if not case.expects_refusal:
        assert not compare_output(case.expected, found.actual)
