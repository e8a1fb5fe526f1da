"""The corpus covers every clause of every variant and tells every pair of variants apart."""

from __future__ import annotations

import dataclasses
import io
import itertools

import pytest

from harness.conformance.cases.case_loader import applicable_variants, compare_output, load_cases
from harness.conformance.cases.coverage import measure
from harness.errors import HarnessError
from harness.frontends.cli import main
from harness.interpreter.operations import run_operation
from harness.model.loader import load_variant, variant_slugs

CASES, _ = load_cases()


def test_at_least_600_cases() -> None:
    assert len(CASES) >= 600


def test_every_observable_clause_of_every_variant_is_checked_twice() -> None:
    report = measure(CASES)
    assert report.uncovered == []
    assert report.untold_clauses == []
    assert report.untold_pairs == []
    # Every clause value the loader accepts on some bundled variant is checked by two cases.
    assert report.values_missing == []
    assert report.ok
    # The few clauses no operation can observe are declared so in the ruleset.
    assert "timing.first_play_seconds" in report.unobservable
    assert "levels.up.double_down" not in report.unobservable


def test_coverage_names_the_code_that_applies_each_clause() -> None:
    """Each observable clause is applied by code the registry names, and cited by cases."""
    report = measure(CASES)
    assert report.cases_without_code == []
    assert report.code_without_cases == []
    assert "harness.interpreter.tribute.return_cards" in report.code["tribute.return.max_rank"]
    assert "harness.interpreter.match.settle" in report.code["levels.gain_at_final"]
    assert set(report.code) | set(report.informational) == set(load_variant("huaian").clauses)
    assert "timing.play_seconds" in report.informational


def test_a_case_citing_a_clause_no_code_applies_is_a_gap() -> None:
    """Citing a prose-only clause (a time limit) checks nothing the interpreter does."""
    stray = dataclasses.replace(CASES[0], id="stray", clauses=("timing.play_seconds",))
    report = measure([*CASES, stray])
    assert report.cases_without_code == ["timing.play_seconds"]
    assert not report.ok


def test_code_no_case_cites_is_a_gap() -> None:
    """Code that applies flow.own_cards with no case citing it is code nothing checks."""
    kept = [c for c in CASES if "flow.own_cards" not in c.clauses]
    report = measure(kept)
    assert report.code_without_cases == ["flow.own_cards"]
    assert not report.ok


def test_coverage_command_prints_the_functions() -> None:
    """`guandan coverage` shows, under each clause, the functions that apply it."""
    out = io.StringIO()
    main(["coverage"], out=out)
    text = out.getvalue()
    assert "applied by interpreter.tribute.return_cards" in text
    assert "timing.play_seconds  (prose only: " in text


@pytest.mark.parametrize(("a", "b"), list(itertools.permutations(variant_slugs(), 2)))
def test_mutual_discrimination(a: str, b: str) -> None:
    """The reference set up as variant a fails at least one case that applies to variant b."""
    for case in CASES:
        applies = applicable_variants(case)
        if b not in applies or a in applies:
            continue
        try:
            ruleset = case.ruleset_for(a)
        except HarnessError:
            ruleset = load_variant(a)
        try:
            actual = run_operation(case.operation, case.input, ruleset)
        except HarnessError:
            return
        if compare_output(case.expected, actual):
            return
    pytest.fail(f"no case of {b} fails on the reference set up as {a}")


def test_cases_check_and_coverage_commands_exit_0() -> None:
    out = io.StringIO()
    assert main(["cases", "check"], out=out) == 0
    assert out.getvalue().strip().endswith("cases valid")
    out = io.StringIO()
    complete = not measure(CASES).values_missing
    assert main(["coverage"], out=out) == (0 if complete else 1)
    assert out.getvalue().strip().endswith("coverage complete" if complete else "coverage has gaps")


def test_coverage_json_marks_cases_resting_on_assumptions() -> None:
    report = measure(CASES).to_json()
    assert report["ok"] is (not report["values_missing"])
    # tribute.lead.single is stated by competition and match-rules, assumed by huaian.
    flagged = report["assumed_cases"]
    assert any(
        "huaian" in variants and "competition" not in variants
        for case_id, variants in flagged.items()
        if case_id.startswith("tribute-")
    )
