"""The listing of a hand's plays in the reference's order (出牌清單), from Python: the C kernel's
`gd_hand_plays` (harness/kernel/_listing.c), which gives exactly what
`harness.interpreter.legal.HandPlays` gives, play for play, in its order, each play's cards in
its order. The heuristic bot and the round in C call it directly; this wrapper is for tests and
benchmarks, on the compact form: each play as (reading int, card ints).
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from enum import IntEnum

from harness.engine.fast.engine import FastEngine, buffer_ints, encode
from harness.engine.fast.tables import PLACE, SUIT
from harness.errors import EngineError, EngineErrorKind, HarnessError
from harness.interpreter.readings import Reading
from harness.kernel.layout import JOKER_SUIT, MAX_HAND, N_SUITS
from harness.model.cards import Card, Rank

_I32 = ctypes.c_int32
_FIRST_ROOM = 1 << 12

CompactPlay = tuple[int, tuple[int, ...]]
"""A play on the compact form: its reading (type << 24 | rank place << 16 | size) and its
cards (rank place * 5 + suit), in order."""


class ListMode(IntEnum):
    """What a listing asks for (`GD_LIST_*` in `_round.h`), as `HandPlays` answers it."""

    ALL = 0
    """`HandPlays.plays()`: every play, as leader."""
    FOLLOWING = 1
    """`HandPlays.following(previous)`: the plays that beat `previous` (壓牌), bombs included."""
    NO_BOMBS = 2
    """`HandPlays.following(previous, bombs=False)`: those off the bomb ladder (炸彈)."""
    ANY_BEATS = 3
    """`HandPlays.beaten_by_any(previous)`: whether a play off the ladder beats `previous`."""


def card_int(card: Card) -> int:
    """A card as the kernel reads it: rank place * 5 + suit (the jokers' suit is 4)."""
    return PLACE[card.rank] * N_SUITS + (JOKER_SUIT if card.suit is None else SUIT[card.suit])


_buffers = threading.local()


def _call(
    engine: FastEngine, level: Rank, hand: Sequence[Card], mode: ListMode, previous: Reading | None
) -> tuple[ctypes.Array[ctypes.c_int32], int]:
    """The kernel's answer for `mode`: its buffer (this thread's) and the int it returned."""
    if len(hand) > MAX_HAND:
        raise HarnessError(f"hand of {len(hand)} cards: the listing holds at most {MAX_HAND}")
    if previous is None and mode is not ListMode.ALL:
        raise HarnessError(f"listing mode {mode.name}: a previous play is needed")
    tables = engine.tables(level)
    held = (_I32 * max(1, len(hand)))(*(card_int(c) for c in hand))
    against = -1 if previous is None else encode(previous)
    out: ctypes.Array[ctypes.c_int32] = getattr(_buffers, "out", None) or (_I32 * _FIRST_ROOM)()
    while True:
        # One buffer a thread, grown when a listing needs more room (as FastEngine._fill).
        room = len(out)
        needed = engine.kernel.hand_plays(
            tables.array, held, len(hand), int(mode), against, out, room
        )
        if needed < 0:
            raise EngineError(EngineErrorKind.INTERNAL, "the fast kernel ran out of memory")
        if mode is ListMode.ANY_BEATS or needed <= room:
            _buffers.out = out
            return out, int(needed)
        out = (_I32 * needed)()


def hand_plays(
    engine: FastEngine,
    level: Rank,
    hand: Sequence[Card],
    mode: ListMode = ListMode.ALL,
    previous: Reading | None = None,
) -> list[CompactPlay]:
    """The plays of `hand` at `level` under `engine`'s rule set, as `HandPlays(hand,
    rules)` lists them for `mode` (ALL, FOLLOWING or NO_BOMBS; `previous` for the last two):
    (reading int, card ints) each, in the reference's order."""
    if mode is ListMode.ANY_BEATS:
        raise HarnessError("hand_plays lists plays: ask beaten_by_any for ANY_BEATS")
    out, length = _call(engine, level, hand, mode, previous)
    # Through the buffer protocol: a ctypes array's own slicing makes each int in Python.
    flat = buffer_ints(out, length)
    found: list[CompactPlay] = []
    i = 0
    while i < length:
        n = flat[i + 1]
        found.append((flat[i], tuple(flat[i + 2 : i + 2 + n])))
        i += 2 + n
    return found


def beaten_by_any(engine: FastEngine, level: Rank, hand: Sequence[Card], previous: Reading) -> bool:
    """`HandPlays(hand, rules).beaten_by_any(previous)`: whether a play of `hand` off the bomb
    ladder beats `previous`."""
    return _call(engine, level, hand, ListMode.ANY_BEATS, previous)[1] == 1
