"""Readings of plays (牌型), their order, and comparison (牌的大小): `beats`.

A reading is `{type, rank, size}`: the type, the natural rank that orders plays of that type (the
top card of a sequence, the triple of a full house, `SB`/`HR` for joker pairs, `HR` for the
four-joker bomb), and the number of cards. Where the level card outranks A, that comes from the
variant's order at the level being played, not from a different rank letter.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.errors import HarnessError
from harness.memo import memo
from harness.model.cards import Card, Rank
from harness.model.declarations import implements, only
from harness.model.ruleset import CombinationType, LevelPosition, Rules, Ruleset, Shape

SEQUENCE_TYPES = frozenset(
    {
        CombinationType.STRAIGHT,
        CombinationType.TUBE,
        CombinationType.PLATE,
        CombinationType.STRAIGHT_FLUSH,
    }
)


# The clauses that can decide that a play does not beat another (for IllegalAction.rule).
_BY_LADDER = "bombs.ladder"
_BY_TYPE_AND_SIZE = "compare.same_type_and_size"
_BY_EQUAL = "compare.equal_beats"
_BY_SEQUENCE_KEY = "compare.sequence_key"
_BY_FULL_HOUSE_KEY = "compare.full_house_key"
_BY_LEVEL_CARD = "ranks.level_card.position"
_BY_LEVEL_IN_FULL_HOUSE = "ranks.level_card.in_full_house"
_BY_JOKERS = "ranks.jokers"
_BY_NATURAL = "ranks.natural"

VERDICTS = (
    _BY_LADDER,
    _BY_TYPE_AND_SIZE,
    _BY_EQUAL,
    _BY_SEQUENCE_KEY,
    _BY_FULL_HOUSE_KEY,
    _BY_LEVEL_CARD,
    _BY_LEVEL_IN_FULL_HOUSE,
    _BY_JOKERS,
    _BY_NATURAL,
)
"""The clause ids a refusal to beat names (裁定): the clause registry reads them."""


@dataclass(frozen=True, slots=True)
class Reading:
    """What a set of cards plays as (牌型讀法): type, ordering rank, and number of cards."""

    type: CombinationType
    rank: Rank
    size: int

    def to_json(self) -> dict[str, object]:
        """The reading as in cases and the protocol: `{type, rank, size}`."""
        # str() of a StrEnum member is its value, without the Python-level `.value` lookup.
        return {"type": str(self.type), "rank": str(self.rank), "size": self.size}

    @staticmethod
    def from_json(data: dict[str, object]) -> Reading:
        """A reading from `{type, rank, size}`; errors name the field that is wrong."""
        try:
            kind = CombinationType(str(data["type"]))
        except (KeyError, ValueError):
            raise HarnessError(f"reading {data!r}: unknown or missing `type`") from None
        try:
            rank = Rank(str(data["rank"]).upper().replace("10", "T"))
        except (KeyError, ValueError):
            raise HarnessError(f"reading {data!r}: unknown or missing `rank`") from None
        size = data.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise HarnessError(f"reading {data!r}: `size` must be a positive whole number")
        return Reading(kind, rank, size)

    def __str__(self) -> str:
        return f"{self.type.value} {self.rank.value} ({self.size} cards)"


@dataclass(frozen=True, slots=True)
class Play:
    """A play (出牌): the cards put down and the reading they are declared as."""

    cards: tuple[Card, ...]
    reading: Reading


Listed = tuple[tuple[int, int, int, int], Reading]
"""A reading with its place in the listing order (`PlayRules.sort_key`)."""


class PlayRules:
    """The play rules of one variant at one level: rank values, sequences, the bomb ladder."""

    def __init__(self, rules: Rules, level: Rank) -> None:
        if level.is_joker:
            raise HarnessError(f"level {level.value!r}: a level is a rank 2..A, not a joker")
        self.rules = rules
        self.level = level
        natural = rules.ranks.natural
        self.natural: tuple[Rank, ...] = natural
        # Values outside sequences: natural order, the level card lifted above A, jokers on top.
        values: dict[Rank, int] = {r: i for i, r in enumerate(natural)}
        top = len(natural)
        if rules.ranks.level_card.position is LevelPosition.ABOVE_ACE:
            values[level] = top
        for i, joker in enumerate(rules.ranks.jokers):
            values[joker] = top + 1 + i
        self.value: dict[Rank, int] = values
        self.natural_index: dict[Rank, int] = {r: i for i, r in enumerate(natural)}
        self.shapes: dict[CombinationType, Shape] = {}
        for kind in CombinationType:
            shape = rules.combinations.shape(kind)
            if shape is not None:
                self.shapes[kind] = shape
        self.runs = frozenset(kind for kind, shape in self.shapes.items() if shape.consecutive)
        """The types whose shape is a run of consecutive groups (順子, 連對, 鋼板, 同花順)."""
        self.ladder: dict[tuple[CombinationType, int | None], int] = {
            (step.type, step.size): i for i, step in enumerate(rules.bombs.ladder)
        }
        self.ladder_types = frozenset(step.type for step in rules.bombs.ladder)
        self.wild_suit = rules.wild.suit
        self.full_house_natural = rules.ranks.level_card.in_full_house is LevelPosition.NATURAL
        self._type_order = {kind: i for i, kind in enumerate(CombinationType)}
        # Memos: readings and their keys are asked for again and again while plays are listed.
        self._listings: dict[CombinationType, dict[tuple[Rank, int], Listed]] = {}
        self._sort_keys: dict[Reading, tuple[int, int, int, int]] = {}
        self._beaten: dict[Reading, dict[Reading, bool]] = {}

    @implements("wild.suit")
    def is_wild(self, card: Card) -> bool:
        """Whether `card` is a wild card (逢人配) at this level: the heart level card."""
        return card.rank is self.level and card.suit is self.wild_suit

    @implements("bombs.ladder")
    def ladder_step(self, reading: Reading) -> int | None:
        """The reading's step on the bomb ladder (炸彈), or None when it is no bomb."""
        if reading.type not in self.ladder_types:
            return None
        step = self.ladder.get((reading.type, reading.size))
        if step is None:
            step = self.ladder.get((reading.type, None))
        return step

    @implements("ranks.natural", "ranks.jokers", "ranks.level_card.position")
    @implements("compare.sequence_key", "compare.full_house_key", "ranks.level_card.in_full_house")
    def key(self, reading: Reading) -> int:
        """The number that orders readings of one type and size (and of one ladder step)."""
        if reading.type in self.runs:
            # Runs order by their top card in natural order: A2345 (top 5) is lowest. A run
            # holds no joker; a type whose shape is no run orders by its cards' values below.
            return self.natural_index[reading.rank]
        if reading.type is CombinationType.FULL_HOUSE and self.full_house_natural:
            return self.natural_index[reading.rank]
        return self.value[reading.rank]

    def beats(self, play: Reading, previous: Reading) -> bool:
        """Whether `play` may follow `previous` (壓牌): the ladder, else same type and size."""
        return self.refusal(play, previous) is None

    def beaten(self, previous: Reading) -> dict[Reading, bool]:
        """A memo of `beats(play, previous)` by `play`, for callers to read and fill."""
        memo = self._beaten.get(previous)
        if memo is None:
            memo = self._beaten[previous] = {}
        return memo

    def listing(self, kind: CombinationType) -> dict[tuple[Rank, int], Listed]:
        """The readings of type `kind` made so far by `listed`, by rank and size: a memo."""
        found = self._listings.get(kind)
        if found is None:
            found = self._listings[kind] = {}
        return found

    def listed(self, kind: CombinationType, rank: Rank, size: int) -> Listed:
        """The reading `Reading(kind, rank, size)` with its `sort_key`, made once and shared
        (readings are frozen)."""
        listing = self.listing(kind)
        found = listing.get((rank, size))
        if found is None:
            reading = Reading(kind, rank, size)
            found = listing[(rank, size)] = (self.sort_key(reading), reading)
        return found

    @implements("bombs.ladder", "compare.same_type_and_size", "compare.equal_beats")
    @implements("compare.suits_rank", values=only(False))
    @implements("compare.wild_same_strength", values=only(True))
    def refusal(self, play: Reading, previous: Reading) -> str | None:
        """None when `play` may follow `previous`, else the id of the clause that forbids it."""
        # A reading has no suit and no trace of wild cards: suits never rank, and a play made
        # with wild cards is as strong as the same play without them.
        mine = self.ladder_step(play)
        theirs = self.ladder_step(previous)
        if mine is not None or theirs is not None:
            if mine != theirs:  # different steps, or a bomb against no bomb
                higher = mine is not None and (theirs is None or mine > theirs)
                return None if higher else _BY_LADDER
            return self._rank_refusal(play, previous)
        if play.type is not previous.type:
            return _BY_TYPE_AND_SIZE
        if self.rules.compare.same_type_and_size and play.size != previous.size:
            return _BY_TYPE_AND_SIZE
        return self._rank_refusal(play, previous)

    def _rank_refusal(self, play: Reading, previous: Reading) -> str | None:
        mine, theirs = self.key(play), self.key(previous)
        if mine > theirs:
            return None
        if mine == theirs:
            return None if self.rules.compare.equal_beats else _BY_EQUAL
        if play.type in self.runs:
            return _BY_SEQUENCE_KEY
        ranks = (play.rank, previous.rank)
        if play.type is CombinationType.FULL_HOUSE:
            if self.level in ranks and self.full_house_natural:
                return _BY_LEVEL_IN_FULL_HOUSE
            return _BY_FULL_HOUSE_KEY
        if self.level in ranks and self.value[self.level] != self.natural_index[self.level]:
            return _BY_LEVEL_CARD
        if any(r.is_joker for r in ranks):
            return _BY_JOKERS
        return _BY_NATURAL

    def sort_key(self, reading: Reading) -> tuple[int, int, int, int]:
        """A total order for listing readings: non-bombs by type, then bombs up the ladder."""
        found = self._sort_keys.get(reading)
        if found is not None:
            return found
        step = self.ladder_step(reading)
        if step is None:
            order = self._type_order[reading.type]
            found = (0, order, reading.size, self.key(reading))
        else:
            found = (1, step, reading.size, self.key(reading))
        self._sort_keys[reading] = found
        return found


@memo(256)
def play_rules(ruleset: Ruleset, level: Rank) -> PlayRules:
    """The play rules of `ruleset` at `level`, built once and reused."""
    return PlayRules(ruleset.rules, level)


def beats(play: Reading, previous: Reading, level: Rank, ruleset: Ruleset) -> bool:
    """Whether `play`, in its declared reading, may follow `previous` at `level` (壓牌)."""
    return play_rules(ruleset, level).beats(play, previous)
