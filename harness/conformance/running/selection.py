"""Selecting the cases a run covers (選例): by id pattern, clause, variant and options, leaving
out the bundled cases that a variant of one's own makes wrong."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Any, NamedTuple

from harness.conformance.cases.case_loader import Case, derived_variant, derives
from harness.conformance.cases.variants import by_slug, is_bundled, is_bundled_case
from harness.conformance.judging.outcome import outcome
from harness.conformance.judging.outputs import compare_output
from harness.conformance.running.results import RunConfig
from harness.errors import HarnessError
from harness.model.ruleset import Ruleset


def _option_config(case: Case, ruleset: Ruleset) -> dict[str, Any]:
    """The options a case is written for, defaults filled in."""
    out = {name: opt.default for name, opt in ruleset.options.items()}
    for name, value in case.options.items():
        out[name] = ruleset.options[name].check(value) if name in ruleset.options else value
    return out


def _matches(case: Case, patterns: Sequence[str], clauses: Sequence[str]) -> bool:
    if patterns and not any(p in case.id or fnmatch.fnmatch(case.id, p) for p in patterns):
        return False
    if clauses:
        wanted = [c.rstrip(".") for c in clauses]
        if not any(c == w or c.startswith(w + ".") for c in case.clauses for w in wanted):
            return False
    return True


class Selected(NamedTuple):
    """One case to run: the case, the variant with the case's options chosen, those options."""

    case: Case
    ruleset: Ruleset
    options: dict[str, Any]

    @property
    def key(self) -> str:
        """`id[variant]`, as `CaseResult.key`."""
        return f"{self.case.id}[{self.ruleset.slug}]"


def select(config: RunConfig, cases: Sequence[Case]) -> list[Selected]:
    """The cases a run covers, variant by variant, each in corpus order."""
    return select_with_left_out(config, cases)[0]


def select_with_left_out(
    config: RunConfig, cases: Sequence[Case]
) -> tuple[list[Selected], list[str]]:
    """The cases a run covers, and the keys of the bundled cases left out for a variant that is
    not bundled because they rest on a clause value it changes.

    A bundled case states the clause values it is written for (`applies_when`), but it also
    rests on the values every bundled variant shares (the shapes, the core of play). For a
    variant of one's own that changes one of those, the reference interpreter, the
    specification, answers such a case otherwise: the case does not apply, and is left out
    (and reported), rather than failed.

    A case whose `applies_when` no bundled variant satisfies runs on each variant of the run
    (bundled or one's own) with those values set (`corpus.derived_variant`), where the loader
    accepts them; it is never left out: it names the very values it rests on.
    """
    chosen: list[Selected] = []
    left_out: list[str] = []
    # Whether a case runs on derived variants depends on the case alone: asked once for each.
    deriving: dict[int, bool] = {}
    for base in by_slug(config.variants).values():
        own = not is_bundled(base)
        run_options = {name: opt.default for name, opt in base.options.items()}
        for name, value in config.options.items():
            if name not in base.options:
                raise HarnessError(f"variant {base.slug!r} has no option {name!r}")
            run_options[name] = base.options[name].check(value)
        for index, case in enumerate(cases):
            if not _matches(case, config.patterns, config.clauses):
                continue
            if any(name not in base.options for name in case.options):
                continue
            # Left out without `derived` unless the variant plays the values itself.
            if index not in deriving:
                deriving[index] = config.derived and derives(case)
            derived = derived_variant(case, base) if deriving[index] else None
            played = base if derived is None else derived
            wanted = _option_config(case, played)
            if config.options and wanted != run_options:
                continue
            ruleset = played.with_options(wanted)
            if derived is not None:
                if case.values_hold(ruleset):
                    chosen.append(Selected(case, ruleset, wanted))
                continue
            if not case.applies_to(ruleset):
                continue
            item = Selected(case, ruleset, wanted)
            if own and is_bundled_case(case) and not _reference_agrees(item):
                left_out.append(item.key)
                continue
            chosen.append(item)
    return chosen, left_out


def _reference_agrees(item: Selected) -> bool:
    actual = outcome(item.case.operation, item.case.input, item.ruleset)
    return not compare_output(item.case.expected, actual)
