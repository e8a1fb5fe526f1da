"""A fuzz finding's label is its cause (差異的條款): the clause of the mutant that explains it,
else the clause the reference's answer went through for the fields that differ (traced with
`went_through`, the clause functions the registry names), never the first clause a case cites
nor a field's clause from a table where the trace says otherwise."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from harness.conformance.judging.outputs import differing_paths, overlaps
from harness.conformance.oracles.fuzz.findings import (
    Checker,
    Finding,
    Found,
    _clauses_through,
    case_expected,
    explain,
)
from harness.engine import Engine, ReferenceEngine
from harness.interpreter.operations import run_operation
from harness.model.loader import load_variant
from harness.model.registry import reference_registry, went_through
from harness.model.ruleset import Ruleset
from tests.engines.planted import equal_beats
from tests.engines.pyengines import OtherDefault, StalePrevious


def _played(slug: str) -> Ruleset:
    ruleset = load_variant(slug)
    return ruleset.with_options({n: o.default for n, o in ruleset.options.items()})


def _finding(engine: Engine, operation: str, data: dict[str, Any], ruleset: Ruleset) -> Finding:
    checker = Checker(engine, ReferenceEngine(ruleset), (), (operation,))
    try:
        checker.check(operation, data)
    except Found as found:
        return found.finding
    raise AssertionError("the engine agreed with the reference")


# ---------------------------------------------------------------------------------------------
# The tracer and the differing fields


# Competition, level 9: the wild heart 9 with two pairs is a full house of K or of 5, and
# without a declaration it is the small one (否則只當小牌用).
FULL_HOUSE = {"cards": ["H9", "SK", "CK", "S5", "C5"], "level": "9"}


def test_an_answer_goes_through_the_clause_functions_in_call_order() -> None:
    """Classifying a full house with a wild card: the wild card is read (wild.suit) before the
    default reading is taken (wild.default); the hook is taken off afterwards."""
    ruleset = _played("competition")
    run_operation("classify", FULL_HOUSE, ruleset)  # the memos now hold this answer
    before = sys.getprofile()
    # A copy of the ruleset: no memo has seen it, so every clause function runs.
    unseen = dataclasses.replace(ruleset)
    answer, passages = went_through(lambda: run_operation("classify", FULL_HOUSE, unseen))
    assert sys.getprofile() is before
    assert answer["default"] == {"type": "full_house", "rank": "5", "size": 5}
    functions = [p.function.rsplit(".", 1)[-1] for p in passages]
    assert functions.index("rules_classification") < functions.index("default_reading")
    clauses = [c for p in passages for c in p.clauses]
    assert clauses.index("wild.suit") < clauses.index("wild.default")
    # Each function's clauses as it declares them, enclosed calls deeper.
    registry = reference_registry()
    for p in passages:
        assert all(
            p.function in {i.function for i in registry.implementations(c)} for c in p.clauses
        )
    assert min(p.depth for p in passages) == 0 and max(p.depth for p in passages) > 0


def test_the_fields_that_differ_are_told_place_by_place() -> None:
    """A replay one step short differs at that step's place, not as a whole list; a multiset
    at each element listed too few or too many times; a step inside a differing one meets it."""
    expected = {"steps": [{"legal": True, "next": 1}, {"legal": True, "next": 2}], "over": False}
    short = {"steps": [{"legal": True, "next": 1}], "over": False}
    assert differing_paths(expected, short) == {"steps[1]"}
    wrong = {"steps": [{"legal": False}, {"legal": True, "next": 2}], "over": False}
    assert differing_paths(expected, wrong) == {"steps[0].legal", "steps[0].next"}
    readings = {"readings": [{"type": "pair", "rank": "9", "size": 2}]}
    found = {"readings": [{"type": "pair", "rank": "9", "size": 2}] * 2}
    (path,) = differing_paths(readings, found)
    assert path.startswith("readings[+")
    assert overlaps("steps[1]", "steps[1].legal") and not overlaps("steps[1]", "steps[10]")


# ---------------------------------------------------------------------------------------------
# Labels


def test_another_default_reading_is_labelled_wild_default() -> None:
    """An engine that takes the full house of K by default when the wild card is laid first:
    only `default` differs. No value explains it (laid later, the engine takes the small one,
    which refutes "the highest by default"); the label is wild.default, the clause the default
    went through, not wild.suit (the first clause any mutant changes the answer of)."""
    ruleset = _played("competition")
    engine = OtherDefault(ruleset)
    finding = _finding(engine, "classify", FULL_HOUSE, ruleset)
    assert finding.kind == "default"
    laid_later = {"cards": ["SK", "CK", "H9", "S5", "C5"], "level": "9"}
    agreed = [
        (laid_later, case_expected("classify", run_operation("classify", laid_later, ruleset)))
    ]
    labelled = explain(finding, ruleset, (), engine, (), agreed, ("classify",))
    assert labelled.explained_by is None
    assert labelled.clause == "wild.default"
    assert labelled.clauses[0] == "wild.default"


# Level 2. Seat 0 leads a pair of 5s, seat 1 takes it with a pair of Ks, all pass; seat 1 leads
# a 3 and seat 2 follows with the level card 2 (above A: legal). The engine compares that
# follow with the stale pair of Ks, not with the lead, and refuses it.
STALE = {
    "hands": [["S5", "C5", "D9"], ["SK", "CK", "S3", "DT"], ["S2", "DJ"], ["DQ"]],
    "level": "2",
    "leader": 0,
    "actions": [
        {"seat": 0, "cards": ["S5", "C5"]},
        {"seat": 1, "cards": ["SK", "CK"]},
        {"seat": 2, "pass": True},
        {"seat": 3, "pass": True},
        {"seat": 0, "pass": True},
        {"seat": 1, "cards": ["S3"]},
        {"seat": 2, "cards": ["S2"]},
    ],
}


def test_a_follow_compared_with_the_wrong_play_is_labelled_by_the_comparison() -> None:
    """The engine refuses, naming no clause, a follow the reference allows: no value explains
    it (the engine ranks the level card above A everywhere else), and the label is the clause
    of the comparison the reference's legality went through for that step (the level card's
    place in the order), not flow.turn, the clause a table gives a step's `legal`."""
    ruleset = _played("huaian")
    engine = StalePrevious(ruleset)
    finding = _finding(engine, "replay", STALE, ruleset)
    assert finding.kind.startswith("steps:") and "legal" in finding.kind
    assert finding.expected["steps"][6]["legal"] is True
    labelled = explain(finding, ruleset, (), engine, (), (), ("replay",))
    assert labelled.explained_by is None
    assert labelled.clause == "ranks.level_card.position"
    # Gone through by the step that differs, in the function that compares plays.
    assert labelled.clause in _clauses_through(finding, ruleset)
    compares = {
        i.clause
        for i in reference_registry().all_implementations()
        if i.function.endswith("PlayRules.key")
    }
    assert labelled.clause in compares


def test_a_finding_a_mutant_explains_keeps_its_clause() -> None:
    """A planted mutant (an equal play beats, competition): the mutant explains it, and the
    label is its clause, first in the clauses."""
    ruleset = _played("competition")
    engine = equal_beats("competition", {}, ruleset)
    pair = {"type": "pair", "rank": "9", "size": 2}
    finding = _finding(engine, "beats", {"play": pair, "previous": pair, "level": "2"}, ruleset)
    labelled = explain(finding, ruleset, (), engine, (), (), ("beats",))
    assert labelled.explained_by == "compare.equal_beats = true"
    assert labelled.clause == "compare.equal_beats" == labelled.clauses[0]
