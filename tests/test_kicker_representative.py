"""The cards `legal_plays` shows for a full house: its pair (the kicker) is taken with the fewest
wild cards, then of the lowest rank, as `legal._kicker` promises. Cases check a representative
only for soundness, so this is where that choice is held."""

from __future__ import annotations

import pytest

from harness.interpreter.legal import legal_plays
from harness.model.cards import Rank, parse_hand
from harness.model.loader import bundled_variants
from harness.model.ruleset import CombinationType


def _full_house_kicker(tokens: str, ruleset_slug: str) -> list[str]:
    """The kicker cards of the one full house of 5 the hand plays, leading at level 9."""
    ruleset = next(r for r in bundled_variants() if r.slug == ruleset_slug)
    plays = [
        p
        for p in legal_plays(parse_hand(tokens), Rank.NINE, ruleset)
        if p.reading.type is CombinationType.FULL_HOUSE and p.reading.rank is Rank.FIVE
    ]
    assert len(plays) == 1
    return sorted(str(c) for c in plays[0].cards[3:])


@pytest.mark.parametrize("slug", ["competition", "huaian"])
def test_a_natural_pair_is_taken_before_a_lower_card_with_a_wild(slug: str) -> None:
    # 3 + ♥9 would be the lower pair, but it spends the wild where 44 spends none.
    assert _full_house_kicker("S5 H5 C5 S3 S4 D4 H9", slug) == ["D4", "S4"]


@pytest.mark.parametrize("slug", ["competition", "huaian"])
def test_the_lowest_natural_pair_is_taken(slug: str) -> None:
    assert _full_house_kicker("S5 H5 C5 S4 D4 S8 D8", slug) == ["D4", "S4"]
