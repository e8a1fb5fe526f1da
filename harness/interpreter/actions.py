"""Legal actions (可出的牌組): every distinct set of cards a hand can play, each with every reading
it can be declared as.

Where `legal_plays` lists readings (one representative set of cards each), an action is a set of
cards: two actions are the same when they hold the same cards, a card being its rank and suit
(the two copies of a card in two decks are one card for distinctness, so a hand holding both
copies of ♠3 has one single ♠3, and one pair ♠3 ♠3). Suits therefore matter wherever they change
the set of cards. An action's readings are every reading its cards have (leading), or every one
that beats the play to follow.

Actions are found reading by reading: for each reading the hand can make (`hand_plays`), every
set of the hand's cards that fills that reading's ranks (each rank from its natural cards and
the wild cards), then classified; classification (`classify`) decides, so the enumeration only
has to propose every candidate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from harness.interpreter.classify import rules_readings
from harness.interpreter.legal import hand_plays
from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.model.cards import FULL_DECK, NATURAL_RANKS, Card, Rank, Suit
from harness.model.registry import implements
from harness.model.ruleset import CombinationType, Ruleset

_SEQUENCES = frozenset(
    {
        CombinationType.STRAIGHT,
        CombinationType.TUBE,
        CombinationType.PLATE,
        CombinationType.STRAIGHT_FLUSH,
    }
)


@dataclass(frozen=True, slots=True)
class LegalAction:
    """One action: the cards (sorted), and every reading they may be declared as."""

    cards: tuple[Card, ...]
    readings: tuple[Reading, ...]


# Cards as their index in one deck (its sort order): tuples of small ints hash and sort fast.
_INDEX = {card: i for i, card in enumerate(FULL_DECK)}

_HEARTS = list(Suit).index(Suit.HEARTS)
# By card index: its rank's place (2 = 0 … A = 12, SB 13, HR 14), and its suit's (a joker has
# a suit of its own, so that a joker among suited cards is no flush).
_RANK_OF = tuple(i // 4 if i < 52 else i - 52 + 13 for i in range(len(FULL_DECK)))
_SUIT_OF = tuple(i % 4 if i < 52 else 4 + i for i in range(len(FULL_DECK)))
_Part = tuple[tuple[int, ...], int]
"""Some cards (indices, sorted) and how many of them are wild cards."""


def _multisets(naturals: Counter[int], wilds: Counter[int], size: int) -> list[_Part]:
    """Every distinct multiset of `size` cards from the natural cards and the wild cards given
    (each card as often as it is there), with its count of wild cards."""
    cards = sorted([*naturals.elements(), *wilds.elements()])
    out: dict[tuple[int, ...], int] = {}
    for chosen in combinations(cards, size):
        if chosen not in out:
            out[chosen] = sum(1 for c in chosen if c in wilds)
    return list(out.items())


def _window(top: Rank, length: int) -> list[Rank]:
    """The `length` ranks of a sequence ending at `top`, counting down in natural order and
    going round from 2 to A (so A 2 3 4 5 ends at 5; a wrapping sequence is proposed too, and
    classification keeps it only where the variant allows it)."""
    index = NATURAL_RANKS.index(top)
    return [NATURAL_RANKS[(index - i) % 13] for i in range(length)][::-1]


class _Hand:
    """A hand as counts of card indices: natural cards by rank, and the wild cards."""

    def __init__(self, hand: Sequence[Card], rules: PlayRules) -> None:
        self.rules = rules
        self.have: Counter[int] = Counter(_INDEX[c] for c in hand)
        self.wilds: Counter[int] = Counter()
        self.by_rank: dict[Rank, Counter[int]] = {}
        for card in set(hand):
            n = self.have[_INDEX[card]]
            if rules.is_wild(card):
                self.wilds[_INDEX[card]] = n
            else:
                self.by_rank.setdefault(card.rank, Counter())[_INDEX[card]] = n
        self._parts: dict[tuple[Rank, int], list[_Part]] = {}

    def parts(self, rank: Rank, size: int) -> list[_Part]:
        """Every way to make `size` cards of `rank` from its natural cards and the wild cards
        (jokers: from the jokers alone), made once."""
        key = (rank, size)
        if key not in self._parts:
            wilds: Counter[int] = Counter() if rank.is_joker else self.wilds
            self._parts[key] = _multisets(self.by_rank.get(rank, Counter()), wilds, size)
        return self._parts[key]

    def length(self, reading: Reading) -> int:
        """How many consecutive ranks a sequence reading spans."""
        shape = self.rules.shapes[reading.type]
        return next(
            n
            for n in range(shape.groups.min, (shape.groups.max or 13) + 1)
            if reading.size % n == 0
            and reading.size // n in _sizes(shape.group_size.min, shape.group_size.max)
        )

    def filling(self, reading: Reading) -> tuple[str, Rank, int, int]:
        """How a reading's cards are proposed (by consecutive ranks and their span, as a triple
        and a pair, from the jokers, or as a group of one rank), its rank and size: a straight
        and a straight flush of one rank are filled alike, as are a group and a bomb."""
        kind = reading.type
        if kind in _SEQUENCES:
            return ("sequence", reading.rank, reading.size, self.length(reading))
        if kind in (CombinationType.FULL_HOUSE, CombinationType.JOKER_BOMB):
            return (kind.value, reading.rank, reading.size, 0)
        return ("group", reading.rank, reading.size, 0)

    def candidates(self, reading: Reading) -> Iterator[tuple[int, ...]]:
        """Every set of the hand's cards that might read as `reading` (a superset:
        classification filters), each rank filled from its natural cards and the wild cards,
        never using more wild cards than the hand holds."""
        kind, rank, size = reading.type, reading.rank, reading.size
        budget = sum(self.wilds.values())
        if kind in _SEQUENCES:
            length = self.length(reading)
            groups = [self.parts(r, size // length) for r in _window(rank, length)]
            for chosen in product(*groups):
                if sum(w for _, w in chosen) <= budget:
                    yield tuple(sorted(c for part, _ in chosen for c in part))
        elif kind is CombinationType.FULL_HOUSE:
            for triple, w3 in self.parts(rank, 3):
                for other in (*NATURAL_RANKS, Rank.SMALL_JOKER, Rank.BIG_JOKER):
                    if other is rank:
                        continue
                    for pair, w2 in self.parts(other, 2):
                        if w3 + w2 <= budget:
                            yield tuple(sorted(triple + pair))
        elif kind is CombinationType.JOKER_BOMB:
            jokers: Counter[int] = Counter()
            for r in (Rank.SMALL_JOKER, Rank.BIG_JOKER):
                jokers.update(self.by_rank.get(r, Counter()))
            for part, _ in _multisets(jokers, Counter(), size):
                yield part
        else:
            for part, _ in self.parts(rank, size):
                yield part


def _sizes(low: int, high: int | None) -> range:
    return range(low, (high or 10) + 1)


@implements("combinations.only_listed")
def legal_actions(
    hand: Sequence[Card], level: Rank, ruleset: Ruleset, previous: Reading | None = None
) -> list[LegalAction]:
    """Every distinct set of cards `hand` can play at `level` (as leader, or beating
    `previous`), each with the readings it may be declared as; in the order of `legal_plays`'
    readings, then of cards."""
    rules = play_rules(ruleset, level)
    cards = _Hand(hand, rules)
    kinds = None if previous is None else frozenset(rules.ladder_types) | {previous.type}
    wild = frozenset(cards.wilds)
    found: dict[tuple[int, ...], tuple[Reading, ...]] = {}
    # Readings depend on the natural cards' ranks, the number of wild cards and whether the
    # cards share a suit (flushes), not on which suits: each such profile is classified once.
    profiles: dict[tuple[tuple[int, ...], int, bool, bool], tuple[Reading, ...]] = {}
    # A straight and a straight flush of one rank (a bomb of n and a group of n…) are filled
    # from the same cards: each way of filling ranks is proposed once.
    fillings = {cards.filling(p.reading): p.reading for p in hand_plays(hand, rules, kinds)}
    for reading in fillings.values():
        for key in cards.candidates(reading):
            if key in found:
                continue
            naturals = [i for i in key if i not in wild]
            wilds = len(key) - len(naturals)
            suits = {_SUIT_OF[i] for i in naturals}
            one_suit = len(suits) <= 1
            profile = (
                tuple([_RANK_OF[i] for i in naturals]),
                wilds,
                one_suit,
                one_suit and (not wilds or suits <= {_HEARTS}),
            )
            readings = profiles.get(profile)
            if readings is None:
                listed = rules_readings(tuple(FULL_DECK[i] for i in key), rules)
                if previous is not None:
                    listed = [r for r in listed if rules.beats(r, previous)]
                readings = profiles[profile] = tuple(listed)
            found[key] = readings
    return [
        LegalAction(tuple(FULL_DECK[i] for i in key), readings)
        for key, readings in found.items()
        if readings
    ]
