"""The fast engine on every mutant `guandan mutate` plays (issue 52): each one-clause mutant of
each bundled variant that the fast engine accepts gives, on the cases that apply to the
variant, the reference's answers under that mutant; a mutant it declines names its clause."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from harness.conformance.cases.case_loader import load_cases
from harness.conformance.judging.judge import Status, weigh
from harness.conformance.judging.outcome import outcome, refusal
from harness.conformance.judging.soundness import soundness
from harness.conformance.oracles.mutation import applicable
from harness.conformance.running.selection import Selected
from harness.engine.api import call
from harness.errors import EngineError, EngineErrorKind
from harness.kernel import build
from harness.model.loader import load_variant, variant_slugs
from harness.model.mutants import mutants, mutate

OPERATIONS = ("classify", "beats", "legal_plays", "legal_actions")
HAS_COMPILER = build._compiler() is not None and not build._switched_off()
pytestmark = pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: the fast engine is off")


def _items(slug: str) -> list[Selected]:
    cases, _ = load_cases()
    return [it for it in applicable(load_variant(slug), cases) if it.case.operation in OPERATIONS]


def _fast_answer(engine: Any, operation: str, data: Any) -> dict[str, Any]:
    try:
        return dict(call(engine, operation, data))
    except EngineError as exc:
        assert exc.kind is EngineErrorKind.INVALID_INPUT, exc
        return refusal()


def _representatives_free(answer: dict[str, Any]) -> dict[str, Any]:
    """A `legal_plays` answer without each play's cards: any cards of the hand that make the
    reading stand for it (the soundness check holds them to that), as the corpus's cases say."""
    if "plays" not in answer:
        return answer
    return {"plays": [{k: v for k, v in p.items() if k != "cards"} for p in answer["plays"]]}


def _check(slug: str, every_case: bool) -> tuple[int, int, int]:
    """Each mutant of `slug` on the fast engine against the reference under it, on the cases
    citing its clause (or, `every_case`, on those and every eighth other case as well: all of
    them take a minute a variant): the mutants played, declined, and the answers compared."""
    from harness.engine.fast.engine import FastEngine

    ruleset = load_variant(slug)
    items = _items(slug)
    played = declined = compared = 0
    for mutant in mutants(ruleset):
        chosen: Sequence[Selected] = [
            it
            for i, it in enumerate(items)
            if mutant.clause in it.case.clauses or (every_case and i % 8 == 0)
        ]
        engines: dict[int, Any] = {}
        for item in chosen:
            changed = mutate(item.ruleset, mutant.clause, mutant.value)
            if changed is None:
                continue
            engine = engines.get(id(item.ruleset))
            if engine is None:
                try:
                    engine = engines[id(item.ruleset)] = FastEngine(changed)
                except EngineError as exc:
                    # Declined, never answered wrongly: by name.
                    assert exc.kind is EngineErrorKind.UNSUPPORTED
                    assert "does not play" in str(exc) or "off" in str(exc), exc
                    declined += 1
                    break
            operation, data = item.case.operation, item.case.input
            expected = _representatives_free(outcome(operation, data, changed))
            found = _fast_answer(engine, operation, data)
            sound = soundness(operation, data, changed)
            judged = weigh(expected, found, sound=sound) if "refused" not in expected else None
            if judged is None:
                assert found == expected, (mutant, item.case.id, found)
            else:
                assert judged.status is Status.PASS, (mutant, item.case.id, judged.differences)
            compared += 1
        else:
            played += 1
    return played, declined, compared


@pytest.mark.parametrize("slug", variant_slugs())
def test_every_mutant_answers_the_cases_of_its_clause_as_the_reference(slug: str) -> None:
    played, _, compared = _check(slug, every_case=False)
    assert played > 20 and compared > 100, (played, compared)


@pytest.mark.slow
@pytest.mark.parametrize("slug", variant_slugs())
def test_every_mutant_answers_every_case_as_the_reference(slug: str) -> None:
    played, _, compared = _check(slug, every_case=True)
    assert played > 20 and compared > 5000, (played, compared)
