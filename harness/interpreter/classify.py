"""Classifying cards (認牌): every reading a set of cards makes, with the wild card (逢人配).

This is written independently of `harness.interpreter.legal` (which finds the plays a hand can
make), so that each checks the other: every play `legal_plays` lists must classify to its
reading, and every reading of every sub-hand must be among the legal plays.

The readings of a set of cards depend only on a key (the ranks of its natural cards, its number
of wild cards, whether its cards share a suit), so `classify` works each key out once, on rank
counts, and reuses the answer. The oracle that works from the cards themselves, which the keyed
path is tested against, is a test's (`tests/oracles/classify.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.memo import memo
from harness.model.cards import Card, Rank
from harness.model.declarations import implements, where
from harness.model.ruleset import (
    CombinationType,
    DefaultChoice,
    JokerUse,
    Ruleset,
    SequencePlace,
    Shape,
)

JOKERS = (Rank.SMALL_JOKER, Rank.BIG_JOKER)
# Copies of each joker in the deck: one per deck, and the loader plays two decks only (deck.decks).
JOKER_COPIES = 2


def shape_refusal(value: Any) -> str | None:
    """Why the interpreter cannot play a combination shape (a clause value), or None if it can.

    Both halves (classify here, legal plays in `harness.interpreter.legal`) handle: groups of
    jokers only, of one fixed count and size; runs of consecutive groups, without a kicker; and
    one group, of any suits, with at most a kicker beside a group of one fixed size.
    """
    if value is None:
        return None
    groups, size = value["groups"], value["group_size"]
    fixed_groups = groups["min"] == groups["max"]
    fixed_size = size["min"] == size["max"]
    if value["jokers"] == "only":
        if value["consecutive"] or value["kicker"] or value["same_suit"]:
            return "a shape of jokers only is one plain set of joker groups"
        if not (fixed_groups and fixed_size):
            return "a shape of jokers only needs one count of groups and one group size"
        return None
    if value["jokers"] == "allowed":
        # "allowed" would name joker groups that no deal can make: the loader refuses it there
        # rather than accept a value that changes nothing (write `excluded`).
        if value["consecutive"]:
            return "jokers have no place in a run, so its groups cannot be jokers (write excluded)"
        if size["min"] > JOKER_COPIES:
            return (
                f"two decks hold {JOKER_COPIES} of each joker, so no group of {size['min']} or "
                "more can be jokers (write excluded)"
            )
    if value["consecutive"]:
        return "a run of groups may not carry a kicker" if value["kicker"] else None
    if groups != {"min": 1, "max": 1}:
        return "groups that are not consecutive come one at a time (groups 1 to 1)"
    if value["same_suit"]:
        return "a single group of one suit is not played (same_suit needs a run)"
    if value["kicker"] and not fixed_size:
        return "a group with a kicker needs one group size"
    return None


SHAPES = where(shape_refusal, "shapes of one group, runs without kickers, and joker-only sets")


@dataclass(frozen=True, slots=True)
class Classification:
    """The readings of a set of cards, and the one taken when none is declared (if any)."""

    readings: tuple[Reading, ...]
    default: Reading | None = None

    @property
    def is_play(self) -> bool:
        """Whether the cards make any play at all."""
        return bool(self.readings)


def classify(cards: Sequence[Card], level: Rank, ruleset: Ruleset) -> Classification:
    """Every reading of exactly these cards at `level` under `ruleset` (empty: no play)."""
    return rules_classification(cards, play_rules(ruleset, level))


def rules_readings(cards: Sequence[Card], rules: PlayRules) -> list[Reading]:
    """Every reading of exactly `cards` under the play rules `rules`, in listing order."""
    return list(rules_classification(cards, rules).readings)


_NO_PLAY = Classification(())


@implements("wild.suit")
def rules_classification(cards: Sequence[Card], rules: PlayRules) -> Classification:
    """The readings of exactly `cards` under `rules` and their default, worked out once per key.

    The key is everything the readings depend on: the ranks of the natural (non-wild) cards,
    the number of wild cards (the heart level card), whether the natural cards share one suit
    and whether all the cards do (for same-suit shapes such as 同花順), and the play rules.
    """
    ranks = [card.rank for card in cards]
    suits = {card.suit for card in cards}
    wilds = 0
    level = rules.level
    if level in ranks:
        # Set the wild cards (heart level cards) apart: they are not natural cards.
        wild_suit = rules.wild_suit
        naturals = [c for c in cards if c.rank is not level or c.suit is not wild_suit]
        wilds = len(ranks) - len(naturals)
        if wilds:
            ranks = [card.rank for card in naturals]
            suits = {card.suit for card in naturals}
    ranks.sort()
    one_suit = len(suits) <= 1
    all_one_suit = one_suit and (not wilds or not suits or rules.wild_suit in suits)
    return key_classification(rules, tuple(ranks), wilds, one_suit, all_one_suit)


# Readings depend only on a key of the cards (see `rules_classification`): each key is worked
# out once and its Classification (immutable) reused, the keys used least lately dropped first.
@memo(1 << 17)
def key_classification(
    rules: PlayRules, ranks: tuple[Rank, ...], wilds: int, one_suit: bool, all_one_suit: bool
) -> Classification:
    """The readings of any cards with this key (牌型鍵): the natural cards' ranks (sorted), the
    number of wild cards, whether the natural cards share a suit and whether all cards do."""
    return _key_classification(rules, ranks, wilds, one_suit, all_one_suit)


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
@implements("wild.excluded", "wild.needs_natural_card", "wild.stands_for")
def _key_classification(
    rules: PlayRules, ranks: tuple[Rank, ...], wilds: int, one_suit: bool, all_one_suit: bool
) -> Classification:
    """The classification of a key: the sorted natural ranks, the wild count, the suit flags.

    The same steps as the tests' oracle (`tests/oracles/classify.py`), on counts instead of
    cards: the wild cards alone are plain heart level cards where they need a natural card; for
    a type the wild may not help to form, every card is natural (the wild as its own rank, of
    the wild suit).
    """
    if wilds and not ranks and rules.rules.wild.needs_natural_card:
        # Alone, the wild cards are plain heart level cards: natural cards of the wild suit.
        level = (rules.level,) * wilds
        return key_classification(rules, level, 0, all_one_suit, all_one_suit)
    size = len(ranks) + wilds
    if not size:
        return _NO_PLAY
    counts: dict[Rank, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    plain: dict[Rank, int] | None = None  # every card natural, for the excluded types
    found: set[Reading] = set()
    for kind, shape, groups, group_size, excluded, most in _plans(rules, size):
        if excluded and wilds:
            if plain is None:
                plain = dict(counts)
                plain[rules.level] = plain.get(rules.level, 0) + wilds
            here, spare, same = plain, 0, all_one_suit
        else:
            here, spare, same = counts, wilds, one_suit
        if len(here) > most or (shape.same_suit and not same):
            continue  # more ranks than the shape holds, or suits it may not mix
        if shape.jokers is JokerUse.ONLY:
            found.update(_jokers_only(kind, group_size, here, spare, size))
        elif shape.consecutive:
            # A set with a joker finds no window: every window is of natural ranks.
            found.update(_sequences(kind, groups, group_size, here, spare, size, rules))
        elif shape.kicker is not None:
            found.update(_with_kicker(kind, shape, group_size, here, spare, size, rules))
        else:
            found.update(_one_group(kind, shape, here, spare, size, rules))
    if not found:
        return _NO_PLAY
    listed = sorted(found, key=rules.sort_key)
    return Classification(tuple(listed), default_reading(listed, rules))


_Plan = tuple[CombinationType, Shape, int, int, bool, int]


@memo(1024)
def _plans(rules: PlayRules, size: int) -> tuple[_Plan, ...]:
    """Each (type, shape, groups, group size, wild excluded, most ranks) `size` cards may make.

    In the order of `rules.shapes`; a count of groups other than one
    that is neither jokers only nor a run makes nothing, so it is left out. The most ranks a
    play of a plan holds: one for each group of jokers only or of a run, one for a single
    group, two for a group with a kicker; a set with more makes nothing of that plan.
    """
    excluded = set(rules.rules.wild.excluded)
    plans = []
    for kind, shape in rules.shapes.items():
        kicker = shape.kicker.group_size if shape.kicker else 0
        max_size = shape.group_size.max if shape.group_size.max is not None else size
        max_groups = shape.groups.max if shape.groups.max is not None else size
        for groups in range(shape.groups.min, max_groups + 1):
            for group_size in range(shape.group_size.min, max_size + 1):
                if groups * group_size + kicker != size:
                    continue
                if shape.jokers is JokerUse.ONLY or shape.consecutive:
                    most = groups
                elif shape.kicker is not None:
                    most = 2
                else:
                    # One group: `shape_refusal` refuses several groups that are no run.
                    most = 1
                plans.append((kind, shape, groups, group_size, kind in excluded, most))
    return tuple(plans)


def _jokers_only(
    kind: CombinationType,
    group_size: int,
    counts: Mapping[Rank, int],
    wilds: int,
    size: int,
) -> Iterable[Reading]:
    if wilds or any(not r.is_joker for r in counts):
        return
    # The counts add up to groups x group_size (the plan's size), so equal groups are as many
    # as the shape's.
    if all(n == group_size for n in counts.values()):
        yield Reading(kind, max(counts, key=lambda r: r.natural_index), size)


def _one_group(
    kind: CombinationType,
    shape: Shape,
    counts: Mapping[Rank, int],
    wilds: int,
    size: int,
    rules: PlayRules,
) -> Iterable[Reading]:
    if len(counts) > 1:
        return
    if not counts:
        # Only wild cards, where they may stand alone: any non-joker rank.
        yield from (Reading(kind, r, size) for r in rules.natural)
        return
    (rank,) = counts
    if rank.is_joker and (shape.jokers is JokerUse.EXCLUDED or wilds):
        return
    yield Reading(kind, rank, size)


@implements("compare.full_house_key")
def _with_kicker(
    kind: CombinationType,
    shape: Shape,
    group_size: int,
    counts: Mapping[Rank, int],
    wilds: int,
    size: int,
    rules: PlayRules,
) -> Iterable[Reading]:
    """Readings as a group with a kicker (三帶二): the group's rank orders the play."""
    assert shape.kicker is not None
    kicker = shape.kicker
    present = set(counts)
    # Wild cards alone fill the group only where they are as many as its cards; else the group
    # needs a natural card of its rank.
    mains = rules.natural if group_size <= wilds else [r for r in rules.natural if r in counts]
    kicker_ranks: list[Rank] = list(rules.natural)
    if kicker.jokers:
        kicker_ranks += list(JOKERS)
    for main in mains:
        for other in kicker_ranks:
            if kicker.distinct_rank and other is main:
                continue
            if not present <= {main, other}:
                continue
            if other is main:
                # A kicker of the group's own rank (distinct_rank false): both take its cards.
                needs = [group_size + kicker.group_size - counts.get(main, 0)]
            else:
                needs = [group_size - counts.get(main, 0), kicker.group_size - counts.get(other, 0)]
            if min(needs) < 0 or (other.is_joker and needs[-1]):
                continue
            if sum(needs) == wilds:
                yield Reading(kind, main, size)
                break


@implements("sequences.ace_low", "sequences.ace_high", "sequences.wrap", "ranks.natural")
def sequence_windows(rules: PlayRules, length: int) -> list[tuple[Rank, ...]]:
    """The runs of `length` ranks a sequence may cover, A low and A high as the variant allows."""
    natural = list(rules.natural)
    seq = rules.rules.sequences
    if seq.wrap:
        n = len(natural)
        return [tuple(natural[(i + j) % n] for j in range(length)) for i in range(n)]
    order = ([natural[-1]] if seq.ace_low else []) + natural[:-1]
    if seq.ace_high:
        order.append(natural[-1])
    return [tuple(order[i : i + length]) for i in range(len(order) - length + 1)]


@implements("ranks.level_card.in_sequences")
def _sequences(
    kind: CombinationType,
    groups: int,
    group_size: int,
    counts: Mapping[Rank, int],
    wilds: int,
    size: int,
    rules: PlayRules,
) -> Iterable[Reading]:
    """Readings as a run of consecutive groups (順子, 連對, 鋼板, 同花順), wilds filling gaps."""
    if len(counts) > groups:
        return  # more ranks than the run has places
    if (
        rules.rules.ranks.level_card.in_sequences is SequencePlace.EXCLUDED
        and rules.level in counts
    ):
        return
    every, by_rank = _window_index(rules, groups)
    # Only the windows holding one of the ranks present can hold them all.
    for ranks, window in by_rank.get(next(iter(counts)), ()) if counts else every:
        if not counts.keys() <= ranks:
            continue
        need = 0
        for rank in window:
            have = counts.get(rank, 0)
            if have > group_size:
                break
            need += group_size - have
        else:
            if need == wilds:
                yield Reading(kind, window[-1], size)


_Window = tuple[frozenset[Rank], tuple[Rank, ...]]


@memo(1024)
def _window_index(
    rules: PlayRules, length: int
) -> tuple[tuple[_Window, ...], dict[Rank, tuple[_Window, ...]]]:
    """The windows of `sequence_windows` with no rank twice, all and by each rank they hold."""
    every = tuple(
        (frozenset(w), w) for w in sequence_windows(rules, length) if len(set(w)) == len(w)
    )
    by_rank: dict[Rank, tuple[_Window, ...]] = {}
    for ranks, window in every:
        for rank in ranks:
            by_rank[rank] = (*by_rank.get(rank, ()), (ranks, window))
    return every, by_rank


@implements("wild.default")
def default_reading(found: Sequence[Reading], rules: PlayRules) -> Reading | None:
    """The reading an undeclared play takes, where the variant names one (competition: small)."""
    default = rules.rules.wild.default
    if default is None or len(found) < 2:
        return None
    if any(r.type not in default.applies_to for r in found):
        return None
    # The lowest is the reading every other one beats, the highest the one that beats every
    # other: readings that do not compare (a tube and a plate) have neither, so none is taken.
    for reading in found:
        others = [r for r in found if r != reading]
        if default.choice is DefaultChoice.LOWEST:
            pairs = [(r, reading) for r in others]
        else:
            pairs = [(reading, r) for r in others]
        if all(rules.beats(a, b) and not rules.beats(b, a) for a, b in pairs):
            return reading
    return None
