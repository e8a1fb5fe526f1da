"""Tests for the card notation (harness.model.cards)."""

from __future__ import annotations

from collections import Counter

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness.errors import HarnessError, NotationError
from harness.model.cards import (
    FULL_DECK,
    NATURAL_RANKS,
    Card,
    Rank,
    Suit,
    check_two_decks,
    display,
    format_cards,
    holds,
    parse_card,
    parse_cards,
    parse_hand,
    parse_rank,
    same_cards,
    two_deck_pack,
)


def words(text: str) -> list[str]:
    """Split hand-written expected values on spaces."""
    return text.split()


# The 54 canonical codes, written out by hand in sort order (rank 2..A, suit S H C D, jokers).
ALL_CODES = words(
    "S2 H2 C2 D2 S3 H3 C3 D3 S4 H4 C4 D4 S5 H5 C5 D5 S6 H6 C6 D6 "
    "S7 H7 C7 D7 S8 H8 C8 D8 S9 H9 C9 D9 ST HT CT DT SJ HJ CJ DJ "
    "SQ HQ CQ DQ SK HK CK DK SA HA CA DA SB HR"
)

# The same 54 cards in display form, also by hand.
ALL_DISPLAY = words(
    "♠2 ♥2 ♣2 ♦2 ♠3 ♥3 ♣3 ♦3 ♠4 ♥4 ♣4 ♦4 ♠5 ♥5 ♣5 ♦5 ♠6 ♥6 ♣6 ♦6 "
    "♠7 ♥7 ♣7 ♦7 ♠8 ♥8 ♣8 ♦8 ♠9 ♥9 ♣9 ♦9 ♠10 ♥10 ♣10 ♦10 ♠J ♥J ♣J ♦J "
    "♠Q ♥Q ♣Q ♦Q ♠K ♥K ♣K ♦K ♠A ♥A ♣A ♦A 小王 大王"
)

PACK = two_deck_pack()


# --- suits and ranks -------------------------------------------------------------------------


def test_suit_properties() -> None:
    assert [suit.value for suit in Suit] == ["S", "H", "C", "D"]
    assert [suit.symbol for suit in Suit] == ["♠", "♥", "♣", "♦"]
    assert [suit.chinese for suit in Suit] == ["黑桃", "紅桃", "梅花", "方塊"]
    assert [suit.is_red for suit in Suit] == [False, True, False, True]


def test_rank_values_and_natural_index() -> None:
    values = [rank.value for rank in Rank]
    assert values == words("2 3 4 5 6 7 8 9 T J Q K A SB HR")
    assert Rank.TWO.natural_index == 0
    assert Rank.TEN.natural_index == 8
    assert Rank.ACE.natural_index == 12
    assert Rank.SMALL_JOKER.natural_index == 13
    assert Rank.BIG_JOKER.natural_index == 14
    assert [rank.natural_index for rank in Rank] == list(range(15))
    assert [rank.is_joker for rank in Rank] == [False] * 13 + [True, True]


def test_natural_ranks() -> None:
    assert [rank.value for rank in NATURAL_RANKS] == words("2 3 4 5 6 7 8 9 T J Q K A")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2", Rank.TWO),
        ("9", Rank.NINE),
        ("T", Rank.TEN),
        ("t", Rank.TEN),
        ("10", Rank.TEN),
        (" 10 ", Rank.TEN),
        ("J", Rank.JACK),
        ("q", Rank.QUEEN),
        ("K", Rank.KING),
        ("a", Rank.ACE),
        ("SB", Rank.SMALL_JOKER),
        ("hr", Rank.BIG_JOKER),
    ],
)
def test_parse_rank(text: str, expected: Rank) -> None:
    assert parse_rank(text) is expected


@pytest.mark.parametrize("text", ["1", "11", "0", "", "H9", "X", "B", "R", "joker"])
def test_parse_rank_rejects(text: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_rank(text)
    assert f"'{text}'" in str(info.value)
    assert "is not a rank" in str(info.value)
    assert info.value.token == text


# --- cards -----------------------------------------------------------------------------------


def test_full_deck_is_the_54_cards_in_order() -> None:
    assert len(FULL_DECK) == 54
    assert len(set(FULL_DECK)) == 54
    assert [card.code for card in FULL_DECK] == ALL_CODES
    assert format_cards(FULL_DECK) == " ".join(ALL_CODES)


@pytest.mark.parametrize("code", ALL_CODES)
def test_every_canonical_card_round_trips(code: str) -> None:
    card = parse_card(code)
    assert card.code == code
    assert str(card) == code
    assert parse_card(str(card)) is card
    assert card in FULL_DECK


def test_card_fields() -> None:
    assert parse_card("H9") == Card(Rank.NINE, Suit.HEARTS)
    assert parse_card("ST") == Card(Rank.TEN, Suit.SPADES)
    assert parse_card("SB") == Card(Rank.SMALL_JOKER, None)
    assert parse_card("HR") == Card(Rank.BIG_JOKER, None)
    assert parse_card("SB").is_joker
    assert parse_card("HR").is_joker
    assert not parse_card("H9").is_joker
    assert parse_card("SB").suit is None
    assert parse_card("H2") != parse_card("D2")
    assert parse_card("SB") != parse_card("HR")


def test_cards_are_interned() -> None:
    assert parse_card("H9") is parse_card("h9")
    assert parse_card("H9") is parse_card("♥9")
    assert parse_card("H9") is parse_card("紅桃9")
    assert parse_card("HT") is parse_card("♥10")
    assert parse_card("SB") is parse_card("小王")


def test_constructed_cards_equal_parsed_cards() -> None:
    built = Card(Rank.ACE, Suit.DIAMONDS)
    assert built == parse_card("DA")
    assert hash(built) == hash(parse_card("DA"))
    assert built.code == "DA"


@pytest.mark.parametrize(
    ("rank", "suit"),
    [
        (Rank.SMALL_JOKER, Suit.SPADES),
        (Rank.BIG_JOKER, Suit.HEARTS),
        (Rank.NINE, None),
        (Rank.TEN, None),
    ],
)
def test_card_rejects_inconsistent_rank_and_suit(rank: Rank, suit: Suit | None) -> None:
    with pytest.raises(NotationError):
        Card(rank, suit)


def test_card_is_frozen() -> None:
    card = parse_card("H9")
    with pytest.raises(AttributeError):
        card.rank = Rank.TEN  # type: ignore[misc]


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("H9", "H9"),
        ("h9", "H9"),
        ("  H9  ", "H9"),
        ("\tsa\n", "SA"),
        ("HT", "HT"),
        ("ht", "HT"),
        ("H10", "HT"),
        ("h10", "HT"),
        ("S10", "ST"),
        ("♥9", "H9"),
        ("♡9", "H9"),
        ("♥10", "HT"),
        ("♡10", "HT"),
        ("♠A", "SA"),
        ("♤A", "SA"),
        ("♣K", "CK"),
        ("♧k", "CK"),
        ("♦2", "D2"),
        ("♢2", "D2"),
        ("♦t", "DT"),
        ("9♥", "H9"),
        ("10♥", "HT"),
        ("A♠", "SA"),
        ("q♣", "CQ"),
        ("3♦", "D3"),
        ("紅桃9", "H9"),
        ("红桃9", "H9"),
        ("紅桃10", "HT"),
        ("黑桃Q", "SQ"),
        ("黑桃10", "ST"),
        ("梅花K", "CK"),
        ("梅花j", "CJ"),
        ("方塊2", "D2"),
        ("方块2", "D2"),
        ("方块A", "DA"),
        ("SB", "SB"),
        ("sb", "SB"),
        ("HR", "HR"),
        ("hr", "HR"),
        ("Hr", "HR"),
        ("小王", "SB"),
        ("大王", "HR"),
        ("小鬼", "SB"),
        ("大鬼", "HR"),
        ("♥️9", "H9"),  # heart with an emoji variation selector, as pasted from a phone
        ("Ｈ９", "H9"),  # full-width letters from a Chinese input method
    ],
)
def test_friendly_forms(token: str, code: str) -> None:
    assert parse_card(token).code == code


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("X9", "'X9' is not a card: unknown suit 'X' (expected S, H, C, D or ♠ ♥ ♣ ♦)"),
        ("H1", "'H1' is not a card: unknown rank '1' (expected 2-9, T or 10, J, Q, K, A)"),
        ("H11", "'H11' is not a card: unknown rank '11' (expected 2-9, T or 10, J, Q, K, A)"),
        ("S", "'S' is not a card: missing rank after suit 'S' (expected 2-9, T or 10, J, Q, K, A)"),
        ("9", "'9' is not a card: a suit is needed (e.g. 'H9' or '♥9')"),
        ("10", "'10' is not a card: a suit is needed (e.g. 'H10' or '♥10')"),
        ("HRR", "'HRR' is not a card: unknown rank 'RR' (expected 2-9, T or 10, J, Q, K, A)"),
        ("", "'' is not a card: empty token"),
        ("   ", "'   ' is not a card: empty token"),
        (
            "SR",
            "'SR' is not a card: unknown rank 'R' "
            "(expected 2-9, T or 10, J, Q, K, A; the jokers are SB and HR)",
        ),
        (
            "HB",
            "'HB' is not a card: unknown rank 'B' "
            "(expected 2-9, T or 10, J, Q, K, A; the jokers are SB and HR)",
        ),
        (
            "BJ",
            "'BJ' is not a card: jokers are written SB (small joker 小王) and HR (big joker 大王)",
        ),
        ("9H", "'9H' is not a card: the suit letter comes first (write 'H9')"),
        ("10s", "'10s' is not a card: the suit letter comes first (write 'ST')"),
    ],
)
def test_parse_card_error_messages(token: str, message: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_card(token)
    assert str(info.value) == message
    assert info.value.token == token


@pytest.mark.parametrize(
    "token",
    [
        "x9", "1♥", "♥", "♥1", "紅桃", "紅桃1", "紅9", "H", "JOKER", "joker", "王", "RJ", "T", "A",
        "H 9", "H9H9", "S B", "Z", "HJQ", "0",
    ],
)  # fmt: skip
def test_parse_card_rejects_and_names_the_token(token: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_card(token)
    assert str(info.value).startswith(f"'{token}' is not a card: ")
    assert info.value.token == token


def test_notation_error_is_a_value_error_and_harness_error() -> None:
    with pytest.raises(ValueError):
        parse_card("X9")
    with pytest.raises(HarnessError):
        parse_card("X9")


# --- card lists ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "H9 ST SB",
        "H9,ST,SB",
        "H9, ST, SB",
        "  H9\tST\nSB  ",
        "H9,,ST SB,",
        "h9 ♠10 小王",
        "H9，ST、SB",
    ],
)
def test_parse_cards_from_text(text: str) -> None:
    assert format_cards(parse_cards(text)) == "H9 ST SB"


def test_parse_cards_from_iterable() -> None:
    assert format_cards(parse_cards(["H9", "ST", "SB"])) == "H9 ST SB"
    assert format_cards(parse_cards(("♥10", "大王", "c2"))) == "HT HR C2"
    assert format_cards(parse_cards(iter(["DA", "SB"]))) == "DA SB"


def test_parse_cards_keeps_order_and_duplicates() -> None:
    assert format_cards(parse_cards("HR SB S2 HR S2")) == "HR SB S2 HR S2"


@pytest.mark.parametrize("text", ["", "   ", ",", " , "])
def test_parse_cards_empty(text: str) -> None:
    assert parse_cards(text) == ()
    assert parse_cards([]) == ()


def test_parse_cards_error_names_the_position() -> None:
    with pytest.raises(NotationError) as info:
        parse_cards("H9 X9 SB")
    assert str(info.value) == (
        "card 2 of 3: 'X9' is not a card: unknown suit 'X' (expected S, H, C, D or ♠ ♥ ♣ ♦)"
    )
    assert info.value.token == "X9"


def test_parse_cards_error_position_in_iterable() -> None:
    with pytest.raises(NotationError) as info:
        parse_cards(["H9", "ST", "SB", "10"])
    assert str(info.value).startswith("card 4 of 4: '10' is not a card: a suit is needed")
    assert info.value.token == "10"


def test_parse_cards_empty_item_in_iterable_is_an_error() -> None:
    with pytest.raises(NotationError) as info:
        parse_cards(["H9", ""])
    assert str(info.value) == "card 2 of 2: '' is not a card: empty token"


def test_parse_cards_rejects_non_text_items() -> None:
    # YAML reads an unquoted 10 as a number; that must be a NotationError, not a crash.
    items: list[object] = ["H9", 10]
    with pytest.raises(NotationError) as info:
        parse_cards(items)  # type: ignore[arg-type]
    assert str(info.value).startswith("card 2 of 2: 10 is not a card")
    with pytest.raises(NotationError):
        parse_cards([["H9"]])  # type: ignore[list-item]


def test_format_cards() -> None:
    cards = (parse_card("♥10"), parse_card("小王"), parse_card("c2"))
    assert format_cards(cards) == "HT SB C2"
    assert format_cards([]) == ""


def test_canonical_codes_are_plain_yaml_strings() -> None:
    loaded = yaml.safe_load("[" + ", ".join(ALL_CODES) + "]")
    assert loaded == ALL_CODES
    assert format_cards(parse_cards(yaml.safe_load("[H9, ST, SB]"))) == "H9 ST SB"


# --- two decks -------------------------------------------------------------------------------


def test_two_deck_pack() -> None:
    pack = two_deck_pack()
    assert len(pack) == 108
    counts = Counter(card.code for card in pack)
    assert sorted(counts) == sorted(ALL_CODES)
    assert set(counts.values()) == {2}


def test_check_two_decks_accepts_the_full_pack() -> None:
    check_two_decks(two_deck_pack())
    assert len(parse_hand(format_cards(two_deck_pack()))) == 108


def test_check_two_decks_rejects_three_big_jokers() -> None:
    with pytest.raises(NotationError) as info:
        check_two_decks(parse_cards("HR H9 HR HR"))
    assert str(info.value) == "HR appears 3 times; two decks hold 2 of each card"
    assert info.value.token == "HR"


def test_check_two_decks_counts_friendly_spellings_together() -> None:
    with pytest.raises(NotationError) as info:
        parse_hand("H10 ♥10 紅桃10 S2")
    assert str(info.value) == "HT appears 3 times; two decks hold 2 of each card"
    assert info.value.token == "HT"


def test_check_two_decks_rejects_beyond_the_pack() -> None:
    with pytest.raises(NotationError) as info:
        check_two_decks([*two_deck_pack(), parse_card("D7")])
    assert str(info.value) == "D7 appears 3 times; two decks hold 2 of each card"


def test_parse_hand_accepts_pairs_and_keeps_order() -> None:
    assert format_cards(parse_hand("SB HR SB HR")) == "SB HR SB HR"


# --- display and sorting ---------------------------------------------------------------------


def test_display() -> None:
    assert display(parse_card("H9")) == "♥9"
    assert display(parse_card("ST")) == "♠10"
    assert display(parse_card("CA")) == "♣A"
    assert display(parse_card("D2")) == "♦2"
    assert display(parse_card("SB")) == "小王"
    assert display(parse_card("HR")) == "大王"
    assert [display(card) for card in FULL_DECK] == ALL_DISPLAY


def test_sort_key_orders_a_hand() -> None:
    hand = parse_cards("HR DA SB H2 ST S2 D2 C2 ST")
    ordered = sorted(hand, key=Card.sort_key)
    assert format_cards(ordered) == "S2 H2 C2 D2 ST ST DA SB HR"


def test_sort_key_of_full_deck_matches_the_written_order() -> None:
    shuffled = list(reversed(FULL_DECK))
    assert [card.code for card in sorted(shuffled, key=Card.sort_key)] == ALL_CODES
    assert parse_card("S2").sort_key() < parse_card("H2").sort_key()
    assert parse_card("DA").sort_key() < parse_card("SB").sort_key()
    assert parse_card("SB").sort_key() < parse_card("HR").sort_key()


def test_sort_key_is_injective_on_the_deck() -> None:
    assert len({card.sort_key() for card in FULL_DECK}) == 54


# --- properties ------------------------------------------------------------------------------

pack_indices = st.lists(st.integers(min_value=0, max_value=len(PACK) - 1), unique=True)
# Unique indices into the 108-card pack give any legal multiset (at most two of each card),
# in any order.
hands = pack_indices.map(lambda indices: tuple(PACK[index] for index in indices))
cards = st.sampled_from(FULL_DECK)


@given(hands)
def test_parse_hand_round_trips_canonical_text(hand: tuple[Card, ...]) -> None:
    assert parse_hand(format_cards(hand)) == hand


@given(hands)
def test_parse_cards_round_trips_display_forms(hand: tuple[Card, ...]) -> None:
    shown = [display(card) for card in hand]
    assert parse_cards(" ".join(shown)) == hand
    assert parse_cards(shown) == hand


@given(hands)
def test_every_legal_hand_passes_check_two_decks(hand: tuple[Card, ...]) -> None:
    check_two_decks(hand)
    assert max(Counter(hand).values(), default=0) <= 2


@given(hands, cards)
def test_a_third_copy_is_always_rejected(hand: tuple[Card, ...], extra: Card) -> None:
    overfull = hand + (extra,) * (3 - hand.count(extra))
    with pytest.raises(NotationError) as info:
        check_two_decks(overfull)
    assert info.value.token == extra.code


@given(cards, cards)
def test_sort_key_is_a_total_order_consistent_with_equality(a: Card, b: Card) -> None:
    assert (a.sort_key() == b.sort_key()) == (a == b)
    if a.rank.natural_index < b.rank.natural_index:
        assert a.sort_key() < b.sort_key()


@given(cards, st.sampled_from(["code", "lower", "display"]))
def test_sort_key_is_the_same_across_spellings(card: Card, spelling: str) -> None:
    token = {"code": card.code, "lower": card.code.lower(), "display": display(card)}[spelling]
    reparsed = parse_card(token)
    assert reparsed == card
    assert reparsed.sort_key() == card.sort_key()


def _copies(codes: str) -> list[Card]:
    """The cards of `codes` as new objects, equal to the parsed (interned) ones but not them."""
    return [Card(c.rank, c.suit) for c in parse_cards(codes)]


def test_holds_counts_each_card_as_often_as_it_appears() -> None:
    hand = parse_cards("H5 H5 S7 SB")
    assert holds(hand, parse_cards("H5 H5"))
    assert holds(hand, parse_cards("SB S7 H5"))
    assert holds(hand, ())
    assert not holds(hand, parse_cards("H5 H5 H5"))  # two copies held, not three
    assert not holds(hand, parse_cards("D5"))
    assert not holds((), parse_cards("SB"))


def test_holds_and_same_cards_go_by_equality_not_identity() -> None:
    """Equal cards that are other objects (built, not parsed) count as the same cards."""
    hand = parse_cards("H5 H5 S7 SB")
    assert holds(hand, _copies("H5 S7"))
    assert holds(_copies("H5 H5 S7 SB"), parse_cards("H5 H5 SB"))
    assert not holds(hand, _copies("H5 H5 H5"))
    assert same_cards(hand, _copies("SB H5 S7 H5"))
    assert not same_cards(hand, _copies("SB H5 S7 S7"))


@given(
    st.lists(st.sampled_from(["H5", "S5", "SB", "D9"]), max_size=6),
    st.lists(st.sampled_from(["H5", "S5", "SB", "D9"]), max_size=6),
    st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_holds_and_same_cards_agree_with_counting(
    hand_codes: list[str], card_codes: list[str], built: list[bool]
) -> None:
    """`holds` is multiset inclusion and `same_cards` multiset equality, whichever objects."""
    hand = parse_cards(hand_codes)
    cards = [
        Card(c.rank, c.suit) if fresh else c
        for c, fresh in zip(parse_cards(card_codes), built, strict=False)
    ]
    assert holds(hand, cards) == (Counter(cards) <= Counter(hand))
    assert same_cards(hand, cards) == (Counter(cards) == Counter(hand))
