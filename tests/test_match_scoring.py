"""A match scored round by round (歡樂豆) through the match layer, as the simulation scores it:
`settle` then `round_score`, the round that wins the match included (issue 48, item 4).

online-app 7.計分規則, quoted from spec/sources (the source text of online-app):
    失敗玩家的歡樂豆消耗：x×n+a
    勝利玩家的歡樂豆獎勵：x×n-a
    其中：x=遊戲基數 … 一局遊戲結束，贏家方公升x級，遊戲基數等於x。
    打到8結束，遊戲基數額外加5；打到a結束，遊戲基數額外加10分。
and 5.公升級規則:
    如果是雙下，贏家方公升3級。如果贏家方獲得第一名和第三名，贏家方公升2級；
    如果某個玩家連續3次頭遊，則該玩家所在的一方當局額外公升1級；累計4次額外公升2級，以此類推；
    打到系統指定的最終點數的那一局，必須當局贏家沒有末遊才可以最終贏得本局。

In the round that wins the match the winners are at the final level and climb no further; the
variant's note on scoring.base (and the corpus's score cases, e.g.
score-double-down-at-ace-default-room: "x = 3 + 10 = 13") reads x there as the levels the
finish is worth by the table (過A), not the nil change of level. Every expected value below is
worked out by hand from those lines.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.interpreter.bots import play_match
from harness.interpreter.match import new_match, settle
from harness.interpreter.scoring import round_score
from harness.model.loader import load_variant
from harness.model.seats import Finish, FinishKind, team
from harness.simulation.records import match_record

# Team 0 is seats 0 and 2, team 1 seats 1 and 3. Each round: the finish (first to last), the
# levels after it (team 0, team 1), and x, by hand:
SCRIPT: list[tuple[tuple[int, int, int, int], tuple[str, str], int]] = [
    # 雙下 for team 0: 2 -> 5, x = 3. Seat 0 first (1 in a row); seats 1, 3 both last.
    ((0, 2, 1, 3), ("5", "2"), 3),
    # Team 1 first and third: 2 -> 4, x = 2. Seat 0's run of firsts ends.
    ((1, 0, 3, 2), ("5", "4"), 2),
    # Team 0 first and third: 5 -> 7, x = 2. Seat 0 first (1).
    ((0, 1, 2, 3), ("7", "4"), 2),
    # 雙下 for team 0: 7 -> 10, x = 3. Seat 0 first (2); seat 3 last (2), seat 1 last (1).
    ((0, 2, 3, 1), ("T", "4"), 3),
    # 雙下 for team 1: 4 -> 7, x = 3. Seat 1 first; seat 0's run ends; seats 2, 0 last (1).
    ((1, 3, 2, 0), ("T", "7"), 3),
    # Team 0 first and third: 10 -> Q, x = 2. Seat 0 first (1); seat 3 last (1).
    ((0, 1, 2, 3), ("Q", "7"), 2),
    # 雙下 for team 0 from Q: 3 levels, but the final level A must be played (A必打): Q -> A,
    # x = 2, the levels climbed. Seat 0 first (2); seat 3 last (2).
    ((0, 2, 1, 3), ("A", "7"), 2),
    # Team 0 declares at A and wins a 雙下 (贏家沒有末遊): the match is won. Seat 0 is first for
    # the third round in a row (連續3次頭遊, +1): the win is worth 3 + 1 = 4 levels, x = 4 + 10.
    ((0, 2, 3, 1), ("A", "7"), 4 + 10),
]


def _play_script(options: dict[str, Any]) -> list[tuple[int | None, tuple[int, ...] | None]]:
    """Settle and score the scripted rounds of online-app with `options`: each round's base and
    amounts; the levels after each round are checked against the script on the way."""
    ruleset = load_variant("online-app", options)
    state = new_match(ruleset)
    scores = []
    for number, (order, levels, _) in enumerate(SCRIPT, start=1):
        finish = Finish.of(list(order))
        settled = settle(state, finish, ruleset)
        assert (settled.state.levels[0].value, settled.state.levels[1].value) == levels, number
        assert settled.won == (number == len(SCRIPT)), number
        got = round_score(finish, settled, ruleset)
        scores.append((got.base, got.amounts))
        state = settled.state
    return scores


def _amounts(winners: int, x: int, n: int, a: int) -> tuple[int, int, int, int]:
    """x×n−a to each winner, −(x×n+a) to each loser."""
    w, b, c, d = (x * n - a if team(s) == winners else -(x * n + a) for s in range(4))
    return (w, b, c, d)


def test_settled_once_the_winning_round_counts_its_double_down_and_streak() -> None:
    """scoring.settle (match_end, the default; n = 1, a = 0): rounds 1 to 7 settle nothing; the
    round that wins the match at A settles x = 3 + 1 + 10 = 14, not the end bonus alone."""
    scores = _play_script({})
    assert scores[:-1] == [(None, (0, 0, 0, 0))] * (len(SCRIPT) - 1)
    assert scores[-1] == (14, (14, -14, 14, -14))


def test_settled_every_round_with_a_room_coefficient_and_fee() -> None:
    """scoring.settle (each_round), n = 2, a = 1: each round x×2−1 to its winners and x×2+1
    from its losers; the last round's x is 14 (28 − 1 = 27 received, 28 + 1 = 29 paid)."""
    scores = _play_script({"settle": "each_round", "room_coefficient": 2, "room_fee": 1})
    expected = [(x, _amounts(order[0] % 2, x, 2, 1)) for order, _, x in SCRIPT]
    assert scores == expected
    assert scores[-1] == (14, (27, -29, 27, -29))


def test_a_match_to_eight_scores_the_winning_round_plus_five() -> None:
    """Option target 8 (打到8結束，遊戲基數額外加5): team 0 climbs 2 -> 5 -> 8 by two 雙下,
    then at 8 seat 2 leads first and third (seat 0's run of firsts ends): 2 + 5 = 7."""
    ruleset = load_variant("online-app", {"target": "8"})
    state = new_match(ruleset)
    finishes = [(0, 2, 1, 3), (0, 2, 1, 3), (2, 1, 0, 3)]
    for order in finishes:
        finish = Finish.of(list(order))
        settled = settle(state, finish, ruleset)
        got = round_score(finish, settled, ruleset)
        state = settled.state
    assert settled.won
    assert (got.base, got.amounts) == (7, (7, -7, 7, -7))


# 5.公升級規則 by hand: the levels a finish is worth (雙下 3, 第一名和第三名 2), and the end bonus
# of a match to A (打到a結束 … 額外加10分).
TABLE = {FinishKind.DOUBLE_DOWN.value: 3, FinishKind.FIRST_AND_THIRD.value: 2}
END_BONUS_A = 10


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_simulated_matches_score_the_winning_round_by_its_finish(seed: int) -> None:
    """In simulated matches of online-app, each seat of the winning team gains, in the round
    that wins the match, its finish's table levels plus the streak bonus of the first's run
    (third first in a row +1, fourth +2: 累計4次額外公升2級), plus 10; earlier rounds settle
    nothing; the match record's beans are that sum."""
    ruleset = load_variant("online-app")
    log = play_match(ruleset, seed, "heuristic")
    assert log.winner is not None
    *before, last = log.rounds
    assert all(r.score == (0, 0, 0, 0) for r in before)
    first = last.finish[0]
    run = last.settlement["state"]["firsts"][first]
    x = TABLE[last.settlement["finish"]] + max(0, run - 2) + END_BONUS_A
    assert last.score == tuple(x if team(s) == log.winner else -x for s in range(4))
    assert match_record(log, 0, ruleset).beans == x
