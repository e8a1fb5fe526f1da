"""Legal actions (可出的牌組): every distinct set of cards a hand can play, each with every reading
it can be declared as.

Where `legal_plays` lists readings (one representative set of cards each), an action is a set of
cards: two actions are the same when they hold the same cards, a card being its rank and suit
(the two copies of a card in two decks are one card for distinctness, so a hand holding both
copies of ♠3 has one single ♠3, and one pair ♠3 ♠3). Suits therefore matter wherever they change
the set of cards. An action's readings are every reading its cards have (leading), or every one
that beats the play to follow.

Actions are found by rank profile: how many natural cards of each rank a set holds, and how many
wild cards. From the hand's rank counts alone, every profile a play of each type might have is
proposed (every window of a sequence, every triple with every pair, every group of one rank,
each rank filled from its natural cards and the wild cards): a superset. A set's readings depend
only on its profile and on whether its natural cards share a suit (the key `classify` caches
on), so each profile is classified once per suit pattern, and classification decides: a profile
with no reading is dropped. Each remaining profile is then multiplied out into its sets of cards
(every choice of suits for its natural cards); a set of one suit, the only kind whose readings
can differ (同花順), sits at a known place in that product.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, product, repeat

from harness.interpreter.classify import key_classification, sequence_windows
from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.memo import memo
from harness.model.cards import NATURAL_RANKS, Card, Rank, Suit
from harness.model.declarations import implements
from harness.model.ruleset import CombinationType, JokerUse, Ruleset

LegalAction = tuple[tuple[Card, ...], tuple[Reading, ...]]
"""One action (可出的牌組): its cards (natural cards rank by rank, then the wild cards) and every
reading they may be declared as. A plain pair: a hand has a thousand actions and more, and a
tuple is made at C speed where an object with named fields costs a Python call each."""


# Ranks by place: 2 … A are 0 … 12 (natural order), the small and big jokers 13 and 14.
_RANKS: tuple[Rank, ...] = (*NATURAL_RANKS, Rank.SMALL_JOKER, Rank.BIG_JOKER)
_PLACE = {rank: i for i, rank in enumerate(_RANKS)}
_JOKERS = (13, 14)
# Suits as compared for same-suit shapes: the jokers have none, and so share one "suit".
_SUITS: tuple[Suit | None, ...] = (*Suit, None)

_Groups = tuple[tuple[int, int], ...]
"""How many natural cards of each rank, by place, ascending."""
# A profile (how many natural cards of each rank, and how many wild cards) as one number: so
# many bits per rank place, the wild cards above. It hashes fast, and is the same however the
# ranks were filled.
_SHIFT = 6
_MASK = (1 << _SHIFT) - 1
_WILD_SHIFT = _SHIFT * len(_RANKS)


@memo(1024)
def _windows(rules: PlayRules, span: int) -> tuple[tuple[int, ...], ...]:
    """The windows of `span` distinct ranks a sequence may cover under `rules` (A low, A high
    and going round as the variant allows), as sorted rank places."""
    return tuple(
        tuple(sorted(_PLACE[r] for r in window))
        for window in sequence_windows(rules, span)
        if len(set(window)) == len(window)
    )


class _Parts:
    """Every distinct set of n natural cards of one rank in a hand (in card order), and those
    of them that are all of one suit: a bit per suit (`one_suit`), and where each is (`at`)."""

    __slots__ = ("at", "one_suit", "sets", "singles")

    def __init__(self, cards: list[Card], size: int) -> None:
        # `cards` (of one rank) are in card order, so equal cards (of one suit) are side by
        # side: a set is told by the place of the first of each of its equal cards.
        first = list(range(len(cards)))
        for i in range(1, len(cards)):
            if cards[i].suit is cards[i - 1].suit:
                first[i] = first[i - 1]
        self.sets: list[tuple[Card, ...]] = []
        self.one_suit = 0
        self.at = [0] * len(_SUITS)
        chosen = dict.fromkeys(
            tuple([first[i] for i in places]) for places in combinations(range(len(cards)), size)
        )
        for i, places in enumerate(chosen):
            self.sets.append(tuple([cards[j] for j in places]))
            if places[0] == places[-1]:
                # Every card is the first one's equal: a set of one suit.
                bit = _SUITS.index(cards[places[0]].suit)
                self.one_suit |= 1 << bit
                self.at[bit] = i
        self.singles = [cards[place] for (place,) in chosen] if size == 1 else []


class _Table(dict[tuple[int, int], _Parts]):
    """The parts of a hand by (rank place, size), each made when first asked for."""

    def __init__(self, by_place: list[list[Card]]) -> None:
        super().__init__()
        self.by_place = by_place

    def __missing__(self, key: tuple[int, int]) -> _Parts:
        place, size = key
        found = self[key] = _Parts(self.by_place[place], size)
        return found


class _Hand:
    """A hand as its natural cards by rank place, and its wild cards."""

    def __init__(self, hand: Sequence[Card], rules: PlayRules) -> None:
        self.rules = rules
        level, wild_suit = rules.level, rules.wild_suit
        self.wild = Card(level, wild_suit)
        self.wilds = 0
        by_place: list[list[Card]] = [[] for _ in _RANKS]
        for card in hand:
            if card.rank is level and card.suit is wild_suit:
                self.wilds += 1
            else:
                by_place[_PLACE[card.rank]].append(card)
        self.by_place = [sorted(cards, key=Card.sort_key) for cards in by_place]
        self.count = [len(cards) for cards in by_place]
        self.parts = _Table(self.by_place)
        self.kicker_lists: dict[int, list[tuple[int, int, int]]] = {}

    def profiles(self, kinds: Iterable[CombinationType]) -> dict[int, None]:
        """Every profile a play of these types might have in this hand, once each: every way
        the type's shape fills ranks from the hand's cards, each rank from its natural cards
        and the wild cards (the jokers from the jokers alone), never using more wild cards than
        the hand holds. A superset: classification filters."""
        rules = self.rules
        count, budget = self.count, self.wilds
        found: dict[int, None] = {}
        runs: set[tuple[tuple[int, ...], int]] = set()
        most = max(count) + budget
        for kind in kinds:
            shape = rules.shapes[kind]
            sizes = range(shape.group_size.min, min(shape.group_size.max or most, most) + 1)
            if shape.jokers is JokerUse.ONLY:
                found.update(dict.fromkeys(self._jokers(shape.group_size.min * shape.groups.min)))
            elif shape.consecutive:
                spans = range(shape.groups.min, (shape.groups.max or len(rules.natural)) + 1)
                for span in spans:
                    for window in _windows(rules, span):
                        for each in sizes:
                            if (window, each) not in runs:
                                runs.add((window, each))
                                have = tuple([min(count[p], each) for p in window])
                                found.update(dict.fromkeys(_spread(window, each, have, budget)))
            elif shape.kicker is not None:
                kicker = shape.kicker
                found.update(
                    dict.fromkeys(
                        self._with_kickers(
                            shape.group_size.min, kicker.group_size, kicker.distinct_rank
                        )
                    )
                )
            else:
                # The loader takes groups that are not consecutive one at a time (groups 1 to 1).
                for place, natural in enumerate(count):
                    # A joker group takes no wild card: `_group` leaves those sizes out.
                    for size in sizes:
                        if size > natural + budget:
                            break
                        found.update(dict.fromkeys(self._group(place, size)))
        return found

    def _group(self, place: int, size: int) -> list[int]:
        """`size` cards of the rank at `place`, natural and wild."""
        top = 0 if place in _JOKERS else min(self.wilds, size)
        shift = _SHIFT * place
        return [
            (size - w) << shift | w << _WILD_SHIFT
            for w in range(top + 1)
            if size - w <= self.count[place]
        ]

    def _jokers(self, size: int) -> list[int]:
        """`size` jokers, small and big."""
        small, big = _JOKERS
        return [
            k << _SHIFT * small | (size - k) << _SHIFT * big
            for k in range(size + 1)
            if k <= self.count[small] and size - k <= self.count[big]
        ]

    def _with_kickers(self, size: int, kicker: int, distinct: bool) -> list[int]:
        """A group of `size` cards of one rank with a kicker of `kicker` cards, of another rank
        where `distinct` (三帶二: 3 and 2; 三帶一: 3 and 1)."""
        count, budget = self.count, self.wilds
        found: list[int] = []
        kickers = self._kicker_groups(kicker)
        for place in range(len(NATURAL_RANKS)):
            for w in range(min(budget, size) + 1):
                if size - w > count[place]:
                    continue
                left = budget - w
                group = (size - w) << _SHIFT * place | w << _WILD_SHIFT
                # Without `distinct` the kicker may share the group's rank: both then draw on
                # that rank's natural cards.
                found += [
                    group + each
                    for other, wk, each in kickers
                    if wk <= left
                    and (
                        other != place or (not distinct and size - w + kicker - wk <= count[place])
                    )
                ]
        return found

    def _kicker_groups(self, size: int) -> list[tuple[int, int, int]]:
        """Every way to make a group of `size` cards of one rank (the jokers from the jokers
        alone): its rank's place, its wild cards, and its profile."""
        found = self.kicker_lists.get(size)
        if found is None:
            found = self.kicker_lists[size] = [
                (other, w, (size - w) << _SHIFT * other | w << _WILD_SHIFT)
                for other in range(len(_RANKS))
                for w in range((0 if other in _JOKERS else min(self.wilds, size)) + 1)
                if size - w <= self.count[other]
            ]
        return found


# The profiles of a sequence by its window, cards per rank, the hand's counts there (capped at
# that) and its wild cards: the same few keys come back hand after hand.
@memo(1 << 15)
def _spread(
    window: tuple[int, ...], each: int, have: tuple[int, ...], budget: int
) -> tuple[int, ...]:
    """Every way to fill `each` cards of every rank in `window` from natural cards (`have` of
    each) and at most `budget` wild cards."""
    ways: list[tuple[int, int]] = [(0, 0)]
    for place, natural in zip(window, have, strict=True):
        shift = _SHIFT * place
        ways = [
            (profile + ((each - w) << shift), used + w)
            for profile, used in ways
            for w in range(min(each, budget - used) + 1)
            if each - w <= natural
        ]
    return tuple([profile | used << _WILD_SHIFT for profile, used in ways])


def _decode(profile: int) -> tuple[_Groups, int]:
    """A profile's groups of natural cards (by place, ascending) and its wild cards."""
    groups = tuple(
        (place, n) for place in range(len(_RANKS)) if (n := profile >> _SHIFT * place & _MASK)
    )
    return groups, profile >> _WILD_SHIFT


_Patterns = tuple[
    tuple[Reading, ...], tuple[Reading, ...], tuple[Reading, ...], bool, bool, _Groups, int
]


# The readings of a profile by suit pattern, per play rules: read through classify's memo, and
# kept so that a profile met again costs one look-up, not three.
@memo(1 << 15)
def _patterns(rules: PlayRules, profile: int) -> _Patterns:
    """The readings of a set with this profile whose natural cards are of several suits, of one
    suit that is not the wild cards' (with wild cards), and of one suit in all; whether the
    suits change nothing; whether every group is one card; the groups and the wild cards."""
    groups, wilds = _decode(profile)
    ranks = tuple(sorted(_RANKS[place] for place, n in groups for _ in range(n)))
    several, other, one = (
        key_classification(rules, ranks, wilds, one_suit, all_one_suit).readings
        for one_suit, all_one_suit in ((False, False), (True, False), (True, True))
    )
    # A reading of mixed suits is one of one suit too, and one of all one suit too (a shape
    # only ever asks for one suit): `several` <= `other` <= `one`, so two equal ends mean all.
    same = not groups or several == one
    return several, other, one, same, all(n == 1 for _, n in groups), groups, wilds


@implements("combinations.only_listed")
def legal_actions(
    hand: Sequence[Card], level: Rank, ruleset: Ruleset, previous: Reading | None = None
) -> list[LegalAction]:
    """Every distinct set of cards `hand` can play at `level` (as leader, or beating
    `previous`), each as a pair (cards, readings): the readings it may be declared as. In no
    particular order (by rank profile)."""
    rules = play_rules(ruleset, level)
    cards = _Hand(hand, rules)
    kinds = [
        kind
        for kind in rules.shapes
        if previous is None or kind in rules.ladder_types or kind is previous.type
    ]
    profiles = cards.profiles(kinds)
    beaten: dict[tuple[Reading, ...], tuple[Reading, ...]] = {}
    out: list[LegalAction] = []
    parts = cards.parts
    wild = cards.wild
    for profile in profiles:
        several, other, one, same, singles, groups, wilds = _patterns(rules, profile)
        if previous is not None:
            several, other, one = (
                _beating(rules, r, previous, beaten) for r in (several, other, one)
            )
        if not one:
            continue  # `one` holds the readings of the other patterns (see `_patterns`)
        if not same:
            _add_mixed(cards, groups, wilds, (several, other, one), singles, out)
            continue
        # The suits change nothing: every set with this profile reads alike.
        tail = (wild,) * wilds
        match groups:
            case [group]:
                sets = parts[group].sets
                if wilds:
                    out.extend([(s + tail, one) for s in sets])
                else:
                    out.extend(zip(sets, repeat(one)))
            case [low, high]:
                first, second = parts[low].sets, parts[high].sets
                if tail:
                    second = [b + tail for b in second]
                out.extend([(a + b, one) for a in first for b in second])
            case []:
                out.append((tail, one))
            case _:
                chosen = [parts[group] for group in groups]
                out.extend(zip(_sets(chosen, tail, singles), repeat(one)))
    return out


def _beating(
    rules: PlayRules,
    readings: tuple[Reading, ...],
    previous: Reading,
    memo: dict[tuple[Reading, ...], tuple[Reading, ...]],
) -> tuple[Reading, ...]:
    """The readings that beat `previous`, worked out once per tuple of readings."""
    found = memo.get(readings)
    if found is None:
        found = memo[readings] = tuple(r for r in readings if rules.beats(r, previous))
    return found


def _add_mixed(
    cards: _Hand,
    groups: _Groups,
    wilds: int,
    by_pattern: tuple[tuple[Reading, ...], tuple[Reading, ...], tuple[Reading, ...]],
    singles: bool,
    out: list[LegalAction],
) -> None:
    """Add every set of the hand's cards with this profile (of some natural cards) that has a
    reading, with its readings, `by_pattern` by the suits of its natural cards (see
    `_patterns`): most sets are of several suits, and each set of one suit is at a known place
    in the product of the groups' parts."""
    several, other, one = by_pattern
    tail = (cards.wild,) * wilds
    parts = [cards.parts[group] for group in groups]
    common = 0b11111
    for part in parts:
        common &= part.one_suit
    # The one-suit sets: (bit of the suit, readings), the wild cards' suit reading as `one`.
    flushes = []
    if common:
        wild_bit = _SUITS.index(cards.rules.wild_suit)
        flushes = [
            (bit, one if not wilds or bit == wild_bit else other)
            for bit in range(len(_SUITS))
            if common >> bit & 1
        ]
    if not several:
        for bit, readings in flushes:
            if readings:
                chosen = [p.sets[p.at[bit]] for p in parts]
                out.append((sum(chosen, ()) + tail, readings))
        return
    block = list(zip(_sets(parts, tail, singles), repeat(several)))
    for bit, readings in flushes:
        index = 0
        for part in parts:
            index = index * len(part.sets) + part.at[bit]
        block[index] = (block[index][0], readings)
    # Every set here has a reading: `several` has one, and a set of one suit reads at least as
    # the sets of several suits do (see `_patterns`).
    out.extend(block)


def _sets(parts: list[_Parts], tail: tuple[Card, ...], singles: bool) -> Iterable[tuple[Card, ...]]:
    """Every set of cards that takes one part from each group, then the wild cards; in the
    order of the product of the parts (the first group varying slowest)."""
    if singles:
        # Single cards: the product itself is the flat tuple of cards.
        return product(*[p.singles for p in parts], *[[c] for c in tail])
    chosen: list[tuple[Card, ...]] = parts[0].sets
    for part in parts[1:]:
        chosen = [c + more for c in chosen for more in part.sets]
    return [c + tail for c in chosen] if tail else chosen
