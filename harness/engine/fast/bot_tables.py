"""The heuristic bot's table (啟發式機器人表): what the C bot (`harness/kernel/_bot.c`) reads
beyond the rules' table, as one int32 array `B`: the combination types it names, the place of
A, and the policy's constants, each from its one source (the rule model, `tables.PLACE`,
`harness.interpreter.heuristic`).
"""

from __future__ import annotations

from harness.engine.fast.tables import PLACE, TYPE
from harness.interpreter import heuristic
from harness.interpreter.readings import SEQUENCE_TYPES
from harness.model.cards import Rank
from harness.model.ruleset import CombinationType

FIELDS = (
    "PAIR",
    "TRIPLE",
    "SEQUENCE_TYPES",
    "ACE",
    "SHORT_HAND",
    "PARTNER_SHORT",
    "GOING_OUT",
    "BREAKS_TRIED",
)
"""The table's entries, in the order of `_bot.c`'s `B_*` (the kernel says how many it reads:
`Kernel.bot_tables_size`)."""


def bot_table() -> tuple[int, ...]:
    """The bot's table `B`, in `FIELDS` order."""
    values = {
        "PAIR": TYPE[CombinationType.PAIR],
        "TRIPLE": TYPE[CombinationType.TRIPLE],
        "SEQUENCE_TYPES": sum(1 << TYPE[kind] for kind in SEQUENCE_TYPES),
        "ACE": PLACE[Rank.ACE],
        "SHORT_HAND": heuristic.SHORT_HAND,
        "PARTNER_SHORT": heuristic.PARTNER_SHORT,
        "GOING_OUT": heuristic.GOING_OUT,
        "BREAKS_TRIED": heuristic.BREAKS_TRIED,
    }
    return tuple(values[name] for name in FIELDS)
