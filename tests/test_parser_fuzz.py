"""The card notation's parsers on random text (issue 16): each answers a valid result or a
NotationError that says where and why, never another exception."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from harness.errors import NotationError
from harness.model.cards import (
    Card,
    Rank,
    format_cards,
    parse_card,
    parse_cards,
    parse_hand,
    parse_rank,
)

# The pieces of the notation and its neighbours: suit letters and symbols, ranks, the Chinese
# names, separators, and the characters that change under NFKC or upper-casing (ß, ﬀ,
# full-width letters, a combining accent, İ), a lone surrogate, NUL and the emoji selector.
_NEAR = list("SHCDTJQKABRLXWshcdtjqkabr0123456789 ,，、\t\n♠♤♥♡♣♧♦♢黑紅红桃梅花方塊块小大王鬼")
_ODD = ["ß", "ﬀ", "Ｓ", "Ｈ", "１", "０", "ǅ", "\u0301", "\ud800", "\x00", "İ", "\ufe0f", "\u2028"]
near_text = st.text(st.sampled_from(_NEAR + _ODD), max_size=12)
any_text = st.text(max_size=24)
text = near_text | any_text
# Tokens as a JSON input could carry them: mostly text, sometimes not text at all.
json_scalar = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
tokens = st.lists(near_text | json_value, max_size=8)

_POSITION = re.compile(r"^card (\d+) of (\d+): ")


def _check_error(error: NotationError) -> None:
    """A NotationError for people: it says something."""
    assert isinstance(error, NotationError)
    assert str(error).strip()


def _check_list_error(error: NotationError, count: int) -> None:
    """A card list's error names the card's place in the list, or the card that is too many."""
    _check_error(error)
    located = _POSITION.match(str(error))
    if located is not None:
        assert 1 <= int(located[1]) <= int(located[2]) == count
    else:
        assert "two decks hold 2 of each card" in str(error)


@given(text)
def test_one_token_is_a_card_or_a_notation_error(token: str) -> None:
    try:
        card = parse_card(token)
    except NotationError as error:
        _check_error(error)
        return
    assert isinstance(card, Card) and parse_card(card.code) is card


@given(text)
def test_a_rank_is_a_rank_or_a_notation_error(token: str) -> None:
    try:
        rank = parse_rank(token)
    except NotationError as error:
        _check_error(error)
        return
    assert isinstance(rank, Rank) and parse_rank(rank.value) is rank


@given(text)
def test_card_text_is_cards_or_a_located_error(line: str) -> None:
    for parse in (parse_cards, parse_hand):
        try:
            cards = parse(line)
        except NotationError as error:
            _check_error(error)
            continue
        assert all(isinstance(c, Card) for c in cards)
        assert parse(format_cards(cards)) == cards


@given(tokens)
def test_token_lists_are_cards_or_a_located_error(items: list[Any]) -> None:
    """A list from JSON may hold anything: a token that is not text is an error like any other."""
    for parse in (parse_cards, parse_hand):
        try:
            cards = parse(items)
        except NotationError as error:
            _check_list_error(error, len(items))
            continue
        assert len(cards) == len(items)
        assert parse([c.code for c in cards]) == cards


@given(st.lists(st.sampled_from(["S2", "HR", "SB", "♥10", "紅桃9"]), min_size=3, max_size=9))
def test_a_third_copy_of_a_card_is_refused_by_name(items: list[str]) -> None:
    try:
        parse_hand(items)
    except NotationError as error:
        assert "appears" in str(error) and error.token in {"S2", "HR", "SB", "HT", "H9"}
        return
    assert all(parse_hand(items).count(c) <= 2 for c in parse_hand(items))
