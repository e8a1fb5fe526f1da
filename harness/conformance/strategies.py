"""Hypothesis strategies for Guandan (摜蛋) data: levels, hands from two decks, readings."""

from __future__ import annotations

from hypothesis import strategies as st

from harness.model.cards import NATURAL_RANKS, Card, Rank, Suit, two_deck_pack

_PACK = two_deck_pack()


def levels() -> st.SearchStrategy[Rank]:
    """A level (級) from 2 to A."""
    return st.sampled_from(NATURAL_RANKS)


def hands(min_size: int = 1, max_size: int = 27) -> st.SearchStrategy[list[Card]]:
    """A hand dealt from two decks (each card at most twice), in deal order."""
    positions = st.lists(
        st.integers(0, len(_PACK) - 1), min_size=min_size, max_size=max_size, unique=True
    )
    return positions.map(lambda idx: [_PACK[i] for i in idx])


@st.composite
def hands_with_wilds(
    draw: st.DrawFn, level: Rank, min_size: int = 1, max_size: int = 27
) -> list[Card]:
    """A hand at `level` that holds 0, 1 or 2 wild cards (the heart level card, 逢人配)."""
    wild = Card(level, Suit.HEARTS)
    wilds = draw(st.integers(0, min(2, max_size)))
    others = [c for c in _PACK if c != wild]
    positions = st.lists(
        st.integers(0, len(others) - 1),
        min_size=max(0, min_size - wilds),
        max_size=max_size - wilds,
        unique=True,
    )
    hand = [others[i] for i in draw(positions)] + [wild] * wilds
    return draw(st.permutations(hand))
