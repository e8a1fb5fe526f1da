"""The classify oracle: every reading of a set of cards worked out from the cards themselves,
without the key or the cache of `harness.interpreter.classify` (tests/test_classify_speed.py
checks the keyed, cached path against it). It shares the interpreter's per-type matchers
(`_one_group`, `_with_kicker`, `_sequences`, `_jokers_only`) and differs in how they are fed:
from the cards, trying every group count and size a shape allows, not from a key's counts and
the precomputed plans.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from harness.interpreter.classify import (
    JOKERS,
    Classification,
    _jokers_only,
    _one_group,
    _sequences,
    _with_kicker,
    default_reading,
)
from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.model.cards import Card, Rank
from harness.model.ruleset import CombinationType, JokerUse, Ruleset, Shape


def classify_uncached(cards: Sequence[Card], level: Rank, ruleset: Ruleset) -> Classification:
    """`classify` worked out from the cards themselves, without the key or the cache."""
    rules = play_rules(ruleset, level)
    found = rules_readings_uncached(cards, rules)
    return Classification(tuple(found), default_reading(found, rules))


def rules_readings_uncached(cards: Sequence[Card], rules: PlayRules) -> list[Reading]:
    """Every reading of exactly `cards` under `rules`, from the cards (no key, no cache)."""
    if not cards:
        return []
    naturals = [c for c in cards if not rules.is_wild(c)]
    wilds = len(cards) - len(naturals)
    if wilds and not naturals and rules.rules.wild.needs_natural_card:
        # Played alone, wild cards are just heart level cards (逢人配 stands in only with others).
        naturals, wilds = list(cards), 0
    found: set[Reading] = set()
    excluded = set(rules.rules.wild.excluded)
    for kind, shape in rules.shapes.items():
        if kind in excluded and wilds:
            # The wild may not help to form this type; it can still be its natural self.
            found.update(_match(kind, shape, list(cards), 0, rules))
        else:
            found.update(_match(kind, shape, naturals, wilds, rules))
    return sorted(found, key=rules.sort_key)


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
                yield from _jokers_only(kind, group_size, counts, wilds, size)
            elif shape.consecutive:
                if has_jokers:
                    continue
                yield from _sequences(kind, groups, group_size, counts, wilds, size, rules)
            elif shape.kicker is not None:
                yield from _with_kicker(kind, shape, group_size, counts, wilds, size, rules)
            elif groups == 1:
                yield from _one_group(kind, shape, counts, wilds, size, rules)
