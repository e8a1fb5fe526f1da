"""The engine operations on JSON-shaped data: classify, beats, legal_plays, legal_actions,
tribute, settle, replay and score. Inputs and outputs are the objects of
`spec/case.schema.json`; the corpus, the Python protocol and the process protocol all carry
exactly these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness.errors import IllegalAction, InputError
from harness.interpreter import inputs
from harness.interpreter.actions import legal_actions
from harness.interpreter.classify import classify
from harness.interpreter.legal import legal_plays
from harness.interpreter.match import settle
from harness.interpreter.readings import play_rules
from harness.interpreter.round import (
    AskAction,
    PassAction,
    PlayAction,
    RoundState,
    start_round,
)
from harness.interpreter.scoring import score
from harness.interpreter.tribute import plan_tribute
from harness.model.ruleset import Ruleset

Json = dict[str, Any]


def op_classify(data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """Every reading of these cards at this level, and the default one (or null)."""
    result = classify(inputs.held(data, "cards", ruleset.rules), inputs.level(data), ruleset)
    return {
        "readings": [r.to_json() for r in result.readings],
        "default": result.default.to_json() if result.default else None,
    }


def op_beats(data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """Whether `play` (a reading) may follow `previous` (a reading) at this level."""
    rules = play_rules(ruleset, inputs.level(data))
    play = inputs.reading(inputs.field(data, "play"), "play", ruleset.rules)
    previous = inputs.reading(inputs.field(data, "previous"), "previous", ruleset.rules)
    return {"beats": rules.beats(play, previous)}


def op_legal_plays(data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """The readings open to this hand, as leader or against `previous`."""
    against = inputs.previous(data, ruleset.rules)
    plays = legal_plays(
        inputs.held(data, "hand", ruleset.rules), inputs.level(data), ruleset, against
    )
    return {"plays": [{**p.reading.to_json(), "cards": [c.code for c in p.cards]} for p in plays]}


def op_legal_actions(data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """Every distinct set of cards this hand can play (as leader or against `previous`), each
    with the readings it may be declared as."""
    against = inputs.previous(data, ruleset.rules)
    actions = legal_actions(
        inputs.held(data, "hand", ruleset.rules), inputs.level(data), ruleset, against
    )
    return {
        "actions": [
            {"cards": [c.code for c in cards], "readings": [r.to_json() for r in readings]}
            for cards, readings in actions
        ],
        "total": len(actions),
    }


def op_tribute(data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """Who pays whom, which cards, anti-tribute, returns, and who leads."""
    plan = plan_tribute(
        inputs.finish(inputs.field(data, "finish")),
        inputs.hands(data, ruleset.rules),
        inputs.level(data),
        ruleset,
    )
    return plan.to_json()


def op_settle(data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """The match state after a round with this finish, and whether the match is won."""
    state = inputs.match_state(inputs.field(data, "state"))
    return settle(state, inputs.finish(inputs.field(data, "finish")), ruleset).to_json()


def op_score(data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """What each seat wins or pays after a round: the match's last, or any where the variant
    settles every round."""
    winner = inputs.field(data, "winner")
    if not inputs.whole(winner) or winner not in (0, 1):
        raise InputError("`winner` must be team 0 or 1")
    gained = inputs.field(data, "levels_gained")
    if not inputs.whole(gained):
        raise InputError(f"`levels_gained` must be a whole number, found {gained!r}")
    over = inputs.field(data, "match_over")
    if not isinstance(over, bool):
        raise InputError(f"`match_over` must be true or false, found {over!r}")
    final = inputs.level(data, "final_level")
    return score(winner, gained, final, over, ruleset).to_json()


def op_replay(data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """Play a scripted round: legality of each action, who acts next, 接風, the end and order."""
    leader = inputs.field(data, "leader")
    if leader not in range(4):
        raise InputError("`leader` must be a seat 0..3")
    state = start_round(inputs.hands(data, ruleset.rules), inputs.level(data), ruleset, leader)
    actions = inputs.field(data, "actions")
    if not isinstance(actions, list):
        raise InputError("`actions` must be a list")
    return replay_from(state, actions)


def replay_from(state: RoundState, actions: Sequence[Any]) -> Json:
    """A scripted round's answer from `state` on (重播): each action's step, until the first
    refused one, then whether the round is over, its finish and double-down (雙下)."""
    steps: list[Json] = []
    for i, raw in enumerate(actions):
        step = _replay_step(state, raw, i)
        steps.append(step[0])
        if step[1] is None:
            break
        state = step[1]
    finish = state.finish
    return {
        "steps": steps,
        "over": state.over,
        "finish": list(finish.order) if finish else None,
        "double_down": state.double_down if state.over else False,
    }


def _replay_step(state: RoundState, raw: Any, index: int) -> tuple[Json, RoundState | None]:
    if not isinstance(raw, dict) or "seat" not in raw:
        raise InputError(
            f"`actions[{index}]` must be {{seat, cards[, reading]}}, {{seat, pass}}"
            " or {seat, ask}"
        )
    seat = raw["seat"]
    if "ask" in raw:
        return _ask_step(state, seat, raw["ask"], index)
    try:
        if raw.get("pass"):
            action: PassAction | PlayAction = PassAction(seat)
        else:
            cards = inputs.cards(
                inputs.field(raw, "cards"), f"actions[{index}].cards", state.rules.rules
            )
            declared = raw.get("reading")
            where = f"actions[{index}].reading"
            reading = None if declared is None else inputs.reading_form(declared, where)
            action = state.play_action(seat, cards, reading)
        after = state.apply(action)
    except IllegalAction as exc:
        return {"legal": False, "rule": exc.rule, "reason": str(exc)}, None
    step: Json = {"legal": True, "next": after.turn}
    if len(after.out) > len(state.out):
        step["out"] = seat
    if after.trick is None and not after.over:
        step["lead"] = after.turn
    step["counts"] = _counts(after)
    return step, after


def _ask_step(
    state: RoundState, seat: Any, about: Any, index: int
) -> tuple[Json, RoundState | None]:
    """An ask (問牌): the count told in answer, or null; whose turn it is does not change."""
    for key, value in (("seat", seat), ("ask", about)):
        if not inputs.whole(value) or value not in range(4):
            raise InputError(f"`actions[{index}].{key}` must be a seat 0..3, found {value!r}")
    ask = AskAction(seat, about)
    try:
        told = state.told(ask)
    except IllegalAction as exc:
        return {"legal": False, "rule": exc.rule, "reason": str(exc)}, None
    return {"legal": True, "next": state.turn, "told": told, "counts": _counts(state)}, state


def _counts(state: RoundState) -> Json:
    """The hand counts announced unasked, keyed by seat as a string."""
    return {str(s): n for s, n in state.announced_counts().items()}


OPERATIONS: dict[str, Callable[[Mapping[str, Any], Ruleset], Json]] = {
    "classify": op_classify,
    "beats": op_beats,
    "legal_plays": op_legal_plays,
    "legal_actions": op_legal_actions,
    "tribute": op_tribute,
    "settle": op_settle,
    "replay": op_replay,
    "score": op_score,
}


def run_operation(name: str, data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """Answer the operation `name` on `data` under `ruleset`."""
    try:
        op = OPERATIONS[name]
    except KeyError:
        raise InputError(
            f"unknown operation {name!r}; expected one of {', '.join(OPERATIONS)}"
        ) from None
    return op(data, ruleset)
