"""Legal plays (可出的牌): every reading a hand can make, as leader or against a play.

Plays are distinct by reading (type, rank, size); each comes with one representative set of
cards from the hand, natural cards first and wild cards (逢人配) only to fill what is missing.
The work is done on counts per rank and per suit, never on subsets, so a 27-card hand is fast.

`HandPlays` keeps what it found for one hand, type by type, so that a hand asked again (a seat
between two of its own plays is asked at every turn) is not searched again; `hand_plays` and
`following` answer once, for any hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Iterator, Sequence
from operator import itemgetter

from harness.interpreter.classify import JOKERS, SHAPES, sequence_windows
from harness.interpreter.readings import Play, PlayRules, Reading, play_rules
from harness.memo import memo
from harness.model.cards import Card, Rank, Suit
from harness.model.declarations import implements
from harness.model.ruleset import CombinationType, JokerUse, Ruleset, SequencePlace, Shape

_Key = tuple[int, int, int, int]
_Entry = tuple[_Key, Play]
"""A play with its place in the listing order (`PlayRules.sort_key` of its reading)."""

_Sources = dict[Rank, tuple[list[Card], list[Card]]]
"""For each rank, its natural cards and the wild cards that may fill a group of it."""

_Pool = tuple[dict[Rank, list[Card]], dict[Rank, int], int]
"""Natural cards by rank a run may be made from, how many of each rank it may use, and in all."""

_first = itemgetter(0)


class _Hand:
    """A hand sorted into wild cards, natural cards by rank, and natural cards by suit and rank."""

    __slots__ = ("by_rank", "by_suit", "pools", "wilds")

    def __init__(self, cards: Sequence[Card], rules: PlayRules) -> None:
        self.wilds: list[Card] = []
        self.by_rank: dict[Rank, list[Card]] = {}
        self.by_suit: dict[Suit, dict[Rank, list[Card]]] = {}
        self.pools: dict[tuple[bool, Rank | None], list[_Pool]] = {}
        level, wild_suit = rules.level, rules.wild_suit
        wilds, by_rank, by_suit = self.wilds, self.by_rank, self.by_suit
        for card in cards:
            rank, suit = card.rank, card.suit
            if rank is level and suit is wild_suit:  # rules.is_wild(card), inlined
                wilds.append(card)
                continue
            same = by_rank.get(rank)
            if same is None:
                by_rank[rank] = [card]
            else:
                same.append(card)
            if suit is not None:
                by_suit.setdefault(suit, {}).setdefault(rank, []).append(card)

    def counted(self, same_suit: bool, skip: Rank | None) -> list[_Pool]:
        """The pools a run is made from (each suit where `same_suit`, else the whole hand), with
        how many natural cards of each rank each may put in a run (none of `skip`, the level
        where it stays out of sequences) and in all; found once (runs of several types ask)."""
        found = self.pools.get((same_suit, skip))
        if found is None:
            pools = list(self.by_suit.values()) if same_suit else [self.by_rank]
            found = self.pools[(same_suit, skip)] = []
            for pool in pools:
                lens = {r: len(c) for r, c in pool.items() if r is not skip}
                found.append((pool, lens, sum(lens.values())))
        return found


class HandPlays:
    """The plays of one hand under one set of rules, found type by type when first asked for
    and kept: the same lists, in the same order, as `hand_plays` and `following` give."""

    __slots__ = ("_all", "_by_kind", "_cards", "_sources", "hand", "rules")

    def __init__(self, hand: Sequence[Card], rules: PlayRules) -> None:
        self.hand = hand
        self.rules = rules
        self._cards: _Hand | None = None
        self._sources: dict[bool, _Sources] = {}
        self._by_kind: dict[CombinationType, list[_Entry]] = {}
        self._all: list[Play] | None = None

    def plays(self, kinds: Collection[CombinationType] | None = None) -> list[Play]:
        """Every play of the hand (of `kinds` only, where given), in listing order."""
        if kinds is None:
            if self._all is None:
                self._all = _ordered(self._kind(k) for k in self.rules.shapes)
            return list(self._all)
        return _ordered(self._kind(k) for k in self.rules.shapes if k in kinds)

    def open_to(self, previous: Reading | None) -> list[Play]:
        """The plays open to the hand: every play as leader when `previous` is None, else those
        that beat it (the `legal_plays` operation, and a round's seat whose turn it is)."""
        if previous is None:
            return self.plays()
        return self.following(previous)

    def following(self, previous: Reading, bombs: bool = True) -> list[Play]:
        """The plays that beat `previous`, in listing order (see `following`); with `bombs`
        false, only those off the bomb ladder (炸彈), which only a non-bomb of its own type
        can be, and so are found without listing the hand's bombs."""
        rules = self.rules
        if bombs:
            kinds = rules.ladder_types | {previous.type}
        elif rules.ladder_step(previous) is None:
            kinds = frozenset({previous.type})
        else:
            return []
        return _ordered(
            list(self._beating(kind, previous, bombs)) for kind in rules.shapes if kind in kinds
        )

    def beaten_by_any(self, previous: Reading) -> bool:
        """Whether a play of the hand off the bomb ladder beats `previous`: `following(previous,
        bombs=False)` is not empty, found without listing them all."""
        if self.rules.ladder_step(previous) is not None:
            return False
        return next(self._beating(previous.type, previous, False), None) is not None

    def _beating(self, kind: CombinationType, previous: Reading, bombs: bool) -> Iterator[_Entry]:
        """The plays of type `kind` that beat `previous` (bombs only with `bombs`), in order."""
        rules = self.rules
        memo = rules.beaten(previous)
        for entry in self._kind(kind):
            reading = entry[1].reading
            beats = memo.get(reading)
            if beats is None:
                beats = memo[reading] = rules.beats(reading, previous)
            if beats and (bombs or rules.ladder_step(reading) is None):
                yield entry

    def _kind(self, kind: CombinationType) -> list[_Entry]:
        """The plays of one type, in listing order, found once."""
        found = self._by_kind.get(kind)
        if found is None:
            found = self._by_kind[kind] = self._find(kind)
        return found

    def _find(self, kind: CombinationType) -> list[_Entry]:
        rules = self.rules
        shape = rules.shapes[kind]
        if self._cards is None:
            self._cards = _Hand(self.hand, rules)
        cards = self._cards
        usable = kind not in rules.rules.wild.excluded
        wilds = cards.wilds if usable else []
        found: list[_Entry] = []
        if shape.jokers is JokerUse.ONLY:
            _jokers_only(kind, shape, cards, rules, found)
        elif shape.consecutive:
            _sequences(kind, shape, cards, wilds, rules, found)
        elif shape.kicker is not None:
            _with_kicker(kind, shape, cards, wilds, self._sources_of(usable), rules, found)
        else:
            # Every other shape is one group (classify.SHAPES refuses several unordered groups).
            _one_group(kind, shape, self._sources_of(usable), rules, found)
        found.sort(key=_first)
        return found

    def _sources_of(self, usable: bool) -> _Sources:
        """The sources of every rank, with the hand's wild cards (`usable`) or without."""
        sources = self._sources.get(usable)
        if sources is None:
            cards = self._cards
            assert cards is not None
            wilds = cards.wilds if usable else []
            sources = self._sources[usable] = _group_sources(cards, wilds, self.rules)
        return sources


def _ordered(runs: Iterable[list[_Entry]]) -> list[Play]:
    """The plays of several runs (each in listing order), merged into listing order."""
    merged: list[_Entry] = []
    for run in runs:
        merged += run
    # The sort finds the runs already in order and only merges them.
    merged.sort(key=_first)
    return [entry[1] for entry in merged]


def legal_plays(
    hand: Sequence[Card], level: Rank, ruleset: Ruleset, previous: Reading | None = None
) -> list[Play]:
    """Every play open to `hand` at `level`: as leader when `previous` is None, else beating it."""
    return HandPlays(hand, play_rules(ruleset, level)).open_to(previous)


def following(hand: Sequence[Card], rules: PlayRules, previous: Reading) -> list[Play]:
    """The plays of `hand` that beat `previous` (壓牌): only its type and the bomb ladder's types
    can, so only those are listed before the comparison."""
    return HandPlays(hand, rules).following(previous)


@implements(
    "combinations.single.shape",
    "combinations.pair.shape",
    "combinations.triple.shape",
    "combinations.full_house.shape",
    "combinations.straight.shape",
    "combinations.tube.shape",
    "combinations.plate.shape",
    "combinations.bomb.shape",
    "combinations.straight_flush.shape",
    "combinations.joker_bomb.shape",
    values=SHAPES,
)
@implements("wild.excluded")
def hand_plays(
    hand: Sequence[Card], rules: PlayRules, kinds: Collection[CombinationType] | None = None
) -> list[Play]:
    """Every reading `hand` can make under `rules` (of `kinds` only, where given), each with one
    representative, in order."""
    # HandPlays finds each type on its own (`_find`: wild cards left out of the excluded types).
    return HandPlays(hand, rules).plays(kinds)


@memo(256)
def _all_ranks(rules: PlayRules) -> tuple[Rank, ...]:
    """The natural ranks then the jokers."""
    return (*rules.natural, *JOKERS)


@implements("wild.needs_natural_card", "wild.stands_for")
def _group_sources(cards: _Hand, wilds: list[Card], rules: PlayRules) -> _Sources:
    """For every rank, its natural cards and the wild cards that may fill a group of it."""
    level = rules.level
    needs_natural = rules.rules.wild.needs_natural_card
    by_rank = cards.by_rank
    none: list[Card] = []
    sources: _Sources = {}
    for rank in rules.natural:
        naturals = by_rank.get(rank, none)
        if rank is level:
            # Heart level cards are level cards themselves: natural here, never filling.
            sources[rank] = (naturals + cards.wilds, none)
        elif not naturals and needs_natural:
            sources[rank] = (naturals, none)
        else:
            sources[rank] = (naturals, wilds)
    for rank in JOKERS:  # wild cards never stand for a joker
        sources[rank] = (by_rank.get(rank, none), none)
    return sources


def _one_group(
    kind: CombinationType,
    shape: Shape,
    sources: _Sources,
    rules: PlayRules,
    found: list[_Entry],
) -> None:
    # A one-group shape of one suit never gets here: the loader refuses it (classify.SHAPES).
    ranks: Sequence[Rank] = rules.natural
    if shape.jokers is JokerUse.ALLOWED:
        ranks = _all_ranks(rules)
    low, high = shape.group_size.min, shape.group_size.max
    listing = rules.listing(kind)
    for rank in ranks:
        naturals, fill = sources[rank]
        have = len(naturals) + len(fill)
        if have < low:
            continue
        top = have if high is None else min(have, high)
        for size in range(low, top + 1):
            used = naturals[:size]
            if len(used) < size:
                used += fill[: size - len(used)]
            key, reading = listing.get((rank, size)) or rules.listed(kind, rank, size)
            found.append((key, Play(tuple(used), reading)))


@memo(512)
def _by_value(rules: PlayRules, jokers: bool) -> tuple[Rank, ...]:
    """The ranks a kicker may be (the jokers where `jokers`), lowest value first."""
    ranks = list(rules.natural) + (list(JOKERS) if jokers else [])
    return tuple(sorted(ranks, key=rules.value.__getitem__))


@implements("compare.full_house_key")
def _with_kicker(
    kind: CombinationType,
    shape: Shape,
    cards: _Hand,
    wilds: list[Card],
    sources: _Sources,
    rules: PlayRules,
    found: list[_Entry],
) -> None:
    """A group with its kicker (三帶二): the kicker taken as cheaply as the hand allows."""
    assert shape.kicker is not None
    kicker = shape.kicker
    size = shape.group_size.min
    level, wild_suit = rules.level, rules.wild_suit
    for main in rules.natural:
        naturals, fill = sources[main]
        if len(naturals) + len(fill) < size:
            continue
        used = naturals[:size] + fill[: size - min(size, len(naturals))]
        # Copies of a card are one object, so wild cards are counted, never searched for.
        spent = sum(1 for c in used if c.rank is level and c.suit is wild_suit)
        best = _kicker(
            main,
            kicker.group_size,
            kicker.distinct_rank,
            kicker.jokers,
            cards,
            wilds[spent:],
            cards.wilds[spent:],
            rules,
            taken=min(size, len(naturals)),
        )
        if best is not None:
            key, reading = rules.listed(kind, main, size + kicker.group_size)
            found.append((key, Play((*used, *best), reading)))


def _kicker(
    main: Rank,
    size: int,
    distinct: bool,
    jokers: bool,
    cards: _Hand,
    fill_wilds: list[Card],
    level_wilds: list[Card],
    rules: PlayRules,
    taken: int,
) -> list[Card] | None:
    """The kicker group using the fewest wild cards, then the lowest rank; None if there is none.
    `taken`: the natural cards of the main group's rank it holds already, which a kicker of
    that rank (distinct_rank false) cannot use again."""
    best: list[Card] | None = None
    level = rules.level
    by_rank = cards.by_rank
    # The main group holds a natural card, so even a kicker of wild cards alone is played
    # with one (wild.needs_natural_card): it may stand for any rank, as classify reads it.
    for rank in _by_value(rules, jokers):
        if distinct and rank is main:
            continue
        naturals = by_rank.get(rank, [])
        if rank is main:
            naturals = naturals[taken:]
        fill = fill_wilds
        if rank is level:
            naturals, fill = naturals + level_wilds, []
        elif rank.is_joker:
            fill = []
        if len(naturals) >= size:
            return naturals[:size]
        if best is None and len(naturals) + len(fill) >= size:
            best = naturals + fill[: size - len(naturals)]
    return best


@memo(1024)
def _windows(rules: PlayRules, groups: int) -> tuple[tuple[Rank, ...], ...]:
    """The windows of `groups` ranks a run may cover, those repeating a rank left out."""
    return tuple(w for w in sequence_windows(rules, groups) if len(set(w)) == len(w))


@implements("ranks.level_card.in_sequences", "deck.decks")
def _sequences(
    kind: CombinationType,
    shape: Shape,
    cards: _Hand,
    wilds: list[Card],
    rules: PlayRules,
    found: list[_Entry],
) -> None:
    """Runs of consecutive groups (順子, 連對, 鋼板, 同花順), by suit where the shape says so."""
    skip = (
        rules.level if rules.rules.ranks.level_card.in_sequences is SequencePlace.EXCLUDED else None
    )
    max_groups = shape.groups.max if shape.groups.max is not None else len(rules.natural)
    spare = len(wilds)
    # A group holds at most every natural copy of its rank and every wild card.
    most = 4 * rules.rules.deck.decks + spare
    max_size = shape.group_size.max if shape.group_size.max is not None else most
    # A run of wild cards alone is no run where a natural card is needed.
    lone_wilds = rules.rules.wild.needs_natural_card
    counted = cards.counted(shape.same_suit, skip)
    seen: set[tuple[Rank, int]] = set()
    listing = rules.listing(kind)
    for groups in range(shape.groups.min, max_groups + 1):
        windows = _windows(rules, groups)
        for group_size in range(shape.group_size.min, max_size + 1):
            total = groups * group_size
            # A pool (a suit, or the whole hand) too small for the run with every wild card.
            ready = [(pool, lens) for pool, lens, count in counted if count + spare >= total]
            for window in windows:
                top = window[-1]
                if (top, total) in seen:
                    continue
                for pool, lens in ready:
                    need = 0
                    for rank in window:
                        have = lens.get(rank, 0)
                        if have < group_size:
                            need += group_size - have
                            if need > spare:
                                break
                    else:
                        if lone_wilds and need == total:
                            continue
                        used: list[Card] = []
                        for rank in window:
                            if rank is not skip:
                                used += pool.get(rank, [])[:group_size]
                        seen.add((top, total))
                        key, reading = listing.get((top, total)) or rules.listed(kind, top, total)
                        found.append((key, Play((*used, *wilds[:need]), reading)))
                        break


def _jokers_only(
    kind: CombinationType,
    shape: Shape,
    cards: _Hand,
    rules: PlayRules,
    found: list[_Entry],
) -> None:
    size = shape.group_size.min
    groups = shape.groups.min
    ready = [r for r in JOKERS if len(cards.by_rank.get(r, [])) >= size]
    # Each choice of distinct jokers is a play (a pair of small and a pair of big jokers are two
    # pairs where pairs are jokers only), ranked by its highest joker.
    for chosen in itertools.combinations(ready, groups):
        used = tuple(c for r in chosen for c in cards.by_rank[r][:size])
        key, reading = rules.listed(kind, chosen[-1], size * groups)
        found.append((key, Play(used, reading)))
