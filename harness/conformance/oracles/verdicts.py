"""`check`'s failures explained (失敗判定): the one explainer (`explainer.explain`) run over a
finished run, the cases the engine passes its evidence, so that failures are grouped by cause
(the clause values that explain them, or "no clause value explains it") rather than by the first
clause a case cites.

Only reference-side work: the engine is not asked again. A variant derived for some cases
(`huaian[flow.pass=when_unable]`) is explained together with its base. At most `LIMIT` failing
cases a variant and its derived ones are explained: the variant's own first, then the derived
ones', each in corpus order; the others (how many, `Explained.left`), and every failure that is
not a wrong answer (an error, a timeout), keep the deciding clause the case gives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.conformance.cases.case_loader import Case, derived_variant
from harness.conformance.explaining.explainer import (
    Answers,
    Evidence,
    Question,
    explain,
    shown,
    telling,
)
from harness.conformance.judging.judge import PASSED, Status
from harness.conformance.oracles.mutation import load_equivalences
from harness.conformance.reporting.run_reports import bundled_cases_by_id
from harness.conformance.running.results import CaseResult, RunResult
from harness.model.derived import base_name, is_derived
from harness.model.mutants import Mutant, mutants, mutate, plain
from harness.model.ruleset import Ruleset
from harness.wording import counted

LIMIT = 200
"""Failing cases explained at most per variant and the variants derived from it (each costs a
reference run per mutant)."""


@dataclass(frozen=True)
class Explained:
    """A run's failures explained: the verdict of each failing case explained, by result key,
    and how many failing cases were left without one for lack of budget (`LIMIT` a family)."""

    verdicts: Mapping[str, dict[str, Any]]
    left: int = 0


def explain_run(run: RunResult, progress: Callable[[str], None] | None = None) -> Explained:
    """The verdict of each failing case of the run that can be explained, by result key, the
    variant asked for served before those derived from it."""
    if not any(r.status is Status.FAIL and r.actual is not None for r in run.results):
        return Explained({})  # nothing answered wrongly: nothing to explain
    cases: Mapping[str, Case] = run.cases or bundled_cases_by_id()
    rulesets = {r.slug: r for r in run.config.variants}
    for result in run.results:
        if result.variant not in rulesets and result.id in cases:
            derived = _derived(result, cases[result.id], rulesets)
            if derived is not None:
                rulesets[derived.slug] = derived
    not_modelled = tuple(sorted({f for r in run.results for f in r.omitted}))
    equivalences = load_equivalences()
    out: dict[str, dict[str, Any]] = {}
    left = 0
    for base, family in _families(rulesets).items():
        # A derived variant's failures are explained with its base's: one clause value may
        # explain failures on both, and the base's passing cases refute or keep the same values.
        mine = [r for r in run.results if r.variant in family and r.id in cases]
        wrong = [r for r in mine if r.status is Status.FAIL and r.actual is not None]
        # The rules asked for first: they are what the run is about (a derived variant sets
        # values the engine never claimed), and derived cases come early in corpus order.
        wrong.sort(key=lambda r: is_derived(family[r.variant]))
        failing = wrong[:LIMIT]
        left += len(wrong) - len(failing)
        if not failing:
            continue
        passing = [r for r in mine if r.status in PASSED]
        candidates: dict[tuple[str, str], Mutant] = {}
        # Each rule set failed on gives its mutants (a derived one's values may be no base's),
        # and a derived one also each clause it changed set back to the base's own value: an
        # engine playing the base's value there is one step from the base, not from it.
        for ruleset in {r.variant: family[r.variant] for r in failing}.values():
            defaults = ruleset.with_options({n: o.default for n, o in ruleset.options.items()})
            for m in mutants(defaults):
                if not any(e.covers(defaults, m) for e in equivalences):
                    candidates.setdefault((m.clause, shown(m.value)), m)
            for m in _back_to_base(defaults, family.get(base)):
                candidates[m.clause, shown(m.value)] = m
        told = telling(progress, f"explaining {counted(len(failing), 'failure')} on {base}")
        asked = [_question(r, cases[r.id], family[r.variant]) for r in failing]
        agreeing = [_question(r, cases[r.id], family[r.variant]) for r in passing]
        verdicts = explain(
            asked, candidates.values(), Evidence(agreeing), not_modelled, Answers(), told
        )
        for found in verdicts:
            for j in found.questions:
                out[failing[j].key] = found.to_json()
    return Explained(out, left)


def _back_to_base(derived: Ruleset, base: Ruleset | None) -> list[Mutant]:
    """For each clause a derived variant changed, the mutant setting it back to its base's own
    value (those the loader accepts beside the derived variant's other values); none for a
    variant derived from nothing."""
    if base is None or not is_derived(derived):
        return []
    base = base.with_options(dict(derived.chosen))  # the same choices, the same values they set
    own = [(c, plain(base.value(c))) for c in derived.clauses if c in base.clauses]
    return [
        Mutant(clause, value, base.slug)
        for clause, value in own
        if plain(derived.value(clause)) != value and mutate(derived, clause, value) is not None
    ]


def _families(rulesets: Mapping[str, Ruleset]) -> dict[str, dict[str, Ruleset]]:
    """The rule sets by the variant each is derived from (`huaian[flow.pass=...]` under
    `huaian`), the base first."""
    families: dict[str, dict[str, Ruleset]] = {}
    for slug, ruleset in sorted(rulesets.items(), key=lambda item: "[" in item[0]):
        families.setdefault(base_name(slug), {})[slug] = ruleset
    return families


def _derived(result: CaseResult, case: Case, rulesets: Mapping[str, Ruleset]) -> Ruleset | None:
    """The derived variant a result was judged on (`huaian[flow.pass=when_unable]`), rebuilt
    from its base, so that its failures are explained like any variant's."""
    base = rulesets.get(base_name(result.variant))
    derived = None if base is None else derived_variant(case, base)
    return derived if derived is not None and derived.slug == result.variant else None


def _question(result: CaseResult, case: Case, ruleset: Ruleset) -> Question:
    played = ruleset.with_options(dict(result.options)) if result.options else ruleset
    return Question(
        case.operation, case.input, played, case.expected, result.actual, case.clauses, result.key
    )
