"""A match (一盤): team levels (級), level-ups, the final level, failures, streaks, the winner.

`settle(state, finish, ruleset)` answers, from a match state and a round's finish: the new
state, the levels each team gained or lost and why, and whether the match is won.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from harness.errors import HarnessError
from harness.model.cards import Rank, parse_rank
from harness.model.declarations import implements
from harness.model.ruleset import FinalGain, Ruleset
from harness.model.seats import Finish, FinishKind, team


@dataclass(frozen=True)
class MatchState:
    """A match between rounds: each team's level, whose level is played, failures, streaks."""

    levels: tuple[Rank, Rank]
    declarer: int | None
    failures: tuple[int, int]
    firsts: tuple[int, int, int, int]
    lasts: tuple[int, int, int, int]
    winner: int | None

    def to_json(self) -> dict[str, object]:
        """The state as in cases and the protocol."""
        return {
            "levels": [r.value for r in self.levels],
            "declarer": self.declarer,
            "failures": list(self.failures),
            "firsts": list(self.firsts),
            "lasts": list(self.lasts),
            "winner": self.winner,
        }

    @staticmethod
    def from_json(data: dict[str, object]) -> MatchState:
        """A state from its JSON form; missing counters start at zero. Errors name the field."""
        levels = data.get("levels")
        if not isinstance(levels, list) or len(levels) != 2:
            raise HarnessError("match state: `levels` must be two levels, team 0 then team 1")
        pair = (_level(levels[0]), _level(levels[1]))

        def counts(key: str, n: int) -> tuple[int, ...]:
            raw = data.get(key, [0] * n)
            if (
                not isinstance(raw, list)
                or len(raw) != n
                or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in raw)
            ):
                raise HarnessError(f"match state: `{key}` must be {n} whole numbers, 0 or more")
            return tuple(raw)

        def side(key: str) -> int | None:
            value = data.get(key)
            if value is None:
                return None
            if isinstance(value, bool) or value not in (0, 1):
                raise HarnessError(f"match state: `{key}` must be team 0, team 1 or null")
            return 1 if value == 1 else 0

        f, fi, la = counts("failures", 2), counts("firsts", 4), counts("lasts", 4)
        return MatchState(
            pair,
            side("declarer"),
            (f[0], f[1]),
            (fi[0], fi[1], fi[2], fi[3]),
            (la[0], la[1], la[2], la[3]),
            side("winner"),
        )


def _level(raw: object) -> Rank:
    try:
        rank = parse_rank(str(raw))
    except HarnessError:
        raise HarnessError(f"match state: level {raw!r} is not a rank 2..A") from None
    if rank.is_joker:
        raise HarnessError(f"match state: level {raw!r} is a joker, not a level")
    return rank


@implements("levels.start")
def new_match(ruleset: Ruleset) -> MatchState:
    """The state at the start of a match: both teams at the starting level."""
    start = ruleset.rules.levels.start
    # The counters start at zero as in a state sent without them (`from_json`).
    return MatchState.from_json({"levels": [start.value, start.value]})


@dataclass(frozen=True)
class Settlement:
    """The outcome of settling a round: the new state, level changes and the reasons for them."""

    state: MatchState
    finish: FinishKind
    changes: tuple[int, int]
    won: bool
    events: tuple[str, ...] = field(default=())
    levels_won: int = 0
    """The levels the round is worth to its winners (贏家方升x級, what `score` takes as
    `levels_gained`): those they climbed, streaks included; in the round that wins the match,
    where they climb no further, those its finish and streaks are worth (過A). Not in the
    protocol's answer, which gives the levels climbed (`changes`)."""

    def to_json(self) -> dict[str, object]:
        """The settlement as in cases and the protocol."""
        return {
            "state": self.state.to_json(),
            "finish": self.finish.value,
            "changes": list(self.changes),
            "won": self.won,
            "events": list(self.events),
        }


def _shift(order: Sequence[Rank], rank: Rank, by: int, low: Rank, high: Rank) -> Rank:
    """`rank` moved `by` levels along `order` (ranks.natural), kept between `low` and `high`."""
    target = min(order.index(rank) + by, order.index(high))
    return order[max(target, order.index(low))]


@implements("levels.final", "levels.played", "levels.cap_at_final", "levels.final_win")
@implements("levels.up.double_down", "levels.up.first_and_third", "levels.up.first_and_fourth")
@implements("levels.gain_at_final", "levels.floor", "levels.streak.firsts", "levels.streak.lasts")
@implements("levels.failures.limit", "levels.failures.reset_to", "levels.failures.counts")
@implements("finish.double_down_both_last", "ranks.natural")
def settle(state: MatchState, finish: Finish, ruleset: Ruleset) -> Settlement:
    """The match after a round that ended in `finish` (升級, final level, failures, streaks)."""
    if state.winner is not None:
        raise HarnessError(f"the match is already won by team {state.winner}")
    levels = ruleset.rules.levels
    order = ruleset.rules.ranks.natural
    winners = finish.winners
    kind = finish.kind
    events: list[str] = []
    last_seats = (
        set(finish.losers)
        if (kind is FinishKind.DOUBLE_DOWN and ruleset.rules.finish.double_down_both_last)
        else {finish.last}
    )
    firsts = tuple(state.firsts[s] + 1 if s == finish.first else 0 for s in range(4))
    lasts = tuple(state.lasts[s] + 1 if s in last_seats else 0 for s in range(4))
    played = state.declarer
    final = levels.final
    at_final = played is not None and state.levels[played] == final

    wins_at_final = at_final and played == winners and kind in levels.final_win
    if wins_at_final:
        events.append(f"team {winners} wins the match at {final.value} ({kind.value})")

    gain = [0, 0]
    # At its own final level, a declarer that wins without the required finish does not level
    # up at all that round (否則當局玩家不升級): no table levels, no streak bonus.
    stays = (
        at_final
        and played == winners
        and not wins_at_final
        and levels.gain_at_final is FinalGain.NONE
    )
    if not stays:
        gain[winners] += levels.up.for_finish(kind)
    streak = levels.streak
    if streak.firsts is not None and not stays:
        bonus = streak.firsts.levels_for(firsts[finish.first])
        if bonus:
            gain[winners] += bonus
            events.append(f"seat {finish.first}: {firsts[finish.first]} firsts in a row, +{bonus}")
    if streak.lasts is not None:
        for seat in sorted(last_seats):
            penalty = streak.lasts.levels_for(lasts[seat])
            if penalty:
                gain[team(seat)] -= penalty
                events.append(f"seat {seat}: {lasts[seat]} lasts in a row, -{penalty}")

    if wins_at_final:
        # The winners are at the final level and climb no further: the levels stay as they are,
        # and the win is worth its table levels (a double-down at A: 3).
        done = replace(
            state,
            winner=winners,
            declarer=winners,
            firsts=_four(firsts),
            lasts=_four(lasts),
        )
        return Settlement(done, kind, (0, 0), True, tuple(events), gain[winners])

    new_levels = list(state.levels)
    failures = list(state.failures)
    below = order.index(state.levels[winners]) < order.index(final)
    passes = below and order.index(state.levels[winners]) + gain[winners] > order.index(final)
    if passes and not levels.cap_at_final and kind in levels.final_win:
        # 勝方過A必須是頭遊和二遊: a gain past the final level, with the finish the final level
        # needs, wins the match at once (the literal reading of match-rules 五).
        events.append(f"team {winners} passes {final.value} ({kind.value}) and wins the match")
        won = list(state.levels)
        won[winners] = final
        done = replace(
            state,
            levels=(won[0], won[1]),
            winner=winners,
            declarer=winners,
            firsts=_four(firsts),
            lasts=_four(lasts),
        )
        change = order.index(final) - order.index(state.levels[winners])
        passed = (change, 0) if winners == 0 else (0, change)
        return Settlement(done, kind, passed, True, tuple(events), gain[winners])
    # Otherwise no level passes the final one: a team that would pass it stops there (A必打).
    for side in (0, 1):
        if gain[side]:
            new_levels[side] = _shift(order, state.levels[side], gain[side], levels.floor, final)
    if at_final and played is not None:
        failures[played] += 1
        events.append(f"team {played} fails at {final.value} ({failures[played]})")
        if levels.failures.limit is not None and failures[played] >= levels.failures.limit:
            new_levels[played] = levels.failures.reset_to
            failures[played] = 0
            events.append(f"team {played} goes back to {levels.failures.reset_to.value}")
    changes = tuple(order.index(new_levels[s]) - order.index(state.levels[s]) for s in (0, 1))
    after = MatchState(
        (new_levels[0], new_levels[1]),
        winners,
        (failures[0], failures[1]),
        _four(firsts),
        _four(lasts),
        None,
    )
    return Settlement(after, kind, (changes[0], changes[1]), False, tuple(events), changes[winners])


def _four(values: tuple[int, ...]) -> tuple[int, int, int, int]:
    a, b, c, d = values
    return (a, b, c, d)
