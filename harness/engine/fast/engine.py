"""The fast engine (快速引擎): classify, beats, legal plays and legal actions on rank counts and
suit counts, answered by the C kernel from tables compiled once from the Ruleset.

The input is read as the reference reads it (`harness.interpreter.inputs`: the same located
errors for impossible input); the rules are the kernel's alone. A rule set with a clause value
the fast engine does not play is declined at start (`EngineError` of kind unsupported, naming
the clause), so that a caller takes the Python path, never a wrong answer.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from harness import __version__
from harness.engine._variants import as_ruleset
from harness.engine.api import EngineBase, EngineInfo, Json, Reach
from harness.engine.fast.tables import (
    NSUIT,
    PLACE,
    PLACES,
    SUIT,
    SUITS,
    TYPE,
    TYPES,
    TableError,
    compile_tables,
    refusals,
)
from harness.errors import EngineError, EngineErrorKind, HarnessError, Unsupported
from harness.interpreter import inputs
from harness.interpreter.readings import Reading
from harness.kernel import Kernel, load
from harness.kernel.layout import JOKER_SUIT
from harness.model.cards import Card, Rank
from harness.model.declarations import implements
from harness.model.ruleset import DefaultChoice, Ruleset

OPERATIONS = ("classify", "beats", "legal_plays", "legal_actions")
"""The operations the fast engine answers; the others are the reference's alone for now."""

_I32 = ctypes.c_int32
_FIRST_ROOM = 1 << 16


def encode(reading: Reading) -> int:
    """A reading as the kernel writes it: type, rank place and size in one int."""
    return TYPE[reading.type] << 24 | PLACE[reading.rank] << 16 | reading.size


def _reading_json(code: int) -> dict[str, object]:
    return {
        "type": str(TYPES[code >> 24]),
        "rank": str(PLACES[code >> 16 & 0xFF]),
        "size": code & 0xFFFF,
    }


# The code of a card (place * 5 + suit) as the protocol writes it.
_CARD_CODES: tuple[str, ...] = tuple(
    Card(rank, None if rank.is_joker else SUITS[suit]).code
    if (suit == JOKER_SUIT) == rank.is_joker
    else ""
    for rank in PLACES
    for suit in range(NSUIT)
)


CACHE_ENTRIES = 1 << 13
"""Profiles whose readings each table keeps (the kernel's cache: 32 ints an entry, 1 MiB)."""


class Tables:
    """The kernel's tables of one rule set at one level (a C array, built once), and the cache
    of readings by rank profile the kernel keeps for them across listings."""

    __slots__ = ("array", "cache", "level", "wild")

    def __init__(self, ruleset: Ruleset, level: Rank, cache_words: int) -> None:
        values = compile_tables(ruleset, level)
        self.array = (_I32 * len(values))(*values)
        self.cache = (_I32 * (CACHE_ENTRIES * cache_words))()
        self.level = level
        self.wild = (level, ruleset.rules.wild.suit)


class FastEngine(EngineBase):
    """The fast engine for one rule set (a Ruleset, or a bundled variant by slug) and its
    options: the play operations on the C kernel. Raises `EngineError` (unsupported) when the
    kernel is off or the rule set has a clause value it does not play."""

    def __init__(self, variant: Ruleset | str, options: Mapping[str, Any] | None = None) -> None:
        self.ruleset = as_ruleset(variant, options)
        kernel, status = load()
        if kernel is None:
            raise EngineError(
                EngineErrorKind.UNSUPPORTED, f"the fast engine is off: {status.detail}"
            )
        self.kernel: Kernel = kernel
        refused = refusals(self.ruleset)
        if refused:
            raise EngineError(
                EngineErrorKind.UNSUPPORTED,
                f"the fast engine does not play {self.ruleset.slug}: "
                + "; ".join(str(r) for r in refused),
            )
        self._tables: dict[Rank, Tables] = {}
        self._out: ctypes.Array[ctypes.c_int32] = (_I32 * _FIRST_ROOM)()
        # ctypes lets go of the GIL in the kernel: the buffer and the tables' caches are used
        # by one listing at a time, whichever thread asks.
        self._lock = threading.Lock()
        self._info = EngineInfo(
            "guandan-harness fast",
            __version__,
            self.ruleset.slug,
            dict(self.ruleset.chosen),
            OPERATIONS,
            rulesets=Reach.ANY,
        )

    def describe(self) -> EngineInfo:
        """The fast engine: the play operations, on any rule set whose values it plays."""
        return self._info

    def tables(self, level: Rank) -> Tables:
        """The kernel's tables at `level`, compiled once."""
        found = self._tables.get(level)
        if found is None:
            try:
                found = self._tables[level] = Tables(self.ruleset, level, self.kernel.cache_words)
            except TableError as exc:
                raise EngineError(EngineErrorKind.UNSUPPORTED, str(exc)) from None
        return found

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The play operations on the kernel; malformed input is `invalid_input`."""
        if operation not in OPERATIONS:
            raise Unsupported(operation)
        try:
            if operation == "classify":
                return self._classify(request)
            if operation == "beats":
                return self._beats(request)
            return self._list(request, plays=operation == "legal_plays")
        except HarnessError as exc:
            if isinstance(exc, EngineError):
                raise
            raise EngineError(EngineErrorKind.INVALID_INPUT, str(exc)) from None

    # -- the operations ---------------------------------------------------------------------

    def _classify(self, request: Mapping[str, Any]) -> Json:
        rules = self.ruleset.rules
        cards = inputs.held(request, "cards", rules)
        tables = self.tables(inputs.level(request))
        readings = self.readings(tables, cards)
        default = self._default(tables, readings)
        return {
            "readings": [_reading_json(r) for r in readings],
            "default": None if default is None else _reading_json(default),
        }

    def _beats(self, request: Mapping[str, Any]) -> Json:
        rules = self.ruleset.rules
        tables = self.tables(inputs.level(request))
        play = inputs.reading(inputs.field(request, "play"), "play", rules)
        previous = inputs.reading(inputs.field(request, "previous"), "previous", rules)
        return {"beats": bool(self.kernel.beats(tables.array, encode(play), encode(previous)))}

    def _list(self, request: Mapping[str, Any], plays: bool) -> Json:
        rules = self.ruleset.rules
        previous = inputs.previous(request, rules)
        hand = inputs.held(request, "hand", rules)
        tables = self.tables(inputs.level(request))
        records = self.listing(tables, hand, None if previous is None else encode(previous), plays)
        if plays:
            return {
                "plays": [
                    {**_reading_json(readings[0]), "cards": [_CARD_CODES[c] for c in cards]}
                    for cards, readings in records
                ]
            }
        actions = [
            {
                "cards": [_CARD_CODES[c] for c in cards],
                "readings": [_reading_json(r) for r in readings],
            }
            for cards, readings in records
        ]
        return {"actions": actions, "total": len(actions)}

    # -- on the compact form ----------------------------------------------------------------

    def readings(self, tables: Tables, cards: Sequence[Card]) -> list[int]:
        """Every reading of exactly `cards` (認牌), as kernel ints: the key is the natural
        cards' counts by rank, the wild cards, and whether the natural cards (and all the
        cards) share one suit."""
        counts = [0] * len(PLACES)
        suits: set[int] = set()
        wilds = 0
        for card in cards:
            if (card.rank, card.suit) == tables.wild:
                wilds += 1
                continue
            counts[PLACE[card.rank]] += 1
            suits.add(JOKER_SUIT if card.suit is None else SUIT[card.suit])
        one_suit = len(suits) <= 1
        wild_suit = SUIT[tables.wild[1]]
        all_one_suit = one_suit and (not wilds or not suits or wild_suit in suits)
        out = (_I32 * 512)()
        n = self.kernel.classify(
            tables.array, (_I32 * len(PLACES))(*counts), wilds, one_suit, all_one_suit, out, 512
        )
        return list(out[: min(n, 512)])

    def listing(
        self, tables: Tables, hand: Sequence[Card], previous: int | None, plays: bool
    ) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """The legal actions (or, with `plays`, one set of cards per legal reading) of `hand`,
        leading or against `previous`: (card codes, reading ints) pairs."""
        with self._lock:
            return _records(self._out, self._fill(tables, hand, previous, plays))

    def fill(self, tables: Tables, hand: Sequence[Card], previous: int | None, plays: bool) -> int:
        """The kernel's listing of `hand` (as `listing`) left in the engine's buffer as records
        `[n, cards…, m, readings…]`; the number of ints written. What a caller on the compact
        form pays, before any Python object is made of it."""
        with self._lock:
            return self._fill(tables, hand, previous, plays)

    def _fill(self, tables: Tables, hand: Sequence[Card], previous: int | None, plays: bool) -> int:
        counts = [0] * (len(PLACES) * NSUIT)
        wilds = 0
        for card in hand:
            if (card.rank, card.suit) == tables.wild:
                wilds += 1
            else:
                suit = JOKER_SUIT if card.suit is None else SUIT[card.suit]
                counts[PLACE[card.rank] * NSUIT + suit] += 1
        held = (_I32 * len(counts))(*counts)
        against = -1 if previous is None else previous
        while True:
            # One buffer for the engine's listings, grown when a listing needs more room.
            out = self._out
            room = len(out)
            needed = self.kernel.list(
                tables.array,
                tables.cache,
                CACHE_ENTRIES,
                held,
                wilds,
                against,
                int(plays),
                out,
                room,
            )
            if needed < 0:
                raise EngineError(EngineErrorKind.INTERNAL, "the fast kernel ran out of memory")
            if needed <= room:
                return int(needed)
            self._out = (_I32 * needed)()

    @implements("wild.default")
    def _default(self, tables: Tables, readings: Sequence[int]) -> int | None:
        """The reading an undeclared play takes where the variant names one (competition: the
        lowest): the one every other beats (or that beats every other), of the listed types."""
        default = self.ruleset.rules.wild.default
        if default is None or len(readings) < 2:
            return None
        applies = {TYPE[kind] for kind in default.applies_to}
        if any(r >> 24 not in applies for r in readings):
            return None
        beats = self.kernel.beats
        array = tables.array
        for reading in readings:
            for other in readings:
                if other == reading:
                    continue
                low, high = (
                    (reading, other)
                    if default.choice is DefaultChoice.LOWEST
                    else (
                        other,
                        reading,
                    )
                )
                if not (beats(array, high, low) and not beats(array, low, high)):
                    break
            else:
                return reading
        return None


def buffer_ints(out: Any, length: int) -> list[int]:
    """The first `length` ints of a kernel's int32 buffer as Python ints, through the buffer
    protocol (a ctypes array's own slicing makes each int in Python)."""
    return memoryview(out).cast("B").cast("i")[:length].tolist()


def _records(out: Any, length: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The kernel's records `[n, cards…, m, readings…]` as (cards, readings) pairs."""
    flat = buffer_ints(out, length)
    found = []
    i = 0
    while i < length:
        n = flat[i]
        cards = tuple(flat[i + 1 : i + 1 + n])
        i += 1 + n
        m = flat[i]
        found.append((cards, tuple(flat[i + 1 : i + 1 + m])))
        i += 1 + m
    return found
