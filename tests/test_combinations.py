"""Tests for combinations (牌型), comparison (牌的大小) and legal plays
(harness.interpreter.classify, harness.interpreter.readings, harness.interpreter.legal).

Every expected reading below was written by hand from the rules of the four source rule sets
(variants/*.yaml quote them); none was copied from the interpreter's output. Each test names the
clause id(s) it checks. Unless a test is about the level card, it plays at a level whose cards do
not appear in it (``NEUTRAL``), so that no card is a level card or a wild card by accident.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from harness.interpreter.classify import classify
from harness.interpreter.legal import legal_plays
from harness.interpreter.readings import Reading, beats
from harness.model.cards import Rank, parse_cards
from harness.model.loader import load_variant, load_variant_file
from harness.model.ruleset import CombinationType, Ruleset

VARIANTS = ("huaian", "online-app", "competition", "match-rules")
LONG_TUBES = Path(__file__).resolve().parent / "data" / "variants" / "long-tubes.yaml"

# A level whose cards appear in no test that uses it (no 8 is played in those tests).
NEUTRAL = "8"

SINGLE = CombinationType.SINGLE
PAIR = CombinationType.PAIR
TRIPLE = CombinationType.TRIPLE
FULL_HOUSE = CombinationType.FULL_HOUSE
STRAIGHT = CombinationType.STRAIGHT
TUBE = CombinationType.TUBE
PLATE = CombinationType.PLATE
BOMB = CombinationType.BOMB
STRAIGHT_FLUSH = CombinationType.STRAIGHT_FLUSH
JOKER_BOMB = CombinationType.JOKER_BOMB


def ruleset(slug: str) -> Ruleset:
    """A bundled variant by slug, or the synthetic test variant ``long-tubes``."""
    if slug == "long-tubes":
        return load_variant_file(LONG_TUBES)
    return load_variant(slug)


def r(kind: CombinationType, rank: str, size: int) -> Reading:
    """A reading written by hand: ``r(STRAIGHT, "5", 5)`` is the straight A2345."""
    return Reading(kind, Rank(rank), size)


def readings(cards: str, level: str, slug: str) -> set[Reading]:
    """Every reading of exactly these cards at `level` under the variant `slug`."""
    return set(classify(parse_cards(cards), Rank(level), ruleset(slug)).readings)


def wins(play: Reading, previous: Reading, level: str, slug: str) -> bool:
    """Whether `play` beats `previous` at `level` under `slug`."""
    return beats(play, previous, Rank(level), ruleset(slug))


def only(cards: str, level: str, slug: str) -> Reading:
    """The one reading of these cards (the test fails if there is not exactly one)."""
    found = readings(cards, level, slug)
    assert len(found) == 1, f"{cards} at level {level} ({slug}): {found}"
    (reading,) = found
    return reading


all_variants = pytest.mark.parametrize("slug", VARIANTS)


# ---------------------------------------------------------------------------------------------
# Every combination type: one positive and some negative examples (combinations.*.shape)


@all_variants
def test_single_shape(slug: str) -> None:
    # combinations.single.shape: any one card, jokers included.
    assert readings("S5", NEUTRAL, slug) == {r(SINGLE, "5", 1)}
    assert readings("DA", NEUTRAL, slug) == {r(SINGLE, "A", 1)}
    assert readings("SB", NEUTRAL, slug) == {r(SINGLE, "SB", 1)}
    assert readings("HR", NEUTRAL, slug) == {r(SINGLE, "HR", 1)}
    # Two different cards make no play at all.
    assert readings("S5 S6", NEUTRAL, slug) == set()
    assert readings("", NEUTRAL, slug) == set()


@all_variants
def test_pair_shape(slug: str) -> None:
    # combinations.pair.shape: two of a rank, suits do not matter.
    assert readings("S5 D5", NEUTRAL, slug) == {r(PAIR, "5", 2)}
    assert readings("S5 S5", NEUTRAL, slug) == {r(PAIR, "5", 2)}
    assert readings("S5 D6", NEUTRAL, slug) == set()


@pytest.mark.parametrize(
    ("slug", "jokers_pair"),
    [
        ("huaian", True),  # 兩個大王或者兩個小王也算做對子
        ("online-app", True),  # 兩個大王或者兩個小王也算做對子
        ("competition", True),  # 兩張牌從大到小依次為：一對大王，一對小王
        ("match-rules", True),  # silent; assumed as in the others
    ],
)
def test_joker_pairs(slug: str, jokers_pair: bool) -> None:
    # combinations.pair.shape: two small or two big jokers are a pair where the variant says so.
    expected_sb = {r(PAIR, "SB", 2)} if jokers_pair else set()
    expected_hr = {r(PAIR, "HR", 2)} if jokers_pair else set()
    assert readings("SB SB", NEUTRAL, slug) == expected_sb
    assert readings("HR HR", NEUTRAL, slug) == expected_hr


@all_variants
def test_small_and_big_joker_are_no_pair(slug: str) -> None:
    # combinations.pair.shape: SB + HR are two different ranks, never a pair.
    assert readings("SB HR", NEUTRAL, slug) == set()
    assert readings("HR SB", NEUTRAL, slug) == set()


@all_variants
def test_triple_shape(slug: str) -> None:
    # combinations.triple.shape
    assert readings("S5 D5 C5", NEUTRAL, slug) == {r(TRIPLE, "5", 3)}
    assert readings("S5 D5 C6", NEUTRAL, slug) == set()
    # Jokers make no triple (and two decks hold only two of each joker).
    assert readings("SB SB HR", NEUTRAL, slug) == set()


@all_variants
def test_full_house_shape(slug: str) -> None:
    # combinations.full_house.shape: a triple plus a pair of another rank, ranked by the triple.
    assert readings("S5 D5 C5 S9 D9", NEUTRAL, slug) == {r(FULL_HOUSE, "5", 5)}
    assert readings("S9 D9 S5 D5 C5", NEUTRAL, slug) == {r(FULL_HOUSE, "5", 5)}
    # The pair may be a pair of jokers (they are a pair in every variant).
    assert readings("S5 D5 C5 SB SB", NEUTRAL, slug) == {r(FULL_HOUSE, "5", 5)}
    # No pair: no play.
    assert readings("S5 D5 C5 S9 DT", NEUTRAL, slug) == set()
    # SB + HR is no pair, so no full house either.
    assert readings("S5 D5 C5 SB HR", NEUTRAL, slug) == set()
    # Two pairs and a single is nothing without a wild.
    assert readings("S5 D5 S9 D9 CT", NEUTRAL, slug) == set()


@all_variants
def test_five_of_a_rank_is_a_bomb_not_a_full_house(slug: str) -> None:
    # combinations.full_house.shape (the pair is of another rank), combinations.bomb.shape
    assert readings("S5 D5 C5 H5 S5", NEUTRAL, slug) == {r(BOMB, "5", 5)}


@all_variants
def test_straight_shape(slug: str) -> None:
    # combinations.straight.shape: exactly five consecutive single cards, any suits.
    assert readings("S3 D4 C5 S6 D7", NEUTRAL, slug) == {r(STRAIGHT, "7", 5)}
    assert readings("S9 DT CJ SQ DK", NEUTRAL, slug) == {r(STRAIGHT, "K", 5)}
    # A gap: no play.
    assert readings("S3 D4 C5 S6 D9", NEUTRAL, slug) == set()
    # Four cards: no play.
    assert readings("S3 D4 C5 S6", NEUTRAL, slug) == set()
    # A repeated rank: no play.
    assert readings("S3 D4 C5 S5 D7", NEUTRAL, slug) == set()


@all_variants
def test_six_card_straight_is_no_play(slug: str) -> None:
    # combinations.straight.shape: 只限5張 / 不可超過五張
    assert readings("S2 D3 C4 S5 D6 C7", NEUTRAL, slug) == set()
    assert readings("S9 DT CJ SQ DK CA", NEUTRAL, slug) == set()


@all_variants
def test_jokers_never_in_sequences(slug: str) -> None:
    # combinations.straight.shape / tube.shape / plate.shape: jokers excluded.
    assert readings("SJ DQ CK SA SB", NEUTRAL, slug) == set()
    assert readings("SQ DQ SK DK SB SB", NEUTRAL, slug) == set()
    assert readings("SK DK CK SB SB HR", NEUTRAL, slug) == set()


@all_variants
def test_tube_shape(slug: str) -> None:
    # combinations.tube.shape: exactly three consecutive pairs.
    assert readings("S3 D3 S4 D4 S5 D5", NEUTRAL, slug) == {r(TUBE, "5", 6)}
    assert readings("SQ DQ SK DK SA DA", NEUTRAL, slug) == {r(TUBE, "A", 6)}
    # Not consecutive.
    assert readings("S3 D3 S4 D4 S6 D6", NEUTRAL, slug) == set()
    # Two pairs or four pairs (不可以二連對 … 也不可以四連對).
    assert readings("S3 D3 S4 D4", NEUTRAL, slug) == set()
    assert readings("S3 D3 S4 D4 S5 D5 S6 D6", NEUTRAL, slug) == set()


@all_variants
def test_plate_shape(slug: str) -> None:
    # combinations.plate.shape: exactly two consecutive triples.
    assert readings("S3 D3 C3 S4 D4 C4", NEUTRAL, slug) == {r(PLATE, "4", 6)}
    assert readings("SK DK CK SA DA CA", NEUTRAL, slug) == {r(PLATE, "A", 6)}
    # Not consecutive.
    assert readings("S3 D3 C3 S5 D5 C5", NEUTRAL, slug) == set()
    # Three triples (不可以三個或三個以上相連的三同張牌).
    assert readings("S3 D3 C3 S4 D4 C4 S5 D5 C5", NEUTRAL, slug) == set()


@all_variants
def test_bomb_shape(slug: str) -> None:
    # combinations.bomb.shape: four or more of a rank; hearts are only wild at the level.
    assert readings("S5 D5 C5 H5", NEUTRAL, slug) == {r(BOMB, "5", 4)}
    assert readings("S5 D5 C5 H5 S5 D5", NEUTRAL, slug) == {r(BOMB, "5", 6)}
    assert readings("S5 D5 C5 H5 S5 D5 C5 H5", NEUTRAL, slug) == {r(BOMB, "5", 8)}
    assert readings("S5 D5 C5 H6", NEUTRAL, slug) == set()


@all_variants
def test_straight_flush_shape(slug: str) -> None:
    # combinations.straight_flush.shape: five consecutive cards of one suit. They are also a
    # straight: the player declares which (wild.declared); both readings are listed.
    assert readings("S3 S4 S5 S6 S7", NEUTRAL, slug) == {
        r(STRAIGHT, "7", 5),
        r(STRAIGHT_FLUSH, "7", 5),
    }
    assert readings("DT DJ DQ DK DA", NEUTRAL, slug) == {
        r(STRAIGHT, "A", 5),
        r(STRAIGHT_FLUSH, "A", 5),
    }
    # One card of another suit: only a straight.
    assert readings("S3 S4 S5 S6 D7", NEUTRAL, slug) == {r(STRAIGHT, "7", 5)}
    # One suit but not consecutive: nothing.
    assert readings("S3 S4 S5 S6 S9", NEUTRAL, slug) == set()


@all_variants
def test_joker_bomb_shape(slug: str) -> None:
    # combinations.joker_bomb.shape: the two small and the two big jokers.
    assert readings("SB SB HR HR", NEUTRAL, slug) == {r(JOKER_BOMB, "HR", 4)}
    assert readings("HR SB HR SB", NEUTRAL, slug) == {r(JOKER_BOMB, "HR", 4)}
    assert readings("SB HR HR", NEUTRAL, slug) == set()
    assert readings("SB SB HR", NEUTRAL, slug) == set()
    assert readings("SB SB HR HR S5", NEUTRAL, slug) == set()


# ---------------------------------------------------------------------------------------------
# Sequences: A low or high, never wrapping (sequences.ace_low, sequences.ace_high, sequences.wrap)


@all_variants
def test_a2345_is_the_lowest_straight(slug: str) -> None:
    # sequences.ace_low, compare.sequence_key: A2345 counts from its top card, 5.
    low = only("SA D2 C3 S4 D5", NEUTRAL, slug)
    assert low == r(STRAIGHT, "5", 5)
    next_up = only("S2 D3 C4 S5 D6", NEUTRAL, slug)
    assert next_up == r(STRAIGHT, "6", 5)
    assert wins(next_up, low, NEUTRAL, slug)
    assert not wins(low, next_up, NEUTRAL, slug)


@all_variants
def test_tjqka_is_the_highest_straight(slug: str) -> None:
    # sequences.ace_high, compare.sequence_key
    high = only("ST DJ CQ SK DA", NEUTRAL, slug)
    assert high == r(STRAIGHT, "A", 5)
    below = only("S9 DT CJ SQ DK", NEUTRAL, slug)
    assert below == r(STRAIGHT, "K", 5)
    assert wins(high, below, NEUTRAL, slug)
    assert not wins(below, high, NEUTRAL, slug)
    # TJQKA also beats A2345: the ace is low only in A2345.
    assert wins(high, r(STRAIGHT, "5", 5), NEUTRAL, slug)


@all_variants
@pytest.mark.parametrize(
    "cards",
    [
        "SJ DQ CK SA D2",  # JQKA2 (JQKA2屬不符合規則的牌型)
        "SQ DK CA S2 D3",  # QKA23
        "SK DA C2 S3 D4",  # KA234
        "SK DK SA DA S2 D2",  # KKAA22
        "SA DA S2 D2 SK DK",  # the same, in another order
    ],
)
def test_sequences_never_wrap(slug: str, cards: str) -> None:
    # sequences.wrap
    assert readings(cards, NEUTRAL, slug) == set()


@all_variants
def test_aa2233_is_the_lowest_tube(slug: str) -> None:
    # sequences.ace_low, combinations.tube.shape, compare.sequence_key
    low = only("SA DA S2 D2 S3 D3", NEUTRAL, slug)
    assert low == r(TUBE, "3", 6)
    next_up = only("S2 D2 S3 D3 S4 D4", NEUTRAL, slug)
    assert next_up == r(TUBE, "4", 6)
    assert wins(next_up, low, NEUTRAL, slug)
    assert not wins(low, next_up, NEUTRAL, slug)
    # QQKKAA is the highest (最大的是aakkqq).
    high = only("SQ DQ SK DK SA DA", NEUTRAL, slug)
    assert high == r(TUBE, "A", 6)
    assert wins(high, only("SJ DJ SQ DQ SK DK", NEUTRAL, slug), NEUTRAL, slug)
    assert wins(high, low, NEUTRAL, slug)


@all_variants
def test_aaa222_is_the_lowest_plate(slug: str) -> None:
    # sequences.ace_low, sequences.ace_high, combinations.plate.shape, compare.sequence_key
    low = only("SA DA CA S2 D2 C2", NEUTRAL, slug)
    assert low == r(PLATE, "2", 6)
    next_up = only("S2 D2 C2 S3 D3 C3", NEUTRAL, slug)
    assert next_up == r(PLATE, "3", 6)
    assert wins(next_up, low, NEUTRAL, slug)
    assert not wins(low, next_up, NEUTRAL, slug)
    # KKKAAA is a plate, the highest one.
    high = only("SK DK CK SA DA CA", NEUTRAL, slug)
    assert high == r(PLATE, "A", 6)
    assert wins(high, only("SQ DQ CQ SK DK CK", NEUTRAL, slug), NEUTRAL, slug)
    assert wins(high, low, NEUTRAL, slug)


@all_variants
def test_straight_flush_ace_low_and_high(slug: str) -> None:
    # sequences.ace_low, sequences.ace_high, compare.sequence_key (同花順之間比較點數最大的一張牌)
    low = r(STRAIGHT_FLUSH, "5", 5)
    high = r(STRAIGHT_FLUSH, "A", 5)
    assert low in readings("SA S2 S3 S4 S5", NEUTRAL, slug)
    assert high in readings("ST SJ SQ SK SA", NEUTRAL, slug)
    assert wins(r(STRAIGHT_FLUSH, "6", 5), low, NEUTRAL, slug)
    assert not wins(low, r(STRAIGHT_FLUSH, "6", 5), NEUTRAL, slug)
    assert wins(high, r(STRAIGHT_FLUSH, "K", 5), NEUTRAL, slug)
    assert not wins(r(STRAIGHT_FLUSH, "K", 5), high, NEUTRAL, slug)
    assert readings("SJ SQ SK SA S2", NEUTRAL, slug) == set()


# ---------------------------------------------------------------------------------------------
# The level card (ranks.level_card.position, ranks.level_card.in_sequences)


@all_variants
def test_level_card_in_its_natural_place_in_a_straight(slug: str) -> None:
    # ranks.level_card.in_sequences: at level 7, C7 is an ordinary 7 inside 34567 (no wild here).
    assert readings("S3 S4 S5 S6 C7", "7", slug) == {r(STRAIGHT, "7", 5)}
    assert readings("C7 S8 S9 ST SJ", "7", slug) == {r(STRAIGHT, "J", 5)}
    # Same suit with a non-heart level card: a straight flush too.
    assert readings("S3 S4 S5 S6 S7", "7", slug) == {
        r(STRAIGHT, "7", 5),
        r(STRAIGHT_FLUSH, "7", 5),
    }


@all_variants
def test_level_card_does_not_sit_above_ace_in_sequences(slug: str) -> None:
    # ranks.level_card.in_sequences: the level card is not a rank above A inside a sequence.
    assert readings("SJ DQ CK SA C7", "7", slug) == set()
    assert readings("SK DK SA DA C7 D7", "7", slug) == set()  # not KK AA 77
    assert readings("SA DA CA S7 C7 D7", "7", slug) == set()  # not AAA 777
    assert readings("SK DK CK SA DA CA", "7", slug) == {r(PLATE, "A", 6)}


@all_variants
def test_level_card_in_tube_and_plate(slug: str) -> None:
    # ranks.level_card.in_sequences: a pair or triple of level cards in its natural place.
    assert readings("S6 D6 C7 D7 S8 D8", "7", slug) == {r(TUBE, "8", 6)}
    assert readings("S6 D6 C6 S7 C7 D7", "7", slug) == {r(PLATE, "7", 6)}


@all_variants
def test_level_card_above_ace_as_single_and_pair(slug: str) -> None:
    # ranks.level_card.position: at level 7, 7 ranks above A and below the jokers.
    seven = only("C7", "7", slug)
    ace = only("SA", "7", slug)
    assert seven == r(SINGLE, "7", 1)
    assert wins(seven, ace, "7", slug)
    assert not wins(ace, seven, "7", slug)
    assert wins(r(SINGLE, "SB", 1), seven, "7", slug)
    assert not wins(seven, r(SINGLE, "SB", 1), "7", slug)
    assert wins(r(SINGLE, "HR", 1), r(SINGLE, "SB", 1), "7", slug)

    sevens = only("C7 D7", "7", slug)
    aces = only("SA DA", "7", slug)
    assert sevens == r(PAIR, "7", 2)
    assert wins(sevens, aces, "7", slug)
    assert not wins(aces, sevens, "7", slug)
    assert wins(r(PAIR, "SB", 2), sevens, "7", slug)
    assert wins(r(PAIR, "HR", 2), r(PAIR, "SB", 2), "7", slug)
    assert not wins(r(PAIR, "SB", 2), r(PAIR, "HR", 2), "7", slug)


@all_variants
def test_level_card_is_not_high_at_another_level(slug: str) -> None:
    # ranks.level_card.position: a 7 is just a 7 when the level is 8.
    assert not wins(r(SINGLE, "7", 1), r(SINGLE, "A", 1), NEUTRAL, slug)
    assert wins(r(SINGLE, "A", 1), r(SINGLE, "7", 1), NEUTRAL, slug)
    # At level 2 the 2 is the top non-joker card.
    assert wins(r(PAIR, "2", 2), r(PAIR, "A", 2), "2", slug)
    assert not wins(r(PAIR, "2", 2), r(PAIR, "A", 2), NEUTRAL, slug)


@all_variants
def test_level_card_above_ace_in_triple_and_bomb(slug: str) -> None:
    # ranks.level_card.position (outside sequences)
    assert wins(only("S7 C7 D7", "7", slug), only("SA DA CA", "7", slug), "7", slug)
    assert wins(only("S7 C7 D7 S7", "7", slug), only("SA DA CA HA", "7", slug), "7", slug)
    assert not wins(only("SA DA CA HA", "7", slug), only("S7 C7 D7 S7", "7", slug), "7", slug)


@pytest.mark.parametrize(
    ("slug", "above_ace"),
    [("huaian", True), ("online-app", True), ("competition", True), ("match-rules", False)],
)
def test_level_card_in_a_full_house(slug: str, above_ace: bool) -> None:
    # ranks.level_card.in_full_house: above A as outside sequences, except in match-rules,
    # where 參謀…允許按自然順序插在…三帶二中使用 keeps the 7s in their natural place.
    sevens = only("S7 C7 D7 S2 D2", "7", slug)
    aces = only("SA DA CA SK DK", "7", slug)
    assert wins(sevens, aces, "7", slug) is above_ace
    assert wins(aces, sevens, "7", slug) is not above_ace


# ---------------------------------------------------------------------------------------------
# The wild card 逢人配 (wild.suit, wild.stands_for, wild.excluded, wild.needs_natural_card)


@all_variants
def test_wild_makes_a_pair(slug: str) -> None:
    # wild.stands_for: at level 7, H7 with S5 is a pair of 5s.
    assert readings("H7 S5", "7", slug) == {r(PAIR, "5", 2)}
    assert readings("SK H7", "7", slug) == {r(PAIR, "K", 2)}
    # With a non-heart level card: a pair of level cards either way.
    assert readings("H7 C7", "7", slug) == {r(PAIR, "7", 2)}


@all_variants
def test_wild_makes_a_triple(slug: str) -> None:
    # wild.stands_for
    assert readings("S5 D5 H7", "7", slug) == {r(TRIPLE, "5", 3)}
    assert readings("S5 H7 H7", "7", slug) == {r(TRIPLE, "5", 3)}


@all_variants
def test_wild_makes_a_full_house(slug: str) -> None:
    # wild.stands_for: 55 + wild + 99 is 555 99 or 999 55 (declared), 555 + wild + 9 is 555 99.
    assert readings("S5 D5 H7 S9 D9", "7", slug) == {r(FULL_HOUSE, "5", 5), r(FULL_HOUSE, "9", 5)}
    assert readings("S5 D5 C5 H7 S9", "7", slug) == {r(FULL_HOUSE, "5", 5)}
    # The wild can fill the triple and the pair be jokers.
    assert readings("S5 D5 H7 SB SB", "7", slug) == {r(FULL_HOUSE, "5", 5)}


@all_variants
def test_wild_makes_a_straight(slug: str) -> None:
    # wild.stands_for: 9 T _ Q K with the wild as J.
    assert readings("S9 DT H7 CQ SK", "7", slug) == {r(STRAIGHT, "K", 5)}
    # x4567 is 34567 or 45678 (match-rules: 出牌時須說明); mixed suits, so no straight flush.
    assert readings("H7 S4 D5 C6 D7", "7", slug) == {r(STRAIGHT, "7", 5), r(STRAIGHT, "8", 5)}


@all_variants
def test_wild_makes_a_tube_and_a_plate(slug: str) -> None:
    # wild.stands_for
    assert readings("S3 D3 S4 H7 S5 D5", "7", slug) == {r(TUBE, "5", 6)}
    assert readings("S8 D8 C8 H7 S9 D9", "7", slug) == {r(PLATE, "9", 6)}
    # Both wilds in one tube: 33 + 4 + 5 + two wilds.
    assert readings("S3 D3 S4 H7 S5 H7", "7", slug) == {r(TUBE, "5", 6)}


@all_variants
def test_wild_makes_a_bomb(slug: str) -> None:
    # wild.stands_for
    assert readings("S5 D5 C5 H7", "7", slug) == {r(BOMB, "5", 4)}
    assert readings("S5 D5 H7 H7", "7", slug) == {r(BOMB, "5", 4)}
    # Three non-heart 7s and a heart 7: a bomb of level cards.
    assert readings("S7 C7 D7 H7", "7", slug) == {r(BOMB, "7", 4)}


@all_variants
def test_eight_naturals_and_two_wilds_make_a_ten_card_bomb(slug: str) -> None:
    # wild.stands_for, combinations.bomb.shape: the biggest bomb, 10 cards (two decks + 2 wilds).
    cards = "S5 D5 C5 H5 S5 D5 C5 H5 H7 H7"
    assert readings(cards, "7", slug) == {r(BOMB, "5", 10)}
    # All eight level cards (hearts standing as themselves) make an 8-card bomb.
    assert readings("S7 C7 D7 H7 S7 C7 D7 H7", "7", slug) == {r(BOMB, "7", 8)}


@all_variants
def test_wild_makes_a_straight_flush(slug: str) -> None:
    # wild.stands_for: the heart wild stands for a spade J here (可以配成任意牌型和花色).
    assert readings("S9 ST H7 SQ SK", "7", slug) == {
        r(STRAIGHT, "K", 5),
        r(STRAIGHT_FLUSH, "K", 5),
    }
    # 3456 of spades + wild: 23456 or 34567, each a straight and a straight flush.
    assert readings("S3 S4 S5 S6 H7", "7", slug) == {
        r(STRAIGHT, "6", 5),
        r(STRAIGHT, "7", 5),
        r(STRAIGHT_FLUSH, "6", 5),
        r(STRAIGHT_FLUSH, "7", 5),
    }


@all_variants
def test_wild_never_stands_for_a_joker(slug: str) -> None:
    # wild.stands_for (除了王以外), wild.excluded (組成除天王外的任意牌型)
    assert readings("SB H7", "7", slug) == set()
    assert readings("HR H7", "7", slug) == set()
    assert readings("SB SB H7", "7", slug) == set()
    assert readings("SB SB HR H7", "7", slug) == set()
    assert readings("SB HR HR H7", "7", slug) == set()
    assert readings("SB SB HR H7 H7", "7", slug) == set()
    # A full house whose pair would need the wild as a joker.
    assert readings("S5 D5 C5 SB H7", "7", slug) == set()


@all_variants
def test_wild_alone_is_a_level_card(slug: str) -> None:
    # wild.needs_natural_card: alone, or two alone, the heart level cards are just level cards.
    assert readings("H7", "7", slug) == {r(SINGLE, "7", 1)}
    assert readings("H7 H7", "7", slug) == {r(PAIR, "7", 2)}
    # As a level card it ranks above A.
    assert wins(only("H7", "7", slug), r(SINGLE, "A", 1), "7", slug)
    assert wins(only("H7 H7", "7", slug), r(PAIR, "A", 2), "7", slug)


@all_variants
def test_heart_of_another_rank_is_not_wild(slug: str) -> None:
    # wild.suit: only the heart level card is wild; H5 at level 7 is a plain 5.
    assert readings("H5 S6", "7", slug) == set()
    # A non-heart level card is not wild either.
    assert readings("C7 S6", "7", slug) == set()


# ---------------------------------------------------------------------------------------------
# The default reading of an ambiguous play (wild.default, wild.declared)


@all_variants
def test_wild_full_house_from_two_pairs_default(slug: str) -> None:
    # wild.default: 55 77 + wild at level 2 is 555 77 or 777 55; competition takes the small one
    # when the player does not say (否則只當小牌用); the others have no default.
    found = classify(parse_cards("S5 D5 C7 D7 H2"), Rank("2"), ruleset(slug))
    assert set(found.readings) == {r(FULL_HOUSE, "5", 5), r(FULL_HOUSE, "7", 5)}
    expected = r(FULL_HOUSE, "5", 5) if slug == "competition" else None
    assert found.default == expected


def test_competition_default_small_uses_the_level_order() -> None:
    # wild.default, ranks.level_card.position: at level 7, AA 77 + wild is AAA 77 or 777 AA;
    # the triple of 7s is the bigger (7 above A), so the small reading is the triple of As.
    found = classify(parse_cards("SA DA C7 D7 H7"), Rank("7"), ruleset("competition"))
    assert set(found.readings) == {r(FULL_HOUSE, "A", 5), r(FULL_HOUSE, "7", 5)}
    assert found.default == r(FULL_HOUSE, "A", 5)


def test_huaian_has_no_default() -> None:
    # wild.default (huaian: null), wild.declared
    found = classify(parse_cards("SA DA C7 D7 H7"), Rank("7"), ruleset("huaian"))
    assert found.default is None
    found = classify(parse_cards("H7 S4 D5 C6 D7"), Rank("7"), ruleset("huaian"))
    assert found.default is None


def test_competition_default_applies_to_full_houses_only() -> None:
    # wild.default applies_to [full_house]: an ambiguous straight must be declared.
    found = classify(parse_cards("H7 S4 D5 C6 D7"), Rank("7"), ruleset("competition"))
    assert set(found.readings) == {r(STRAIGHT, "7", 5), r(STRAIGHT, "8", 5)}
    assert found.default is None


# ---------------------------------------------------------------------------------------------
# Comparison (compare.*) and the bomb ladder (bombs.ladder)


@all_variants
def test_equal_plays_never_beat(slug: str) -> None:
    # compare.equal_beats
    for reading in (
        r(SINGLE, "5", 1),
        r(PAIR, "K", 2),
        r(PAIR, "HR", 2),
        r(TRIPLE, "9", 3),
        r(FULL_HOUSE, "5", 5),
        r(STRAIGHT, "T", 5),
        r(TUBE, "5", 6),
        r(PLATE, "4", 6),
        r(BOMB, "5", 4),
        r(BOMB, "5", 10),
        r(STRAIGHT_FLUSH, "9", 5),
        r(JOKER_BOMB, "HR", 4),
    ):
        assert not wins(reading, reading, NEUTRAL, slug), reading


@all_variants
def test_equal_straight_flushes_in_other_suits_do_not_beat(slug: str) -> None:
    # compare.suits_rank (花色無大小), compare.equal_beats
    spades = readings("S3 S4 S5 S6 S7", NEUTRAL, slug)
    diamonds = readings("D3 D4 D5 D6 D7", NEUTRAL, slug)
    assert spades == diamonds
    flush = r(STRAIGHT_FLUSH, "7", 5)
    assert flush in spades
    assert not wins(flush, flush, NEUTRAL, slug)


@all_variants
def test_full_house_compares_by_triple_only(slug: str) -> None:
    # compare.full_house_key (僅比較三同張的大小，不比較所帶對子大小)
    low_pair = only("S5 D5 C5 S3 D3", NEUTRAL, slug)
    high_pair = only("S5 D5 H5 SA DA", NEUTRAL, slug)
    assert low_pair == high_pair == r(FULL_HOUSE, "5", 5)
    assert not wins(high_pair, low_pair, NEUTRAL, slug)
    assert not wins(low_pair, high_pair, NEUTRAL, slug)
    # A higher triple with a lower pair wins.
    assert wins(only("S6 D6 C6 S2 D2", NEUTRAL, slug), high_pair, NEUTRAL, slug)


@all_variants
def test_plays_compare_only_within_type_and_size(slug: str) -> None:
    # compare.same_type_and_size
    assert not wins(r(STRAIGHT, "A", 5), r(PAIR, "3", 2), NEUTRAL, slug)
    assert not wins(r(PAIR, "A", 2), r(SINGLE, "3", 1), NEUTRAL, slug)
    assert not wins(r(TRIPLE, "A", 3), r(PAIR, "3", 2), NEUTRAL, slug)
    assert not wins(r(FULL_HOUSE, "A", 5), r(TRIPLE, "3", 3), NEUTRAL, slug)
    assert not wins(r(FULL_HOUSE, "A", 5), r(STRAIGHT, "6", 5), NEUTRAL, slug)
    assert not wins(r(STRAIGHT, "A", 5), r(FULL_HOUSE, "3", 5), NEUTRAL, slug)
    # Tubes and plates are both six cards, still different types.
    assert not wins(r(PLATE, "A", 6), r(TUBE, "4", 6), NEUTRAL, slug)
    assert not wins(r(TUBE, "A", 6), r(PLATE, "3", 6), NEUTRAL, slug)
    # Same type, same size: by rank.
    assert wins(r(TRIPLE, "A", 3), r(TRIPLE, "3", 3), NEUTRAL, slug)
    assert wins(r(PLATE, "A", 6), r(PLATE, "3", 6), NEUTRAL, slug)


@all_variants
def test_bomb_beats_non_bombs(slug: str) -> None:
    # bombs.ladder: any ladder play beats any play off the ladder.
    small_bomb = r(BOMB, "2", 4)
    for other in (
        r(SINGLE, "HR", 1),
        r(PAIR, "HR", 2),
        r(TRIPLE, "A", 3),
        r(FULL_HOUSE, "A", 5),
        r(STRAIGHT, "A", 5),
        r(TUBE, "A", 6),
        r(PLATE, "A", 6),
    ):
        assert wins(small_bomb, other, NEUTRAL, slug), other
        assert not wins(other, small_bomb, NEUTRAL, slug), other
    # Made from cards: 2222 beats TJQKA.
    bomb = only("S2 D2 C2 H2", NEUTRAL, slug)
    straight = only("ST DJ CQ SK DA", NEUTRAL, slug)
    assert wins(bomb, straight, NEUTRAL, slug)
    assert not wins(straight, bomb, NEUTRAL, slug)
    # A straight flush and four jokers are on the ladder too.
    assert wins(r(STRAIGHT_FLUSH, "5", 5), r(STRAIGHT, "A", 5), NEUTRAL, slug)
    assert wins(r(JOKER_BOMB, "HR", 4), r(SINGLE, "HR", 1), NEUTRAL, slug)


@all_variants
def test_longer_bomb_beats_shorter_bomb_of_higher_rank(slug: str) -> None:
    # bombs.ladder: 張數多的大
    five_threes = only("S3 D3 C3 H3 S3", NEUTRAL, slug)
    four_aces = only("SA DA CA HA", NEUTRAL, slug)
    assert wins(five_threes, four_aces, NEUTRAL, slug)
    assert not wins(four_aces, five_threes, NEUTRAL, slug)
    # Same size: by rank.
    assert wins(r(BOMB, "A", 4), r(BOMB, "K", 4), NEUTRAL, slug)
    assert not wins(r(BOMB, "K", 4), r(BOMB, "A", 4), NEUTRAL, slug)
    assert wins(r(BOMB, "2", 7), r(BOMB, "A", 6), NEUTRAL, slug)
    assert wins(r(BOMB, "2", 10), r(BOMB, "A", 9), NEUTRAL, slug)


@all_variants
def test_straight_flush_between_five_and_six_card_bombs(slug: str) -> None:
    # bombs.ladder: 5-bomb < straight flush < 6-bomb, whatever the ranks.
    flush = r(STRAIGHT_FLUSH, "5", 5)  # the lowest straight flush, A2345
    top_flush = r(STRAIGHT_FLUSH, "A", 5)
    assert wins(flush, r(BOMB, "A", 5), NEUTRAL, slug)
    assert not wins(r(BOMB, "A", 5), flush, NEUTRAL, slug)
    assert wins(flush, r(BOMB, "A", 4), NEUTRAL, slug)
    assert wins(r(BOMB, "2", 6), top_flush, NEUTRAL, slug)
    assert not wins(top_flush, r(BOMB, "2", 6), NEUTRAL, slug)
    # Made from cards at level 9: 34567 of spades beats five As, loses to six 2s.
    sf = r(STRAIGHT_FLUSH, "7", 5)
    assert sf in readings("S3 S4 S5 S6 S7", "9", slug)
    assert wins(sf, only("SA DA CA HA SA", "9", slug), "9", slug)
    assert not wins(sf, only("S2 D2 C2 H2 S2 D2", "9", slug), "9", slug)
    assert wins(only("S2 D2 C2 H2 S2 D2", "9", slug), sf, "9", slug)


@all_variants
def test_four_jokers_beat_everything(slug: str) -> None:
    # bombs.ladder: four jokers on top, above a 10-card bomb.
    jokers = only("SB SB HR HR", "7", slug)
    ten = only("S5 D5 C5 H5 S5 D5 C5 H5 H7 H7", "7", slug)
    assert ten == r(BOMB, "5", 10)
    assert wins(jokers, ten, "7", slug)
    assert not wins(ten, jokers, "7", slug)
    assert wins(jokers, r(STRAIGHT_FLUSH, "A", 5), "7", slug)
    assert wins(jokers, r(BOMB, "7", 10), "7", slug)


@all_variants
def test_straight_flushes_compare_by_top_card(slug: str) -> None:
    # compare.sequence_key, compare.suits_rank: suits never matter.
    assert wins(r(STRAIGHT_FLUSH, "A", 5), r(STRAIGHT_FLUSH, "K", 5), NEUTRAL, slug)
    assert not wins(r(STRAIGHT_FLUSH, "K", 5), r(STRAIGHT_FLUSH, "A", 5), NEUTRAL, slug)
    assert readings("S9 ST SJ SQ SK", NEUTRAL, slug) == readings("D9 DT DJ DQ DK", NEUTRAL, slug)


@all_variants
def test_level_card_does_not_lift_a_sequence(slug: str) -> None:
    # ranks.level_card.in_sequences, compare.sequence_key: at level 7, 34567 (top 7) still loses
    # to 45678 (top 8); the 7 in it is not above A.
    low = only("S3 D4 C5 S6 D7", "7", slug)
    high = only("S4 D5 C6 S7 D8", "7", slug)
    assert low == r(STRAIGHT, "7", 5)
    assert high == r(STRAIGHT, "8", 5)
    assert wins(high, low, "7", slug)
    assert not wins(low, high, "7", slug)
    assert not wins(low, only("ST DJ CQ SK DA", "7", slug), "7", slug)


@all_variants
def test_wild_play_equals_natural_play(slug: str) -> None:
    # compare.wild_same_strength (均有同等效力): 555 + wild == 5555, neither beats the other.
    with_wild = only("S5 D5 C5 H7", "7", slug)
    natural = only("S5 D5 C5 H5", "7", slug)
    assert with_wild == natural
    assert not wins(with_wild, natural, "7", slug)


# ---------------------------------------------------------------------------------------------
# Classification does not depend on the order of the cards


@all_variants
@pytest.mark.parametrize(
    ("ordered", "shuffled", "level"),
    [
        ("S3 S4 S5 S6 C7", "C7 S5 S3 S6 S4", "7"),
        ("SA D2 C3 S4 D5", "D5 S4 SA C3 D2", NEUTRAL),
        ("S5 D5 H7 S9 D9", "S9 H7 D5 D9 S5", "7"),
        ("S3 D3 S4 H7 S5 D5", "H7 S5 S3 D5 S4 D3", "7"),
        ("SK DK CK SA DA CA", "SA SK DA DK CA CK", NEUTRAL),
        ("S9 ST H7 SQ SK", "SK H7 SQ S9 ST", "7"),
        ("SB SB HR HR", "HR SB HR SB", NEUTRAL),
    ],
)
def test_order_does_not_matter(slug: str, ordered: str, shuffled: str, level: str) -> None:
    assert readings(ordered, level, slug) == readings(shuffled, level, slug)
    assert readings(ordered, level, slug)  # and these are plays


def test_order_does_not_matter_in_any_permutation() -> None:
    # Every order of 55 + wild + 99 at level 7 gives the same two full houses and default.
    cards = parse_cards("S5 D5 H7 S9 D9")
    rules = ruleset("competition")
    for order in itertools.permutations(cards):
        found = classify(order, Rank("7"), rules)
        assert set(found.readings) == {r(FULL_HOUSE, "5", 5), r(FULL_HOUSE, "9", 5)}
        assert found.default == r(FULL_HOUSE, "5", 5)


# ---------------------------------------------------------------------------------------------
# Legal plays (legal_plays), on small hands


def play_readings(
    hand: str, level: str, slug: str, previous: Reading | None = None
) -> set[Reading]:
    """The readings of every legal play of `hand` (each distinct by reading)."""
    plays = legal_plays(parse_cards(hand), Rank(level), ruleset(slug), previous)
    found = [p.reading for p in plays]
    assert len(found) == len(set(found)), f"a reading listed twice: {found}"
    return set(found)


@all_variants
def test_legal_leads_of_a_small_hand(slug: str) -> None:
    # flow.lead: leading, any combination the hand holds.
    assert play_readings("S3 S3 S4", "2", slug) == {
        r(SINGLE, "3", 1),
        r(SINGLE, "4", 1),
        r(PAIR, "3", 2),
    }


@all_variants
def test_legal_plays_against_a_pair(slug: str) -> None:
    # compare.same_type_and_size, ranks.level_card.position
    # At level 9, a pair of 3s beats a pair of 2s; the singles do not answer a pair.
    assert play_readings("S3 S3 S4", "9", slug, r(PAIR, "2", 2)) == {r(PAIR, "3", 2)}
    # At level 2 the pair of 2s is the level pair, above AA: nothing in this hand beats it.
    assert play_readings("S3 S3 S4", "2", slug, r(PAIR, "2", 2)) == set()
    # A pair of small jokers beats a pair of level cards.
    assert play_readings("SB SB S4", "2", slug, r(PAIR, "2", 2)) == {r(PAIR, "SB", 2)}


@all_variants
def test_legal_plays_against_a_straight(slug: str) -> None:
    # bombs.ladder: against a straight only a higher straight or a bomb.
    hand = "S5 D5 C5 H5 S9"
    assert play_readings(hand, "2", slug, r(STRAIGHT, "A", 5)) == {r(BOMB, "5", 4)}
    hand = "S5 D5 C5 H5 S9 DT CJ SQ DK"
    assert play_readings(hand, "2", slug, r(STRAIGHT, "Q", 5)) == {
        r(STRAIGHT, "K", 5),
        r(BOMB, "5", 4),
    }


@all_variants
def test_legal_plays_with_a_wild(slug: str) -> None:
    # wild.stands_for, wild.needs_natural_card: H2 at level 2 with S5.
    assert play_readings("H2 S5", "2", slug) == {
        r(SINGLE, "5", 1),
        r(SINGLE, "2", 1),
        r(PAIR, "5", 2),
    }
    # The wild never pairs a joker.
    assert play_readings("H2 SB HR", "2", slug) == {
        r(SINGLE, "2", 1),
        r(SINGLE, "SB", 1),
        r(SINGLE, "HR", 1),
    }
    # Two wilds alone: the single and the pair of level cards.
    assert play_readings("H2 H2", "2", slug) == {r(SINGLE, "2", 1), r(PAIR, "2", 2)}


@all_variants
def test_legal_play_cards_classify_to_their_reading(slug: str) -> None:
    # Each legal play's cards come from the hand and make the reading listed.
    hand = parse_cards("S5 D5 H7 S9 D9 C7 SB SB S6 S8")
    level, rules = Rank("7"), ruleset(slug)
    plays = legal_plays(hand, level, rules)
    assert plays
    for play in plays:
        left = list(hand)
        for card in play.cards:
            left.remove(card)  # ValueError if the play uses a card the hand lacks
        assert play.reading in classify(play.cards, level, rules).readings, play
    # A few plays written by hand that must be among them.
    found = {p.reading for p in plays}
    for expected in (
        r(PAIR, "SB", 2),
        r(TRIPLE, "5", 3),  # 55 + wild
        r(FULL_HOUSE, "9", 5),  # 99 + wild, 55
        r(STRAIGHT, "9", 5),  # 5 6 7 8 9
        r(STRAIGHT_FLUSH, "9", 5),  # S5 S6 H7(as S7) S8 S9
        r(PAIR, "7", 2),  # C7 H7
    ):
        assert expected in found, expected


# ---------------------------------------------------------------------------------------------
# The synthetic variant long-tubes: the rules come from the variant file, not the code


def test_long_tubes_two_and_four_pair_tubes() -> None:
    # combinations.tube.shape: 2-4 pairs there, exactly 3 in huaian.
    assert readings("S3 S3 S4 S4", NEUTRAL, "long-tubes") == {r(TUBE, "4", 4)}
    assert readings("S3 S3 S4 S4", NEUTRAL, "huaian") == set()
    four = "S3 D3 S4 D4 S5 D5 S6 D6"
    assert readings(four, NEUTRAL, "long-tubes") == {r(TUBE, "6", 8)}
    assert readings(four, NEUTRAL, "huaian") == set()
    # Five pairs are still too many.
    assert readings("S3 D3 S4 D4 S5 D5 S6 D6 S7 D7", NEUTRAL, "long-tubes") == set()
    # Tubes of different lengths do not compare (compare.same_type_and_size).
    assert not wins(r(TUBE, "A", 6), r(TUBE, "4", 4), NEUTRAL, "long-tubes")
    assert wins(r(TUBE, "5", 4), r(TUBE, "4", 4), NEUTRAL, "long-tubes")


def test_long_tubes_six_and_seven_card_straights() -> None:
    # combinations.straight.shape: 5-7 cards there.
    assert readings("S3 D4 C5 S6 D7 C9", NEUTRAL, "long-tubes") == set()
    assert readings("S3 D4 C5 S6 D7 H8", "9", "long-tubes") == {r(STRAIGHT, "8", 6)}
    assert readings("S3 D4 C5 S6 D7 H8 S9", "T", "long-tubes") == {r(STRAIGHT, "9", 7)}
    assert readings("S3 D4 C5 S6 D7 H8 S9 DT", "J", "long-tubes") == set()
    assert readings("S3 D4 C5 S6 D7 H8", "9", "huaian") == set()
    # A 6-card straight does not beat a 5-card one.
    assert not wins(r(STRAIGHT, "A", 6), r(STRAIGHT, "6", 5), "9", "long-tubes")


def test_long_tubes_has_no_straight_flush() -> None:
    # combinations.straight_flush.shape: null there.
    assert readings("S3 S4 S5 S6 S7", NEUTRAL, "long-tubes") == {r(STRAIGHT, "7", 5)}
    assert readings("S3 S4 S5 S6 S7", NEUTRAL, "huaian") == {
        r(STRAIGHT, "7", 5),
        r(STRAIGHT_FLUSH, "7", 5),
    }


def test_long_tubes_joker_bomb_below_seven_card_bomb() -> None:
    # bombs.ladder: bomb4 < bomb5 < bomb6 < joker_bomb < bomb7 < bomb8 there.
    jokers = only("SB SB HR HR", NEUTRAL, "long-tubes")
    seven = only("S5 D5 C5 H5 S5 D5 C5", NEUTRAL, "long-tubes")
    six = only("SA DA CA HA SA DA", NEUTRAL, "long-tubes")
    assert seven == r(BOMB, "5", 7)
    assert wins(seven, jokers, NEUTRAL, "long-tubes")
    assert not wins(jokers, seven, NEUTRAL, "long-tubes")
    assert wins(jokers, six, NEUTRAL, "long-tubes")
    assert not wins(six, jokers, NEUTRAL, "long-tubes")
    # In huaian it is the other way round.
    assert wins(jokers, seven, NEUTRAL, "huaian")
    assert not wins(seven, jokers, NEUTRAL, "huaian")


def test_long_tubes_nine_card_bomb_is_still_a_bomb() -> None:
    # bombs.ladder, combinations.bomb.shape (no maximum): a longer bomb beats a shorter one.
    nine = only("S5 D5 C5 H5 S5 D5 C5 H7 H7", "7", "long-tubes")
    assert nine == r(BOMB, "5", 9)
    assert wins(nine, r(BOMB, "2", 4), "7", "long-tubes")
    assert not wins(r(BOMB, "2", 4), nine, "7", "long-tubes")
