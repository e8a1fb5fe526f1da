"""The heuristic bot: legal in every variant, deterministic, sensible in hand-made positions,
and stronger than the random and greedy bots over whole matches."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import HarnessError
from harness.frontends.cli import main
from harness.interpreter import bots as simulate
from harness.interpreter.bots import Bot, GreedyBot, RandomBot, make_bots, play_match
from harness.interpreter.classify import rules_readings
from harness.interpreter.heuristic import HeuristicBot, _Index, broken_cost
from harness.interpreter.readings import SEQUENCE_TYPES, PlayRules, play_rules
from harness.interpreter.round import Action, PassAction, PlayAction, RoundState, start_round
from harness.model.cards import Card, Rank, parse_cards
from harness.model.loader import load_variant
from harness.model.ruleset import CombinationType
from harness.strategies import draw_deal, levels

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ["huaian", "online-app", "competition", "match-rules"]


class Checked:
    """A bot whose every action and card is checked against the interpreter before it counts."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.actions = 0

    def act(self, state: RoundState, seat: int) -> Action:
        action = self.inner.act(state, seat)
        assert action.seat == seat
        if isinstance(action, PassAction):
            assert state.may_pass()
        else:
            cards = action.play.cards
            assert not Counter(cards) - Counter(state.hands[seat])
            assert action.play.reading in rules_readings(cards, state.rules)
            assert action.play.reading in {p.reading for p in state.legal_plays()}
        self.actions += 1
        return action

    def choose(self, options: Sequence[Card]) -> Card:
        card = self.inner.choose(options)
        assert card in options
        return card

    def give_back(self, hand: Sequence[Card], options: Sequence[Card], rules: PlayRules) -> Card:
        card = self.inner.give_back(hand, options, rules)
        assert card in options and card in hand
        return card

    def resist(self) -> bool:
        return self.inner.resist()


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_action_is_legal_in_whole_matches(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[Checked] = []
    original = simulate.make_bots

    def checked(kind: str, seed: int) -> list[Bot]:
        bots = [Checked(b) for b in original(kind, seed)]
        made.extend(bots)
        return list(bots)

    monkeypatch.setattr(simulate, "make_bots", checked)
    ruleset = load_variant(variant)
    for seed in (1, 2):
        log = play_match(ruleset, seed, "heuristic")
        assert log.winner in (0, 1)
    assert sum(b.actions for b in made) > 100


def test_the_same_seed_gives_the_same_match() -> None:
    ruleset = load_variant("huaian")
    first = play_match(ruleset, 5, "heuristic").to_json()
    assert play_match(ruleset, 5, "heuristic").to_json() == first
    assert play_match(ruleset, 6, "heuristic").to_json() != first


def test_the_match_does_not_depend_on_hash_randomisation() -> None:
    code = (
        "import json, sys; from harness.interpreter.bots import play_match; "
        "from harness.model.loader import load_variant; "
        "log = play_match(load_variant('huaian', {'target': '8'}), 3, 'heuristic,greedy'); "
        "print(json.dumps(log.to_json(), sort_keys=True))"
    )
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        outputs.append(json.loads(run.stdout))
    assert outputs[0] == outputs[1]


def test_make_bots_sets_one_kind_per_team() -> None:
    bots = make_bots("heuristic,random", 3)
    assert [type(b) for b in bots] == [HeuristicBot, RandomBot, HeuristicBot, RandomBot]
    assert [type(b) for b in make_bots("greedy", 3)] == [GreedyBot] * 4
    assert [type(b) for b in make_bots("heuristic", 3)] == [HeuristicBot] * 4
    for wrong in ("clever", "heuristic,random,greedy", "heuristic,"):
        with pytest.raises(HarnessError):
            make_bots(wrong, 3)


def _check_cheapest(state: RoundState, kind: CombinationType, many: int) -> None:
    """`_cheapest` of seat 0's `many` lowest non-bombs of `kind` is what weighing every one of
    them gives: fewest plays added (`broken_cost`), then the lowest."""
    bot = HeuristicBot()
    plan = bot.plan(state, 0)
    rules = state.rules
    plays = [p for p in state.plays_of(0).plays() if p.reading.type is kind]
    lowest = sorted(
        (p for p in plays if rules.ladder_step(p.reading) is None),
        key=lambda p: rules.key(p.reading),
    )[:many]
    index = bot._index_for(state, 0)
    costs = [(broken_cost(plan, p.cards, index), rules.key(p.reading)) for p in lowest]
    expected = min(zip(costs, lowest, strict=True), key=lambda pair: pair[0], default=None)
    found = bot._cheapest(state, 0, plan, lowest)
    assert found == (None if expected is None else (expected[1], expected[0][0]))


@settings(deadline=None, max_examples=40)
@given(st.sampled_from(VARIANTS), levels(), st.data())
def test_the_cheapest_break_is_the_least_costly_lowest_play(
    variant: str, level: Rank, data: st.DataObject
) -> None:
    """The follow's pruned search for the play breaking its plan least picks what weighing
    every play would, on whole deals."""
    state = start_round(data.draw(_deals(level)), level, load_variant(variant), 0)
    kinds = sorted({p.reading.type for p in state.plays_of(0).plays()})
    _check_cheapest(state, data.draw(st.sampled_from(kinds)), data.draw(st.integers(1, 8)))


@settings(deadline=None, max_examples=40)
@given(st.sampled_from(VARIANTS), levels(), st.data())
def test_the_index_holds_what_the_listing_says(
    variant: str, level: Rank, data: st.DataObject
) -> None:
    """The plan's index of a dealt hand, read off the interpreter's listing: its groups of one
    rank marked bombs exactly where the ladder has them, and its runs exactly the listed runs
    of natural cards off the ladder, by rank and count."""
    state = start_round(data.draw(_deals(level)), level, load_variant(variant), 0)
    rules, listing = state.rules, state.plays_of(0)
    index = _Index(listing)
    assert index.bombs == {
        key for key, reading in index.groups.items() if rules.ladder_step(reading) is not None
    }
    runs = [
        (p.reading, sorted(Counter(c.rank for c in p.cards).items()))
        for p in listing.plays()
        if p.reading.type in SEQUENCE_TYPES
        and rules.ladder_step(p.reading) is None
        and not any(rules.is_wild(c) for c in p.cards)
    ]
    assert [(s.reading, sorted(s.ranks)) for s in index.sequences] == runs


def test_the_cheapest_break_weighs_a_rest_that_the_plan_leaves_out() -> None:
    """Breaking the bomb of 8s (H8 H8 S8 and the wild heart K) for a full house of 8s leaves
    the heart K alone at level K. It is the hand's only K, so the plan's index holds no group
    of K made of natural cards, and the plan leaves the card out: that rest adds no play, so
    the search may not assume every rest needs one."""
    hands = ["H8 C9 D9 H9 H8 D7 H9 HK C7 S8", "S3 S4 S6 ST SQ", "D3 D4 D6 DT DQ", "C3 C4 C6 CT"]
    state = start_round([parse_cards(h) for h in hands], Rank.KING, HUAIAN, 0)
    _check_cheapest(state, CombinationType.FULL_HOUSE, 8)


def _deals(level: Rank) -> st.SearchStrategy[list[list[Card]]]:
    @st.composite
    def draw(draw: st.DrawFn) -> list[list[Card]]:
        return draw_deal(draw, level)

    return draw()


# -- hand-made positions (huaian at level 2: passing is always allowed) -----------------------

HUAIAN = load_variant("huaian")
FILLER = "S3 S4 S6 S8 ST SQ H3 H4 H6 H8 HT HQ"  # a long hand for a seat that is not asked


def position(
    hands: Sequence[str], leader: int, steps: Sequence[tuple[int, str | None]]
) -> RoundState:
    """A round at level 2 from hands as text, after the given plays (None: a pass)."""
    state = start_round([parse_cards(h) for h in hands], Rank.TWO, HUAIAN, leader)
    for seat, cards in steps:
        if cards is None:
            state = state.apply(PassAction(seat))
        else:
            state = state.apply(state.play_action(seat, parse_cards(cards), None))
    return state


def test_it_passes_on_its_partners_winning_play_when_it_could_beat_it() -> None:
    state = position(
        ["S5 " + FILLER, FILLER, "H9 C9 D7 DJ CK DK", FILLER], 0, [(0, "S5"), (1, None)]
    )
    assert state.turn == 2 and state.may_pass()
    assert state.legal_plays()  # it could beat its partner's 5
    assert HeuristicBot().act(state, 2) == PassAction(2)


def test_it_beats_its_partner_to_go_out() -> None:
    state = position(["S5 " + FILLER, FILLER, "H9", FILLER], 0, [(0, "S5"), (1, None)])
    action = HeuristicBot().act(state, 2)
    assert isinstance(action, PlayAction) and action.play.cards == parse_cards("H9")


def test_it_follows_with_the_cheapest_beating_part_of_its_plan() -> None:
    # Against a pair of 5: pairs of 7, 9 and K, none broken; the pair of 7 is the cheapest.
    hand = "S7 H7 S9 H9 SK HK D3 C4 DJ"
    state = position([hand, FILLER, FILLER, "C5 D5 " + FILLER], 3, [(3, "C5 D5")])
    action = HeuristicBot().act(state, 0)
    assert isinstance(action, PlayAction)
    assert sorted(action.play.cards, key=Card.sort_key) == sorted(
        parse_cards("S7 H7"), key=Card.sort_key
    )


def test_it_follows_a_single_without_breaking_a_pair() -> None:
    # Against a single 5: a 7 would break the pair of 7; the single 9 breaks nothing.
    hand = "S7 H7 C9 SQ HQ DQ D3 DJ CJ"
    state = position([hand, FILLER, FILLER, "C5 " + FILLER], 3, [(3, "C5")])
    action = HeuristicBot().act(state, 0)
    assert isinstance(action, PlayAction) and action.play.cards == parse_cards("C9")


BOMB_HAND = "S8 H8 C8 D8 D3 C4 D6 CT DQ"


def test_it_keeps_a_bomb_when_no_opponent_is_near_out() -> None:
    state = position([BOMB_HAND, FILLER, FILLER, "CA " + FILLER], 3, [(3, "CA")])
    assert any(p.reading.type.value == "bomb" for p in state.legal_plays())
    assert HeuristicBot().act(state, 0) == PassAction(0)


def test_it_bombs_when_an_opponent_is_near_out() -> None:
    state = position([BOMB_HAND, FILLER, FILLER, "CA S5 S7"], 3, [(3, "CA")])
    action = HeuristicBot().act(state, 0)
    assert isinstance(action, PlayAction) and action.play.reading.type.value == "bomb"


def test_it_returns_a_spare_single_not_a_card_of_a_pair_or_run() -> None:
    rules = play_rules(HUAIAN, Rank.TWO)
    # 3 4 5 6 7 is a run, 9 9 a pair; the 8 and the J are spare, the 8 the lowest.
    hand = parse_cards("S3 H4 C5 D6 S7 S9 H9 D8 CJ SA HA DA")
    options = [c for c in hand if c.rank is not Rank.ACE]
    card = HeuristicBot().give_back(hand, options, rules)
    assert card == parse_cards("D8")[0]


# -- strength -----------------------------------------------------------------------------------

MATCHES = 40


def team_wins(kinds: str, against: str, matches: int) -> int:
    """Matches of huaian won by the `kinds` team, seats swapped every other match."""
    ruleset = load_variant("huaian")
    wins = 0
    for seed in range(matches):
        if seed % 2:
            wins += play_match(ruleset, seed, f"{against},{kinds}").winner == 1
        else:
            wins += play_match(ruleset, seed, f"{kinds},{against}").winner == 0
    return wins


@pytest.mark.slow
def test_it_beats_the_random_bot_clearly() -> None:
    # A one-sided bound: 70 % of the matches at least.
    assert team_wins("heuristic", "random", MATCHES) >= 0.7 * MATCHES


def test_it_beats_the_greedy_bot() -> None:
    # 27 of 40 has a 95 % Wilson interval from 0.52: more than half, with that confidence.
    assert team_wins("heuristic", "greedy", MATCHES) >= 27


def test_guandan_play_takes_heuristic_bots_and_a_team_against_a_team() -> None:
    for bots in ("heuristic", "heuristic,random"):
        out = io.StringIO()
        status = main(
            ["play", "--variant", "huaian", "--seed", "3", "--bots", bots, "--summary"], out=out
        )
        assert status == 0
        assert f"seed 3, {bots} bots" in out.getvalue() and "Winner: team" in out.getvalue()
    out = io.StringIO()
    assert main(["play", "--variant", "huaian", "--seed", "3", "--bots", "clever"], out=out) != 0
