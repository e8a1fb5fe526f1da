"""The fast engine's tables (快速引擎規則表): a Ruleset at one level compiled into one flat array of
integers that the C kernel reads, and the clause values the fast engine plays.

Everything the kernel knows of a rule set is here: the shapes, the orders, the sequence windows,
the bomb ladder, the level card and the wild card (逢人配), laid out as `harness.kernel.layout`
says (the kernel is compiled with that layout's `#define`s).

A clause value the fast engine does not play is refused (`refusals`), never ignored: the
functions here declare the clauses they read with `@implements`, as the interpreter's do, and
a value outside what they declare makes the engine decline the rule set (callers then take the
Python path).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.kernel.layout import (
    JOKER_SUIT,
    JOKERS,
    MAX_HAND,
    MAX_LADDER,
    MAX_SPAN,
    N_PLACES,
    N_SUITS,
    N_TYPES,
    OFF,
    SHAPE_FIELDS,
    WINDOW_ROOM,
    S,
)
from harness.model.cards import NATURAL_RANKS, Rank, Suit
from harness.model.declarations import Implementation, implements, marks, only, shown, where
from harness.model.ruleset import (
    CombinationType,
    JokerUse,
    LevelPosition,
    Rules,
    Ruleset,
    SequencePlace,
)

PLACES: tuple[Rank, ...] = (*NATURAL_RANKS, Rank.SMALL_JOKER, Rank.BIG_JOKER)
"""Ranks by place, as the kernel numbers them: 2 … A are 0 … 12, the jokers 13 and 14."""
PLACE = {rank: i for i, rank in enumerate(PLACES)}
SUITS: tuple[Suit, ...] = tuple(Suit)
"""Suits by number (S H C D); the jokers' suit (none) is number 4."""
SUIT = {suit: i for i, suit in enumerate(SUITS)}
NSUIT = N_SUITS
TYPES: tuple[CombinationType, ...] = tuple(CombinationType)
TYPE = {kind: i for i, kind in enumerate(TYPES)}

JOKER_USES = {use: JOKERS[use.name] for use in JokerUse}
if (len(TYPES), len(PLACES), len(SUITS)) != (N_TYPES, N_PLACES, JOKER_SUIT):
    raise ImportError("harness.kernel.layout does not match the rule model's types, ranks, suits")


class TableError(Exception):
    """A rule set the tables cannot hold (a ladder or windows past their room)."""


def _shape_refusal(value: Any) -> str | None:
    """Why the kernel cannot play a combination shape, or None: it plays groups of jokers only
    (one count, one size), runs of consecutive groups without a kicker or jokers, and one group
    of any suits, with a kicker only beside one group size (the sizes it is written for)."""
    if value is None:
        return None
    groups, size = value["groups"], value["group_size"]
    if value["jokers"] == "only":
        plain = not (value["consecutive"] or value["kicker"] or value["same_suit"])
        fixed = groups["min"] == groups["max"] and size["min"] == size["max"]
        return None if plain and fixed else "jokers only, as one fixed set of plain groups"
    if value["consecutive"]:
        if value["kicker"]:
            return "a run with a kicker (the kernel lists runs of plain groups)"
        if value["jokers"] != "excluded":
            return "a run whose groups may be jokers"
        return None
    if groups != {"min": 1, "max": 1}:
        return "several groups that are no run"
    if value["same_suit"]:
        return "one group of one suit"
    if value["kicker"] and size["min"] != size["max"]:
        return "a kicker beside groups of several sizes"
    # Jokers allowed in a group of any size: the kernel counts the jokers held, so a size no
    # hand can make (three jokers of a kind) simply never comes up.
    return None


_SHAPES = where(
    _shape_refusal, "jokers-only sets, runs without kickers or jokers, one group (with a kicker)"
)


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
    values=_SHAPES,
)
@implements("combinations.only_listed", "wild.excluded", "bombs.ladder")
def _shapes(rules: Rules, table: list[int]) -> None:
    """Each type's shape (牌型), whether the wild card may help make it, and whether it is on
    the bomb ladder (炸彈)."""
    excluded = set(rules.wild.excluded)
    on_ladder = {step.type for step in rules.bombs.ladder}
    for kind in TYPES:
        shape = rules.combinations.shape(kind)
        if shape is None:
            continue
        kicker = shape.kicker
        fields = {
            "PRESENT": 1,
            "GROUPS_MIN": shape.groups.min,
            "GROUPS_MAX": -1 if shape.groups.max is None else shape.groups.max,
            "SIZE_MIN": shape.group_size.min,
            "SIZE_MAX": -1 if shape.group_size.max is None else shape.group_size.max,
            "CONSECUTIVE": int(shape.consecutive),
            "SAME_SUIT": int(shape.same_suit),
            "KICKER": kicker.group_size if kicker else 0,
            "KICKER_DISTINCT": int(kicker.distinct_rank) if kicker else 0,
            "KICKER_JOKERS": int(kicker.jokers) if kicker else 0,
            "JOKERS": JOKER_USES[shape.jokers],
            "WILD_EXCLUDED": int(kind in excluded),
            "ON_LADDER": int(kind in on_ladder),
        }
        base = OFF["SHAPES"] + TYPE[kind] * len(SHAPE_FIELDS)
        for name, value in fields.items():
            table[base + S[name]] = value
        if shape.same_suit:
            # The types whose readings depend on the suits (同花順), a bit each.
            table[OFF["SAME_SUIT_TYPES"]] |= 1 << TYPE[kind]
    if len(rules.bombs.ladder) > MAX_LADDER:
        raise TableError(f"bombs.ladder: more than {MAX_LADDER} steps")
    table[OFF["LADDER_N"]] = len(rules.bombs.ladder)
    for i, step in enumerate(rules.bombs.ladder):
        table[OFF["LADDER_TYPE"] + i] = TYPE[step.type]
        table[OFF["LADDER_SIZE"] + i] = -1 if step.size is None else step.size


@implements("ranks.natural", "ranks.jokers", "ranks.level_card.position")
@implements("ranks.level_card.in_full_house", "compare.full_house_key", "compare.sequence_key")
def _orders(rules: Rules, level: Rank, table: list[int]) -> None:
    """The orders (點數大小): natural order (runs, and full houses where the level card keeps
    its place), and the values outside runs (the level card above A where it is 主牌, the
    jokers on top). Full houses by their triple, runs by their top card."""
    natural = rules.ranks.natural
    table[OFF["N_NATURAL"]] = len(natural)
    for i in range(len(PLACES)):
        table[OFF["NATURAL_INDEX"] + i] = -1
        table[OFF["VALUE"] + i] = -1
    for i, rank in enumerate(natural):
        table[OFF["NATURAL"] + i] = PLACE[rank]
        table[OFF["NATURAL_INDEX"] + PLACE[rank]] = i
        table[OFF["VALUE"] + PLACE[rank]] = i
    top = len(natural)
    if rules.ranks.level_card.position is LevelPosition.ABOVE_ACE:
        table[OFF["VALUE"] + PLACE[level]] = top
    for i, joker in enumerate(rules.ranks.jokers):
        table[OFF["VALUE"] + PLACE[joker]] = top + 1 + i
    table[OFF["LEVEL"]] = PLACE[level]
    table[OFF["FULL_HOUSE_TYPE"]] = TYPE[CombinationType.FULL_HOUSE]
    in_full_house = rules.ranks.level_card.in_full_house
    table[OFF["FULL_HOUSE_NATURAL"]] = int(in_full_house is LevelPosition.NATURAL)


@implements("sequences.ace_low", "sequences.ace_high", "sequences.wrap")
@implements("ranks.level_card.in_sequences")
def _windows(rules: Rules, table: list[int]) -> None:
    """The windows of consecutive ranks a run may cover (順子), by length, low to high, with no
    rank twice: A low and A high as the variant allows, round the end where it wraps."""
    natural = list(rules.ranks.natural)
    seq = rules.sequences
    n = len(natural)
    at = 0
    for span in range(1, MAX_SPAN + 1):
        if seq.wrap:
            found = [[natural[(i + j) % n] for j in range(span)] for i in range(n)]
        else:
            order = ([natural[-1]] if seq.ace_low else []) + natural[:-1]
            if seq.ace_high:
                order.append(natural[-1])
            found = [order[i : i + span] for i in range(len(order) - span + 1)]
        found = [w for w in found if len(set(w)) == len(w)]
        if at + span * len(found) > WINDOW_ROOM:
            raise TableError("the sequence windows overflow the table")
        table[OFF["WINDOW_START"] + span] = at
        table[OFF["WINDOW_COUNT"] + span] = len(found)
        for window in found:
            for rank in window:
                table[OFF["WINDOWS"] + at] = PLACE[rank]
                at += 1
    out = rules.ranks.level_card.in_sequences is SequencePlace.EXCLUDED
    table[OFF["LEVEL_OUT_OF_SEQUENCES"]] = int(out)


@implements("wild.suit", "wild.needs_natural_card", "wild.stands_for")
@implements("compare.same_type_and_size", "compare.equal_beats")
@implements("compare.suits_rank", values=only(False))
@implements("compare.wild_same_strength", values=only(True))
@implements("deck.decks", values=only(2))
def _flags(rules: Rules, table: list[int]) -> None:
    """The wild card (逢人配: the level card of its suit, standing for any non-joker card, alone
    or only beside a natural card) and how plays compare (same type and size, equal plays).
    Readings carry no suit and no trace of wild cards: suits never rank, a play made with wild
    cards is as strong as without; two decks (at most two of a card: three bits a suit)."""
    table[OFF["WILD_SUIT"]] = SUIT[rules.wild.suit]
    table[OFF["NEEDS_NATURAL"]] = int(rules.wild.needs_natural_card)
    table[OFF["SAME_TYPE_AND_SIZE"]] = int(rules.compare.same_type_and_size)
    table[OFF["EQUAL_BEATS"]] = int(rules.compare.equal_beats)


@implements("ranks.natural", "ranks.jokers", "ranks.level_card.position", "bombs.ladder")
@implements("ranks.level_card.in_full_house", "compare.full_house_key", "compare.sequence_key")
def _listing_order(rules: PlayRules, table: list[int]) -> None:
    """What the listing in the reference's order reads (`PlayRules.sort_key`: non-bombs by
    type, bombs (炸彈) up the ladder, then by size and key): each type's key of each rank, each
    type's ladder step at each size, and the ranks a kicker (帶牌) may be, by value (點數)."""
    for kind in TYPES:
        for place, rank in enumerate(PLACES):
            try:
                key = rules.key(Reading(kind, rank, 1))
            except KeyError:  # a rank with no place in the type's order (a joker in a run)
                key = -1
            table[OFF["KEY"] + TYPE[kind] * N_PLACES + place] = key
        for size in range(MAX_HAND + 1):
            step = rules.ladder_step(Reading(kind, PLACES[0], size))
            table[OFF["STEP"] + TYPE[kind] * (MAX_HAND + 1) + size] = -1 if step is None else step
    natural = list(rules.natural)
    for jokers, ranks in enumerate((natural, [*natural, Rank.SMALL_JOKER, Rank.BIG_JOKER])):
        by_value = sorted(ranks, key=rules.value.__getitem__)
        table[OFF["KICKER_N"] + jokers] = len(by_value)
        for i, rank in enumerate(by_value):
            table[OFF["KICKER_RANKS"] + jokers * N_PLACES + i] = PLACE[rank]


def compile_tables(ruleset: Ruleset, level: Rank) -> tuple[int, ...]:
    """The kernel's table of `ruleset` at `level` (as a tuple of ints, in `OFF`'s layout)."""
    rules = ruleset.rules
    table = [0] * OFF["SIZE"]
    _shapes(rules, table)
    _orders(rules, level, table)
    _windows(rules, table)
    _flags(rules, table)
    _listing_order(play_rules(ruleset, level), table)
    return tuple(table)


@dataclass(frozen=True)
class Refusal:
    """A clause value the fast engine does not play (拒絕的條款值), and why."""

    clause: str
    value: Any
    reason: str

    def __str__(self) -> str:
        return f"{self.clause} = {shown(self.value)}: {self.reason}"


FAST_MODULES = (
    "harness.engine.fast.tables",
    "harness.engine.fast.engine",
    "harness.engine.fast.fast_rounds",
    "harness.engine.fast.between_rounds",
)
"""The modules of the fast engine that declare the clauses they read."""


def declarations() -> tuple[Implementation, ...]:
    """The clauses the fast engine reads, with the values it plays (its marks, read as the
    clause registry reads the interpreter's)."""
    return tuple(m for name in FAST_MODULES for m in marks(importlib.import_module(name)))


def refusals(ruleset: Ruleset, extra: Sequence[Implementation] = ()) -> list[Refusal]:
    """Every clause value of `ruleset` the fast engine does not play, with the reason (empty:
    it plays the rule set)."""
    found: list[Refusal] = []
    for mark in (*declarations(), *extra):
        clause = ruleset.clauses.get(mark.clause)
        if clause is None:
            continue
        reason = mark.values.refusal(clause.value)
        if reason is not None:
            found.append(Refusal(mark.clause, clause.value, reason))
    return found
