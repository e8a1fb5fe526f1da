"""Corpus coverage (覆蓋): which clauses of which variants the cases check, which code applies
each clause (from the clause registry), and which pairs of variants some case tells apart.

Each observable clause's value classes that the interpreter implements (`value_classes`) are
counted too: a case counts for a class when it cites the clause and runs on a variant (bundled,
or derived with its `applies_when` values set) whose value falls in the class. A class with
fewer than `minimum` cases is a gap.

A clause cited by cases but applied by no code, or applied by code that no case checks, is a gap:
either a case checks nothing the interpreter does, or code runs that nothing checks.

A case tells variant A from variant B when it applies to B and the reference interpreter, set up
as A, does not give its expected output; every ordered pair must be told apart. A clause whose
value differs between A and B is shown when a case that checks it tells them apart (either way).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.conformance.cases.case_loader import (
    Case,
    applicable_variants,
    compare_output,
    run_variants,
)
from harness.conformance.cases.variants import by_slug
from harness.conformance.judging.outcome import outcome
from harness.errors import HarnessError
from harness.model.loader import bundled_variants
from harness.model.registry import reference_registry
from harness.model.ruleset import Ruleset
from harness.model.value_classes import classes_of, value_classes


@dataclass
class Coverage:
    """Counts per clause and variant, and the gaps: unchecked clauses, untold pairs."""

    variants: list[str]
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    unobservable: list[str] = field(default_factory=list)
    uncovered: list[tuple[str, str, int]] = field(default_factory=list)
    untold_clauses: list[tuple[str, str, str]] = field(default_factory=list)
    untold_pairs: list[tuple[str, str]] = field(default_factory=list)
    assumed_cases: dict[str, list[str]] = field(default_factory=dict)
    minimum: int = 2
    code: dict[str, list[str]] = field(default_factory=dict)
    informational: dict[str, str] = field(default_factory=dict)
    cases_without_code: list[str] = field(default_factory=list)
    code_without_cases: list[str] = field(default_factory=list)
    values: dict[str, dict[str, int]] = field(default_factory=dict)
    values_missing: list[tuple[str, int]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether there is no gap."""
        return not (
            self.uncovered
            or self.untold_clauses
            or self.untold_pairs
            or self.cases_without_code
            or self.code_without_cases
            or self.values_missing
        )

    def to_json(self) -> dict[str, Any]:
        """The coverage as JSON."""
        return {
            "variants": self.variants,
            "minimum": self.minimum,
            "counts": self.counts,
            "unobservable": self.unobservable,
            "uncovered": [{"clause": c, "variant": v, "cases": n} for c, v, n in self.uncovered],
            "untold_clauses": [{"clause": c, "a": a, "b": b} for c, a, b in self.untold_clauses],
            "untold_pairs": [{"a": a, "b": b} for a, b in self.untold_pairs],
            "assumed_cases": self.assumed_cases,
            "code": self.code,
            "informational": self.informational,
            "cases_without_code": self.cases_without_code,
            "code_without_cases": self.code_without_cases,
            "values": self.values,
            "values_missing": [{"class": c, "cases": n} for c, n in self.values_missing],
            "ok": self.ok,
        }


def _outcome_differs(case: Case, ruleset: Ruleset) -> bool:
    """Whether the reference, set up as `ruleset`, misses the case's expected output."""
    return bool(compare_output(case.expected, outcome(case.operation, case.input, ruleset)))


def _setup(case: Case, ruleset: Ruleset) -> Ruleset:
    try:
        return case.ruleset_for(ruleset)
    except HarnessError:
        return ruleset


def measure(
    cases: Sequence[Case], minimum: int = 2, variants: Sequence[Ruleset] | None = None
) -> Coverage:
    """The coverage of `cases` over `variants` (default: the bundled ones)."""
    rulesets = by_slug(bundled_variants() if variants is None else variants)
    slugs = list(rulesets)
    result = Coverage(slugs, minimum=minimum)
    matrix = list(rulesets.values())
    applies = {case.id: applicable_variants(case, matrix) for case in cases}
    any_ruleset = rulesets[slugs[0]]
    cited = {clause_id for case in cases for clause_id in case.clauses}
    for clause_id in any_ruleset.clauses:
        functions = [i.function for i in reference_registry().implementations(clause_id)]
        reason = reference_registry().informational_reason(clause_id)
        if functions:
            result.code[clause_id] = functions
        if reason is not None:
            result.informational[clause_id] = reason
        if clause_id in cited and not functions:
            result.cases_without_code.append(clause_id)
        observable = all(rulesets[s].clause(clause_id).observable for s in slugs)
        if functions and observable and clause_id not in cited:
            result.code_without_cases.append(clause_id)
    for clause_id in any_ruleset.clauses:
        if not all(rulesets[s].clause(clause_id).observable for s in slugs):
            result.unobservable.append(clause_id)
            continue
        row = {s: 0 for s in slugs}
        for case in cases:
            if clause_id in case.clauses:
                for slug in applies[case.id]:
                    row[slug] += 1
        result.counts[clause_id] = row
        result.uncovered.extend((clause_id, s, n) for s, n in row.items() if n < minimum)

    _count_values(result, cases, matrix)

    told: set[tuple[str, str]] = set()
    shown: set[tuple[str, str, str]] = set()
    for case in cases:
        for a, b in itertools.permutations(slugs, 2):
            only_b = b in applies[case.id] and a not in applies[case.id]
            if only_b and _outcome_differs(case, _setup(case, rulesets[a])):
                told.add((a, b))
                for clause_id in case.clauses:
                    shown.add((clause_id, a, b))
        for slug in applies[case.id]:
            assumed = case.assumed_clauses(rulesets[slug])
            if assumed:
                result.assumed_cases.setdefault(case.id, []).append(slug)
    # Ordered: the reference set up as `a` must fail some case that applies to `b`.
    result.untold_pairs.extend(p for p in itertools.permutations(slugs, 2) if p not in told)
    for a, b in itertools.combinations(slugs, 2):
        for clause_id in any_ruleset.clauses:
            if clause_id in result.unobservable:
                continue
            if rulesets[a].value(clause_id) == rulesets[b].value(clause_id):
                continue
            if (clause_id, a, b) not in shown and (clause_id, b, a) not in shown:
                result.untold_clauses.append((clause_id, a, b))
    return result


def _count_values(result: Coverage, cases: Sequence[Case], matrix: Sequence[Ruleset]) -> None:
    """Count the cases of each implemented value class of each observable clause."""
    counts = {
        clause_id: {c.name: 0 for c in value_classes(clause_id)} for clause_id in result.counts
    }
    for case in cases:
        played = run_variants(case, matrix)
        for clause_id in case.clauses:
            row = counts.get(clause_id)
            if row is None:
                continue
            names = {c.name for r in played for c in classes_of(clause_id, r.value(clause_id))}
            for name in names:
                row[name] += 1
    result.values = {clause_id: row for clause_id, row in counts.items() if row}
    result.values_missing = [
        (name, n) for row in result.values.values() for name, n in row.items() if n < result.minimum
    ]
