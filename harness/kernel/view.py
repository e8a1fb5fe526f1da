"""The ctypes mirror of `_round.h` (回合視圖): the listing callback's type and the round as a
bot sees it (`GdRoundView`), field for field as the C header declares them.

Standard library only, like the rest of `harness.kernel`.
"""

from __future__ import annotations

import ctypes

_I32 = ctypes.c_int32
_I32P = ctypes.POINTER(ctypes.c_int32)

LIST_ALL, LIST_FOLLOWING, LIST_NO_BOMBS, LIST_ANY_BEATS = range(4)
"""What a listing asks for (`GD_LIST_*`): every play, those beating a play, those beating it
off the bomb ladder, and whether any off the ladder beats it."""

MAX_HAND = 64
"""`GD_MAX_HAND`: the cards a hand may hold."""
MAX_PLAY = 32
"""`GD_MAX_PLAY`: the cards one play may take."""

LISTER = ctypes.CFUNCTYPE(ctypes.c_int64, _I32P, _I32P, _I32, _I32, _I32, _I32P, ctypes.c_int64)
"""`gd_lister`: (T, hand, n, mode, previous, out, room) -> the ints written (or needed)."""


class GdRoundView(ctypes.Structure):
    """`GdRoundView`: a round as a bot sees it (RoundState), on the compact form."""

    _fields_ = (
        ("T", _I32P),
        ("B", _I32P),
        ("rules_id", _I32),
        ("lister", LISTER),
        ("hands", _I32P * 4),
        ("counts", _I32 * 4),
        ("hand_ids", _I32 * 4),
        ("turn", _I32),
        ("leader", _I32),
        ("has_trick", _I32),
        ("trick_owner", _I32),
        ("trick_reading", _I32),
        ("may_pass", _I32),
        ("out_mask", _I32),
    )
