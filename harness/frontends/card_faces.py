"""Cards drawn as cards (牌面): each card a small face, ♠♣ black and ♥♦ red, jokers labelled, the
wild card (逢人配) marked; and a reading in words. The site and the dashboard both draw with these,
styled by `assets/cards.css`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness.model.cards import Card, Rank, parse_card
from harness.model.ruleset import CombinationType

CARD_NAMES: Mapping[str, str] = {
    "big_joker": "big joker",
    "small_joker": "small joker",
    "wild": "wild (逢人配)",
}
"""What a card's tooltip calls the jokers and the wild card, by the glossary's term ids; a
rulebook passes its own language's words."""


def card_html(
    card: Card | str, wild: Card | None = None, names: Mapping[str, str] = CARD_NAMES
) -> str:
    """One card drawn as a face: ♠♣ black, ♥♦ red, jokers labelled, the wild card marked; its
    tooltip gives its code and, for a joker or the wild, its name in `names`."""
    if isinstance(card, str):
        card = parse_card(card)
    code = card.code
    if card.rank is Rank.BIG_JOKER:
        title = f"{code} {names['big_joker']}"
        return f'<span class="gd-card gd-joker gd-red" title="{title}">大王</span>'
    if card.rank is Rank.SMALL_JOKER:
        title = f"{code} {names['small_joker']}"
        return f'<span class="gd-card gd-joker" title="{title}">小王</span>'
    assert card.suit is not None
    rank = "10" if card.rank is Rank.TEN else card.rank.value
    colour = "gd-red" if card.suit.is_red else "gd-black"
    is_wild = card == wild
    classes = f"gd-card {colour}" + (" gd-wild" if is_wild else "")
    title = f"{code} {names['wild']}" if is_wild else code
    return f'<span class="{classes}" title="{title}">{card.suit.symbol}{rank}</span>'


def cards_html(
    codes: Iterable[str], wild: Card | None = None, names: Mapping[str, str] = CARD_NAMES
) -> str:
    """A row of cards, the wild card (逢人配) marked."""
    shown = " ".join(card_html(c, wild, names) for c in codes)
    return f'<span class="gd-cards">{shown}</span>' if shown else "<em>no cards</em>"


def reading_words(reading: Mapping[str, Any]) -> str:
    """A reading in words: `straight (順子) to 5, 5 cards`."""
    kind = CombinationType(reading["type"])
    rank = "10" if reading["rank"] == "T" else reading["rank"]
    rank = {"SB": "small jokers", "HR": "big jokers"}.get(rank, rank)
    if kind is CombinationType.JOKER_BOMB:
        return "four jokers (四大天王)"
    joiner = "to" if kind.value in ("straight", "tube", "plate", "straight_flush") else "of"
    return (
        f"{kind.value.replace('_', ' ')} ({kind.chinese}) {joiner} {rank}, {reading['size']} cards"
    )
