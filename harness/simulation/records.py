"""One simulated match reduced to what the statistics need (對局紀錄): per round the plays,
tricks and bombs, the levels and declarer, the finish, the tribute due and paid, the final
level's failures; per match the winner, the team that declared first, each team's deepest
deficit and the beans won."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harness.interpreter.bots import MatchLog, RoundLog
from harness.interpreter.tribute import AntiTribute
from harness.model.ruleset import Ruleset
from harness.model.seats import FinishKind


class Tribute(StrEnum):
    """What happened before a round after the first: no tribute, one, two, or anti-tribute;
    as what a finish calls for (`RoundRecord.due`), none, one (進貢) or two (雙貢)."""

    NONE = "none"
    SINGLE = "single"
    DOUBLE = "double"
    ANTI = "anti"


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One round: its plays, tricks and bombs, finish, tribute, and the final level's outcome."""

    plays: int
    tricks: int
    bombs: int
    levels: tuple[str, str]
    """Both teams' levels before the round."""
    declarer: int | None
    """The team whose level the round is played at (打家); None in the first round."""
    double_down: bool
    tribute: Tribute | None
    """What was paid: None in the first round, which follows no round."""
    due: Tribute | None
    """The tribute the last round's finish calls for: SINGLE (one payer), DOUBLE (after a
    double-down, 雙下), NONE where the variant has none; None in the first round."""
    anti: AntiTribute | None
    """Whether the payers' newly dealt big jokers allowed anti-tribute (抗貢): MUST, MAY (the
    payer's choice), or NONE; None in the first round."""
    at_final: bool
    """The declarer played its own final level (打A)."""
    failed_final: bool
    """... and did not win the match with that round (a failure at the final level)."""
    reset: bool
    """The failure sent the declarer back (e.g. three failures at A, back to 2)."""


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One match: its index and seed, its rounds, winner, first declarer, deficits and beans."""

    index: int
    seed: int
    rounds: tuple[RoundRecord, ...]
    winner: int
    first_declarer: int
    """The team that won the first round, and so declared first (打家)."""
    behind: tuple[int, int]
    """Each team's deepest deficit in levels before any round of the match."""
    failed: tuple[bool, bool]
    """Whether each team failed at its final level at least once."""
    beans: int | None
    """What a seat of the winning team won over the match (歡樂豆); None where the variant does
    not score."""


def _tribute(entry: dict[str, Any] | None) -> Tribute | None:
    if entry is None:
        return None
    if entry["anti_tribute"]:
        return Tribute.ANTI
    return _count(len(entry["given"]))


def _count(payers: int) -> Tribute:
    return {0: Tribute.NONE, 1: Tribute.SINGLE}.get(payers, Tribute.DOUBLE)


def _due(entry: dict[str, Any] | None, previous: RoundLog | None) -> Tribute | None:
    """The tribute the finish of `previous` calls for, from the plan before this round."""
    if entry is None or previous is None:
        return None
    plan = entry["plan"]
    if plan["anti_tribute"] == AntiTribute.NONE.value and not plan["payments"]:
        return Tribute.NONE
    # A plan of anti-tribute lists no payment: the finish says how many would have paid.
    return _count(2 if previous.settlement["finish"] == FinishKind.DOUBLE_DOWN.value else 1)


def _anti(entry: dict[str, Any] | None) -> AntiTribute | None:
    return None if entry is None else AntiTribute(entry["plan"]["anti_tribute"])


def _round(log: RoundLog, previous: RoundLog | None, final: str) -> RoundRecord:
    settlement = log.settlement
    declarer = log.declarer
    at_final = declarer is not None and log.levels[declarer] == final
    failed = at_final and not settlement["won"]
    failures = settlement["state"]["failures"]
    # A failure always counts one more unless the limit was reached and sent the team back.
    reset = failed and declarer is not None and failures[declarer] == 0
    return RoundRecord(
        log.plays,
        log.tricks,
        log.bombs,
        log.levels,
        declarer,
        settlement["finish"] == FinishKind.DOUBLE_DOWN.value,
        _tribute(log.tribute),
        _due(log.tribute, previous),
        _anti(log.tribute),
        at_final,
        failed,
        reset,
    )


def match_record(log: MatchLog, index: int, ruleset: Ruleset) -> MatchRecord:
    """The record of the match `log` (the `index`-th of a run)."""
    final = ruleset.rules.levels.final.value
    order = [r.value for r in ruleset.rules.ranks.natural]
    assert log.winner is not None
    rounds = tuple(
        _round(r, previous, final)
        for r, previous in zip(log.rounds, [None, *log.rounds[:-1]], strict=True)
    )
    behind = [0, 0]
    failed = [False, False]
    for r, rec in zip(log.rounds, rounds, strict=True):
        gap = order.index(r.levels[1]) - order.index(r.levels[0])
        behind[0] = max(behind[0], gap)
        behind[1] = max(behind[1], -gap)
        if rec.failed_final and r.declarer is not None:
            failed[r.declarer] = True
    first = log.rounds[0].settlement["state"]["declarer"]
    beans = None
    if ruleset.rules.scoring.base is not None:
        beans = sum(r.score[log.winner] for r in log.rounds if r.score is not None)
    return MatchRecord(
        index,
        log.seed,
        rounds,
        log.winner,
        first,
        (behind[0], behind[1]),
        (failed[0], failed[1]),
        beans,
    )
