"""Properties of whole simulated matches and of rounds played by bots, for every variant.

Matches come from `harness.simulate.play_match` with seeded deals and random or greedy bots;
rounds from `harness.simulate.deal` played step by step through `RoundState`. The checks are
written from the rules, not from the simulator: the deal of every round is re-derived from the
seed and the logged tribute, and the logged actions are replayed through `RoundState`.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.interpreter.bots import GreedyBot, MatchLog, RandomBot, deal, play_match
from harness.interpreter.readings import Play, Reading
from harness.interpreter.round import Action, PassAction, PlayAction, RoundState, start_round
from harness.model.cards import NATURAL_RANKS, Card, Rank, parse_card, parse_cards, two_deck_pack
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset
from harness.model.seats import Finish, partner, team
from harness.strategies import levels
from tests.conftest import slow_but
from tests.oracles.round import can

# The four variants, and huaian played to 8 (its `target` option: 打到8或者打到A).
RULESETS: dict[str, Ruleset] = {
    "huaian": load_variant("huaian"),
    "online-app": load_variant("online-app"),
    "competition": load_variant("competition"),
    "match-rules": load_variant("match-rules"),
    "huaian-to-8": load_variant("huaian", {"target": "8"}),
}
NAMES = sorted(RULESETS)
PACK = Counter(two_deck_pack())
SEEDS = st.integers(0, 10**6)
BOTS = st.sampled_from(["random", "greedy"])

every_variant = pytest.mark.parametrize("name", NAMES)


def scaled(examples: int) -> settings:
    """`examples` per variant under the `ci` profile (40), in proportion under the others."""
    return settings(max_examples=max(1, settings.default.max_examples * examples // 40))


def hand_counter(hands: tuple[tuple[Card, ...], ...] | list[list[Card]]) -> Counter[Card]:
    return Counter(c for h in hands for c in h)


def played(state: RoundState) -> Counter[Card]:
    return Counter(c for a in state.history if isinstance(a, PlayAction) for c in a.play.cards)


def check_state(state: RoundState, dealt: Counter[Card]) -> None:
    """The invariants of a round in progress or over."""
    # deck.decks: the hands plus the cards played are the deal, card for card.
    assert hand_counter(state.hands) + played(state) == dealt
    # Out means no cards left, in order of going out, each seat once.
    assert len(set(state.out)) == len(state.out)
    assert {s for s in range(4) if not state.hands[s]} == set(state.out)
    if state.over:
        # flow.early_end: three out, or the first two out are partners.
        assert len(state.out) == 3 or (
            len(state.out) == 2 and state.out[1] == partner(state.out[0])
        )
        finish = state.finish
        assert finish is not None and sorted(finish.order) == [0, 1, 2, 3]
        assert finish.order[: len(state.out)] == state.out
        assert state.double_down == (team(finish.first) == team(finish.second))
        return
    # Not over: at most two out, not two partners (else it would have ended).
    assert len(state.out) <= 2 and not state.double_down
    turn = state.turn
    assert turn is not None and state.active(turn)
    if state.trick is None:
        # flow.lead: a leader must play and always can.
        assert turn == state.leader and not state.may_pass() and state.legal_plays()
    else:
        # flow.pass (always): a follower may pass.
        assert state.may_pass()


# ---------------------------------------------------------------------------------------------
# Rounds played by bots through RoundState


@every_variant
@given(seed=SEEDS, level=levels(), bots=BOTS)
@scaled(24)
def test_bot_rounds_keep_the_invariants(name: str, seed: int, level: Rank, bots: str) -> None:
    # deck.decks, flow.lead, flow.pass, flow.new_lead, flow.jiefeng, flow.early_end
    rng = random.Random(seed)
    hands, leader, _ = deal(rng)
    dealt = hand_counter(hands)
    assert dealt == PACK and all(len(h) == 27 for h in hands)
    players = [
        RandomBot(random.Random(seed * 4 + i)) if bots == "random" else GreedyBot()
        for i in range(4)
    ]
    state = start_round(hands, level, RULESETS[name], leader)
    check_state(state, dealt)
    for _ in range(2000):
        if state.over:
            break
        turn = state.turn
        assert turn is not None
        move = players[turn].act(state, turn)
        assert can(state, move)
        state = state.apply(move)
        check_state(state, dealt)
    assert state.over, "the round did not end in 2000 actions"


# ---------------------------------------------------------------------------------------------
# Whole matches


def round_hands(log: MatchLog) -> list[list[list[Card]]]:
    """The hands each round was played from: the seeded deal, then the logged tribute."""
    rng = random.Random(log.seed)
    first, face_seat, face_card = deal(rng)
    assert log.face_up == {"card": face_card.code, "seat": face_seat}
    out = []
    for number, rnd in enumerate(log.rounds):
        if number == 0:
            hands = first
            assert rnd.tribute is None
        else:
            hands, _, _ = deal(rng)
            assert rnd.tribute is not None
            if not rnd.tribute["anti_tribute"]:
                for move in [*rnd.tribute["given"], *rnd.tribute["returned"]]:
                    card = parse_card(move["card"])
                    hands[move["from"]].remove(card)
                    hands[move["to"]].append(card)
            else:
                assert rnd.tribute["given"] == [] and rnd.tribute["returned"] == []
        assert hand_counter(hands) == PACK
        out.append(hands)
    return out


def logged_action(entry: dict[str, object]) -> Action:
    seat = entry["seat"]
    assert isinstance(seat, int)
    if entry.get("pass"):
        return PassAction(seat)
    cards = entry["cards"]
    reading = entry["reading"]
    assert isinstance(cards, list) and isinstance(reading, dict)
    return PlayAction(seat, Play(parse_cards(cards), Reading.from_json(reading)))


def check_match(log: MatchLog, ruleset: Ruleset) -> None:
    rules = ruleset.rules
    final = rules.levels.final
    start = rules.levels.start
    allowed = {
        r.value for r in NATURAL_RANKS[NATURAL_RANKS.index(start) : NATURAL_RANKS.index(final) + 1]
    }
    # A match always ends with a winner (team 0 or 1), in its last round and not before.
    assert log.winner in (0, 1)
    assert log.rounds
    assert [r.settlement["won"] for r in log.rounds] == [False] * (len(log.rounds) - 1) + [True]
    # The first round is led by the seat that drew the face-up card (flow.first_leader).
    assert log.rounds[0].leader == log.face_up["seat"]
    previous_levels = [start.value, start.value]
    previous_first: int | None = None
    for rnd, hands in zip(log.rounds, round_hands(log), strict=True):
        # levels.played: the level of the team that won the last round (both at 2 at first).
        assert rnd.declarer == (None if previous_first is None else team(previous_first))
        assert rnd.level == previous_levels[rnd.declarer or 0]
        assert rnd.level in allowed
        # Replay the logged actions: each is legal, the cards are conserved, the finish agrees.
        dealt = hand_counter(hands)
        state = start_round(hands, Rank(rnd.level), ruleset, rnd.leader)
        for entry in rnd.actions:
            move = logged_action(entry)
            assert state.turn == move.seat
            state.verify(move)
            state = state.apply(move)
            assert bool(entry.get("out")) == (
                isinstance(move, PlayAction) and not state.hands[move.seat]
            )
            assert hand_counter(state.hands) + played(state) == dealt
        assert state.over
        assert state.finish is not None and list(state.finish.order) == rnd.finish
        # Finishing orders are permutations.
        assert sorted(rnd.finish) == [0, 1, 2, 3]
        # Levels stay within start..final (2..A, or 2..8 for huaian to 8); cap_at_final holds.
        after = rnd.settlement["state"]["levels"]
        assert len(after) == 2 and set(after) <= allowed
        previous_levels = list(after)
        previous_first = rnd.finish[0]
    # The match is won at the final level by the team whose level it is, with a finish the
    # variant counts as a win there (levels.final_win).
    last = log.rounds[-1]
    finish = Finish.of(last.finish)
    assert log.winner == finish.winners == last.declarer
    assert last.level == final.value
    assert finish.kind in rules.levels.final_win
    assert log.levels == last.settlement["state"]["levels"]


@pytest.mark.parametrize("name", slow_but(NAMES, "match-rules"))
@given(seed=SEEDS, bots=BOTS)
@scaled(6)
def test_simulated_matches_are_sound(name: str, seed: int, bots: str) -> None:
    # deck.decks, flow.*, levels.played, levels.final, levels.cap_at_final, levels.final_win
    ruleset = RULESETS[name]
    check_match(play_match(ruleset, seed, bots), ruleset)


@every_variant
@given(seed=SEEDS, bots=BOTS)
@scaled(2)
def test_the_same_seed_gives_the_same_log(name: str, seed: int, bots: str) -> None:
    ruleset = RULESETS[name]
    assert play_match(ruleset, seed, bots).to_json() == play_match(ruleset, seed, bots).to_json()
