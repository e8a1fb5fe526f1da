"""Reading an operation's input (讀取輸入): one function per kind of input (a level, cards, a
deal, a finish, a reading, a match state), each refusing what is malformed *and* what cannot
be (牌局不可能): a card three times, a finish that is not a permutation, a level that is a
joker, a reading no play has. Every refusal is an `InputError` naming the offending thing,
which the engines answer as `invalid_input`; the conformance cases that expect a refusal
(`expected: {refused: invalid_input}`) check that an engine refuses the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.errors import HarnessError, InputError, NotationError
from harness.interpreter.match import MatchState
from harness.interpreter.readings import Reading
from harness.memo import memo
from harness.model.cards import NATURAL_RANKS, Card, Rank, parse_hand, parse_rank
from harness.model.ruleset import JokerUse, Rules, Shape
from harness.model.seats import SEATS, Finish, partner


def field(data: Mapping[str, Any], key: str) -> Any:
    """The value of `key` in `data`; InputError naming the field when it is missing."""
    if key not in data:
        raise InputError(f"missing field `{key}`")
    return data[key]


def whole(value: Any) -> bool:
    """Whether `value` is a whole number as JSON has it (not a boolean, not 1.0)."""
    return isinstance(value, int) and not isinstance(value, bool)


def level(data: Mapping[str, Any], key: str = "level") -> Rank:
    """The level in `data[key]`: a rank 2..A; a joker or anything else is refused."""
    raw = field(data, key)
    try:
        rank = parse_rank(str(raw))
    except NotationError as exc:
        raise InputError(f"`{key}`: {exc}") from None
    if rank.is_joker:
        raise InputError(f"`{key}`: {raw!r} is a joker, not a level")
    return rank


def cards(raw: Any, what: str, rules: Rules) -> tuple[Card, ...]:
    """Cards one seat holds or plays: two decks hold each card (jokers too) twice, and a seat
    holds at most a hand's worth (`deck.hand_size`)."""
    if not isinstance(raw, list):
        raise InputError(f"`{what}` must be a list of cards")
    try:
        found = parse_hand([str(c) for c in raw])
    except NotationError as exc:
        raise InputError(f"`{what}`: {exc}") from None
    limit = rules.deck.hand_size
    if len(found) > limit:
        raise InputError(f"`{what}`: {len(found)} cards; a seat is dealt {limit}")
    return found


def held(data: Mapping[str, Any], key: str, rules: Rules) -> tuple[Card, ...]:
    """The cards in `data[key]` (a hand, or cards to classify), read by `cards`."""
    return cards(field(data, key), key, rules)


def hands(data: Mapping[str, Any], rules: Rules) -> list[tuple[Card, ...]]:
    """The four hands of a deal or a round under way (`data["hands"]`): each seat holds
    cards (a seat with none has gone out, and a new deal gives each 27), and the four together
    fit in two decks."""
    raw = field(data, "hands")
    if not isinstance(raw, list) or len(raw) != len(SEATS):
        raise InputError("`hands` must be a list of four hands")
    found = [cards(h, f"hands[{i}]", rules) for i, h in enumerate(raw)]
    for seat, hand in enumerate(found):
        if not hand:
            raise InputError(
                f"`hands[{seat}]`: seat {seat} holds no cards; every seat in play holds some"
            )
    try:
        parse_hand([c.code for h in found for c in h])
    except NotationError as exc:
        raise InputError(f"`hands` together: {exc}") from None
    return found


def finish(raw: Any) -> Finish:
    """A finishing order: a permutation of the four seats."""
    if not isinstance(raw, list):
        raise InputError("`finish` must be the finishing order, a permutation of 0..3")
    if not all(whole(s) for s in raw):
        raise InputError(f"`finish`: seats are whole numbers 0..3, found {raw!r}")
    try:
        return Finish.of(raw)
    except HarnessError as exc:
        raise InputError(f"`finish`: {exc}") from None


def reading_form(raw: Any, what: str) -> Reading:
    """A reading `{type, rank, size}` as written, whether or not a play has it (a declared
    reading a replay's cards do not make is an illegal play, not impossible input)."""
    if not isinstance(raw, dict):
        raise InputError(f"`{what}` must be a reading {{type, rank, size}}")
    try:
        return Reading.from_json(raw)
    except HarnessError as exc:
        raise InputError(f"`{what}`: {exc}") from None


def reading(raw: Any, what: str, rules: Rules) -> Reading:
    """A reading `{type, rank, size}` some play of the variant has: its type is one the
    variant plays, its size one the type's shape makes, its rank a joker only where the
    shape takes jokers."""
    found = reading_form(raw, what)
    kind = found.type.value
    shape = rules.combinations.shape(found.type)
    if shape is None:
        raise InputError(f"`{what}`: the variant has no {kind}")
    if found.size not in _sizes(shape, rules.deck.decks, rules.deck.hand_size):
        raise InputError(
            f"`{what}`: a {kind} of {found.size} cards cannot be (its shape makes no such size)"
        )
    if found.rank.is_joker and shape.jokers is JokerUse.EXCLUDED:
        raise InputError(f"`{what}`: a {kind} of rank {found.rank.value} cannot be (no jokers)")
    if not found.rank.is_joker and shape.jokers is JokerUse.ONLY:
        raise InputError(f"`{what}`: a {kind} of rank {found.rank.value} cannot be (jokers only)")
    return found


def previous(data: Mapping[str, Any], rules: Rules) -> Reading | None:
    """The reading to beat, `data["previous"]`, or None when absent or null (a lead)."""
    raw = data.get("previous")
    return None if raw is None else reading(raw, "previous", rules)


@memo(1024)
def _sizes(shape: Shape, decks: int, hand_size: int) -> frozenset[int]:
    """Every number of cards a combination of this shape can have, played from one hand of
    `decks` decks: a group holds at most one rank's cards and the wild cards, a heart level card
    a deck (5 a deck; of a joker, 1 a deck), a run at most one group per rank."""
    kicker = shape.kicker.group_size if shape.kicker is not None else 0
    most = decks if shape.jokers is JokerUse.ONLY else 5 * decks
    groups = range(shape.groups.min, (shape.groups.max or len(NATURAL_RANKS)) + 1)
    size = range(shape.group_size.min, min(shape.group_size.max or most, most) + 1)
    made = {g * s + kicker for g in groups for s in size}
    return frozenset(n for n in made if n <= hand_size)


def match_state(raw: Any) -> MatchState:
    """A match between rounds that can be: one seat at most on a run of firsts (one goes out
    first each round), the lasts one seat or two partners (both last on a double-down), and no
    seat counted both first and last."""
    if not isinstance(raw, dict):
        raise InputError("`state` must be a match state")
    try:
        state = MatchState.from_json(raw)
    except HarnessError as exc:
        raise InputError(str(exc)) from None
    firsts = [s for s in SEATS if state.firsts[s]]
    lasts = [s for s in SEATS if state.lasts[s]]
    if len(firsts) > 1:
        raise InputError(
            f"match state: `firsts` puts seats {firsts} on a run of firsts; one seat goes out"
            " first each round"
        )
    if len(lasts) > 2 or (len(lasts) == 2 and lasts[1] != partner(lasts[0])):
        raise InputError(
            f"match state: `lasts` puts seats {lasts} on a run of lasts; only one seat, or two"
            " partners, finish last"
        )
    both = set(firsts) & set(lasts)
    if both:
        seat = min(both)
        raise InputError(f"match state: seat {seat} is on a run of firsts and of lasts at once")
    return state
