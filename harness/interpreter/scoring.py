"""Scoring (計分): the base x, the end bonus, and x·n ± a with the room's n and a.

A settlement follows a round (一局). Where the variant settles once per match (`scoring.settle:
match_end`), only the round that ends the match settles; where it settles after every round
(`each_round`), each round does, and the end bonus is added in the round that ends the match.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.interpreter.match import Settlement
from harness.model.cards import Rank
from harness.model.declarations import implements
from harness.model.ruleset import Ruleset
from harness.model.seats import Finish, team

NOTHING_SETTLED = (0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Score:
    """What each seat wins (positive) or pays (negative) after a round, and the base x.

    `amounts` is None where the variant does not score; `base` is None there too, and also
    after a round that settles nothing (the amounts are then all 0).
    """

    base: int | None
    amounts: tuple[int, int, int, int] | None

    def to_json(self) -> dict[str, object]:
        """The score as in cases and the protocol."""
        amounts = None if self.amounts is None else list(self.amounts)
        return {"base": self.base, "amounts": amounts}


@implements("scoring.base", "scoring.end_bonus", "scoring.room_coefficient", "scoring.room_fee")
@implements("scoring.loser_fee_sign", "scoring.winner_fee_sign", "scoring.settle")
def score(
    winner: int, levels_gained: int, final_level: Rank, match_over: bool, ruleset: Ruleset
) -> Score:
    """The beans each seat wins or pays after a round (歡樂豆); None where the variant does not
    score.

    The base x is the levels the round's winners gained (遊戲基數 = 升x級, streak bonuses and
    penalties included; 0 when they gained none or lost levels; in the round that wins the
    match, the levels the win is worth, `Settlement.levels_won`), plus, in the round that ends
    the match, the bonus for the level it was played to (打到8 +5, 打到A +10). A loser pays
    x·n + a and a winner receives x·n − a (signs as the variant says), n and a per room. Once per
    match (`match_end`), a round that does not end the match settles nothing.
    """
    scoring = ruleset.rules.scoring
    if scoring.base is None:
        return Score(None, None)
    if scoring.settle == "match_end" and not match_over:
        return Score(None, NOTHING_SETTLED)
    base = max(levels_gained, 0)
    if match_over:
        base += scoring.end_bonus.get(final_level, 0)
    stake = base * scoring.room_coefficient
    win = stake + scoring.winner_fee_sign * scoring.room_fee
    lose = stake + scoring.loser_fee_sign * scoring.room_fee
    a, b, c, d = (win if team(s) == winner else -lose for s in range(4))
    return Score(base, (a, b, c, d))


def round_score(finish: Finish, settled: Settlement, ruleset: Ruleset) -> Score:
    """The beans after a round that ended in `finish` and was `settled` (歡樂豆): x from the
    levels the round is worth to its winners, the win's table levels in the round that wins
    the match (過A), with the end bonus of the level the match was played to."""
    winners = finish.winners
    level = settled.state.levels[winners]
    return score(winners, settled.levels_won, level, settled.won, ruleset)
