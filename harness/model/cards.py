"""The card notation (牌的記法): suits, ranks, cards, and parsing and printing card lists.

The canonical form is the one of the Guandan AI-competition platform: a suit letter then a
rank (``H9``, ``ST``), and ``SB`` / ``HR`` for the small and big jokers. Input may use friendlier
forms (``♥10``, ``紅桃10``, ``小王``); output is always canonical.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from harness.errors import NotationError
from harness.model.declarations import implements, only

__all__ = [
    "FULL_DECK",
    "NATURAL_RANKS",
    "Card",
    "Rank",
    "Suit",
    "check_two_decks",
    "display",
    "format_cards",
    "parse_card",
    "parse_cards",
    "parse_hand",
    "parse_rank",
    "two_deck_pack",
]


class Suit(StrEnum):
    """A suit (花色), written by its canonical letter; suits have no order of strength."""

    SPADES = "S"
    HEARTS = "H"
    CLUBS = "C"
    DIAMONDS = "D"

    @property
    def symbol(self) -> str:
        """The suit symbol for people: ♠ ♥ ♣ ♦."""
        return _SUIT_SYMBOL[self]

    @property
    def chinese(self) -> str:
        """The Chinese name of the suit: 黑桃 紅桃 梅花 方塊."""
        return _SUIT_CHINESE[self]

    @property
    def is_red(self) -> bool:
        """Whether the suit is red (hearts 紅桃 or diamonds 方塊)."""
        return self is Suit.HEARTS or self is Suit.DIAMONDS


class Rank(StrEnum):
    """A rank (點數), written by its canonical text; ``T`` is ten, ``SB``/``HR`` are the jokers."""

    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    ACE = "A"
    SMALL_JOKER = "SB"
    BIG_JOKER = "HR"

    @property
    def is_joker(self) -> bool:
        """Whether this is one of the two jokers (王): small 小王 or big 大王."""
        return self is Rank.SMALL_JOKER or self is Rank.BIG_JOKER

    @property
    def natural_index(self) -> int:
        """Position in the natural order: 0 for 2 … 12 for A, 13 small joker, 14 big joker.

        This ignores the level card (主牌); strength during play is the rules' business.
        """
        return _NATURAL_INDEX[self]


_SUIT_SYMBOL = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.CLUBS: "♣", Suit.DIAMONDS: "♦"}
_SUIT_CHINESE = {
    Suit.SPADES: "黑桃",
    Suit.HEARTS: "紅桃",
    Suit.CLUBS: "梅花",
    Suit.DIAMONDS: "方塊",
}
_NATURAL_INDEX = {rank: index for index, rank in enumerate(Rank)}
# Jokers have no suit; they sort after the suits only to keep the key a plain int pair.
_SUIT_INDEX: dict[Suit | None, int] = {suit: index for index, suit in enumerate(Suit)}
_SUIT_INDEX[None] = len(Suit)

NATURAL_RANKS: tuple[Rank, ...] = tuple(rank for rank in Rank if not rank.is_joker)
"""The 13 non-joker ranks in natural order, 2 up to A."""


@dataclass(frozen=True, order=False, slots=True)
class Card:
    """One playing card (牌): a rank and a suit, or a joker (王), which has no suit."""

    rank: Rank
    suit: Suit | None

    def __post_init__(self) -> None:
        if not isinstance(self.rank, Rank):
            raise TypeError(f"Card rank must be a Rank, not {type(self.rank).__name__}")
        if self.suit is not None and not isinstance(self.suit, Suit):
            raise TypeError(f"Card suit must be a Suit or None, not {type(self.suit).__name__}")
        if self.rank.is_joker and self.suit is not None:
            raise NotationError(
                f"the joker {self.rank.value} has no suit (got suit {self.suit.value})",
                token=self.rank.value,
            )
        if not self.rank.is_joker and self.suit is None:
            raise NotationError(
                f"rank {self.rank.value} needs a suit; only the jokers SB and HR have none",
                token=self.rank.value,
            )

    @property
    def code(self) -> str:
        """The canonical text of the card: ``H9``, ``ST``, ``SB``, ``HR``."""
        # A StrEnum member is the string of its value: joined as strings, at C speed.
        if self.suit is None:
            return str(self.rank)
        return self.suit + self.rank

    @property
    def is_joker(self) -> bool:
        """Whether the card is a joker (王)."""
        return self.rank.is_joker

    def sort_key(self) -> tuple[int, int]:
        """A total-order key for printing: natural rank, then suit S H C D (not play strength)."""
        return (_NATURAL_INDEX[self.rank], _SUIT_INDEX[self.suit])

    def __str__(self) -> str:
        return self.code


FULL_DECK: tuple[Card, ...] = tuple(
    [Card(rank, suit) for rank in NATURAL_RANKS for suit in Suit]
    + [Card(Rank.SMALL_JOKER, None), Card(Rank.BIG_JOKER, None)]
)
"""The 54 distinct cards of one deck (一副牌), in ``sort_key`` order: 2 to A by suit, SB, HR."""

_TWO_DECK_PACK: tuple[Card, ...] = FULL_DECK + FULL_DECK
_COPIES_PER_CARD = 2

# --- accepted spellings --------------------------------------------------------------------
# Every accepted spelling, upper-cased, maps to one of the interned FULL_DECK instances, so
# parsing is one dict lookup and equal cards from parse_card are also identical objects.

_RANK_EXPECTED = "2-9, T or 10, J, Q, K, A"
_SUIT_EXPECTED = "S, H, C, D or ♠ ♥ ♣ ♦"

_RANK_FORMS: dict[str, Rank] = {rank.value: rank for rank in NATURAL_RANKS}
_RANK_FORMS["10"] = Rank.TEN

_SUIT_SYMBOL_FORMS: dict[str, Suit] = {
    "♠": Suit.SPADES,
    "♤": Suit.SPADES,
    "♥": Suit.HEARTS,
    "♡": Suit.HEARTS,
    "♣": Suit.CLUBS,
    "♧": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♢": Suit.DIAMONDS,
}
_SUIT_PREFIX_FORMS: dict[str, Suit] = {
    **{suit.value: suit for suit in Suit},
    **_SUIT_SYMBOL_FORMS,
    "黑桃": Suit.SPADES,
    "紅桃": Suit.HEARTS,
    "红桃": Suit.HEARTS,
    "梅花": Suit.CLUBS,
    "方塊": Suit.DIAMONDS,
    "方块": Suit.DIAMONDS,
}
_JOKER_FORMS: dict[str, Rank] = {
    "SB": Rank.SMALL_JOKER,
    "小王": Rank.SMALL_JOKER,
    "小鬼": Rank.SMALL_JOKER,
    "HR": Rank.BIG_JOKER,
    "大王": Rank.BIG_JOKER,
    "大鬼": Rank.BIG_JOKER,
}
# Joker spellings seen elsewhere (BJ/RJ read as "big" or "black"/"red" joker depending on the
# source, pinyin XW/DW) are not notation: they get a pointer to SB/HR instead of a guess.
_OTHER_JOKER_SPELLINGS = frozenset({"BJ", "RJ", "LJ", "XW", "DW", "JK", "JOKER", "王", "鬼"})

_INTERNED: dict[tuple[Rank, Suit | None], Card] = {(c.rank, c.suit): c for c in FULL_DECK}


def _build_token_table() -> dict[str, Card]:
    table: dict[str, Card] = {}

    def add(key: str, card: Card) -> None:
        if table.setdefault(key, card) is not card:  # pragma: no cover - table invariant
            raise AssertionError(f"card spelling {key!r} is ambiguous")

    for rank_form, rank in _RANK_FORMS.items():
        for suit_form, suit in _SUIT_PREFIX_FORMS.items():
            add(suit_form + rank_form, _INTERNED[(rank, suit)])
        for symbol, suit in _SUIT_SYMBOL_FORMS.items():
            add(rank_form + symbol, _INTERNED[(rank, suit)])
    for joker_form, rank in _JOKER_FORMS.items():
        add(joker_form, _INTERNED[(rank, None)])
    return table


_TOKENS: dict[str, Card] = _build_token_table()
_SUIT_PREFIXES_LONGEST_FIRST = sorted(_SUIT_PREFIX_FORMS, key=len, reverse=True)
_VARIATION_SELECTOR = "\ufe0f"  # emoji presentation, as in a pasted "♥️"
_SEPARATORS = re.compile(r"[\s,，、]+")


def parse_rank(text: str) -> Rank:
    """Read a rank (點數), e.g. a level on the command line: 2-9, T or 10, J, Q, K, A, SB, HR."""
    key = text.strip().upper()
    rank = _RANK_FORMS.get(key)
    if rank is None and key in ("SB", "HR"):
        rank = Rank(key)
    if rank is None:
        raise NotationError(
            f"'{text}' is not a rank (expected {_RANK_EXPECTED}, SB or HR)", token=text
        )
    return rank


def parse_card(token: str) -> Card:
    """Read one card (牌) in canonical or friendly notation and return the canonical card."""
    try:
        card = _TOKENS.get(token)
    except TypeError:  # unhashable, so certainly not text; reported below
        card = None
    if card is not None:
        return card
    if not isinstance(token, str):
        raise NotationError(
            f"{token!r} is not a card: expected a text token, not {type(token).__name__}",
            token=str(token),
        )
    text = unicodedata.normalize("NFKC", token).replace(_VARIATION_SELECTOR, "").strip()
    card = _TOKENS.get(text.upper())
    if card is not None:
        return card
    raise NotationError(f"'{token}' is not a card: {_explain(text)}", token=token)


def _explain(text: str) -> str:
    """Say why ``text`` (normalized, stripped, original case) is not a card."""
    key = text.upper()
    # Quote pieces in the writer's own case when upper-casing kept the positions.
    shown = text if len(text) == len(key) else key
    if not key:
        return "empty token"
    if key in _OTHER_JOKER_SPELLINGS or "JOKER" in key:
        return "jokers are written SB (small joker 小王) and HR (big joker 大王)"
    if key in _RANK_FORMS:
        return f"a suit is needed (e.g. 'H{key}' or '♥{key}')"
    for prefix in _SUIT_PREFIXES_LONGEST_FIRST:
        if key.startswith(prefix):
            rest = shown[len(prefix) :]
            if not rest:
                return f"missing rank after suit '{shown}' (expected {_RANK_EXPECTED})"
            hint = "; the jokers are SB and HR" if rest.upper() in ("B", "R") else ""
            return f"unknown rank '{rest}' (expected {_RANK_EXPECTED}{hint})"
    if key[-1] in _SUIT_SYMBOL_FORMS:
        return f"unknown rank '{shown[:-1]}' (expected {_RANK_EXPECTED})"
    if key[-1] in "SHCD" and key[:-1] in _RANK_FORMS:
        card = _INTERNED[(_RANK_FORMS[key[:-1]], Suit(key[-1]))]
        return f"the suit letter comes first (write '{card.code}')"
    for rank_form in _RANK_FORMS:
        if key.endswith(rank_form) and len(key) > len(rank_form):
            return f"unknown suit '{shown[: -len(rank_form)]}' (expected {_SUIT_EXPECTED})"
    return "expected a suit and a rank such as H9, ♥9 or 紅桃9, or a joker SB or HR"


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Read a card list, in the order given: a string split on spaces and commas, or tokens."""
    if isinstance(text, str):
        # Empty pieces (a blank string, a trailing comma) are dropped: an empty hand is valid.
        tokens = [token for token in _SEPARATORS.split(text) if token]
    else:
        tokens = list(text)
    cards: list[Card] = []
    for position, token in enumerate(tokens, start=1):
        try:
            cards.append(parse_card(token))
        except NotationError as error:
            raise NotationError(
                f"card {position} of {len(tokens)}: {error}", token=error.token
            ) from error
    return tuple(cards)


def format_cards(cards: Iterable[Card]) -> str:
    """Write cards in canonical notation, separated by single spaces, in the order given."""
    return " ".join(card.code for card in cards)


def same_cards(one: Sequence[Card], other: Sequence[Card]) -> bool:
    """Whether `one` and `other` are the same cards, each as many times, in any order."""
    if len(one) != len(other):
        return False
    # By identity first, at C speed (see `holds`).
    return sorted(map(id, one)) == sorted(map(id, other)) or Counter(one) == Counter(other)


def holds(hand: Sequence[Card], cards: Sequence[Card]) -> bool:
    """Whether `hand` holds every card of `cards`, each as many times as it appears there."""
    # The cards are most often the hand's own objects: matched by identity, at C speed (a
    # card's hash is Python code), and by equality only when one is not found so.
    ids = list(map(id, hand))
    for card in cards:
        try:
            ids.remove(id(card))
        except ValueError:
            return Counter(cards) <= Counter(hand)
    return True


@implements("deck.decks", values=only(2))
def check_two_decks(cards: Iterable[Card]) -> None:
    """Reject an impossible hand: two decks (兩副牌) hold exactly two of each card."""
    for card, count in Counter(cards).items():
        if count > _COPIES_PER_CARD:
            raise NotationError(
                f"{card.code} appears {count} times; two decks hold 2 of each card",
                token=card.code,
            )


def parse_hand(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Read a hand (手牌) or any card list that must fit in two decks: parse then check."""
    cards = parse_cards(text)
    check_two_decks(cards)
    return cards


@implements("deck.decks", values=only(2))
def two_deck_pack() -> tuple[Card, ...]:
    """The full pack of 108 cards (兩副牌): ``FULL_DECK`` twice."""
    return _TWO_DECK_PACK


def display(card: Card) -> str:
    """A friendly form of a card for people: ``♥9``, ``♠10``, ``小王``, ``大王``."""
    if card.rank is Rank.SMALL_JOKER:
        return "小王"
    if card.rank is Rank.BIG_JOKER:
        return "大王"
    assert card.suit is not None  # non-jokers always have a suit (checked at construction)
    rank_text = "10" if card.rank is Rank.TEN else card.rank.value
    return card.suit.symbol + rank_text
