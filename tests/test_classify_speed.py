"""The fast classify (認牌): readings worked out once per key (the natural cards' ranks, the
number of wild cards, whether the cards share a suit) and cached, against the oracle that works
from the cards themselves (`tests/oracles/classify.py`), for every variant, the long-tubes test
variant and the mutants of the clauses that decide readings.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.interpreter.classify import (
    Classification,
    classify,
    rules_classification,
    rules_readings,
)
from harness.interpreter.readings import play_rules
from harness.memo import memo
from harness.model.cards import NATURAL_RANKS, Card, Rank, Suit, two_deck_pack
from harness.model.loader import bundled_variants, load_variant_file
from harness.model.mutants import mutants, mutate
from harness.model.ruleset import Ruleset
from harness.strategies import card_sets, hands_with_wilds, levels
from tests.oracles.classify import classify_uncached

SYNTHETIC = Path(__file__).parent / "data" / "variants" / "long-tubes.yaml"
RULESETS: list[Ruleset] = [*bundled_variants(), load_variant_file(SYNTHETIC)]
IDS = [r.slug for r in RULESETS]
# The clause families a reading, its order or its default depends on.
FAMILIES = ("combinations", "sequences", "wild", "ranks", "compare", "bombs")
PACK = list(two_deck_pack())
# The module (the package's `classify` is the function).
classify_module = importlib.import_module("harness.interpreter.classify")
ALL_RANKS = [*NATURAL_RANKS, Rank.SMALL_JOKER, Rank.BIG_JOKER]


def _mutants() -> Iterator[tuple[str, Ruleset]]:
    for ruleset in bundled_variants():
        ids = [c for c in ruleset.clauses if c.split(".")[0] in FAMILIES]
        for m in mutants(ruleset, ids):
            mutated = mutate(ruleset, m.clause, m.value)
            assert mutated is not None
            yield f"{ruleset.slug}:{m.clause}={m.value}", mutated


MUTANTS = dict(_mutants())


def _card(rng: random.Random, rank: Rank) -> Card:
    return Card(rank, None if rank.is_joker else rng.choice(list(Suit)))


def random_set(rng: random.Random, level: Rank) -> list[Card]:
    """1 to 10 cards: random, few ranks, runs of one suit, jokers, with wild cards mixed in."""
    size = rng.randint(1, 10)
    wild = Card(level, Suit.HEARTS)
    mode = rng.randrange(7)
    if mode == 0:
        cards = rng.sample(PACK, size)
    elif mode == 1:
        # Few ranks (bombs, full houses, pairs), the level rank and jokers among them.
        ranks = [*rng.sample(ALL_RANKS, rng.randint(1, 3)), level]
        cards = [_card(rng, rng.choice(ranks)) for _ in range(size)]
    elif mode in (2, 3):
        # A run of singles, pairs or triples, all of one suit or not, wrapping past A.
        suit, start, width = rng.choice(list(Suit)), rng.randrange(13), rng.randint(1, 3)
        cards = [Card(NATURAL_RANKS[(start + i // width) % 13], suit) for i in range(size)]
        if mode == 3:
            cards = [_card(rng, c.rank) if rng.random() < 0.3 else c for c in cards]
    elif mode == 4:
        cards = [_card(rng, rng.choice((Rank.SMALL_JOKER, Rank.BIG_JOKER))) for _ in range(size)]
    elif mode == 5:
        # A run through the level rank, mostly of one suit (hearts, the wild's, half the
        # time), its level card the wild card or a natural one.
        suit = rng.choice((Suit.HEARTS, rng.choice(list(Suit))))
        start = (NATURAL_RANKS.index(level) - rng.randrange(size)) % 13
        cards = [Card(NATURAL_RANKS[(start + i) % 13], suit) for i in range(size)]
        cards = [wild if c.rank is level and rng.random() < 0.5 else c for c in cards]
        if rng.random() < 0.3:
            cards[rng.randrange(size)] = _card(rng, cards[0].rank)
    else:
        # Wild cards only, or with one other card.
        cards = [wild] * rng.randint(1, 3) + ([rng.choice(PACK)] if rng.random() < 0.5 else [])
    for _ in range(rng.choice((0, 0, 1, 2))):
        # A wild card (the heart level card) added, or standing in for a card.
        if cards and rng.random() < 0.5:
            cards[rng.randrange(len(cards))] = wild
        else:
            cards.append(wild)
    rng.shuffle(cards)
    return cards


def _same(cards: list[Card], level: Rank, ruleset: Ruleset) -> None:
    fast = classify(cards, level, ruleset)
    slow = classify_uncached(cards, level, ruleset)
    assert fast == slow, (ruleset.slug, level, [c.code for c in cards], fast, slow)
    assert isinstance(fast.readings, tuple)
    rules = play_rules(ruleset, level)
    assert rules_readings(cards, rules) == list(slow.readings)
    assert classify(cards, level, ruleset) == slow  # again, from the cache


@given(st.sampled_from(RULESETS), levels(), st.data())
def test_cached_classify_matches_the_cards_on_card_sets(
    ruleset: Ruleset, level: Rank, data: st.DataObject
) -> None:
    _same(data.draw(card_sets(level)), level, ruleset)


@given(st.sampled_from(RULESETS), levels(), st.data())
def test_cached_classify_matches_the_cards_on_hands_with_wilds(
    ruleset: Ruleset, level: Rank, data: st.DataObject
) -> None:
    _same(data.draw(hands_with_wilds(level, 1, 10)), level, ruleset)


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_cached_classify_matches_the_cards_on_random_sets(ruleset: Ruleset) -> None:
    rng = random.Random(f"classify {ruleset.slug}")
    for level in NATURAL_RANKS:
        for _ in range(150):
            _same(random_set(rng, level), level, ruleset)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_cached_classify_matches_the_cards_in_mutants(name: str) -> None:
    ruleset = MUTANTS[name]
    rng = random.Random(f"classify {name}")
    for _ in range(200):
        level = rng.choice(NATURAL_RANKS)
        _same(random_set(rng, level), level, ruleset)


def test_straight_flush_needs_the_natural_cards_of_one_suit() -> None:
    """The wild card (♥ level card) stands in a straight flush of any suit; natural cards of two
    suits make none, and a non-heart level card is natural: its suit counts."""
    huaian = next(r for r in RULESETS if r.slug == "huaian")
    wild = Card(Rank.TWO, Suit.HEARTS)
    spades = [Card(r, Suit.SPADES) for r in (Rank.FIVE, Rank.SIX, Rank.SEVEN, Rank.EIGHT)]
    sets = [
        [*spades, wild],
        [*spades, Card(Rank.NINE, Suit.SPADES)],
        [*spades, Card(Rank.NINE, Suit.CLUBS)],
        [*spades[:3], Card(Rank.EIGHT, Suit.CLUBS), wild],
        [Card(Rank.TWO, Suit.SPADES), *(Card(r, Suit.SPADES) for r in NATURAL_RANKS[1:4]), wild],
        [Card(Rank.TWO, Suit.CLUBS), *(Card(r, Suit.SPADES) for r in NATURAL_RANKS[1:4]), wild],
    ]
    flush = [
        any(r.type.value == "straight_flush" for r in classify(s, Rank.TWO, huaian).readings)
        for s in sets
    ]
    assert flush == [True, True, False, False, True, False]
    for cards in sets:
        _same(cards, Rank.TWO, huaian)


@pytest.mark.parametrize(
    "name",
    [*IDS, *(n for n in sorted(MUTANTS) if n.split(":")[1].startswith(("wild.", "sequences.")))],
)
def test_runs_through_the_level_rank(name: str) -> None:
    """Every run of one suit through the level rank, its level card the wild card (of the wild's
    suit), a natural one of the run's suit or of another: a straight flush or not, whether the
    wild card may help to make one (wild.excluded) or not (then it is a heart level card)."""
    ruleset = MUTANTS.get(name) or RULESETS[IDS.index(name)]
    for level in (Rank.TWO, Rank.SIX, Rank.KING, Rank.ACE):
        at = NATURAL_RANKS.index(level)
        for size in (5, 6):
            for offset in range(size):
                ranks = [NATURAL_RANKS[(at - offset + i) % 13] for i in range(size)]
                for suit in Suit:
                    for stand_in in (Card(level, Suit.HEARTS), Card(level, Suit.CLUBS)):
                        cards = [stand_in if r is level else Card(r, suit) for r in ranks]
                        _same(cards, level, ruleset)


def test_each_key_is_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cards with the same key (ranks, wild count, suits shared or not) share one answer."""
    calls: list[object] = []
    work = classify_module._key_classification

    def counted(*args: object) -> Classification:
        calls.append(args)
        return work(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(classify_module, "_key_classification", counted)
    classify_module.key_classification.cache_clear()
    ruleset = RULESETS[0]
    rules = play_rules(ruleset, Rank.SEVEN)
    full_house = [Card(Rank.NINE, s) for s in (Suit.SPADES, Suit.CLUBS, Suit.DIAMONDS)]
    first = rules_classification([*full_house, *[Card(Rank.FOUR, Suit.CLUBS)] * 2], rules)
    again = rules_classification(
        [Card(Rank.FOUR, Suit.SPADES), *full_house[::-1], Card(Rank.FOUR, Suit.HEARTS)], rules
    )
    assert again is first and len(calls) == 1
    # Another level, or a wild card for a natural card: another key.
    rules_classification(full_house, play_rules(ruleset, Rank.EIGHT))
    rules_classification([*full_house[:2], Card(Rank.SEVEN, Suit.HEARTS)], rules)
    assert len(calls) == 3


def test_the_cache_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo of keys has a bound, and answers stay right while a small memo drops keys: a
    long run over many variants cannot grow it without end."""
    assert classify_module.key_classification.cache_info().maxsize is not None
    small = memo(50)(classify_module._key_classification)
    monkeypatch.setattr(classify_module, "key_classification", small)
    rng = random.Random(15)
    ruleset = RULESETS[0]
    for _ in range(400):
        level = rng.choice(NATURAL_RANKS)
        _same(random_set(rng, level), level, ruleset)
        assert small.cache_info().currsize <= 50
    assert small.cache_info().misses > 50  # more keys than it holds: some were dropped
