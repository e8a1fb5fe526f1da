"""Tests for a match (一盤): level-ups, the final level, failures, streaks, and the score.

Every expected value below was worked out by hand from the variants' source texts
(spec/sources/*.txt), quoted beside the tests; none is copied from the code's output. Each test
names the clause id(s) it checks.

Seats 0-3 play in order; partners sit opposite (0 & 2, 1 & 3); team(seat) = seat % 2. A finish
is the finishing order, first to last. The winners are the first's team, and the kind is where
the first's partner finished: 2nd double_down (雙下), 3rd first_and_third, 4th first_and_fourth.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.errors import HarnessError, InputError
from harness.interpreter.bots import next_level
from harness.interpreter.match import MatchState, new_match, settle
from harness.interpreter.operations import run_operation
from harness.interpreter.scoring import Score, score
from harness.model.cards import Rank
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset
from harness.model.seats import Finish, FinishKind

VARIANTS = ("huaian", "online-app", "competition", "match-rules")
STREAK_VARIANTS = ("huaian", "online-app")
NO_STREAK_VARIANTS = ("competition", "match-rules")
# 打到A: the first, partner-not-last finishes win the match in all but match-rules (雙下 only).
LENIENT_FINAL = ("huaian", "online-app", "competition")

DD = FinishKind.DOUBLE_DOWN
F13 = FinishKind.FIRST_AND_THIRD
F14 = FinishKind.FIRST_AND_FOURTH

# Team 0 wins: seat 0 first, partner seat 2 second / third / last.
T0 = {DD: (0, 2, 1, 3), F13: (0, 1, 2, 3), F14: (0, 1, 3, 2)}
# Team 1 wins: seat 1 first, partner seat 3 second / third / last.
T1 = {DD: (1, 3, 0, 2), F13: (1, 0, 3, 2), F14: (1, 0, 2, 3)}

# The level-up table, by hand from each source:
#   huaian 升級規則 / online-app 5.公升級規則: 雙下 升3級; 第一名和第三名 升2級; 第一名和末游 升1級.
#   competition 第四條: 雙下 公升3級; 對手有一家是下游 公升2級; 自己對門是下游 公升1級.
#   match-rules 三: 上游的對門為二遊（雙下）升4級; 如為三遊 升2級; 如為四遊 升1級.
UP = {
    "huaian": {DD: 3, F13: 2, F14: 1},
    "online-app": {DD: 3, F13: 2, F14: 1},
    "competition": {DD: 3, F13: 2, F14: 1},
    "match-rules": {DD: 4, F13: 2, F14: 1},
}

# From 5, written out by hand: 5+1 = 6, 5+2 = 7, 5+3 = 8, 5+4 = 9.
FROM_FIVE = {1: "6", 2: "7", 3: "8", 4: "9"}
# From 3 (the other team's level in the tests below): 3+1 = 4, … 3+4 = 7.
FROM_THREE = {1: "4", 2: "5", 3: "6", 4: "7"}


def variant(slug: str, options: dict[str, Any] | None = None) -> Ruleset:
    """The bundled variant `slug`, with these options."""
    return load_variant(slug, options) if options else load_variant(slug)


def state(
    levels: tuple[str, str],
    declarer: int | None = None,
    failures: tuple[int, int] = (0, 0),
    firsts: tuple[int, int, int, int] = (0, 0, 0, 0),
    lasts: tuple[int, int, int, int] = (0, 0, 0, 0),
) -> MatchState:
    """A match state between rounds, levels written as ranks."""
    return MatchState((Rank(levels[0]), Rank(levels[1])), declarer, failures, firsts, lasts, None)


def finish(order: tuple[int, int, int, int]) -> Finish:
    return Finish.of(list(order))


def levels_of(s: MatchState) -> tuple[str, str]:
    return (s.levels[0].value, s.levels[1].value)


# ---------------------------------------------------------------------------------------------
# The start of a match and who declares


@pytest.mark.parametrize("slug", VARIANTS)
def test_new_match_starts_both_teams_at_two(slug: str) -> None:
    """levels.start, levels.played: 從2開始打 (every source); nobody has declared yet."""
    s = new_match(variant(slug))
    assert levels_of(s) == ("2", "2")
    assert s.declarer is None
    assert s.failures == (0, 0)
    assert s.firsts == (0, 0, 0, 0)
    assert s.lasts == (0, 0, 0, 0)
    assert s.winner is None


@pytest.mark.parametrize("slug", VARIANTS)
def test_first_round_winners_level_up_and_declare(slug: str) -> None:
    """levels.up.first_and_third, levels.played: team 1 wins the first round 1st+3rd: 2 -> 4."""
    out = settle(new_match(variant(slug)), finish(T1[F13]), variant(slug))
    assert levels_of(out.state) == ("2", "4")
    assert out.changes == (0, 2)
    assert out.state.declarer == 1
    assert out.won is False


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize(
    ("declarer", "order", "expected"),
    [
        (0, T0[DD], 0),
        (0, T1[F14], 1),
        (1, T0[F13], 0),
        (1, T1[DD], 1),
        (None, T0[F14], 0),
    ],
)
def test_declarer_after_settling_is_the_winners_team(
    slug: str, declarer: int | None, order: tuple[int, int, int, int], expected: int
) -> None:
    """levels.played (last_winner): the next round is played at the level of the round's winners."""
    out = settle(state(("5", "6"), declarer), finish(order), variant(slug))
    assert out.state.declarer == expected
    assert next_level(out.state) == out.state.levels[expected]


# ---------------------------------------------------------------------------------------------
# Level-ups


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize("kind", [DD, F13, F14])
def test_declarer_levels_up_by_the_table(slug: str, kind: FinishKind) -> None:
    """levels.up.double_down, levels.up.first_and_third, levels.up.first_and_fourth.

    Team 0 declares at 5 and wins; only the winners level up (只有上游方可以升級).
    """
    out = settle(state(("5", "3"), 0), finish(T0[kind]), variant(slug))
    up = UP[slug][kind]
    assert out.finish is kind
    assert levels_of(out.state) == (FROM_FIVE[up], "3")
    assert out.changes == (up, 0)
    assert out.won is False
    assert out.state.winner is None
    assert out.state.failures == (0, 0)


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize("kind", [DD, F13, F14])
def test_non_declarer_levels_up_by_the_table(slug: str, kind: FinishKind) -> None:
    """levels.up.*, levels.played: team 1 wins a round played at team 0's level 5, from 3."""
    out = settle(state(("5", "3"), 0), finish(T1[kind]), variant(slug))
    up = UP[slug][kind]
    assert out.finish is kind
    assert levels_of(out.state) == ("5", FROM_THREE[up])
    assert out.changes == (0, up)
    assert out.state.declarer == 1


def test_match_rules_double_down_is_four() -> None:
    """levels.up.double_down: match-rules 如上游的對門為二遊（俗稱雙下），則上游方升4級: 2 -> 6."""
    out = settle(state(("2", "2"), 0), finish(T0[DD]), variant("match-rules"))
    assert levels_of(out.state) == ("6", "2")


# ---------------------------------------------------------------------------------------------
# The cap at the final level


@pytest.mark.parametrize("slug", VARIANTS)
def test_double_down_from_queen_stops_at_ace(slug: str) -> None:
    """levels.final, levels.cap_at_final: Q + 3 (or 4) would pass A; the team stops at A (A必打)."""
    out = settle(state(("Q", "4"), 0), finish(T0[DD]), variant(slug))
    assert levels_of(out.state) == ("A", "4")
    assert out.changes == (2, 0)  # Q -> K -> A
    assert out.won is False
    assert out.state.winner is None


@pytest.mark.parametrize("slug", VARIANTS)
def test_first_and_third_from_king_stops_at_ace(slug: str) -> None:
    """levels.cap_at_final: K + 2 stops at A; reaching A does not win the match."""
    out = settle(state(("K", "4"), 0), finish(T0[F13]), variant(slug))
    assert levels_of(out.state) == ("A", "4")
    assert out.changes == (1, 0)
    assert out.won is False


@pytest.mark.parametrize("slug", VARIANTS)
def test_non_declarer_gain_from_jack_stops_at_ace(slug: str) -> None:
    """levels.cap_at_final: team 1 at J wins a double-down at team 0's level: J + 3/4 -> A."""
    out = settle(state(("9", "J"), 0), finish(T1[DD]), variant(slug))
    assert levels_of(out.state) == ("9", "A")
    assert out.changes == (0, 3)  # J -> Q -> K -> A: J + 3 is A exactly, J + 4 stops there
    assert out.won is False
    assert out.state.declarer == 1


# ---------------------------------------------------------------------------------------------
# The final level: winning and failing there


@pytest.mark.parametrize("slug", VARIANTS)
def test_double_down_at_own_ace_wins_the_match(slug: str) -> None:
    """levels.final_win: a double-down by the declarers at A wins the match in every source.

    competition: 打到a，打家必須有一家是上游，且對家不是下游;
    match-rules: 勝方過“A”必須是頭遊和二遊; huaian/online-app: 必須當局贏家沒有末游.
    """
    out = settle(state(("A", "7"), 0), finish(T0[DD]), variant(slug))
    assert out.won is True
    assert out.state.winner == 0
    assert out.changes == (0, 0)
    assert levels_of(out.state) == ("A", "7")


@pytest.mark.parametrize("slug", VARIANTS)
def test_team_one_wins_at_its_own_ace(slug: str) -> None:
    """levels.final_win: the same for team 1 declaring at A."""
    out = settle(state(("7", "A"), 1), finish(T1[DD]), variant(slug))
    assert out.won is True
    assert out.state.winner == 1


@pytest.mark.parametrize("slug", LENIENT_FINAL)
def test_first_and_third_at_own_ace_wins_where_partner_not_last_suffices(slug: str) -> None:
    """levels.final_win: 1st+3rd has no last place among the winners (沒有末游 / 對家不是下游)."""
    out = settle(state(("A", "7"), 0), finish(T0[F13]), variant(slug))
    assert out.won is True
    assert out.state.winner == 0
    assert out.changes == (0, 0)


def test_match_rules_first_and_third_at_ace_is_not_a_win() -> None:
    """levels.final_win, levels.failures.counts: a 1st+3rd at A is no win in match-rules.

    match-rules 五: 勝方過“A”必須是頭遊和二遊，打對方雙下，否則不算過“A”，比賽繼續.
    Team 0 stays at A; the round counts as a failure at A.
    """
    out = settle(state(("A", "7"), 0), finish(T0[F13]), variant("match-rules"))
    assert out.won is False
    assert out.state.winner is None
    assert levels_of(out.state) == ("A", "7")
    assert out.changes == (0, 0)
    assert out.state.failures == (1, 0)
    assert out.state.declarer == 0


@pytest.mark.parametrize("slug", VARIANTS)
def test_first_and_fourth_at_own_ace_is_never_a_win(slug: str) -> None:
    """levels.final_win, levels.cap_at_final, levels.failures.counts: the partner is last (下游).

    huaian: 否則當局玩家不升級 — no level change; the round is a failure at A.
    """
    out = settle(state(("A", "7"), 0, failures=(1, 0)), finish(T0[F14]), variant(slug))
    assert out.won is False
    assert out.state.winner is None
    assert levels_of(out.state) == ("A", "7")
    assert out.changes == (0, 0)
    assert out.state.failures == (2, 0)
    assert out.state.declarer == 0


@pytest.mark.parametrize("slug", VARIANTS)
def test_losing_at_own_ace_is_a_failure(slug: str) -> None:
    """levels.failures.counts: the opponents win a round played at team 0's A (A打不過去)."""
    out = settle(state(("A", "7"), 0), finish(T1[F13]), variant(slug))
    assert out.won is False
    assert levels_of(out.state) == ("A", "9")
    assert out.changes == (0, 2)
    assert out.state.failures == (1, 0)
    assert out.state.declarer == 1


@pytest.mark.parametrize("slug", VARIANTS)
def test_round_below_the_final_level_is_no_failure(slug: str) -> None:
    """levels.failures.counts: only rounds played at the declarer's final level count."""
    out = settle(state(("K", "7"), 0), finish(T1[F14]), variant(slug))
    assert out.state.failures == (0, 0)


@pytest.mark.parametrize("slug", VARIANTS)
def test_win_while_other_team_declares_at_ace_does_not_win(slug: str) -> None:
    """levels.final_win, levels.played, levels.cap_at_final, levels.failures.counts.

    Both teams at A, team 1 declares; team 0 wins a double-down. The round was played at team 1's
    level, so team 0 does not win the match: it stays at A and declares next. Team 1 failed at A.
    """
    out = settle(state(("A", "A"), 1), finish(T0[DD]), variant(slug))
    assert out.won is False
    assert out.state.winner is None
    assert levels_of(out.state) == ("A", "A")
    assert out.changes == (0, 0)
    assert out.state.declarer == 0
    assert out.state.failures == (0, 1)
    # The next round is played at team 0's A; a double-down there wins.
    again = settle(out.state, finish(T0[DD]), variant(slug))
    assert again.won is True
    assert again.state.winner == 0


@pytest.mark.parametrize("slug", VARIANTS)
def test_win_at_ace_while_other_team_declares_below(slug: str) -> None:
    """levels.final_win, levels.cap_at_final: team 0 at A wins a round played at team 1's 9.

    Not a match win, no failure for anyone (team 1 is not at its final level), A stays A.
    """
    out = settle(state(("A", "9"), 1), finish(T0[DD]), variant(slug))
    assert out.won is False
    assert levels_of(out.state) == ("A", "9")
    assert out.state.failures == (0, 0)
    assert out.state.declarer == 0


@pytest.mark.parametrize("slug", VARIANTS)
def test_settle_after_the_match_is_won_raises(slug: str) -> None:
    """levels.final_win: a won match has no further rounds."""
    out = settle(state(("A", "7"), 0), finish(T0[DD]), variant(slug))
    with pytest.raises(HarnessError):
        settle(out.state, finish(T1[DD]), variant(slug))


# ---------------------------------------------------------------------------------------------
# Failures at A: competition's three, and no limit elsewhere


def test_competition_two_failures_keep_the_team_at_ace() -> None:
    """levels.failures.limit, levels.failures.counts: the second failure leaves A and failures 2."""
    out = settle(state(("A", "7"), 0, failures=(1, 0)), finish(T1[F14]), variant("competition"))
    assert levels_of(out.state) == ("A", "8")
    assert out.state.failures == (2, 0)
    assert out.changes == (0, 1)


@pytest.mark.parametrize("order", [T1[F13], T0[F14]], ids=["opponents_win", "own_first_fourth"])
def test_competition_third_failure_sends_the_team_back_to_two(order: tuple[int, ...]) -> None:
    """levels.failures.limit, levels.failures.reset_to, levels.failures.counts.

    competition 第四條: 總計三次a打不過去，退到2重打. A -> 2 is 12 levels down.
    """
    out = settle(state(("A", "7"), 0, failures=(2, 0)), finish(order), variant("competition"))
    assert out.won is False
    assert out.state.levels[0] == Rank("2")
    assert out.state.failures == (0, 0)
    assert out.changes[0] == -12


def test_competition_failures_count_in_total_across_rounds() -> None:
    """levels.failures.counts, levels.failures.limit, levels.failures.reset_to: 總計 (in total).

    A win at team 1's level in between does not reset team 0's count.
    """
    comp = variant("competition")
    s = state(("A", "5"), 0)
    s = settle(s, finish(T1[F14]), comp).state  # team 1 wins at team 0's A: failure 1
    assert (levels_of(s), s.failures, s.declarer) == (("A", "6"), (1, 0), 1)
    s = settle(s, finish(T0[F14]), comp).state  # team 0 wins at team 1's 6: stays A, no change
    assert (levels_of(s), s.failures, s.declarer) == (("A", "6"), (1, 0), 0)
    s = settle(s, finish(T0[F14]), comp).state  # 1st+4th at its own A: failure 2
    assert (levels_of(s), s.failures, s.declarer) == (("A", "6"), (2, 0), 0)
    out = settle(s, finish(T1[DD]), comp)  # team 1 double-down at team 0's A: failure 3
    assert levels_of(out.state) == ("2", "9")
    assert out.state.failures == (0, 0)
    assert out.state.declarer == 1
    assert out.changes == (-12, 3)


@pytest.mark.parametrize("slug", ("huaian", "online-app", "match-rules"))
def test_no_failure_limit_outside_competition(slug: str) -> None:
    """levels.failures.limit (none), levels.failures.counts: the count grows; A stays A."""
    out = settle(state(("A", "7"), 0, failures=(5, 0)), finish(T1[F14]), variant(slug))
    assert levels_of(out.state) == ("A", "8")
    assert out.state.failures == (6, 0)
    third = settle(state(("A", "7"), 0, failures=(2, 0)), finish(T1[F14]), variant(slug))
    assert levels_of(third.state) == ("A", "8")
    assert third.state.failures == (3, 0)


@pytest.mark.parametrize("slug", VARIANTS)
def test_levels_never_pass_ace(slug: str) -> None:
    """levels.final, levels.cap_at_final: a match of double-downs by team 0 from 2 never passes A.

    Team 0 wins at A (its own level) on the first double-down played there. Seats 0 and 2 take
    turns going first, so that no player has a streak of firsts.
    """
    rules = variant(slug)
    s = new_match(rules)
    seen = []
    for i in range(10):
        out = settle(s, finish((0, 2, 1, 3) if i % 2 == 0 else (2, 0, 1, 3)), rules)
        s = out.state
        seen.append(s.levels[0].value)
        if out.won:
            break
    step = UP[slug][DD]
    # By hand: 3/2/1 table: 2 -> 5 -> 8 -> J -> A -> won at A (stays A).
    #          match-rules:  2 -> 6 -> T -> A (T + 4 capped) -> won at A (stays A).
    expected = ["5", "8", "J", "A", "A"] if step == 3 else ["6", "T", "A", "A"]
    assert seen == expected
    assert s.winner == 0


# ---------------------------------------------------------------------------------------------
# huaian / online-app: a final level of 8


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
def test_target_eight_caps_at_eight(slug: str) -> None:
    """levels.final, levels.cap_at_final: 打到8或者打到A; with target 8, 6 + 3 stops at 8."""
    out = settle(state(("6", "3"), 0), finish(T0[DD]), variant(slug, {"target": "8"}))
    assert levels_of(out.state) == ("8", "3")
    assert out.changes == (2, 0)
    assert out.won is False
    # Without the option the final is A and 6 + 3 = 9.
    default = settle(state(("6", "3"), 0), finish(T0[DD]), variant(slug))
    assert levels_of(default.state) == ("9", "3")


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
@pytest.mark.parametrize(("kind", "wins"), [(DD, True), (F13, True), (F14, False)])
def test_target_eight_wins_at_eight(slug: str, kind: FinishKind, wins: bool) -> None:
    """levels.final_win, levels.failures.counts: with target 8 the match is won at 8.

    打到系統指定的最終點數的那一局，必須當局贏家沒有末游才可以最終贏得本局。否則當局玩家不升級。
    """
    out = settle(state(("8", "5"), 0), finish(T0[kind]), variant(slug, {"target": "8"}))
    assert out.won is wins
    assert out.state.winner == (0 if wins else None)
    assert levels_of(out.state) == ("8", "5")
    assert out.changes == (0, 0)
    assert out.state.failures == ((0, 0) if wins else (1, 0))


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
def test_target_eight_does_not_end_at_ace_levels(slug: str) -> None:
    """levels.final: with target A, a double-down at 8 is an ordinary level-up (8 -> J)."""
    out = settle(state(("8", "5"), 0), finish(T0[DD]), variant(slug))
    assert out.won is False
    assert levels_of(out.state) == ("J", "5")


# ---------------------------------------------------------------------------------------------
# Streaks (huaian, online-app): 連續3次頭游 +1, 累計4次 +2, …; 連續3次末游 -1, 4次 -2, …


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
@pytest.mark.parametrize(
    ("before", "kind", "expected", "change"),
    [
        (1, DD, "8", 3),  # 2nd first in a row: no bonus, 5 + 3
        (2, DD, "9", 4),  # 3rd first in a row: 5 + 3 + 1
        (2, F14, "7", 2),  # 3rd: 5 + 1 + 1
        (3, F13, "9", 4),  # 4th: 5 + 2 + 2
        (4, F14, "9", 4),  # 5th: 5 + 1 + 3
    ],
)
def test_streak_of_firsts_gives_extra_levels(
    slug: str, before: int, kind: FinishKind, expected: str, change: int
) -> None:
    """levels.streak.firsts: a player's 3rd first in a row +1, the 4th +2, the 5th +3.

    如果某個玩家連續3次頭游，則該玩家所在的一方當局額外升1級；累計4次額外升2級，以此類推.
    """
    s = state(("5", "3"), 0, firsts=(before, 0, 0, 0))
    out = settle(s, finish(T0[kind]), variant(slug))
    assert levels_of(out.state) == (expected, "3")
    assert out.changes == (change, 0)
    assert out.state.firsts == (before + 1, 0, 0, 0)


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
def test_streak_of_firsts_is_per_player(slug: str) -> None:
    """levels.streak.firsts: seat 0 had two firsts; its partner seat 2 going first is no streak."""
    s = state(("5", "3"), 0, firsts=(2, 0, 0, 0))
    out = settle(s, finish((2, 0, 1, 3)), variant(slug))  # seat 2 first, seat 0 second: 雙下
    assert levels_of(out.state) == ("8", "3")
    assert out.state.firsts == (0, 0, 1, 0)


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
def test_streak_bonus_stops_at_the_final_level(slug: str) -> None:
    """levels.streak.firsts, levels.cap_at_final: J + 3 + 1 stops at A."""
    out = settle(state(("J", "3"), 0, firsts=(2, 0, 0, 0)), finish(T0[DD]), variant(slug))
    assert levels_of(out.state) == ("A", "3")
    assert out.won is False


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
@pytest.mark.parametrize(
    ("before", "expected", "change"),
    [
        (1, "7", 0),  # 2nd last in a row: no penalty
        (2, "6", -1),  # 3rd: -1
        (3, "5", -2),  # 4th: -2
        (4, "4", -3),  # 5th: -3
    ],
)
def test_streak_of_lasts_costs_levels(slug: str, before: int, expected: str, change: int) -> None:
    """levels.streak.lasts: a player's 3rd last in a row -1, the 4th -2, the 5th -3.

    如果某個玩家連續3次末游，則該玩家所在的一方當局額外降1級；累計4次末游額外降2級，以此類推.

    Team 0 wins 1st+3rd; seat 3 (team 1, at 7) is last again.
    """
    s = state(("5", "7"), 0, lasts=(0, 0, 0, before))
    out = settle(s, finish(T0[F13]), variant(slug))  # (0, 1, 2, 3): seat 3 last
    assert levels_of(out.state) == ("7", expected)
    assert out.changes == (2, change)
    assert out.state.lasts == (0, 0, 0, before + 1)


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
def test_double_down_counts_the_third_place_loser_as_last(slug: str) -> None:
    """finish.double_down_both_last, levels.streak.lasts: 雙下的情況，輸方的兩個玩家均算作末游.

    Seat 1 finishes 3rd in a double-down after two lasts: its third last in a row, team 1 -1.
    """
    s = state(("5", "7"), 0, lasts=(0, 2, 0, 0))
    out = settle(s, finish(T0[DD]), variant(slug))  # (0, 2, 1, 3)
    assert out.state.lasts == (0, 3, 0, 1)
    assert levels_of(out.state) == ("8", "6")
    assert out.changes == (3, -1)


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
def test_double_down_both_losers_on_a_streak_each_cost_a_level(slug: str) -> None:
    """finish.double_down_both_last, levels.streak.lasts: each player's third last costs 1 level."""
    s = state(("5", "7"), 0, lasts=(0, 2, 0, 2))
    out = settle(s, finish(T0[DD]), variant(slug))
    assert out.state.lasts == (0, 3, 0, 3)
    assert levels_of(out.state) == ("8", "5")
    assert out.changes == (3, -2)


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
def test_winners_partner_last_on_a_streak(slug: str) -> None:
    """levels.up.first_and_fourth, levels.streak.lasts: seat 2 is last a third time while its team
    wins 1st+4th: +1 and -1, team 0 stays at 5."""
    s = state(("5", "7"), 0, lasts=(0, 0, 2, 0))
    out = settle(s, finish(T0[F14]), variant(slug))  # (0, 1, 3, 2)
    assert levels_of(out.state) == ("5", "7")
    assert out.changes == (0, 0)
    assert out.state.lasts == (0, 0, 3, 0)


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
def test_streak_penalty_never_goes_below_two(slug: str) -> None:
    """levels.floor, levels.streak.lasts: a penalty at 2 leaves 2; 3 - 2 stops at 2."""
    at_two = settle(state(("5", "2"), 0, lasts=(0, 0, 0, 2)), finish(T0[F13]), variant(slug))
    assert levels_of(at_two.state) == ("7", "2")
    assert at_two.changes == (2, 0)
    at_three = settle(state(("5", "3"), 0, lasts=(0, 0, 0, 3)), finish(T0[F13]), variant(slug))
    assert levels_of(at_three.state) == ("7", "2")
    assert at_three.changes == (2, -1)


@pytest.mark.parametrize("slug", STREAK_VARIANTS)
def test_streak_of_lasts_is_broken_by_another_place(slug: str) -> None:
    """levels.streak.lasts: 連續 — a seat that does not finish last starts again from 0."""
    s = state(("5", "7"), 0, lasts=(0, 0, 0, 2))
    out = settle(s, finish((0, 1, 3, 2)), variant(slug))  # seat 3 third, seat 2 last
    assert out.state.lasts == (0, 0, 1, 0)
    assert levels_of(out.state) == ("6", "7")


@pytest.mark.parametrize("slug", VARIANTS)
def test_double_down_losers_both_counted_last(slug: str) -> None:
    """finish.double_down_both_last: after a double-down both losers count as last."""
    out = settle(state(("5", "7"), 0), finish(T0[DD]), variant(slug))
    assert out.state.lasts == (0, 1, 0, 1)
    single = settle(state(("5", "7"), 0), finish(T0[F13]), variant(slug))
    assert single.state.lasts == (0, 0, 0, 1)


@pytest.mark.parametrize("slug", NO_STREAK_VARIANTS)
def test_no_streaks_in_competition_and_match_rules(slug: str) -> None:
    """levels.streak.firsts, levels.streak.lasts (none): long streaks change nothing."""
    s = state(("5", "7"), 0, firsts=(4, 0, 0, 0), lasts=(0, 4, 0, 4))
    out = settle(s, finish(T0[DD]), variant(slug))
    up = UP[slug][DD]
    assert levels_of(out.state) == (FROM_FIVE[up], "7")
    assert out.changes == (up, 0)
    s = state(("5", "7"), 0, lasts=(0, 0, 0, 4))
    out = settle(s, finish(T0[F13]), variant(slug))
    assert levels_of(out.state) == ("7", "7")


# ---------------------------------------------------------------------------------------------
# The JSON form: run_operation("settle", …)


@pytest.mark.parametrize("slug", VARIANTS)
def test_settle_operation_cap(slug: str) -> None:
    """levels.cap_at_final, finish.double_down_both_last, levels.played: the JSON form."""
    out = run_operation(
        "settle",
        {"state": {"levels": ["Q", "5"], "declarer": 0}, "finish": [0, 2, 1, 3]},
        variant(slug),
    )
    assert out["state"] == {
        "levels": ["A", "5"],
        "declarer": 0,
        "failures": [0, 0],
        "firsts": [1, 0, 0, 0],
        "lasts": [0, 1, 0, 1],
        "winner": None,
    }
    assert out["finish"] == "double_down"
    assert out["changes"] == [2, 0]
    assert out["won"] is False


@pytest.mark.parametrize("slug", VARIANTS)
def test_settle_operation_win_at_ace(slug: str) -> None:
    """levels.final_win: the JSON form of a match won at A by team 1."""
    data = {
        "state": {"levels": ["9", "A"], "declarer": 1, "failures": [0, 1]},
        "finish": [3, 1, 0, 2],
    }
    out = run_operation("settle", data, variant(slug))
    assert out["won"] is True
    assert out["finish"] == "double_down"
    assert out["state"]["winner"] == 1
    assert out["state"]["levels"] == ["9", "A"]
    assert out["changes"] == [0, 0]


def test_settle_operation_competition_third_failure() -> None:
    """levels.failures.limit, levels.failures.reset_to: the JSON form."""
    data = {
        "state": {"levels": ["5", "A"], "declarer": 1, "failures": [0, 2]},
        "finish": [0, 1, 2, 3],
    }
    out = run_operation("settle", data, variant("competition"))
    assert out["state"]["levels"] == ["7", "2"]
    assert out["state"]["failures"] == [0, 0]
    assert out["state"]["declarer"] == 0
    assert out["changes"] == [2, -12]
    assert out["won"] is False


def test_settle_operation_streaks() -> None:
    """levels.streak.firsts, levels.streak.lasts: the JSON form, huaian.

    Seat 1's 4th first in a row (+2) with a 1st+3rd (+2): 6 -> T. Seat 0's 3rd last: 4 -> 3.
    """
    data = {
        "state": {
            "levels": ["4", "6"],
            "declarer": 1,
            "firsts": [0, 3, 0, 0],
            "lasts": [2, 0, 0, 0],
        },
        "finish": [1, 2, 3, 0],
    }
    out = run_operation("settle", data, variant("huaian"))
    assert out["finish"] == "first_and_third"
    assert out["state"]["levels"] == ["3", "T"]
    assert out["changes"] == [-1, 4]
    assert out["state"]["firsts"] == [0, 4, 0, 0]
    assert out["state"]["lasts"] == [3, 0, 0, 0]


@pytest.mark.parametrize(
    "data",
    [
        {"state": {"levels": ["5", "5"], "declarer": 0}, "finish": [0, 1, 2]},
        {"state": {"levels": ["5", "5"], "declarer": 0}, "finish": [0, 1, 1, 3]},
        {"state": {"levels": ["5", "5"], "declarer": 0}},
        {"state": {"levels": ["5"]}, "finish": [0, 1, 2, 3]},
        {"state": {"levels": ["5", "5"], "declarer": 2}, "finish": [0, 1, 2, 3]},
        {"state": {"levels": ["5", "5"], "failures": [0]}, "finish": [0, 1, 2, 3]},
        {"state": "5", "finish": [0, 1, 2, 3]},
    ],
)
def test_settle_operation_rejects_bad_input(data: dict[str, Any]) -> None:
    """The JSON form: a malformed state or finish is an input error, not a crash."""
    with pytest.raises(InputError):
        run_operation("settle", data, variant("huaian"))


def test_settle_operation_on_a_won_match_raises() -> None:
    """levels.final_win: the JSON form of a won match (as settle's own output gives it) is final."""
    won = run_operation(
        "settle",
        {"state": {"levels": ["A", "5"], "declarer": 0}, "finish": [0, 2, 1, 3]},
        variant("competition"),
    )
    assert won["state"]["winner"] == 0
    with pytest.raises(HarnessError):
        run_operation(
            "settle", {"state": won["state"], "finish": [1, 3, 0, 2]}, variant("competition")
        )


def test_settle_operation_rejects_a_joker_level() -> None:
    """The JSON form: a level is a natural rank 2..A, never a joker."""
    with pytest.raises(InputError):
        run_operation(
            "settle",
            {"state": {"levels": ["HR", "5"], "declarer": 0}, "finish": [0, 2, 1, 3]},
            variant("huaian"),
        )


def test_settle_operation_accepts_level_notation() -> None:
    """levels.up.first_and_third: levels ['10', 'a'] are T and A (notation.md: `T` or `10`)."""
    out = run_operation(
        "settle",
        {"state": {"levels": ["10", "a"], "declarer": 1}, "finish": [0, 1, 2, 3]},
        variant("huaian"),
    )
    assert out["state"]["levels"] == ["Q", "A"]


def test_streak_penalty_at_the_final_level_is_not_absorbed() -> None:
    """levels.streak.lasts, levels.final_win, levels.cap_at_final: no level-up, then -1: A -> K."""
    s = state(("A", "7"), 0, lasts=(0, 0, 2, 0))
    out = settle(s, finish(T0[F14]), variant("huaian"))
    assert out.won is False
    assert levels_of(out.state) == ("K", "7")


# ---------------------------------------------------------------------------------------------
# Scoring (online-app 7.計分規則): loser pays x·n + a, winner receives x·n − a; x is the levels the
# round's winners gain, +5 / +10 in the round that ends a match played to 8 / A. scoring.settle:
# match_end (default) settles only the round that ends the match, each_round every round.


def test_score_match_won_at_ace_with_room() -> None:
    """scoring.base, scoring.end_bonus, scoring.room_coefficient, scoring.room_fee,
    scoring.loser_fee_sign, scoring.winner_fee_sign.

    x = 3 (雙下 升3級) + 10 (打到a結束，遊戲基數額外加10分) = 13; n = 2, a = 3.
    Loser: 13·2 + 3 = 29 paid; winner: 13·2 − 3 = 23 received. The system keeps 4a = 12.
    """
    rules = variant("online-app", {"room_coefficient": 2, "room_fee": 3})
    assert score(0, 3, Rank("A"), True, rules) == Score(13, (23, -29, 23, -29))
    assert score(1, 3, Rank("A"), True, rules) == Score(13, (-29, 23, -29, 23))
    data = {"winner": 0, "levels_gained": 3, "final_level": "A", "match_over": True}
    out = run_operation("score", data, rules)
    assert out == {"base": 13, "amounts": [23, -29, 23, -29]}
    assert sum(out["amounts"]) == -12


def test_score_first_and_third_at_eight_defaults() -> None:
    """scoring.base, scoring.end_bonus: x = 2 + 5 (打到8結束，遊戲基數額外加5) = 7; n = 1, a = 0."""
    rules = variant("online-app", {"target": "8"})
    assert score(1, 2, Rank("8"), True, rules) == Score(7, (-7, 7, -7, 7))
    data = {"winner": 1, "levels_gained": 2, "final_level": "8", "match_over": True}
    assert run_operation("score", data, rules) == {"base": 7, "amounts": [-7, 7, -7, 7]}


def test_score_counts_a_streak_bonus() -> None:
    """scoring.base: a double-down with a third first in a row (當局額外升1級) is 4 levels;
    x = 4 + 10 = 14 when it wins the match at A."""
    assert score(0, 4, Rank("A"), True, variant("online-app")) == Score(14, (14, -14, 14, -14))


def test_match_end_settles_only_the_last_round() -> None:
    """scoring.settle (match_end, the default): a round that does not end the match settles
    nothing, not even the fee."""
    rules = variant("online-app", {"room_coefficient": 2, "room_fee": 3})
    assert rules.value("scoring.settle") == "match_end"
    assert score(0, 3, Rank("A"), False, rules) == Score(None, (0, 0, 0, 0))
    data = {"winner": 1, "levels_gained": 2, "final_level": "A", "match_over": False}
    assert run_operation("score", data, rules) == {"base": None, "amounts": [0, 0, 0, 0]}


def test_each_round_settles_every_round() -> None:
    """scoring.settle (each_round), scoring.end_bonus: every round settles with its own x; the
    end bonus is added only in the round that ends the match."""
    rules = variant("online-app", {"settle": "each_round", "room_coefficient": 2, "room_fee": 3})
    # 3 + 1 (streak) = 4 levels, the match goes on: 8 − 3 = 5 received, 8 + 3 = 11 paid.
    assert score(0, 4, Rank("A"), False, rules) == Score(4, (5, -11, 5, -11))
    # The round that wins the match at A with first and third: x = 2 + 10 = 12.
    assert score(1, 2, Rank("A"), True, rules) == Score(12, (-27, 21, -27, 21))


@pytest.mark.parametrize("gained", [0, -1, -2])
def test_the_base_is_never_below_zero(gained: int) -> None:
    """scoring.base: winners who gain no level (不升級, or a streak penalty as large as the gain)
    have x = 0, and every player still pays the fee a = 2."""
    rules = variant("online-app", {"settle": "each_round", "room_fee": 2})
    assert score(1, gained, Rank("A"), False, rules) == Score(0, (-2, -2, -2, -2))


def test_levels_gained_is_the_winners_change_in_settle() -> None:
    """scoring.base with levels.streak.firsts: team 0 at 5 wins a double-down with seat 0's third
    first in a row: 3 + 1 = 4 levels, 5 to 9; settling every round, x = 4."""
    rules = variant("online-app", {"settle": "each_round"})
    out = settle(state(("5", "3"), 0, firsts=(2, 0, 0, 0)), finish(T0[DD]), rules)
    assert levels_of(out.state) == ("9", "3") and out.changes == (4, 0)
    assert score(0, out.changes[0], Rank("A"), out.won, rules) == Score(4, (4, -4, 4, -4))


@pytest.mark.parametrize("slug", ("huaian", "competition", "match-rules"))
@pytest.mark.parametrize("over", [True, False])
def test_no_score_outside_online_app(slug: str, over: bool) -> None:
    """scoring.base (none): only online-app scores (歡樂豆), whatever the round."""
    assert score(0, 3, Rank("A"), over, variant(slug)) == Score(None, None)
    data = {"winner": 0, "levels_gained": 3, "final_level": "A", "match_over": over}
    assert run_operation("score", data, variant(slug)) == {"base": None, "amounts": None}


@pytest.mark.parametrize(
    "data",
    [
        {"winner": 2, "levels_gained": 3, "final_level": "A", "match_over": True},
        {"winner": True, "levels_gained": 3, "final_level": "A", "match_over": True},
        {"winner": 1.0, "levels_gained": 3, "final_level": "A", "match_over": True},
        {"winner": 0, "levels_gained": "3", "final_level": "A", "match_over": True},
        {"winner": 0, "levels_gained": 3.0, "final_level": "A", "match_over": True},
        {"winner": 0, "levels_gained": 3, "final_level": "HR", "match_over": True},
        {"winner": 0, "levels_gained": 3, "final_level": "A", "match_over": 1},
        {"winner": 0, "levels_gained": 3, "final_level": "A"},
        {"winner": 0, "finish": "double_down", "final_level": "A", "match_over": True},
    ],
)
def test_score_operation_rejects_bad_input(data: dict[str, Any]) -> None:
    """The JSON form of score: a malformed winner, level gain, final level or match_over is an
    input error."""
    with pytest.raises(InputError):
        run_operation("score", data, variant("online-app"))
