"""legal_actions (可出的牌組): every distinct set of cards a hand can play, each with its readings.
It agrees with legal_plays on readings, with classify on each set, and with a brute-force
enumeration of every sub-multiset of small hands."""

from __future__ import annotations

import io
import json
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.frontends.cli import main
from harness.interpreter.actions import legal_actions
from harness.interpreter.classify import classify
from harness.interpreter.legal import HandPlays, hand_plays, legal_plays
from harness.interpreter.readings import Reading, play_rules
from harness.model.cards import Card, Rank, parse_hand
from harness.model.loader import bundled_variants, load_variant
from harness.model.mutants import mutants, mutate
from harness.model.ruleset import CombinationType, Ruleset
from harness.strategies import card_sets, hands, levels

VARIANTS = bundled_variants()


def _hand_and_previous(
    max_size: int,
) -> st.SearchStrategy[tuple[int, Rank, list[Card], Reading | None]]:
    """A variant (by index), a level, a hand, and a reading to follow or None."""

    @st.composite
    def draw(draw: st.DrawFn) -> tuple[int, Rank, list[Card], Reading | None]:
        index = draw(st.integers(0, len(VARIANTS) - 1))
        level = draw(levels())
        hand = draw(hands(level, 1, max_size))
        previous = None
        if draw(st.booleans()):
            found = classify(draw(card_sets(level)), level, VARIANTS[index]).readings
            previous = draw(st.sampled_from(found)) if found else None
        return index, level, hand, previous

    return draw()


@settings(deadline=None)
@given(_hand_and_previous(27))
def test_the_readings_of_the_actions_are_the_legal_plays(
    drawn: tuple[int, Rank, list[Card], Reading | None],
) -> None:
    """The readings over all actions are exactly the readings legal_plays lists."""
    index, level, hand, previous = drawn
    ruleset = VARIANTS[index]
    actions = legal_actions(hand, level, ruleset, previous)
    plays = legal_plays(hand, level, ruleset, previous)
    assert {r for _, readings in actions for r in readings} == {p.reading for p in plays}


@settings(deadline=None)
@given(_hand_and_previous(27))
def test_every_action_classifies_to_its_readings(
    drawn: tuple[int, Rank, list[Card], Reading | None],
) -> None:
    """Each action's cards are in the hand, distinct from every other action's, and read as
    exactly the readings listed (those that beat the previous play, when following)."""
    index, level, hand, previous = drawn
    ruleset = VARIANTS[index]
    rules = play_rules(ruleset, level)
    have = Counter(hand)
    seen = set()
    for cards, listed in legal_actions(hand, level, ruleset, previous):
        assert not Counter(cards) - have
        key = tuple(sorted(c.code for c in cards))
        assert key not in seen
        seen.add(key)
        readings = set(classify(cards, level, ruleset).readings)
        if previous is not None:
            readings = {r for r in readings if rules.beats(r, previous)}
        assert readings == set(listed) and readings


@settings(deadline=None)
@given(_hand_and_previous(8))
def test_small_hands_against_every_sub_multiset(
    drawn: tuple[int, Rank, list[Card], Reading | None],
) -> None:
    """For hands of up to 8 cards, the actions are every sub-multiset of the hand that reads
    as something (that beats the previous play), found here by trying them all."""
    index, level, hand, previous = drawn
    _check_by_brute_force(hand, level, VARIANTS[index], previous)


def _check_by_brute_force(
    hand: list[Card], level: Rank, ruleset: Ruleset, previous: Reading | None
) -> None:
    """legal_actions' sets are the sub-multisets of `hand` that classify reads as something
    (beating `previous`), every one of them tried."""
    rules = play_rules(ruleset, level)
    cards = sorted(hand, key=lambda c: c.sort_key())
    expected = set()
    for size in range(1, len(cards) + 1):
        for chosen in set(combinations(cards, size)):
            found = classify(chosen, level, ruleset).readings
            if previous is not None:
                found = tuple(r for r in found if rules.beats(r, previous))
            if found:
                expected.add(tuple(c.code for c in chosen))
    got = {
        tuple(c.code for c in sorted(cards, key=lambda c: c.sort_key()))
        for cards, _ in legal_actions(hand, level, ruleset, previous)
    }
    assert got == expected


def test_the_two_copies_of_a_card_are_one_card() -> None:
    """S3 S3 C3 at level 9: singles S3 and C3 (S3 once), pairs S3 S3 and S3 C3, one triple;
    legal_plays lists the three readings only."""
    ruleset = VARIANTS[0]
    hand = list(parse_hand("S3 S3 C3"))
    actions = legal_actions(hand, Rank.NINE, ruleset)
    assert sorted(" ".join(c.code for c in cards) for cards, _ in actions) == [
        "C3",
        "S3",
        "S3 C3",
        "S3 S3",
        "S3 S3 C3",
    ]
    assert len(hand_plays(hand, play_rules(ruleset, Rank.NINE))) == 3


def test_guandan_plays_actions() -> None:
    """`guandan plays --actions`: the distinct sets, as text and as JSON."""
    out = io.StringIO()
    args = ["plays", "--variant", "huaian", "--level", "2", "--actions", "S3", "S3", "C3", "H2"]
    assert main(args, out) == 0
    assert out.getvalue().startswith("11 actions as leader, level 2:")
    out = io.StringIO()
    assert main([*args[:-4], "--json", "S3", "S3", "C3", "H2"], out) == 0
    rows = json.loads(out.getvalue())
    assert len(rows) == 11
    assert {"cards": ["S3", "S3", "C3", "H2"], "readings": [
        {"type": "bomb", "rank": "3", "size": 4}]} in rows  # fmt: skip


def _play_mutants() -> list[Ruleset]:
    """huaian changed in one clause of how plays are made: shapes, sequences, wild cards,
    ranks, comparison and bombs."""
    base = load_variant("huaian")
    families = ("combinations.", "sequences.", "wild.", "ranks.", "compare.", "bombs.")
    found = []
    for mutant in mutants(base):
        if mutant.clause.startswith(families):
            changed = mutate(base, mutant.clause, mutant.value)
            assert changed is not None
            found.append(changed)
    return found


MUTANTS = _play_mutants()


@settings(deadline=None)
@given(st.integers(0, len(MUTANTS) - 1), levels(), st.data())
def test_small_hands_against_every_sub_multiset_on_mutants(
    index: int, level: Rank, data: st.DataObject
) -> None:
    """The profiles are proposed from each shape's own values, so the actions stay complete
    when a clause changes (another natural order, longer straights, no wrap…): checked by
    trying every sub-multiset of small hands under one-clause mutants of huaian."""
    _check_by_brute_force(data.draw(hands(level, 1, 7)), level, MUTANTS[index], None)


@settings(deadline=None)
@given(_hand_and_previous(27))
def test_the_follows_off_the_ladder_are_the_following_plays_that_are_no_bombs(
    drawn: tuple[int, Rank, list[Card], Reading | None],
) -> None:
    """HandPlays.following without bombs lists exactly the following plays off the bomb ladder
    (炸彈), in the same order and with the same cards: none at all against a bomb."""
    index, level, hand, previous = drawn
    if previous is None:
        return
    rules = play_rules(VARIANTS[index], level)
    plays = HandPlays(tuple(hand), rules)
    expected = [p for p in plays.following(previous) if rules.ladder_step(p.reading) is None]
    # A fresh listing, so that the hand's kinds are found by the call under test itself.
    assert HandPlays(tuple(hand), rules).following(previous, bombs=False) == expected
    # `beaten_by_any` answers whether that list is empty, on a fresh listing too.
    assert HandPlays(tuple(hand), rules).beaten_by_any(previous) is bool(expected)
    if rules.ladder_step(previous) is not None:
        assert expected == []


def test_no_follow_off_the_ladder_beats_a_bomb_and_none_of_them_is_a_bomb() -> None:
    """Against a bomb of 5s, a hand with a bigger bomb has no play off the ladder; against a
    pair of 5s, it has its pairs above 5 and not its bomb (huaian at level 2)."""
    rules = play_rules(load_variant("huaian"), Rank.TWO)
    hand = parse_hand("S9 H9 C9 D9 S7 H7 S3")
    bomb = Reading(CombinationType.BOMB, Rank.FIVE, 4)
    assert HandPlays(hand, rules).following(bomb)  # the bomb of 9s beats it
    assert HandPlays(hand, rules).following(bomb, bombs=False) == []
    pair = Reading(CombinationType.PAIR, Rank.FIVE, 2)
    follows = HandPlays(hand, rules).following(pair, bombs=False)
    assert [(p.reading.type, p.reading.rank) for p in follows] == [
        (CombinationType.PAIR, Rank.SEVEN),
        (CombinationType.PAIR, Rank.NINE),
    ]
    assert HandPlays(hand, rules).beaten_by_any(pair)
    assert not HandPlays(hand, rules).beaten_by_any(bomb)  # only the bomb of 9s beats it
    assert not HandPlays(hand, rules).beaten_by_any(Reading(CombinationType.PAIR, Rank.TEN, 2))
