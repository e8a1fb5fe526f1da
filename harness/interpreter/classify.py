"""Classifying cards (認牌): every reading a set of cards makes, with the wild card (逢人配).

This is written independently of `harness.interpreter.legal` (which finds the plays a hand can
make), so that each checks the other: every play `legal_plays` lists must classify to its
reading, and every reading of every sub-hand must be among the legal plays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.model.cards import Card, Rank
from harness.model.registry import implements, where
from harness.model.ruleset import (
    CombinationType,
    DefaultChoice,
    JokerUse,
    Ruleset,
    SequencePlace,
    Shape,
)

JOKERS = (Rank.SMALL_JOKER, Rank.BIG_JOKER)


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
    rules = play_rules(ruleset, level)
    found = rules_readings(cards, rules)
    return Classification(tuple(found), default_reading(found, rules))


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
def rules_readings(cards: Sequence[Card], rules: PlayRules) -> list[Reading]:
    """Every reading of exactly `cards` under the play rules `rules`, in listing order."""
    if not cards:
        return []
    naturals = [c for c in cards if not rules.is_wild(c)]
    wilds = len(cards) - len(naturals)
    if wilds and not naturals and rules.rules.wild.needs_natural_card:
        # Played alone, wild cards are just heart level cards (逢人配 stands in only with others).
        naturals, wilds = list(cards), 0
    found: set[Reading] = set()
    excluded = set(rules.rules.wild.excluded)
    size = len(cards)
    for kind, shape in rules.shapes.items():
        if not _may_have_size(shape, size):
            continue
        if kind in excluded and wilds:
            # The wild may not help to form this type; it can still be its natural self.
            found.update(_match(kind, shape, list(cards), 0, rules))
        else:
            found.update(_match(kind, shape, naturals, wilds, rules))
    return sorted(found, key=rules.sort_key)


def _may_have_size(shape: Shape, size: int) -> bool:
    kicker = shape.kicker.group_size if shape.kicker else 0
    low = shape.groups.min * shape.group_size.min + kicker
    if size < low:
        return False
    if shape.groups.max is None or shape.group_size.max is None:
        return True
    return size <= shape.groups.max * shape.group_size.max + kicker


def _match(
    kind: CombinationType, shape: Shape, naturals: list[Card], wilds: int, rules: PlayRules
) -> Iterable[Reading]:
    size = len(naturals) + wilds
    counts = Counter(c.rank for c in naturals)
    has_jokers = any(r in counts for r in JOKERS)
    kicker = shape.kicker.group_size if shape.kicker else 0
    max_size = shape.group_size.max if shape.group_size.max is not None else size
    max_groups = shape.groups.max if shape.groups.max is not None else size
    for groups in range(shape.groups.min, max_groups + 1):
        for group_size in range(shape.group_size.min, max_size + 1):
            if groups * group_size + kicker != size:
                continue
            if shape.same_suit and len({c.suit for c in naturals}) > 1:
                continue
            if shape.jokers is JokerUse.ONLY:
                yield from _jokers_only(kind, groups, group_size, counts, wilds, size)
            elif shape.consecutive:
                if has_jokers:
                    continue
                yield from _sequences(kind, groups, group_size, counts, wilds, size, rules)
            elif shape.kicker is not None:
                yield from _with_kicker(kind, shape, group_size, counts, wilds, size, rules)
            elif groups == 1:
                yield from _one_group(kind, shape, counts, wilds, size, rules)


def _jokers_only(
    kind: CombinationType,
    groups: int,
    group_size: int,
    counts: Counter[Rank],
    wilds: int,
    size: int,
) -> Iterable[Reading]:
    if wilds or any(not r.is_joker for r in counts):
        return
    if len(counts) == groups and all(n == group_size for n in counts.values()):
        yield Reading(kind, max(counts, key=lambda r: r.natural_index), size)


def _one_group(
    kind: CombinationType,
    shape: Shape,
    counts: Counter[Rank],
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
    counts: Counter[Rank],
    wilds: int,
    size: int,
    rules: PlayRules,
) -> Iterable[Reading]:
    """Readings as a group with a kicker (三帶二): the group's rank orders the play."""
    assert shape.kicker is not None
    kicker = shape.kicker
    present = set(counts)
    # The triple needs at least one natural card of its rank: wild cards alone cannot fill it.
    mains = rules.natural if group_size <= wilds else [r for r in rules.natural if r in counts]
    for main in mains:
        need_main = group_size - counts.get(main, 0)
        if need_main < 0:
            continue
        kicker_ranks: list[Rank] = list(rules.natural)
        if kicker.jokers:
            kicker_ranks += list(JOKERS)
        for other in kicker_ranks:
            if kicker.distinct_rank and other is main:
                continue
            if not present <= {main, other}:
                continue
            need_other = kicker.group_size - counts.get(other, 0)
            if need_other < 0 or (other.is_joker and need_other):
                continue
            if need_main + need_other == wilds:
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
    counts: Counter[Rank],
    wilds: int,
    size: int,
    rules: PlayRules,
) -> Iterable[Reading]:
    """Readings as a run of consecutive groups (順子, 連對, 鋼板, 同花順), wilds filling gaps."""
    if (
        rules.rules.ranks.level_card.in_sequences is SequencePlace.EXCLUDED
        and rules.level in counts
    ):
        return
    for window in sequence_windows(rules, groups):
        if len(set(window)) != len(window) or not set(counts) <= set(window):
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


@implements("wild.default")
def default_reading(found: Sequence[Reading], rules: PlayRules) -> Reading | None:
    """The reading an undeclared play takes, where the variant names one (competition: small)."""
    default = rules.rules.wild.default
    if default is None or len(found) < 2:
        return None
    if any(r.type not in default.applies_to for r in found):
        return None
    keyed = sorted(found, key=rules.key)
    return keyed[0] if default.choice is DefaultChoice.LOWEST else keyed[-1]
