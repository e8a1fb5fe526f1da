"""Legal plays (可出的牌): every reading a hand can make, as leader or against a play.

Plays are distinct by reading (type, rank, size); each comes with one representative set of
cards from the hand, natural cards first and wild cards (逢人配) only to fill what is missing.
The work is done on counts per rank and per suit, never on subsets, so a 27-card hand is fast.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from harness.interpreter.classify import JOKERS, SHAPES, sequence_windows
from harness.interpreter.readings import Play, PlayRules, Reading, play_rules
from harness.model.cards import Card, Rank, Suit
from harness.model.registry import implements
from harness.model.ruleset import CombinationType, JokerUse, Ruleset, SequencePlace, Shape


class _Hand:
    """A hand sorted into wild cards, natural cards by rank, and natural cards by suit and rank."""

    __slots__ = ("by_rank", "by_suit", "wilds")

    def __init__(self, cards: Sequence[Card], rules: PlayRules) -> None:
        self.wilds: list[Card] = []
        self.by_rank: dict[Rank, list[Card]] = {}
        self.by_suit: dict[Suit, dict[Rank, list[Card]]] = {}
        for card in cards:
            if rules.is_wild(card):
                self.wilds.append(card)
                continue
            self.by_rank.setdefault(card.rank, []).append(card)
            if card.suit is not None:
                self.by_suit.setdefault(card.suit, {}).setdefault(card.rank, []).append(card)


def legal_plays(
    hand: Sequence[Card], level: Rank, ruleset: Ruleset, previous: Reading | None = None
) -> list[Play]:
    """Every play open to `hand` at `level`: as leader when `previous` is None, else beating it."""
    rules = play_rules(ruleset, level)
    if previous is None:
        return hand_plays(hand, rules)
    return following(hand, rules, previous)


def following(hand: Sequence[Card], rules: PlayRules, previous: Reading) -> list[Play]:
    """The plays of `hand` that beat `previous` (壓牌): only its type and the bomb ladder's types
    can, so only those are listed before the comparison."""
    kinds = frozenset(rules.ladder_types) | {previous.type}
    return [p for p in hand_plays(hand, rules, kinds) if rules.beats(p.reading, previous)]


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
    cards = _Hand(hand, rules)
    found: dict[Reading, tuple[Card, ...]] = {}
    excluded = set(rules.rules.wild.excluded)
    for kind, shape in rules.shapes.items():
        if kinds is not None and kind not in kinds:
            continue
        wilds = [] if kind in excluded else cards.wilds
        if shape.jokers is JokerUse.ONLY:
            _jokers_only(kind, shape, cards, found)
        elif shape.consecutive:
            _sequences(kind, shape, cards, wilds, rules, found)
        elif shape.kicker is not None:
            _with_kicker(kind, shape, cards, wilds, rules, found)
        elif shape.groups.min <= 1:
            _one_group(kind, shape, cards, wilds, rules, found)
    return [Play(found[r], r) for r in sorted(found, key=rules.sort_key)]


def _add(found: dict[Reading, tuple[Card, ...]], reading: Reading, cards: list[Card]) -> None:
    found.setdefault(reading, tuple(cards))


@implements("wild.needs_natural_card", "wild.stands_for")
def _group_sources(
    rank: Rank, cards: _Hand, wilds: list[Card], rules: PlayRules
) -> tuple[list[Card], list[Card]]:
    """The natural cards of `rank`, and the wild cards that may fill a group of it."""
    naturals = cards.by_rank.get(rank, [])
    if rank is rules.level:
        # Heart level cards are level cards themselves: natural here, never filling.
        return naturals + cards.wilds, []
    if rank.is_joker:
        return naturals, []
    if not naturals and rules.rules.wild.needs_natural_card:
        return naturals, []
    return naturals, wilds


def _one_group(
    kind: CombinationType,
    shape: Shape,
    cards: _Hand,
    wilds: list[Card],
    rules: PlayRules,
    found: dict[Reading, tuple[Card, ...]],
) -> None:
    # A one-group shape of one suit never gets here: the loader refuses it (classify.SHAPES).
    ranks = list(rules.natural)
    if shape.jokers is JokerUse.ALLOWED:
        ranks += list(JOKERS)
    for rank in ranks:
        naturals, fill = _group_sources(rank, cards, wilds, rules)
        have = len(naturals) + len(fill)
        top = have if shape.group_size.max is None else min(have, shape.group_size.max)
        for size in range(shape.group_size.min, top + 1):
            used = naturals[:size]
            used += fill[: size - len(used)]
            _add(found, Reading(kind, rank, size), used)


@implements("compare.full_house_key")
def _with_kicker(
    kind: CombinationType,
    shape: Shape,
    cards: _Hand,
    wilds: list[Card],
    rules: PlayRules,
    found: dict[Reading, tuple[Card, ...]],
) -> None:
    """A group with its kicker (三帶二): the kicker taken as cheaply as the hand allows."""
    assert shape.kicker is not None
    kicker = shape.kicker
    size = shape.group_size.min
    for main in rules.natural:
        naturals, fill = _group_sources(main, cards, wilds, rules)
        if len(naturals) + len(fill) < size:
            continue
        used = naturals[:size] + fill[: size - min(size, len(naturals))]
        # Copies of a card are one object, so wild cards are counted, never searched for.
        spent = sum(1 for c in used if rules.is_wild(c))
        best = _kicker(
            main,
            kicker.group_size,
            kicker.distinct_rank,
            kicker.jokers,
            cards,
            wilds[spent:],
            cards.wilds[spent:],
            rules,
        )
        if best is not None:
            _add(found, Reading(kind, main, size + kicker.group_size), used + best)


def _kicker(
    main: Rank,
    size: int,
    distinct: bool,
    jokers: bool,
    cards: _Hand,
    fill_wilds: list[Card],
    level_wilds: list[Card],
    rules: PlayRules,
) -> list[Card] | None:
    """The kicker group using the fewest wild cards, then the lowest rank; None if there is none."""
    ranks = list(rules.natural) + (list(JOKERS) if jokers else [])
    best: list[Card] | None = None
    for rank in sorted(ranks, key=rules.value.__getitem__):
        if distinct and rank is main:
            continue
        naturals = cards.by_rank.get(rank, [])
        fill = fill_wilds
        if rank is rules.level:
            naturals, fill = naturals + level_wilds, []
        elif rank.is_joker or (not naturals and rules.rules.wild.needs_natural_card):
            fill = []
        if len(naturals) >= size:
            return naturals[:size]
        if best is None and len(naturals) + len(fill) >= size:
            best = naturals + fill[: size - len(naturals)]
    return best


@implements("ranks.level_card.in_sequences", "deck.decks")
def _sequences(
    kind: CombinationType,
    shape: Shape,
    cards: _Hand,
    wilds: list[Card],
    rules: PlayRules,
    found: dict[Reading, tuple[Card, ...]],
) -> None:
    """Runs of consecutive groups (順子, 連對, 鋼板, 同花順), by suit where the shape says so."""
    skip_level = rules.rules.ranks.level_card.in_sequences is SequencePlace.EXCLUDED
    pools: list[dict[Rank, list[Card]]]
    pools = list(cards.by_suit.values()) if shape.same_suit else [cards.by_rank]
    max_groups = shape.groups.max if shape.groups.max is not None else len(rules.natural)
    most = 4 * rules.rules.deck.decks
    max_size = shape.group_size.max if shape.group_size.max is not None else most
    spare = len(wilds)
    for groups in range(shape.groups.min, max_groups + 1):
        windows = sequence_windows(rules, groups)
        for group_size in range(shape.group_size.min, max_size + 1):
            for window in windows:
                reading = Reading(kind, window[-1], groups * group_size)
                if reading in found or len(set(window)) != len(window):
                    continue
                for pool in pools:
                    used: list[Card] = []
                    need = 0
                    for rank in window:
                        have = [] if skip_level and rank is rules.level else pool.get(rank, [])
                        take = have[:group_size]
                        used += take
                        need += group_size - len(take)
                        if need > spare:
                            break
                    lone_wilds = need == groups * group_size
                    if need <= spare and not (lone_wilds and rules.rules.wild.needs_natural_card):
                        _add(found, reading, used + wilds[:need])
                        break


def _jokers_only(
    kind: CombinationType, shape: Shape, cards: _Hand, found: dict[Reading, tuple[Card, ...]]
) -> None:
    size = shape.group_size.min
    groups = shape.groups.min
    ready = [r for r in JOKERS if len(cards.by_rank.get(r, [])) >= size]
    if len(ready) >= groups:
        chosen = ready[-groups:]
        used = [c for r in chosen for c in cards.by_rank[r][:size]]
        _add(found, Reading(kind, chosen[-1], size * groups), used)
