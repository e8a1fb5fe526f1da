"""Scoring a match (計分): the base x, the end bonus, and x·n ± a with the room's n and a."""

from __future__ import annotations

from dataclasses import dataclass

from harness.model.cards import Rank
from harness.model.registry import implements, only
from harness.model.ruleset import Ruleset
from harness.model.seats import FinishKind, team


@dataclass(frozen=True, slots=True)
class Score:
    """What each seat wins (positive) or pays (negative) at the end of a match, and the base."""

    base: int | None
    amounts: tuple[int, int, int, int] | None

    def to_json(self) -> dict[str, object]:
        """The score as in cases and the protocol."""
        return {"base": self.base, "amounts": list(self.amounts) if self.amounts else None}


@implements("scoring.base", "scoring.end_bonus", "scoring.room_coefficient", "scoring.room_fee")
@implements("scoring.loser_fee_sign", "scoring.winner_fee_sign")
@implements("scoring.settle", values=only("match_end"))
def score(winner: int, last_finish: FinishKind, final_level: Rank, ruleset: Ruleset) -> Score:
    """The match score: None where the variant does not score matches.

    The base x is the levels the winners' finish is worth in the last round (遊戲基數 = 升x級),
    plus the bonus for the level the match ended at (打到8 +5, 打到A +10). A loser pays
    x·n + a and a winner receives x·n − a (signs as the variant says), n and a per room.
    """
    rules = ruleset.rules
    scoring = rules.scoring
    if scoring.base is None:
        return Score(None, None)
    base = rules.levels.up.for_finish(last_finish)
    base += scoring.end_bonus.get(final_level, 0)
    stake = base * scoring.room_coefficient
    win = stake + scoring.winner_fee_sign * scoring.room_fee
    lose = stake + scoring.loser_fee_sign * scoring.room_fee
    a, b, c, d = (win if team(s) == winner else -lose for s in range(4))
    return Score(base, (a, b, c, d))
