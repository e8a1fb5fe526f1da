"""Tribute between rounds on the fast engine (快速引擎進貢): the plan (進貢, 還牌, 抗貢, who leads)
and its carrying-out with the C bots, made by `harness/kernel/_tribute.c` and answered as the
interpreter's `plan_tribute` and `_pay_tribute` answer (`harness.interpreter.tribute`,
`harness.interpreter.bots`): the same log entry, key for key, the same hands in the same order,
the same leader, and the bots' memory set as the Python bots' is.

The tribute's clause values reach the kernel as a small table (`tribute_table`), declared here
with `@implements` as the interpreter declares them, so that a value the kernel does not play
makes the fast engine decline the rule set (`harness.engine.fast.tables.refusals`).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any, ClassVar

from harness.engine.fast.engine import FastEngine, buffer_ints
from harness.engine.fast.fast_bot import CARD, FastHeuristicBot, RulesIds
from harness.engine.fast.fast_rounds import load_hands
from harness.engine.fast.tables import PLACE, PLACES
from harness.errors import EngineError, EngineErrorKind, HarnessError
from harness.interpreter.bots import Bot, python_tribute
from harness.interpreter.readings import play_rules
from harness.interpreter.tribute import (
    ANTI_PLACES,
    DOUBLE_PLACES,
    FINISH_PLACES,
    SINGLE_PLACES,
    AntiTribute,
)
from harness.kernel.view import LISTER, MAX_HAND
from harness.model.cards import Card, Rank
from harness.model.declarations import implements, only
from harness.model.ruleset import PlaceRef, ReturnTo, RevealWhen, Ruleset
from harness.model.seats import Finish

_I32 = ctypes.c_int32
_I32P = ctypes.POINTER(_I32)

FIELDS = (
    "ENABLED",
    "SINGLE_PAYER",
    "SINGLE_RECEIVER",
    "ANTI_BIG_JOKERS",
    "ANTI_SINGLE_MANDATORY",
    "RETURN_MAX_RANK",
    "RETURN_TO_PAYER",
    "REVEAL",
    "LEAD_SINGLE",
    "LEAD_DOUBLE",
    "LEAD_DOUBLE_TIE",
    "LEAD_ANTI",
)
"""The table's entries, in the order of `_tribute.c`'s `R_*` (the kernel says how many it
reads: `gd_tribute_table_size`)."""

PLACE_REFS: tuple[PlaceRef, ...] = tuple(PlaceRef)
"""Place references by number, as `_tribute.c`'s `P_*` numbers them (`PlaceRef`'s order)."""
REF = {ref: i for i, ref in enumerate(PLACE_REFS)}
REVEALS: tuple[RevealWhen, ...] = (RevealWhen.NEVER, RevealWhen.DOUBLE, RevealWhen.TIE)
"""`tribute.return.reveal_together` by number (`REVEAL_*`)."""
ANTIS: tuple[AntiTribute, ...] = (AntiTribute.NONE, AntiTribute.MUST, AntiTribute.MAY)
"""`AntiTribute` by number (`ANTI_*`)."""

ERRORS = {
    -1: "the fast kernel ran out of memory",
    -2: "the fast kernel's record of the tribute ran out of room",
    -3: "a place of the tribute names nobody",
    -4: "the tribute was given impossible hands or moves cards a seat does not hold",
    -5: "a bot failed in the tribute",
}

ROOM = 1024
"""Ints a tribute's record may take: two payments and two returns, each of at most the 54
distinct cards, and their heads."""

_CODES = range(max(CARD) + 1)
_TEXT: tuple[str, ...] = tuple(CARD[c].code if c in CARD else "" for c in _CODES)
"""Each card's text by its code (as the log writes it)."""


@implements("tribute.enabled", "tribute.anti.big_jokers", "tribute.anti.single_mandatory")
@implements("tribute.single.payer", "tribute.single.receiver", values=FINISH_PLACES)
@implements("tribute.lead.single", values=SINGLE_PLACES)
@implements("tribute.lead.anti", values=ANTI_PLACES)
@implements("tribute.lead.double", "tribute.lead.double_tie", values=DOUBLE_PLACES)
@implements("tribute.return.max_rank", "tribute.return.double_to")
@implements("tribute.return.reveal_together", "ranks.natural")
@implements("tribute.card", values=only("highest_except_wild"))
@implements("tribute.double.assignment", values=only("bigger_to_first"))
@implements("tribute.double.tie", values=only("to_previous_seat"))
def tribute_table(ruleset: Ruleset) -> tuple[int, ...]:
    """The tribute's clause values as `_tribute.c` reads them (進貢, 還牌, 抗貢), in `FIELDS`
    order: place references by number, the return's highest rank by place (-1: any card). The
    card a payer gives is the highest but the wild card (`tribute.card`), the bigger tribute
    goes to the first and equal ones each to its 上家 (`tribute.double.*`): the one value each
    has, written in the kernel. The orders (values, the natural order, the wild card) are the
    rules' table's, at the round's level."""
    tribute = ruleset.rules.tribute
    limit = tribute.return_.max_rank
    values = {
        "ENABLED": int(tribute.enabled),
        "SINGLE_PAYER": REF[tribute.single.payer],
        "SINGLE_RECEIVER": REF[tribute.single.receiver],
        "ANTI_BIG_JOKERS": tribute.anti.big_jokers,
        "ANTI_SINGLE_MANDATORY": int(tribute.anti.single_mandatory),
        "RETURN_MAX_RANK": -1 if limit is None else PLACE[limit],
        "RETURN_TO_PAYER": int(tribute.return_.double_to is ReturnTo.PAYER),
        "REVEAL": REVEALS.index(tribute.return_.reveal_together),
        "LEAD_SINGLE": REF[tribute.lead.single],
        "LEAD_DOUBLE": REF[tribute.lead.double],
        "LEAD_DOUBLE_TIE": REF[tribute.lead.double_tie],
        "LEAD_ANTI": REF[tribute.lead.anti],
    }
    return tuple(values[name] for name in FIELDS)


class FastTribute:
    """The tribute of one rule set on the kernel (`TributePlayer`): the plan, and its carrying
    out with the match's C bots; bots that are not the fast engine's own pay on the Python
    path (`python_tribute`)."""

    paid_in_process: ClassVar[int] = 0
    """The tributes carried out in the kernel in this process (the work a test can count:
    which path paid)."""

    def __init__(self, engine: FastEngine, rules_ids: RulesIds, lister: Any) -> None:
        self.engine = engine
        self.ruleset = engine.ruleset
        self.rules_ids = rules_ids
        self.lister = lister
        library = engine.kernel.library
        if library.gd_tribute_table_size() != len(FIELDS):
            raise EngineError(EngineErrorKind.INTERNAL, "the kernel reads another tribute table")
        self._plan = library.gd_tribute_plan
        self._plan.argtypes = [_I32P, _I32P, _I32P, _I32P, _I32P, _I32P, ctypes.c_int64]
        self._plan.restype = ctypes.c_int64
        self._pay = library.gd_tribute_pay
        self._pay.argtypes = [_I32P, _I32P, _I32P, _I32, LISTER, ctypes.POINTER(ctypes.c_void_p)]
        self._pay.argtypes += [_I32, _I32P, _I32P, _I32P, _I32P, ctypes.c_int64]
        self._pay.restype = ctypes.c_int64
        self.table = (_I32 * len(FIELDS))(*tribute_table(self.ruleset))
        self._order = (_I32 * 4)()
        self._hands: Any = (_I32 * (4 * MAX_HAND))()
        self._counts = (_I32 * 4)()
        self._out = (_I32 * ROOM)()
        self.paid = 0
        """The tributes this player carried out in the kernel."""

    def _load(self, finish: Finish, hands: Sequence[Sequence[Card]]) -> None:
        """The finish and the hands into the kernel's arrays."""
        self._order[:] = list(finish.order)
        load_hands(hands, self._hands, self._counts)

    def plan(self, finish: Finish, hands: Sequence[Sequence[Card]], level: Rank) -> dict[str, Any]:
        """`plan_tribute(finish, hands, level, ruleset).to_json()`, made by the kernel."""
        self._load(finish, hands)
        table = self.engine.tables(level).array
        written = self._plan(
            table, self.table, self._order, self._hands, self._counts, self._out, ROOM
        )
        flat = self._read(written)
        return _plan_json(flat, 0)[0]

    def _read(self, written: int) -> list[int]:
        if written < 0:
            raise HarnessError(ERRORS.get(written, f"the fast kernel failed ({written})"))
        return buffer_ints(self._out, written)

    def __call__(
        self,
        finish: Finish,
        hands: list[list[Card]],
        level: Rank,
        ruleset: Ruleset,
        bots: Sequence[Bot],
    ) -> tuple[list[list[Card]], dict[str, Any], int]:
        """The tribute after `finish` (`TributePlayer`): the new hands, the log entry and the
        leader, as `python_tribute` gives them."""
        fast = [bot for bot in bots if isinstance(bot, FastHeuristicBot)]
        if ruleset is not self.ruleset or len(bots) != 4 or len(fast) != 4:
            return python_tribute(finish, hands, level, ruleset, bots)
        self._load(finish, hands)
        table = self.engine.tables(level).array
        rules_id = self.rules_ids.id_of(play_rules(ruleset, level))
        resist = sum(1 << seat for seat, bot in enumerate(fast) if bot.resist())
        pointers = (ctypes.c_void_p * 4)(*(bot.pointer for bot in fast))
        written = self._pay(
            table,
            fast[0].table,
            self.table,
            rules_id,
            self.lister,
            pointers,
            resist,
            self._order,
            self._hands,
            self._counts,
            self._out,
            ROOM,
        )
        flat = self._read(written)
        plan, at = _plan_json(flat, 0)
        entry: dict[str, Any] = {"plan": plan, "given": [], "returned": []}
        anti = bool(flat[at])
        self.paid += 1
        FastTribute.paid_in_process += 1
        if anti:
            entry["anti_tribute"] = True
            return hands, entry, plan["anti_leader"]
        at += 1
        # The cards move as the kernel moved them, each from where it was in the giver's hand
        # (`apply_tribute`: the first equal card), onto the end of the receiver's.
        after = [list(h) for h in hands]
        for key in ("given", "returned"):
            moves = entry[key]
            for _ in range(flat[at]):
                giver, receiver, card, place = flat[at + 1 : at + 5]
                moves.append({"from": giver, "to": receiver, "card": _TEXT[card]})
                after[receiver].append(after[giver].pop(place))
                at += 4
            at += 1
        entry["anti_tribute"] = False
        return after, entry, plan["leader"]


def _plan_json(flat: list[int], at: int) -> tuple[dict[str, Any], int]:
    """The plan recorded by `gd_tribute_plan` from `flat[at]` as `TributePlan.to_json()`
    writes it; where its record ends."""
    anti, leader, anti_leader, reveal, _tie, np, nr = flat[at : at + 7]
    at += 7
    text = _TEXT
    payments = []
    for _ in range(np):
        payer, receiver, m = flat[at : at + 3]
        cards = sorted(text[c] for c in flat[at + 3 : at + 3 + m])
        payments.append({"payer": payer, "receiver": receiver, "cards": cards})
        at += 3 + m
    returns = []
    for _ in range(nr):
        giver, receiver, limit, m = flat[at : at + 4]
        cards = sorted(text[c] for c in flat[at + 4 : at + 4 + m])
        returns.append(
            {
                "giver": giver,
                "receiver": receiver,
                "max_rank": None if limit < 0 else PLACES[limit].value,
                "cards": cards,
            }
        )
        at += 4 + m
    plan = {
        "anti_tribute": ANTIS[anti].value,
        "payments": payments,
        "returns": returns,
        "leader": leader,
        "anti_leader": None if anti_leader < 0 else anti_leader,
        "reveal_together": bool(reveal),
    }
    return plan, at


__all__ = ["FIELDS", "FastTribute", "tribute_table"]
