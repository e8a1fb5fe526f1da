"""Whole rounds on the fast engine (快速引擎對局): the kernel plays a round's turns, tricks, passes,
接風 and finishing order (`_round.c`), asking a bot in C (or, in tests, an actor of one's own)
for each action and listing plays in the reference's order; the log is then written here
exactly as the interpreter's `play_round` writes it.

The flow's clause values reach the kernel as a small table (`flow_table`), declared here with
`@implements` as the interpreter declares them, so that a value the kernel does not play makes
the fast engine decline the rule set (`harness.engine.fast.tables.refusals`).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from harness.engine.fast.engine import buffer_ints
from harness.engine.fast.fast_bot import CARD, RulesIds, codes_of, decode
from harness.engine.fast.tables import PLACE, compile_tables
from harness.errors import HarnessError
from harness.interpreter.bots import RoundLog
from harness.interpreter.readings import PlayRules
from harness.interpreter.round import RoundState, finish_of
from harness.kernel import Kernel
from harness.kernel.view import LISTER, MAX_HAND, MAX_PLAY
from harness.model.cards import Card, Rank
from harness.model.declarations import implements
from harness.model.ruleset import JiefengRule, PassRule, Ruleset
from harness.model.seats import Finish

I32 = ctypes.c_int32
I32P = ctypes.POINTER(I32)

RECORD_HEAD = 5
# A round has at most 108 plays, each after at most three passes: the records' bound.
ROOM = 108 * 4 * (RECORD_HEAD + MAX_PLAY)

ERRORS = {
    -1: "the fast kernel ran out of memory",
    -2: "the fast kernel's log of the round ran out of room",
    -3: "a bot passed where the round allows no pass",
    -4: "a bot played cards its seat does not hold",
    -5: "a bot failed",
}

ACTOR = ctypes.CFUNCTYPE(I32, ctypes.c_void_p, ctypes.c_void_p, I32, I32P, I32P, I32P)
"""`gd_actor` of `_round.c`: how a seat's action is asked for (`gd_bot_act`, or a test's)."""


@implements("flow.pass", "flow.jiefeng", "flow.early_end", "flow.new_lead", "flow.turn")
def flow_table(ruleset: Ruleset) -> tuple[int, int, int]:
    """The flow's clause values as `_round.c` reads them: whether a player may always pass (else
    only when unable to beat), whether a finisher's partner leads after its last play stands
    (接風; else the next seat holding cards), whether a double-down ends the round at once."""
    flow = ruleset.rules.flow
    return (
        int(flow.pass_ is PassRule.ALWAYS),
        int(flow.jiefeng is JiefengRule.PARTNER),
        int(bool(flow.early_end)),
    )


def load_hands(hands: Sequence[Sequence[Card]], into: Any, counts: Any) -> None:
    """Each seat's cards as codes into `into` (4 * `MAX_HAND` ints, a seat's from `seat *
    MAX_HAND`), how many into `counts`: the hands as the kernel takes them (`_round.h`)."""
    for seat, hand in enumerate(hands):
        n = len(hand)
        if n > MAX_HAND:
            raise HarnessError(f"seat {seat} holds {n} cards, over {MAX_HAND}")
        counts[seat] = n
        at = seat * MAX_HAND
        into[at : at + n] = codes_of(hand)


class FastRounds:
    """Plays the rounds of one rule set on the kernel: each round from its start with four
    actors, logged as the interpreter logs it (`play_round`)."""

    played_in_process: ClassVar[int] = 0
    """The rounds played in the kernel in this process, by every player (the work a test can
    count: which path played)."""

    def __init__(
        self,
        kernel: Kernel,
        ruleset: Ruleset,
        rules_id: Callable[[PlayRules], int] | None = None,
        tables: Callable[[Rank], Any] | None = None,
    ) -> None:
        self.kernel = kernel
        self.ruleset = ruleset
        self.play = kernel.library.gd_play_round
        self.play.argtypes = [
            I32P,
            I32P,
            I32P,
            I32,
            LISTER,
            ACTOR,
            ctypes.POINTER(ctypes.c_void_p),
            I32P,
            I32P,
            I32,
            I32P,
            I32P,
            ctypes.c_int64,
            I32P,
        ]
        self.play.restype = ctypes.c_int64
        self.flow = (I32 * 3)(*flow_table(ruleset))
        self.tables: dict[Rank, Any] = {}
        self._tables_of = tables
        # A number for each `PlayRules` object itself (a bot keeps what it found while the
        # rules are that very object): the match's own numbering where it shares one.
        self.rules_id: Callable[[PlayRules], int] = rules_id or RulesIds().id_of
        self.ids = (I32 * 1)(0)
        self.out = (I32 * ROOM)()
        self.order = (I32 * 8)()
        self.hands: Any = (I32 * (4 * MAX_HAND))()
        self.counts = (I32 * 4)()
        self._readings: dict[int, tuple[dict[str, object], bool]] = {}
        self.played = 0
        """The rounds this player played."""

    def table(self, level: Rank) -> Any:
        """The kernel's tables at `level`, compiled once (or the engine's, where given)."""
        found = self.tables.get(level)
        if found is None:
            if self._tables_of is not None:
                found = self._tables_of(level)
            else:
                values = compile_tables(self.ruleset, level)
                found = (I32 * len(values))(*values)
            self.tables[level] = found
        return found

    def __call__(
        self,
        state: RoundState,
        log: RoundLog,
        lister: Any,
        actor: Any,
        bots: Sequence[int | None],
        bot_tables: Any = None,
        actions: bool = True,
    ) -> Finish:
        """Play `state` (a round's start) to its end with `actor` asking `bots` (one pointer
        per seat), listing with `lister`; log each action in `log`, as `play_round` does (with
        `actions` false, only the counts of tricks, plays and bombs: what a simulation's records
        read)."""
        rules = state.rules
        table = self.table(rules.level)
        load_hands(state.hands, self.hands, self.counts)
        pointers = (ctypes.c_void_p * 4)(*bots)
        written = self.play(
            table,
            bot_tables,
            self.flow,
            self.rules_id(rules),
            lister,
            actor,
            pointers,
            self.hands,
            self.counts,
            state.leader,
            self.ids,
            self.out,
            ROOM,
            self.order,
        )
        if written < 0:
            raise HarnessError(ERRORS.get(written, f"the fast kernel failed ({written})"))
        if actions:
            self._log(rules, written, [len(h) for h in state.hands], log)
        else:
            log.tricks, log.plays, log.bombs = self.order[5:8]
        self.played += 1
        FastRounds.played_in_process += 1
        return finish_of(tuple(self.order[: self.order[4]]))

    def _log(self, rules: PlayRules, written: int, counts: list[int], log: RoundLog) -> None:
        """The records of the round as `play_round` logs its actions."""
        flat = buffer_ints(self.out, written)
        actions = log.actions
        cards_of = CARD
        i = 0
        while i < written:
            seat, led, kind, code, n = flat[i : i + RECORD_HEAD]
            i += RECORD_HEAD
            if led:
                log.tricks += 1
            if not kind:
                actions.append({"seat": seat, "pass": True})
                continue
            reading, bomb = self._reading(rules, code)
            log.plays += 1
            log.bombs += bomb
            entry: dict[str, Any] = {
                "seat": seat,
                "cards": [cards_of[c].code for c in flat[i : i + n]],
                "reading": dict(reading),
            }
            i += n
            counts[seat] -= n
            if not counts[seat]:
                entry["out"] = True
            actions.append(entry)

    def _reading(self, rules: PlayRules, code: int) -> tuple[dict[str, object], bool]:
        # Keyed by the rules too: whether a reading is a bomb is the level's rules' to say.
        key = code << 8 | PLACE[rules.level]
        found = self._readings.get(key)
        if found is None:
            reading = decode(code)
            found = (reading.to_json(), rules.ladder_step(reading) is not None)
            self._readings[key] = found
        return found
