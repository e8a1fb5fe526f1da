"""The layout of the fast kernel's table (核心規則表格式): one flat array of int32, its parts and
their offsets, written once here and compiled into the kernel as `#define`s (`c_defines`).

Standard library only, like the rest of `harness.kernel`: `guandan --version` asks the kernel's
status without loading the rule model.
"""

from __future__ import annotations

N_PLACES = 15
"""Rank places: 2 … A are 0 … 12, the small and big jokers 13 and 14."""
N_NATURAL = 13
N_SUITS = 5
"""Suits S H C D are 0 … 3; the jokers' suit (none) is 4."""
JOKER_SUIT = 4
N_TYPES = 10
"""The combination types, in the order of `CombinationType`."""

SHAPE_FIELDS = (
    "PRESENT",
    "GROUPS_MIN",
    "GROUPS_MAX",
    "SIZE_MIN",
    "SIZE_MAX",
    "CONSECUTIVE",
    "SAME_SUIT",
    "KICKER",
    "KICKER_DISTINCT",
    "KICKER_JOKERS",
    "JOKERS",
    "WILD_EXCLUDED",
    "ON_LADDER",
)
"""A shape's fields, in order (-1 stands for no upper bound)."""
S = {name: i for i, name in enumerate(SHAPE_FIELDS)}
JOKERS = {"EXCLUDED": 0, "ALLOWED": 1, "ONLY": 2}
"""A shape's use of jokers, as numbers."""
MAX_SPAN = 15
"""The longest window of consecutive ranks the table holds (the natural order has 13)."""
MAX_LADDER = 64
WINDOW_ROOM = 4096
MAX_HAND = 64
"""The most cards a hand may hold (`GD_MAX_HAND` in `_round.h`, which the listing checks): the
largest play, and so the largest size the ladder's steps are written for."""
LAYOUT = 4
"""The layout's version: the kernel reports it (`gd_layout`), and one of another is not used."""

_PARTS: tuple[tuple[str, int], ...] = (
    ("SHAPES", N_TYPES * len(SHAPE_FIELDS)),
    ("N_NATURAL", 1),
    ("NATURAL", N_NATURAL),
    ("NATURAL_INDEX", N_PLACES),
    ("VALUE", N_PLACES),
    ("LEVEL", 1),
    ("WILD_SUIT", 1),
    ("NEEDS_NATURAL", 1),
    ("LEVEL_OUT_OF_SEQUENCES", 1),
    ("FULL_HOUSE_TYPE", 1),
    ("FULL_HOUSE_NATURAL", 1),
    ("SAME_TYPE_AND_SIZE", 1),
    ("EQUAL_BEATS", 1),
    ("SAME_SUIT_TYPES", 1),
    ("LADDER_N", 1),
    ("LADDER_TYPE", MAX_LADDER),
    ("LADDER_SIZE", MAX_LADDER),
    ("WINDOW_START", MAX_SPAN + 1),
    ("WINDOW_COUNT", MAX_SPAN + 1),
    ("WINDOWS", WINDOW_ROOM),
    # The listing in the reference's order (_listing.c): `PlayRules.key` of each type and rank
    # place, `PlayRules.ladder_step` of each type and size (-1: no bomb), and the ranks a
    # kicker may be, lowest value first (without jokers, then with them).
    ("KEY", N_TYPES * N_PLACES),
    ("STEP", N_TYPES * (MAX_HAND + 1)),
    ("KICKER_N", 2),
    ("KICKER_RANKS", 2 * N_PLACES),
)


def _offsets() -> dict[str, int]:
    out: dict[str, int] = {}
    at = 0
    for name, length in _PARTS:
        out[name] = at
        at += length
    out["SIZE"] = at
    return out


OFF = _offsets()
"""Each part's offset in the table, and the table's `SIZE`."""


def c_defines() -> str:
    """The `#define`s the kernel is compiled with: offsets, shape fields, sizes."""
    lines = [f"#define OFF_{name} {offset}" for name, offset in OFF.items()]
    lines += [f"#define S_{name} {i}" for name, i in S.items()]
    lines += [f"#define JOKERS_{name} {n}" for name, n in JOKERS.items()]
    lines += [
        f"#define K_SHAPE_FIELDS {len(SHAPE_FIELDS)}",
        f"#define K_TYPES {N_TYPES}",
        f"#define K_MAX_SPAN {MAX_SPAN}",
        f"#define K_LAYOUT {LAYOUT}",
        f"#define K_MAX_HAND {MAX_HAND}",
    ]
    return "\n".join(lines) + "\n"
