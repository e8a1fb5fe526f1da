"""The heuristic bot in C (issue 52): the same plans, actions, tribute cards and returns as the
Python `HeuristicBot`, shadowed decision by decision over whole matches of every bundled
variant, on random positions, and plan by plan on random hands.

The C bot lists plays through the reference's own `HandPlays` here (`PythonLister`), so that a
difference is the bot's, never the listing's.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import EngineError, HarnessError
from harness.interpreter import bots as simulate
from harness.interpreter.bots import Bot, play_match
from harness.interpreter.heuristic import HeuristicBot, _Index, plan_hand
from harness.interpreter.legal import HandPlays
from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.interpreter.round import Action, PassAction, PlayAction, RoundState, start_round
from harness.kernel import build
from harness.model.cards import Card, Rank, parse_cards, two_deck_pack
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset
from harness.strategies import choose_action, deals, hands_with_wilds, levels, readings

VARIANTS = ["huaian", "competition", "match-rules", "online-app"]
RULESETS = {slug: load_variant(slug) for slug in VARIANTS}

HAS_COMPILER = build._compiler() is not None and not build._switched_off()
needs_kernel = pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: the fast engine is off")


def _fast(ruleset: Ruleset) -> Any:
    from harness.engine.fast.fast_bot import FastHeuristicBot, PythonLister

    return FastHeuristicBot(ruleset, PythonLister())


class Shadowed:
    """A Python `HeuristicBot` whose every decision a `FastHeuristicBot` makes too, from the
    same state: the two must agree (cards in order, reading, card), or the test fails there."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.python = HeuristicBot()
        self.fast = _fast(ruleset)
        self.compared = 0

    def act(self, state: RoundState, seat: int) -> Action:
        try:
            expected = self.python.act(state, seat)
        except IndexError:
            # The Python bot leads `legal_plays()[0]` of a hand with no play (a rule set with
            # no singles): the C bot refuses that hand too, and the Python error stands.
            with pytest.raises(EngineError, match="cannot take"):
                self.fast.act(state, seat)
            raise
        found = self.fast.act(state, seat)
        assert found == expected, _said(state, seat, expected, found)
        self.compared += 1
        return expected

    def choose(self, options: Sequence[Card]) -> Card:
        expected = self.python.choose(options)
        assert self.fast.choose(options) == expected
        self.compared += 1
        return expected

    def give_back(self, hand: Sequence[Card], options: Sequence[Card], rules: PlayRules) -> Card:
        expected = self.python.give_back(hand, options, rules)
        found = self.fast.give_back(hand, options, rules)
        assert found == expected, f"return from {_codes(hand)} of {_codes(options)}: {found}"
        self.compared += 1
        return expected

    def resist(self) -> bool:
        assert self.fast.resist() == self.python.resist()
        return self.python.resist()


def _codes(cards: Sequence[Card]) -> str:
    return " ".join(c.code for c in cards)


def _said(state: RoundState, seat: int, expected: Action, found: Action) -> str:
    def shown(action: Action) -> str:
        if isinstance(action, PassAction):
            return "pass"
        return f"{_codes(action.play.cards)} as {action.play.reading}"

    hands = "; ".join(_codes(h) for h in state.hands)
    return (
        f"seat {seat} at level {state.level} (hands {hands}; trick {state.trick}): the Python "
        f"bot plays {shown(expected)}, the C bot {shown(found)}"
    )


def _shadowed_match(
    variant: str | Ruleset, seed: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[Shadowed], Any]:
    ruleset = RULESETS[variant] if isinstance(variant, str) else variant
    made: list[Shadowed] = []

    def shadows(kind: str, seed: int) -> list[Bot]:
        assert kind == "heuristic"
        bots = [Shadowed(ruleset) for _ in range(4)]
        made.extend(bots)
        return list(bots)

    with monkeypatch.context() as patch:
        patch.setattr(simulate, "make_bots", shadows)
        log = play_match(ruleset, seed, "heuristic")
    return made, log


# --- whole matches ------------------------------------------------------------------------------


FAST_SEEDS = range(4)
# A hundred matches of each variant, and matches of the mutants, are played whole on the fast
# engine against the Python path in tests/test_fast_matches.py: the C bot in the C round.


@needs_kernel
@pytest.mark.parametrize("seed", FAST_SEEDS)
@pytest.mark.parametrize("slug", VARIANTS)
def test_every_decision_of_whole_matches_is_the_pythons(
    slug: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match of heuristic bots, each shadowed by a C bot kept across its rounds: every
    action, tribute card and return the same, and the log the Python path's own."""
    made, log = _shadowed_match(slug, seed, monkeypatch)
    assert len(made) == 4 and all(b.compared > 0 for b in made)
    # The shadows change nothing: the log is the one the Python bots alone write.
    assert log.to_json() == play_match(RULESETS[slug], seed, "heuristic").to_json()


# --- one clause changed -----------------------------------------------------------------------


@needs_kernel
@pytest.mark.parametrize("seed", range(2))
def test_a_duty_to_beat_is_played_as_the_python_bot_plays_it(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a seat able to beat must play (flow.pass = when_unable, a mutant of huaian), the
    C bot's forced play is the Python bot's (the least `_break_cost`)."""
    from harness.model.mutants import mutate

    ruleset = mutate(RULESETS["huaian"], "flow.pass", "when_unable")
    assert ruleset is not None
    made, _ = _shadowed_match(ruleset, seed, monkeypatch)
    assert all(b.compared > 0 for b in made)


# --- random positions -------------------------------------------------------------------------


@st.composite
def positions(draw: st.DrawFn) -> tuple[str, RoundState, int]:
    """A round part played (random legal actions, tricks on the table), from a deal of 1 to 27
    cards a hand; the bots take over from there."""
    slug = draw(st.sampled_from(VARIANTS))
    level = draw(levels())
    hands = draw(deals(level, full=draw(st.booleans())))
    state = start_round(hands, level, RULESETS[slug], draw(st.integers(0, 3)))
    for _ in range(draw(st.integers(0, 40))):
        if state.over:
            break
        state = state.apply(choose_action(draw, state))
    return slug, state, draw(st.integers(0, 2))


@needs_kernel
@given(positions())
@settings(max_examples=60, deadline=None)
def test_the_rest_of_a_random_round_is_the_pythons(situation: tuple[str, RoundState, int]) -> None:
    """From a random position, fresh bots (one per seat, or one for all: the memory is by
    seat) play the round out, agreeing at every turn."""
    slug, state, sharing = situation
    one = Shadowed(RULESETS[slug])
    bots = [one] * 4 if sharing == 0 else [Shadowed(RULESETS[slug]) for _ in range(4)]
    while not state.over:
        seat = state.turn
        assert seat is not None
        state = state.apply(bots[seat].act(state, seat))


@st.composite
def short_hands(draw: st.DrawFn) -> tuple[str, RoundState]:
    """A seat of 1 to 10 cards (wild cards in a third of them) to lead or to beat a drawn play:
    its whole hand is asked for its readings, in listing order."""
    slug = draw(st.sampled_from(VARIANTS))
    level = draw(levels())
    hands = [draw(hands_with_wilds(level, 1, 10)) for _ in range(4)]
    state = start_round(hands, level, RULESETS[slug], 0)
    previous = draw(st.none() | readings(RULESETS[slug], level))
    if previous is not None:
        owner = draw(st.integers(1, 3))
        state = replace(state, trick=(owner, Reading.from_json(previous)), leader=owner)
    return slug, state


@needs_kernel
@given(short_hands())
@settings(max_examples=150, deadline=None)
def test_short_hands_act_as_the_python_bot(situation: tuple[str, RoundState]) -> None:
    slug, state = situation
    Shadowed(RULESETS[slug]).act(state, 0)


@needs_kernel
@pytest.mark.parametrize(("slug", "rank"), [("huaian", "4"), ("match-rules", "3")])
def test_a_hand_going_out_takes_its_first_reading_in_listing_order(slug: str, rank: str) -> None:
    """H3 H3 S3 S4 S4 at level 3 reads as a full house of 3s or of 4s (the wild cards fill
    either). Leading, the bot goes out with the first reading in listing order, by key: where
    the level card keeps its place above A in a full house (huaian) the 4s come first, where it
    plays at its natural place (match-rules) the 3s, though the kernel lists them by place."""
    ruleset = RULESETS[slug]
    hands = [list(parse_cards("H3 H3 S3 S4 S4")), *[list(parse_cards("S9"))] * 3]
    state = start_round(hands, Rank.THREE, ruleset, 0)
    action = Shadowed(ruleset).act(state, 0)
    assert isinstance(action, PlayAction)
    assert (str(action.play.reading.type), action.play.reading.rank.value) == ("full_house", rank)


# --- plans and returns on their own -------------------------------------------------------------


@st.composite
def planned(draw: st.DrawFn) -> tuple[str, PlayRules, list[Card], list[Card]]:
    """A dealt hand (wild cards in a third of them) and a part of it to plan."""
    slug = draw(st.sampled_from(VARIANTS))
    level = draw(levels())
    dealt = draw(hands_with_wilds(level, 1, 28))
    keep = draw(st.lists(st.booleans(), min_size=len(dealt), max_size=len(dealt)))
    hand = dealt if draw(st.booleans()) else [c for c, k in zip(dealt, keep, strict=True) if k]
    return slug, play_rules(RULESETS[slug], level), dealt, hand


@needs_kernel
@given(planned())
@settings(max_examples=200, deadline=None)
def test_plan_hand_is_the_pythons(situation: tuple[str, PlayRules, list[Card], list[Card]]) -> None:
    """`plan_hand` in C: the same units (reading, cards in order, bomb), in the same order."""
    slug, rules, dealt, hand = situation
    expected = plan_hand(hand, _Index(HandPlays(tuple(dealt), rules)))
    assert _fast(RULESETS[slug]).plan(dealt, hand, rules) == expected


@needs_kernel
def test_wild_cards_put_back_last_are_ordered_by_key() -> None:
    """At level 2 the natural 2s make a bomb, no triple takes a wild card, so the two wild
    cards (H2) go back to `by_rank` last, after the jokers (`setdefault`): the pairs are then
    sorted by key, the level pair (above A) between the Ks and the small jokers."""
    ruleset = RULESETS["huaian"]
    rules = play_rules(ruleset, Rank.TWO)
    hand = list(parse_cards("S2 S2 C2 D2 H2 H2 SB SB S3 S4 C9 SK SK"))
    units = _fast(ruleset).plan(hand, hand, rules)
    shown = [(str(u.reading.type), u.reading.rank.value, _codes(u.cards), u.bomb) for u in units]
    assert shown == [
        ("bomb", "2", "S2 S2 C2 D2", True),
        ("single", "3", "S3", False),
        ("single", "4", "S4", False),
        ("single", "9", "C9", False),
        ("pair", "K", "SK SK", False),
        ("pair", "2", "H2 H2", False),
        ("pair", "SB", "SB SB", False),
    ]


def _deals(seed: int) -> Iterator[list[Card]]:
    import random

    rng = random.Random(seed)
    while True:
        pack = list(two_deck_pack())
        rng.shuffle(pack)
        yield pack[:28]


@needs_kernel
@pytest.mark.parametrize("slug", VARIANTS)
def test_returns_are_the_pythons(slug: str) -> None:
    """The card returned (還牌) from a 28-card hand, among every card of 10 or lower (the
    competition's limit) and among a few of one rank: the Python bot's."""
    ruleset = RULESETS[slug]
    deals = _deals(52)
    for i in range(40):
        hand = next(deals)
        rules = play_rules(ruleset, list(Rank)[i % 13])
        low = [c for c in hand if not c.rank.is_joker and c.rank.natural_index <= 8]
        for options in (low, low[:2], [c for c in hand if c.rank is low[0].rank]):
            python, fast = HeuristicBot(), _fast(ruleset)
            expected = python.give_back(hand, options, rules)
            assert fast.give_back(hand, options, rules) == expected
            assert fast.choose(options) == python.choose(options)


@needs_kernel
def test_a_return_keeps_its_index_for_the_round() -> None:
    """After a return the hand's index serves the round (`_returned`): the plan the C bot makes
    then is the one made from the index of the 28 cards, as the Python bot's is."""
    ruleset = RULESETS["huaian"]
    rules = play_rules(ruleset, Rank.TWO)
    hand = list(parse_cards("S3 H3 C4 D5 S6 H7 C8 D9 ST HJ CQ DK SA HA C2 D2 S9 H9 C9 D8"))
    python, fast = HeuristicBot(), _fast(ruleset)
    given_back = python.give_back(hand, hand[:5], rules)
    assert fast.give_back(hand, hand[:5], rules) == given_back
    rest = list(hand)
    rest.remove(given_back)
    others = [list(parse_cards("SB")), list(parse_cards("HR")), list(parse_cards("S2"))]
    state = start_round([rest, *others], Rank.TWO, ruleset, 0)
    assert fast.act(state, 0) == python.act(state, 0)


# --- the wrapper ------------------------------------------------------------------------------


@needs_kernel
def test_a_hand_keeps_its_id_while_it_is_that_very_object() -> None:
    """The ids standing for the Python bot's `is` checks: equal for one object, never for two
    (equal tuples included), and never given again once forgotten."""
    from harness.engine.fast.fast_bot import _Ids

    ids = _Ids()
    one = tuple(parse_cards("S3 H4"))
    same = tuple(parse_cards("S3 H4"))
    first, _ = ids.of(one)
    assert ids.of(one)[0] == first
    assert ids.of(same)[0] != first
    for _ in range(_Ids.LIMIT):
        ids.of(object())
    assert ids.of(one)[0] not in (first,)


@needs_kernel
def test_a_failing_listing_is_raised_not_played() -> None:
    """A listing that fails (here: tables registered for no rules) is an error naming the
    cause, never a play."""
    from harness.engine.fast.fast_bot import FastHeuristicBot, PythonLister

    lister = PythonLister()
    bot = FastHeuristicBot(RULESETS["huaian"], lister)
    state = start_round(
        [list(parse_cards("S3 S4")), *([list(parse_cards("H5"))] * 3)],
        Rank.TWO,
        RULESETS["huaian"],
        0,
    )
    lister.register = lambda table, rules: None  # type: ignore[method-assign]
    with pytest.raises(KeyError):
        bot.act(state, 0)


@needs_kernel
def test_rules_of_another_rule_set_are_refused() -> None:
    bot = _fast(RULESETS["huaian"])
    rules = play_rules(RULESETS["competition"], Rank.TWO)
    with pytest.raises(HarnessError, match="another rule set"):
        bot.give_back(list(parse_cards("S3 S4")), list(parse_cards("S3")), rules)


@needs_kernel
def test_a_view_the_bot_cannot_take_is_refused() -> None:
    """A hand past `GD_MAX_HAND`, or a code that is no card, is refused by the C bot, never
    read past its end."""
    from harness.engine.fast.fast_bot import FastHeuristicBot, PythonLister
    from harness.errors import EngineError
    from harness.kernel.view import MAX_HAND

    bot = FastHeuristicBot(RULESETS["huaian"], PythonLister())
    kernel = bot._kernel
    table, rules_id = bot._tables(play_rules(RULESETS["huaian"], Rank.TWO))
    i32p = ctypes.POINTER(ctypes.c_int32)
    hand = (ctypes.c_int32 * (MAX_HAND + 1))()
    for count, code in ((MAX_HAND + 1, 0), (1, 99), (1, 4)):  # too many; no card; a 2 of suit 4
        hand[0] = code
        found = kernel.bot_give_back(
            bot._bot,
            ctypes.cast(table, i32p),
            ctypes.cast(bot._table, i32p),
            rules_id,
            bot._lister,
            hand,
            count,
            hand,
            1,
        )
        assert found == -2
    with pytest.raises(EngineError):
        bot.choose([])
