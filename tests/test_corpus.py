"""The whole corpus against the reference interpreter: one test per case and variant."""

from __future__ import annotations

import pytest

from harness.conformance.cases.case_loader import (
    Case,
    check_cases,
    compare_output,
    load_cases,
    run_variants,
)
from harness.conformance.judging.judge import judge
from harness.engine.reference import ReferenceEngine
from harness.model.ruleset import Ruleset

CASES, PROBLEMS = load_cases()
# A case on a value no bundled variant plays runs on the variants derived with it.
PAIRS = [(case, ruleset) for case in CASES for ruleset in run_variants(case)]


def test_the_corpus_loads_and_checks_clean() -> None:
    assert not PROBLEMS, "\n".join(str(p) for p in PROBLEMS)
    problems = check_cases(CASES)
    assert not problems, "\n".join(str(p) for p in problems)


@pytest.mark.parametrize(
    ("case", "ruleset"), PAIRS, ids=[f"{case.id}[{ruleset.slug}]" for case, ruleset in PAIRS]
)
def test_case(case: Case, ruleset: Ruleset) -> None:
    """The reference engine passes the case by the one judge: its answer is the expected
    output, or, for an impossible input, it refuses it (`invalid_input`)."""
    engine = ReferenceEngine(ruleset)
    found = judge(case.expected, lambda: engine.answer(case.operation, case.input))
    where = f"{case.location} {case.id} [{ruleset.slug}]: "
    assert found.agrees, where + found.message
    if not case.expects_refusal:
        assert not compare_output(case.expected, found.actual)
