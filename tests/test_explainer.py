"""The one explainer (issue 22): a mutant explains disagreeing answers only if it answers them as
the engine did and the engine's other answers do not refute it; equal fits are given together;
what no mutant explains is "no clause value explains it". And the table of which clause families
an operation's answer can depend on holds on the corpus."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from harness.conformance.corpus import load_corpus
from harness.conformance.explainer import (
    FAMILIES,
    NO_CLAUSE,
    Answers,
    Evidence,
    Question,
    bears_on,
    case_question,
    explain,
)
from harness.conformance.mutation import applicable
from harness.model.loader import load_variant
from harness.model.mutants import Mutant, mutants
from harness.model.ruleset import Ruleset

A = Mutant("compare.equal_beats", True)
B = Mutant("sequences.wrap", True)
C = Mutant("flow.jiefeng", "next_active")
C2 = Mutant("flow.jiefeng", "next_seat")


class Canned(Answers):
    """The reference's answer under each mutant, as a table: question name -> mutant -> answer
    (a mutant not listed answers as expected)."""

    def __init__(self, table: Mapping[str, Mapping[Mutant, Any]]) -> None:
        super().__init__()
        self.table = table

    def of(self, q: Question, m: Mutant) -> dict[str, Any] | None:
        """The canned answer."""
        return dict(self.table.get(q.name, {}).get(m, q.expected))


@pytest.fixture(scope="module")
def ruleset() -> Ruleset:
    return load_variant("huaian")


def q(
    ruleset: Ruleset,
    name: str,
    answer: Any,
    clauses: tuple[str, ...] = (),
    operation: str = "beats",
) -> Question:
    """A question expecting `{"beats": False}`, answered `answer` (no operation answers so; the
    answers under mutants are canned)."""
    return Question(operation, {"n": name}, ruleset, {"beats": False}, answer, clauses, name)


YES, NO = {"beats": True}, {"beats": False}


def test_a_mutant_answering_as_the_engine_did_explains(ruleset: Ruleset) -> None:
    answers = Canned({"x": {A: YES}, "y": {A: YES}})
    found = explain([q(ruleset, "x", YES), q(ruleset, "y", YES)], [A, B], Evidence(), (), answers)
    assert [(v.mutants, v.questions) for v in found] == [((A,), (0, 1))]
    assert found[0].text() == "as if compare.equal_beats were true"


def test_a_mutant_the_engines_right_answers_refute_explains_nothing(ruleset: Ruleset) -> None:
    """A answers the failing question as the engine did, but on a question the engine got right
    A would be wrong: a coincidence, not an explanation."""
    answers = Canned({"x": {A: YES}, "right": {A: YES}})
    right = q(ruleset, "right", NO, ("compare.equal_beats",))
    found = explain([q(ruleset, "x", YES, ("bombs.ladder",))], [A], Evidence([right]), (), answers)
    assert [(v.mutants, v.questions, v.cited) for v in found] == [((), (0,), ("bombs.ladder",))]
    assert found[0].text() == f"{NO_CLAUSE} (cites bombs.ladder)"


def test_a_probe_may_refute(ruleset: Ruleset) -> None:
    answers = Canned({"x": {A: YES, B: YES}})
    probed: list[Mutant] = []

    def probe(m: Mutant) -> bool:
        probed.append(m)
        return m == A

    found = explain([q(ruleset, "x", YES)], [A, B], Evidence((), probe), (), answers)
    assert [v.mutants for v in found] == [(B,)]
    assert probed == [A, B]


def test_equal_fits_are_given_together_never_one_picked(ruleset: Ruleset) -> None:
    answers = Canned({"x": {A: YES, B: YES}})
    (found,) = explain([q(ruleset, "x", YES)], [A, B], Evidence(), (), answers)
    assert found.mutants == (A, B)
    assert found.text() == "as if compare.equal_beats were true, or sequences.wrap were true"


def test_the_mutant_explaining_most_goes_first_and_the_rest_stay(ruleset: Ruleset) -> None:
    """B explains three, A one of them and a fourth: B first, then A for what is left; the
    last, which nothing explains, is kept as unexplained."""
    answers = Canned({"w": {B: YES}, "x": {A: YES, B: YES}, "v": {B: YES}, "y": {A: YES}})
    questions = [q(ruleset, n, YES) for n in "wxvyz"]
    found = explain(questions, [A, B], Evidence(), (), answers)
    expected = [((B,), (0, 1, 2)), ((A,), (3,)), ((), (4,))]
    assert [(v.mutants, v.questions) for v in found] == expected


def test_one_value_per_clause(ruleset: Ruleset) -> None:
    """Two values of one clause cannot both be what the engine plays."""
    answers = Canned({"x": {C: YES}, "y": {C2: YES}})
    asked = [q(ruleset, n, YES, operation="replay") for n in "xy"]
    found = explain(asked, [C, C2], Evidence(), (), answers)
    assert [(v.mutants, v.questions) for v in found] == [((C,), (0,)), ((), (1,))]


def test_a_mutant_of_a_family_the_operation_does_not_rest_on_is_not_tried(
    ruleset: Ruleset,
) -> None:
    """flow.jiefeng cannot change a `beats` answer: even a canned answer saying so is not read."""
    answers = Canned({"x": {C: YES}})
    (found,) = explain([q(ruleset, "x", YES)], [C], Evidence(), (), answers)
    assert not found.explained


def test_an_engine_that_gave_no_answer_is_explained_by_nothing(ruleset: Ruleset) -> None:
    answers = Canned({"x": {A: YES}})
    (found,) = explain([q(ruleset, "x", None)], [A], Evidence(), (), answers)
    assert not found.explained


def test_answers_are_cached_by_content_not_by_question_object(ruleset: Ruleset) -> None:
    """Probes make questions and drop them: a new question at a reused address must not read
    another question's answer."""
    answers = Answers()
    one = Question("classify", {"cards": ["S3"], "level": "2"}, ruleset, {}, None)
    two = Question("classify", {"cards": ["S3", "D3"], "level": "2"}, ruleset, {}, None)
    first = answers.of(one, B)
    assert first is not None and answers.of(two, B) != first


# ---------------------------------------------------------------------------------------------
# The families an operation's answer depends on, against the corpus

CASES_PER_OPERATION = 8


@pytest.mark.parametrize("slug", ["huaian", "competition"])
def test_no_case_of_an_operation_depends_on_a_family_it_is_said_not_to(slug: str) -> None:
    """For each operation, one mutant of every clause outside its families, on some of its
    cases (those citing the most clauses first): the reference's answer never changes. A table
    that left out a family some answer rests on would turn explanations into 'no clause'."""
    ruleset = load_variant(slug)
    cases, problems = load_corpus([], bundled=True)
    assert not problems
    items = applicable(ruleset, cases)
    firsts: dict[str, Mutant] = {}
    for m in mutants(ruleset):
        firsts.setdefault(m.clause, m)
    answers = Answers()
    tried = 0
    for operation in FAMILIES:
        mine = [it for it in items if it.case.operation == operation]
        mine.sort(key=lambda it: (-len(it.case.clauses), it.case.id))
        assert mine, operation
        for m in firsts.values():
            if bears_on(m.clause, operation):
                continue
            for it in mine[:CASES_PER_OPERATION]:
                question = case_question(it)
                tried += 1
                assert not answers.kills(question, m), (
                    f"{it.case.id} ({operation}) changes under {m.clause} = "
                    f"{json.dumps(m.value)}: add the family to FAMILIES[{operation!r}]"
                )
    assert tried > 1000
