"""Properties of classify, beats and legal_plays over random hands, for every variant."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.interpreter.classify import rules_readings
from harness.interpreter.legal import hand_plays
from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.model.cards import Card, Rank
from harness.model.loader import load_variant, load_variant_file, variant_slugs
from harness.model.ruleset import Ruleset
from harness.strategies import hands_with_wilds, levels

SYNTHETIC = Path(__file__).parent / "data" / "variants" / "long-tubes.yaml"
RULESETS: dict[str, Ruleset] = {slug: load_variant(slug) for slug in variant_slugs()}
RULESETS["long-tubes"] = load_variant_file(SYNTHETIC)
NAMES = sorted(RULESETS)


@st.composite
def situations(draw: st.DrawFn, max_size: int = 27) -> tuple[PlayRules, list[Card]]:
    level = draw(levels())
    rules = play_rules(RULESETS[draw(st.sampled_from(NAMES))], level)
    hand = draw(hands_with_wilds(level, 1, max_size))
    return rules, hand


def sub_hands(hand: list[Card]) -> list[list[Card]]:
    """Every non-empty sub-multiset of `hand`."""
    counts = Counter(hand)
    keys = list(counts)
    out = []
    for choice in itertools.product(*(range(counts[k] + 1) for k in keys)):
        sub = [k for k, n in zip(keys, choice, strict=True) for _ in range(n)]
        if sub:
            out.append(sub)
    return out


@given(situations(max_size=10))
def test_legal_plays_are_complete_against_brute_force(case: tuple[PlayRules, list[Card]]) -> None:
    """Every reading of every sub-hand is a legal lead, and nothing else is."""
    rules, hand = case
    brute: set[Reading] = set()
    for sub in sub_hands(hand):
        brute.update(rules_readings(sub, rules))
    listed = {p.reading for p in hand_plays(hand, rules)}
    assert listed == brute


@given(situations())
def test_every_representative_classifies_to_its_reading(
    case: tuple[PlayRules, list[Card]],
) -> None:
    rules, hand = case
    pool = Counter(hand)
    for play in hand_plays(hand, rules):
        assert play.reading in rules_readings(list(play.cards), rules)
        assert not Counter(play.cards) - pool, "a representative uses cards the hand lacks"


@given(situations(max_size=8), st.randoms(use_true_random=False))
def test_a_reading_does_not_depend_on_card_order(
    case: tuple[PlayRules, list[Card]], rng: object
) -> None:
    rules, hand = case
    shuffled = list(hand)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    assert rules_readings(hand, rules) == rules_readings(shuffled, rules)


@given(situations(), situations())
def test_beats_is_irreflexive_and_asymmetric(
    first: tuple[PlayRules, list[Card]], second: tuple[PlayRules, list[Card]]
) -> None:
    rules, hand = first
    mine = [p.reading for p in hand_plays(hand, rules)]
    theirs = [p.reading for p in hand_plays(second[1], rules)]
    for a in mine:
        assert not rules.beats(a, a)
        for b in theirs:
            assert not (rules.beats(a, b) and rules.beats(b, a)), (a, b)


@given(situations(), situations())
def test_a_bomb_beats_every_non_bomb(
    first: tuple[PlayRules, list[Card]], second: tuple[PlayRules, list[Card]]
) -> None:
    rules, hand = first
    bombs = [p.reading for p in hand_plays(hand, rules) if rules.ladder_step(p.reading) is not None]
    others = [
        p.reading for p in hand_plays(second[1], rules) if rules.ladder_step(p.reading) is None
    ]
    for bomb in bombs:
        for other in others:
            assert rules.beats(bomb, other) and not rules.beats(other, bomb)


@pytest.mark.parametrize("name", NAMES)
def test_the_level_card_ranks_above_every_other_rank_and_below_the_jokers(name: str) -> None:
    """ranks.level_card.position: above A (主牌…大於A), below the small joker."""
    for level in Rank:
        if level.is_joker:
            continue
        value = play_rules(RULESETS[name], level).value
        assert all(value[level] > value[r] for r in value if not r.is_joker and r is not level)
        assert value[Rank.SMALL_JOKER] > value[level]
