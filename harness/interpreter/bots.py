"""Whole matches with simple bots (模擬): seeded deals, tribute, rounds and levels, as a log.

The same seed, variant, options and bots give the same log, move for move.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from harness.collecting import fewer_collections
from harness.errors import HarnessError
from harness.interpreter.heuristic import HeuristicBot
from harness.interpreter.match import MatchState, new_match, settle
from harness.interpreter.readings import Play, PlayRules, play_rules
from harness.interpreter.round import Action, PassAction, PlayAction, RoundState, start_round
from harness.interpreter.scoring import round_score
from harness.interpreter.tribute import (
    AntiTribute,
    TributePlan,
    plan_tribute,
)
from harness.model.cards import Card, Rank, two_deck_pack
from harness.model.declarations import implements, only
from harness.model.ruleset import Ruleset
from harness.model.seats import Finish, team

MAX_ROUNDS = 1000


class Bot(Protocol):
    """A player: chooses an action in a round, a tribute card, and a return card."""

    def act(self, state: RoundState, seat: int) -> Action:
        """The action of `seat`, whose turn it is."""

    def choose(self, options: Sequence[Card]) -> Card:
        """One card among `options` (a tribute, or a return for a bot that plans no hand)."""

    def give_back(self, hand: Sequence[Card], options: Sequence[Card], rules: PlayRules) -> Card:
        """The card among `options` to return (還牌), holding `hand` (the tribute included)."""

    def resist(self) -> bool:
        """Whether to claim an optional anti-tribute (可抗貢)."""


class RandomBot:
    """Plays a uniformly random legal action (pass included where allowed)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, state: RoundState, seat: int) -> Action:
        """A random legal action: one of the legal plays in their order, then the pass."""
        options: list[Play | None] = list(state.legal_plays())
        if state.may_pass():
            options.append(None)
        chosen = self.rng.choice(options)
        return PassAction(seat) if chosen is None else PlayAction(seat, chosen)

    def choose(self, options: Sequence[Card]) -> Card:
        """A random card."""
        return self.rng.choice(list(options))

    def give_back(self, hand: Sequence[Card], options: Sequence[Card], rules: PlayRules) -> Card:
        """A random card."""
        return self.choose(options)

    def resist(self) -> bool:
        """A coin toss."""
        return self.rng.random() < 0.5


class GreedyBot:
    """Sheds its lowest plays, never beats its partner, keeps bombs for short opponents."""

    def act(self, state: RoundState, seat: int) -> Action:
        """The lowest non-bomb play that is legal; a bomb only against a short opponent."""
        plays = state.legal_plays()
        rules = state.rules
        if state.trick is not None:
            owner = state.trick[0]
            if team(owner) == team(seat) and state.may_pass():
                return PassAction(seat)
        plain = [p for p in plays if rules.ladder_step(p.reading) is None]
        bombs = [p for p in plays if rules.ladder_step(p.reading) is not None]
        short = any(
            len(state.hands[s]) <= 6 for s in range(4) if team(s) != team(seat) and state.active(s)
        )
        pool = plain or (bombs if state.trick is None or short else [])
        if not pool:
            if state.may_pass():
                return PassAction(seat)
            pool = plays
        return PlayAction(seat, min(pool, key=lambda p: _greedy_key(state, p)))

    def choose(self, options: Sequence[Card]) -> Card:
        """The lowest card (by natural order)."""
        return min(options, key=lambda c: c.sort_key())

    def give_back(self, hand: Sequence[Card], options: Sequence[Card], rules: PlayRules) -> Card:
        """The lowest card (by natural order)."""
        return self.choose(options)

    def resist(self) -> bool:
        """Always claims anti-tribute."""
        return True


def _greedy_key(state: RoundState, play: Play) -> tuple[int, int, int]:
    rules = state.rules
    step = rules.ladder_step(play.reading)
    return (0 if step is None else 1 + step, rules.key(play.reading), -play.reading.size)


BOT_KINDS = ("random", "greedy", "heuristic")
"""The kinds of bot `make_bots` knows."""


def make_bots(kind: str, seed: int) -> list[Bot]:
    """Four bots seeded from `seed`: of one kind (`random`, `greedy` or `heuristic`), or
    `A,B` for seats 0 and 2 of kind A against seats 1 and 3 of kind B."""
    kinds = kind.split(",")
    if len(kinds) == 1:
        kinds *= 2
    if len(kinds) != 2 or any(k not in BOT_KINDS for k in kinds):
        raise HarnessError(f"bots {kind!r}: expected a kind or two (A,B) of {', '.join(BOT_KINDS)}")
    return [_bot(kinds[seat % 2], seed, seat) for seat in range(4)]


def _bot(kind: str, seed: int, seat: int) -> Bot:
    if kind == "random":
        return RandomBot(random.Random(seed * 4 + seat))
    if kind == "greedy":
        return GreedyBot()
    return HeuristicBot()


@dataclass
class RoundLog:
    """One round of a simulated match."""

    number: int
    level: str
    declarer: int | None
    leader: int
    tribute: dict[str, Any] | None
    actions: list[dict[str, Any]] = field(default_factory=list)
    finish: list[int] = field(default_factory=list)
    settlement: dict[str, Any] = field(default_factory=dict)
    levels: tuple[str, str] = ("2", "2")
    """Both teams' levels before the round."""
    plays: int = 0
    tricks: int = 0
    bombs: int = 0
    """Plays on the bomb ladder (炸彈), jokers and straight flushes included."""
    score: tuple[int, int, int, int] | None = None
    """What each seat won or paid after the round (歡樂豆); None where the variant does not
    score."""


@dataclass
class MatchLog:
    """A whole simulated match: its settings, rounds and winner."""

    variant: str
    options: dict[str, Any]
    seed: int
    bots: str
    face_up: dict[str, Any]
    rounds: list[RoundLog] = field(default_factory=list)
    winner: int | None = None
    levels: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The log as JSON: per round the finish (a permutation of 0..3), tribute, levels after."""
        return {
            "variant": self.variant,
            "options": self.options,
            "seed": self.seed,
            "bots": self.bots,
            "face_up_card": self.face_up,
            "rounds": [
                {
                    "round": r.number,
                    "level": r.level,
                    "declarer": r.declarer,
                    "leader": r.leader,
                    "tribute": r.tribute,
                    "actions": r.actions,
                    "finish": r.finish,
                    "levels_after": r.settlement["state"]["levels"],
                    "settlement": r.settlement,
                }
                for r in self.rounds
            ],
            "winner": self.winner,
            "final_levels": self.levels,
        }


@implements("deck.decks", values=only(2))
@implements("deck.hand_size", values=only(27))
@implements("flow.first_leader")
# Cards passing between hands: only the bots and the fuzz targets move them; no engine operation
# does (an operation is told the hands after tribute), so it lives with the bots.
def apply_tribute(
    hands: Sequence[Sequence[Card]], given: Sequence[tuple[int, int, Card]]
) -> tuple[tuple[Card, ...], ...]:
    """The hands after cards pass between seats: each entry is (from seat, to seat, card)."""
    out = [list(h) for h in hands]
    for giver, receiver, card in given:
        if card not in out[giver]:
            raise HarnessError(f"seat {giver} does not hold {card.code} to give to seat {receiver}")
        out[giver].remove(card)
        out[receiver].append(card)
    return tuple(tuple(h) for h in out)


def deal(rng: random.Random) -> tuple[list[list[Card]], int, Card]:
    """Shuffle two decks and deal 27 each, one card at a time from seat 0; turn one card up."""
    pack = list(two_deck_pack())
    rng.shuffle(pack)
    hands: list[list[Card]] = [[], [], [], []]
    for i, card in enumerate(pack):
        hands[i % 4].append(card)
    face_up = rng.randrange(len(pack))
    return hands, face_up % 4, pack[face_up]


class RoundPlayer(Protocol):
    """How a match plays each round (一局): the round from its start, with the match's bots,
    logged in `log`; its finishing order. `python_rounds` is the interpreter's; the fast engine
    has its own, which must log the very same actions."""

    def __call__(self, state: RoundState, bots: Sequence[Bot], log: RoundLog) -> Finish:
        """Play `state` to its end; the finish."""


def python_rounds(state: RoundState, bots: Sequence[Bot], log: RoundLog) -> Finish:
    """The interpreter's rounds (`play_round`): the round player of the Python path."""
    finish = play_round(state, bots, log).finish
    assert finish is not None
    return finish


def play_round(state: RoundState, bots: Sequence[Bot], log: RoundLog) -> RoundState:
    """Play a round to its end with `bots`, logging every action."""
    while state.turn is not None:
        seat = state.turn
        action = bots[seat].act(state, seat)
        if state.trick is None:
            log.tricks += 1
        rules = state.rules
        state = state.apply(action)
        entry: dict[str, Any] = {"seat": seat}
        if isinstance(action, PassAction):
            entry["pass"] = True
        else:
            log.plays += 1
            log.bombs += rules.ladder_step(action.play.reading) is not None
            entry["cards"] = [c.code for c in action.play.cards]
            entry["reading"] = action.play.reading.to_json()
            if not state.hands[seat]:
                entry["out"] = True
        log.actions.append(entry)
    return state


def _pay_tribute(
    plan: TributePlan, hands: list[list[Card]], bots: Sequence[Bot], rules: PlayRules
) -> tuple[list[list[Card]], dict[str, Any], int]:
    """Carry out `plan` with the bots' choices; the new hands, the log entry and the leader."""
    entry: dict[str, Any] = {"plan": plan.to_json(), "given": [], "returned": []}
    if plan.anti is AntiTribute.MUST or (
        plan.anti is AntiTribute.MAY and bots[plan.payments[0].payer].resist()
    ):
        entry["anti_tribute"] = True
        assert plan.anti_leader is not None
        return hands, entry, plan.anti_leader
    entry["anti_tribute"] = False
    given = []
    for payment in plan.payments:
        card = bots[payment.payer].choose(payment.cards)
        given.append((payment.payer, payment.receiver, card))
        entry["given"].append({"from": payment.payer, "to": payment.receiver, "card": card.code})
    after = [list(h) for h in apply_tribute(hands, given)]
    returned = []
    for duty in plan.returns:
        # The plan lists the giver's own cards, as dealt: never the tribute card just received.
        if not duty.cards:
            continue
        card = bots[duty.giver].give_back(after[duty.giver], duty.cards, rules)
        returned.append((duty.giver, duty.receiver, card))
        entry["returned"].append({"from": duty.giver, "to": duty.receiver, "card": card.code})
    final = [list(h) for h in apply_tribute(after, returned)]
    return final, entry, plan.leader


class TributePlayer(Protocol):
    """How a match carries out the tribute before a round (進貢, 還牌, 抗貢): after the last
    round's finish, with the new hands at the round's level and the match's bots; the hands
    after it, the log entry and the leader. `python_tribute` is the interpreter's; the fast
    engine has its own, which must give the very same."""

    def __call__(
        self,
        finish: Finish,
        hands: list[list[Card]],
        level: Rank,
        ruleset: Ruleset,
        bots: Sequence[Bot],
    ) -> tuple[list[list[Card]], dict[str, Any], int]:
        """The tribute after `finish`: the new hands, the log entry and the leader."""


def python_tribute(
    finish: Finish, hands: list[list[Card]], level: Rank, ruleset: Ruleset, bots: Sequence[Bot]
) -> tuple[list[list[Card]], dict[str, Any], int]:
    """The interpreter's tribute (`plan_tribute`, then `_pay_tribute`): the tribute player of
    the Python path."""
    plan = plan_tribute(finish, hands, level, ruleset)
    return _pay_tribute(plan, hands, bots, play_rules(ruleset, level))


def next_level(state: MatchState) -> Rank:
    """The level the next round is played at (打幾): the declarer's (打家); before the first
    round, when there is none, both teams' (they start at one level)."""
    return state.levels[state.declarer or 0]


def play_match(
    ruleset: Ruleset,
    seed: int,
    bots: str = "random",
    rounds: RoundPlayer = python_rounds,
    players: Sequence[Bot] | None = None,
    tribute: TributePlayer = python_tribute,
) -> MatchLog:
    """Play a whole match of `ruleset` with seeded deals and bots; the log of every round.
    `rounds` plays each round and `tribute` carries out the tribute before it (the fast
    engine's, where it is used), `players` are the bots when not the kinds `bots` names (the
    fast engine's own)."""
    with fewer_collections():
        return _played(ruleset, seed, bots, rounds, players, tribute)


def _played(
    ruleset: Ruleset,
    seed: int,
    bots: str,
    rounds: RoundPlayer,
    given: Sequence[Bot] | None,
    tribute: TributePlayer,
) -> MatchLog:
    rng = random.Random(seed)
    players = make_bots(bots, seed) if given is None else given
    state: MatchState = new_match(ruleset)
    hands, leader, face_card = deal(rng)
    log = MatchLog(
        ruleset.slug, dict(ruleset.chosen), seed, bots, {"card": face_card.code, "seat": leader}
    )
    previous: Finish | None = None
    for number in range(1, MAX_ROUNDS + 1):
        level = next_level(state)
        before = (state.levels[0].value, state.levels[1].value)
        tribute_entry = None
        if previous is not None:
            hands, _, _ = deal(rng)
            hands, tribute_entry, leader = tribute(previous, hands, level, ruleset, players)
        round_log = RoundLog(number, level.value, state.declarer, leader, tribute_entry)
        round_log.levels = before
        finish = rounds(start_round(hands, level, ruleset, leader), players, round_log)
        round_log.finish = list(finish.order)
        settled = settle(state, finish, ruleset)
        round_log.settlement = settled.to_json()
        round_log.score = round_score(finish, settled, ruleset).amounts
        log.rounds.append(round_log)
        state = settled.state
        if settled.won:
            log.winner = state.winner
            log.levels = [r.value for r in state.levels]
            return log
        previous = finish
    raise HarnessError(f"the match did not end within {MAX_ROUNDS} rounds (seed {seed})")
