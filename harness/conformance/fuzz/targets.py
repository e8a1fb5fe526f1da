"""What `guandan fuzz` asks (模糊測試的目標): one target per operation, and whole matches.

A target draws an input with the strategies of `harness.strategies` and puts it to the engine
and the reference through a `Checker`, which raises `Found` when they disagree. `match` plays
many rounds, tribute between them: each round's tribute, replay and settlement (and score, where
the variant scores) are compared as they come, the match going on from the reference's answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from harness import strategies as gen
from harness.conformance.fuzz.findings import Checker
from harness.interpreter.match import MatchState, new_match
from harness.interpreter.readings import play_rules
from harness.interpreter.round import PassAction, PlayAction, start_round
from harness.interpreter.tribute import AntiTribute, apply_tribute, plan_tribute, return_cards
from harness.model.cards import Card, Rank
from harness.model.ruleset import Ruleset
from harness.model.seats import Finish

Json = dict[str, Any]
Draw = Callable[[st.SearchStrategy[Any]], Any]


@dataclass(frozen=True)
class Target:
    """A fuzz target: its name, the operations it asks, its share of the budget, and how it
    explores (draws inputs and checks the answers)."""

    name: str
    operations: tuple[str, ...]
    weight: float
    explore: Callable[[Draw, Checker, Ruleset], None]
    description: str


def _classify_input(ruleset: Ruleset) -> st.SearchStrategy[Json]:
    return gen.levels().flatmap(
        lambda lv: gen.card_sets(lv).map(
            lambda cards: {"cards": gen.codes(cards), "level": lv.value}
        )
    )


@st.composite
def _beats_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    level = draw(gen.levels())
    play = draw(gen.readings(ruleset, level))
    previous = draw(st.one_of(gen.readings(ruleset, level), st.just(play)))
    return {"play": play, "previous": previous, "level": level.value}


@st.composite
def _legal_plays_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    level = draw(gen.levels())
    hand = draw(gen.hands(level, 1, 27))
    previous = draw(st.one_of(st.none(), gen.readings(ruleset, level)))
    data: Json = {"hand": gen.codes(hand), "level": level.value}
    if previous is not None:
        data["previous"] = previous
    return data


@st.composite
def _tribute_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    level = draw(gen.levels())
    hands = draw(gen.deals(level))
    finish = draw(gen.finishes())
    return {"finish": finish, "hands": [gen.codes(h) for h in hands], "level": level.value}


@st.composite
def _settle_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    return {"state": draw(gen.match_states(ruleset)), "finish": draw(gen.finishes())}


INPUTS: dict[str, Callable[[Ruleset], st.SearchStrategy[Json]]] = {
    "classify": _classify_input,
    "beats": _beats_input,
    "legal_plays": _legal_plays_input,
    "tribute": _tribute_input,
    "settle": _settle_input,
    "replay": gen.rounds,
    "score": gen.score_inputs,
}
"""The inputs drawn for each operation, as a strategy of the variant."""


def _one(operation: str) -> Callable[[Draw, Checker, Ruleset], None]:
    """A target that asks `operation` on one drawn input."""

    def explore(draw: Draw, checker: Checker, ruleset: Ruleset) -> None:
        checker.check(operation, draw(INPUTS[operation](ruleset)))

    return explore


def _match(draw: Draw, checker: Checker, ruleset: Ruleset) -> None:
    """Rounds of one match: deal, tribute (from the second round), play, settle, score."""
    state: MatchState = new_match(ruleset)
    previous: list[int] | None = None
    for _ in range(draw(st.integers(1, 12))):
        level = state.level
        hands = [list(h) for h in draw(gen.deals(level))]
        leader = draw(st.integers(0, 3))
        if previous is not None:
            data = {
                "finish": previous,
                "hands": [gen.codes(h) for h in hands],
                "level": level.value,
            }
            checker.check("tribute", data)
            hands, leader = _pay(
                draw,
                plan_tribute(Finish.of(previous), hands, level, ruleset),
                hands,
                level,
                ruleset,
            )
        finish = _play(draw, checker, ruleset, hands, level, leader)
        settled = checker.check("settle", {"state": state.to_json(), "finish": finish})
        gained = settled["changes"][_winner(finish)]
        final = ruleset.rules.levels.final
        checker.check(
            "score",
            {
                "winner": _winner(finish),
                "levels_gained": max(0, gained),
                "final_level": final.value if isinstance(final, Rank) else str(final),
                "match_over": bool(settled["won"]),
            },
        )
        if settled["won"]:
            return
        state = MatchState.from_json(settled["state"])
        previous = finish


def _winner(finish: list[int]) -> int:
    return finish[0] % 2


def _pay(
    draw: Draw, plan: Any, hands: list[list[Card]], level: Rank, ruleset: Ruleset
) -> tuple[list[list[Card]], int]:
    """Carry out a tribute plan with drawn choices: the new hands and who leads."""
    if plan.anti is AntiTribute.MUST or (plan.anti is AntiTribute.MAY and draw(st.booleans())):
        return hands, plan.anti_leader
    given = [(p.payer, p.receiver, draw(st.sampled_from(list(p.cards)))) for p in plan.payments]
    after = [list(h) for h in apply_tribute(hands, given)]
    rules = play_rules(ruleset, level)
    returned = []
    for duty in plan.returns:
        options = return_cards(after[duty.giver], duty.max_rank, rules)
        if options:
            returned.append((duty.giver, duty.receiver, draw(st.sampled_from(list(options)))))
    return [list(h) for h in apply_tribute(after, returned)], plan.leader


def _play(
    draw: Draw,
    checker: Checker,
    ruleset: Ruleset,
    hands: list[list[Card]],
    level: Rank,
    leader: int,
) -> list[int]:
    """A whole round of drawn legal actions, checked as one replay; its finish."""
    state = start_round([tuple(h) for h in hands], level, ruleset, leader)
    actions: list[Json] = []
    while not state.over:
        seat = state.turn
        assert seat is not None
        if state.trick is not None and draw(st.integers(0, 2)) == 0 and state.may_pass(seat):
            action: PlayAction | PassAction = PassAction(seat)
        else:
            plays = state.legal_plays(seat)
            action = (
                PlayAction(seat, plays[draw(st.integers(0, len(plays) - 1))])
                if plays
                else PassAction(seat)
            )
        actions.append(gen.play_json(action))
        state = state.apply(action)
    data = {
        "hands": [gen.codes(h) for h in hands],
        "level": level.value,
        "leader": leader,
        "actions": actions,
    }
    out = checker.check("replay", data)
    return list(out["finish"])


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            "classify",
            ("classify",),
            1.0,
            _one("classify"),
            "card sets leaning toward combinations",
        ),
        Target(
            "beats", ("beats",), 1.0, _one("beats"), "readings of drawn card sets, and equal ones"
        ),
        Target(
            "legal_plays", ("legal_plays",), 1.0, _one("legal_plays"), "hands leading and following"
        ),
        Target("tribute", ("tribute",), 1.0, _one("tribute"), "whole deals and finishes"),
        Target("settle", ("settle",), 1.0, _one("settle"), "match states and finishes"),
        Target("score", ("score",), 1.0, _one("score"), "round results"),
        Target(
            "replay",
            ("replay",),
            0.5,
            _one("replay"),
            "whole random rounds, some with an illegal action",
        ),
        Target(
            "match",
            ("tribute", "replay", "settle", "score"),
            0.05,
            _match,
            "whole matches: tribute, rounds, settlements and scores in turn",
        ),
    )
}
