"""Whole matches on the fast engine (快速引擎模擬): the heuristic bots in C (`FastHeuristicBot`)
playing every round in the kernel (`FastRounds`) and paying the tribute before it there
(`FastTribute`), the deals, levels and log as the Python path has them
(`harness.interpreter.bots.play_match`), so that a simulation's numbers are the same to the
last digit on either path.

`simulate` and `compare-play` ask `fast_matches` for each rule set: None sends them to the
Python path (the fast engine off, a clause value it does not play, bots it has not).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

from harness.engine.fast.between_rounds import FastTribute
from harness.engine.fast.engine import FastEngine
from harness.engine.fast.fast_bot import FastHeuristicBot, RulesIds
from harness.engine.fast.fast_rounds import ACTOR, FastRounds
from harness.errors import EngineError, HarnessError
from harness.interpreter.bots import Bot, MatchLog, RoundLog, play_match, python_rounds
from harness.interpreter.round import RoundState
from harness.kernel import load
from harness.kernel.view import LISTER
from harness.model.ruleset import Ruleset
from harness.model.seats import Finish

FAST_BOTS = ("heuristic",)

"""The bot kinds the fast engine plays."""


class FastMatches:
    """The fast engine's round player and bots for one rule set (its tables compiled once)."""

    def __init__(self, engine: FastEngine) -> None:
        self.engine = engine
        kernel = engine.kernel
        self.rules_ids = RulesIds()
        self.rounds_played = FastRounds(
            kernel, engine.ruleset, self.rules_ids.id_of, lambda level: engine.tables(level).array
        )
        self.lister = LISTER(_address(kernel.library.gd_hand_plays))
        self.actor = ACTOR(_address(kernel.library.gd_bot_act))
        self.tribute = FastTribute(engine, self.rules_ids, self.lister)

    def prepare(self) -> None:
        """Compile the tables of every level a match may be played at, now: before a run's
        processes fork, so that each finds them made."""
        for level in self.engine.ruleset.rules.ranks.natural:
            self.rounds_played.table(level)

    def play(
        self,
        seed: int,
        bots: str = "heuristic",
        actions: bool = True,
        ruleset: Ruleset | None = None,
    ) -> MatchLog:
        """`play_match(ruleset, seed, bots)` on the fast engine: the same log (with `actions`
        false, each round's counts but not its actions, as `counted_rounds` says). `ruleset`,
        where given, is a copy of the engine's own, equal in every clause (a shard's), which the
        match then reads."""
        rounds = self.rounds if actions else self.counted_rounds
        if ruleset is not None and ruleset is not self.engine.ruleset:
            # A copy plays with the tables compiled once (its clauses are the same): its bots,
            # rounds and tribute check the rules they are given against it.
            self.engine.ruleset = ruleset
            self.rounds_played.ruleset = ruleset
            self.tribute.ruleset = ruleset
        return play_match(self.engine.ruleset, seed, bots, rounds, self.players(), self.tribute)

    def players(self) -> list[Bot]:
        """Four heuristic bots for a new match, their memory empty."""
        # A new match: the bots remember no hand, so hand identities may start again.
        self.rounds_played.ids[0] = 0
        return [
            FastHeuristicBot(self.engine.ruleset, engine=self.engine, rules_ids=self.rules_ids)
            for _ in range(4)
        ]

    def rounds(self, state: RoundState, bots: Sequence[Bot], log: RoundLog) -> Finish:
        """Play a round on the kernel with the match's bots (`RoundPlayer`), logged whole as the
        Python path logs it; bots that are not the fast engine's own play it on that path."""
        return self._played(state, bots, log, True)

    def counted_rounds(self, state: RoundState, bots: Sequence[Bot], log: RoundLog) -> Finish:
        """`rounds`, logging only the counts of tricks, plays and bombs, not each action: what
        a simulation's records read (`harness.simulation.records`), without the work of a
        Python object per action."""
        return self._played(state, bots, log, False)

    def _played(
        self, state: RoundState, bots: Sequence[Bot], log: RoundLog, actions: bool
    ) -> Finish:
        fast = [bot for bot in bots if isinstance(bot, FastHeuristicBot)]
        if len(fast) != len(bots):
            return python_rounds(state, bots, log)
        pointers: list[int | None] = [bot.pointer for bot in fast]
        player = self.rounds_played
        return player(state, log, self.lister, self.actor, pointers, fast[0].table, actions)


def _address(function: Any) -> int:
    """The address of a C function of the kernel."""
    found = ctypes.cast(function, ctypes.c_void_p).value
    if found is None:
        raise HarnessError("the fast kernel lacks a function it declares")
    return int(found)


_CACHE: dict[tuple[str, int], tuple[Ruleset, FastMatches | None]] = {}


def fast_matches(ruleset: Ruleset, bots: str, run: int = 0) -> FastMatches | None:
    """The fast engine's matches of `ruleset` with `bots`, or None where the Python path plays
    them: the kernel off, a clause value the fast engine does not play, or bots it has not.
    Kept for `ruleset` itself, or, where `run` is named, for every copy of it with that number
    (the shards of one simulation, each with its own unpickled copy)."""
    if any(kind not in FAST_BOTS for kind in bots.split(",")):
        return None
    key = ("run", run) if run else ("object", id(ruleset))
    kept = _CACHE.get(key)
    if kept is not None and (run or kept[0] is ruleset):
        return kept[1]
    found: FastMatches | None = None
    kernel, _ = load()
    if kernel is not None:
        try:
            found = FastMatches(FastEngine(ruleset))
        except EngineError:
            found = None
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[key] = (ruleset, found)
    return found


__all__ = ["FAST_BOTS", "FastMatches", "fast_matches"]
