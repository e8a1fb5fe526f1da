"""What `guandan fuzz` asks (模糊測試的目標): one target per operation, and whole matches.

A target draws an input with the strategies of `harness.strategies` and puts it to the engine
and the reference through a `Checker`, which raises `Found` when they disagree. `match` plays
many rounds, tribute between them: each round's tribute, replay and settlement (and score, where
the variant scores) are compared as they come, the match going on from the reference's answers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from harness import strategies as gen
from harness.conformance.oracles.fuzz.findings import Checker
from harness.interpreter.bots import apply_tribute, next_level
from harness.interpreter.match import MatchState, new_match, settle
from harness.interpreter.round import start_round
from harness.interpreter.tribute import AntiTribute, TributePlan, plan_tribute
from harness.model.cards import NATURAL_RANKS, Card, Rank
from harness.model.ruleset import Ruleset
from harness.model.seats import Finish

Json = dict[str, Any]
Draw = st.DrawFn


@dataclass(frozen=True)
class Target:
    """A fuzz target: its name, the operations it asks, its share of the budget, the inputs to
    an example, and how it explores (draws inputs and checks the answers)."""

    name: str
    operations: tuple[str, ...]
    weight: float
    batch: int
    """Inputs checked in one hypothesis example at most: an example counts as as many as it
    checks (`explore`'s last argument), a match as one."""
    explore: Callable[[Draw, Checker, Ruleset, int], None]
    """Draws and checks one example of `n` inputs (`n` ≤ `batch`; a whole match for `match`)."""
    description: str


def _classify_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    level = gen.pick(draw, NATURAL_RANKS)
    return {"cards": gen.codes(gen.draw_card_set(draw, level)), "level": level.value}


def _beats_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    level = gen.pick(draw, NATURAL_RANKS)
    play = gen.draw_reading(draw, ruleset, level)
    previous = play if draw(gen.ints(0, 3)) == 3 else gen.draw_reading(draw, ruleset, level)
    return {"play": play, "previous": previous, "level": level.value}


def _legal_plays_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    level = gen.pick(draw, NATURAL_RANKS)
    data: Json = {"hand": gen.codes(gen.draw_hand(draw, level, 1, 27)), "level": level.value}
    if draw(gen.ints(0, 1)):
        data["previous"] = gen.draw_reading(draw, ruleset, level)
    return data


def _tribute_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    level = gen.pick(draw, NATURAL_RANKS)
    hands = gen.draw_deal(draw, level)
    finish = gen.shuffled(draw, [0, 1, 2, 3])
    return {"finish": finish, "hands": [gen.codes(h) for h in hands], "level": level.value}


def _settle_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    return {
        "state": gen.draw_match_state(draw, ruleset),
        "finish": gen.shuffled(draw, [0, 1, 2, 3]),
    }


INPUT_DRAWS: dict[str, Callable[[st.DrawFn, Ruleset], Json]] = {
    "classify": _classify_input,
    "beats": _beats_input,
    "legal_plays": _legal_plays_input,
    "legal_actions": _legal_plays_input,
    "tribute": _tribute_input,
    "settle": _settle_input,
    "replay": gen.draw_round,
    "score": gen.draw_score_input,
}
"""How each operation's input is drawn, for a variant."""


@functools.cache
def inputs(operation: str, ruleset: Ruleset) -> st.SearchStrategy[Json]:
    """The inputs drawn for `operation` under `ruleset`, as a strategy (made once)."""
    return st.composite(INPUT_DRAWS[operation])(ruleset)


def _one(operation: str) -> Callable[[Draw, Checker, Ruleset, int], None]:
    """A target that asks `operation` on `n` drawn inputs (several inputs to one hypothesis
    example, as an example has a cost of its own; a finding keeps only the input that failed)."""

    def explore(draw: Draw, checker: Checker, ruleset: Ruleset, n: int) -> None:
        # One draw of a composite strategy an input: the draws inside it are hypothesis's
        # internal ones, far cheaper than a test's own draws (st.data()).
        strategy = inputs(operation, ruleset)
        # Every input drawn before any is asked: an example hypothesis abandons while drawing
        # (too big) asks the engine nothing, so the inputs asked are those counted.
        for data in [draw(strategy) for _ in range(n)]:
            checker.check(operation, data)

    return explore


def _match(draw: Draw, checker: Checker, ruleset: Ruleset, n: int = 1) -> None:
    """Rounds of one match: deal, tribute (from the second round), play, settle, score (one
    match an example, whatever `n`)."""
    state: MatchState = new_match(ruleset)
    previous: list[int] | None = None
    for _ in range(draw(gen.ints(1, 12))):
        level = next_level(state)
        hands = [list(h) for h in gen.draw_deal(draw, level)]
        leader = draw(gen.ints(0, 3))
        if previous is not None:
            data = {
                "finish": previous,
                "hands": [gen.codes(h) for h in hands],
                "level": level.value,
            }
            checker.check("tribute", data)
            plan = plan_tribute(Finish.of(previous), hands, level, ruleset)
            hands, leader = _pay(draw, plan, hands)
        finish = _play(draw, checker, ruleset, hands, level, leader)
        settled = checker.check("settle", {"state": state.to_json(), "finish": finish})
        # What the round is worth to its winners, as the reference scores it: the levels they
        # climbed, or in the round that wins the match the win's table levels (過A).
        gained = settle(state, Finish.of(finish), ruleset).levels_won
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


def _pay(draw: Draw, plan: TributePlan, hands: list[list[Card]]) -> tuple[list[list[Card]], int]:
    """Carry out a tribute plan with drawn choices: the new hands and who leads."""
    if plan.anti is AntiTribute.MUST or (
        plan.anti is AntiTribute.MAY and draw(gen.ints(0, 1)) == 1
    ):
        assert plan.anti_leader is not None
        return hands, plan.anti_leader
    given = [(p.payer, p.receiver, gen.pick(draw, p.cards)) for p in plan.payments]
    after = [list(h) for h in apply_tribute(hands, given)]
    # Each giver returns one of its own cards, as the plan lists them (not the card received).
    returned = [(d.giver, d.receiver, gen.pick(draw, d.cards)) for d in plan.returns if d.cards]
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
        action = gen.choose_action(draw, state)
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


def _target(
    name: str, weight: float, batch: int, description: str, operations: tuple[str, ...] = ()
) -> Target:
    """A target asking one operation (`batch` inputs an example), or whole matches."""
    if name == "match":
        return Target(name, operations, weight, 1, _match, description)
    return Target(name, (name,), weight, batch, _one(name), description)


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        _target("classify", 1.0, 8, "card sets leaning toward combinations"),
        _target("beats", 1.0, 8, "readings of drawn card sets, and equal ones"),
        _target("legal_plays", 1.0, 2, "hands leading and following"),
        _target("legal_actions", 0.5, 1, "hands leading and following, card by card"),
        _target("tribute", 1.0, 2, "whole deals and finishes"),
        _target("settle", 1.0, 8, "match states and finishes"),
        _target("score", 1.0, 8, "round results"),
        _target("replay", 0.5, 1, "whole random rounds, some with an illegal action"),
        _target(
            "match",
            0.05,
            1,
            "whole matches: tribute, rounds, settlements and scores in turn",
            ("tribute", "replay", "settle", "score"),
        ),
    )
}
