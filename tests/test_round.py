"""Tests for a round of play (一局): harness.interpreter.round and the `replay` operation.

Every round below is scripted by hand, with small hands written out, from the rules of the four
source rule sets (variants/*.yaml quote them); no expected value was copied from the
interpreter's output. Each test names the clause id(s) it checks. Unless a test is about the
level card, the round is played at level 2 (``NEUTRAL``) and no 2 is dealt, so that no card is a
level card or a wild card by accident.

Seats 0-3 play in order (seat i+1 mod 4 after seat i); partners are 0 & 2 and 1 & 3.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import pytest

from harness.errors import HarnessError, InputError
from harness.interpreter.operations import run_operation
from harness.interpreter.readings import Reading
from harness.interpreter.round import (
    Action,
    AskAction,
    IllegalAction,
    PassAction,
    PlayAction,
    RoundState,
    play_of,
    start_round,
)
from harness.model.cards import Card, Rank, parse_cards
from harness.model.loader import load_variant
from harness.model.ruleset import CombinationType
from tests.oracles.round import can

VARIANTS = ("huaian", "online-app", "competition", "match-rules")
NEUTRAL = "2"  # no 2 is dealt in any test that plays at this level
all_variants = pytest.mark.parametrize("slug", VARIANTS)

# The most cards a hand may hold for its count to be told (disclosure.hand_count), written from
# the sources: match-rules 手中牌10張以下(包括10張牌)，必須主動報數，且隨問隨報 (announced
# unasked, and told when asked); competition 任意一家可隨時詢問牌張數。被問家手中牌張低於6張
# （含6張）以下時，必須報告牌張數 (told only when asked); huaian and online-app say nothing, and
# counts are assumed never told (None).
ANNOUNCED_AT_MOST: dict[str, int | None] = {
    "match-rules": 10,
    "competition": None,
    "huaian": None,
    "online-app": None,
}
TOLD_WHEN_ASKED_AT_MOST: dict[str, int | None] = {
    "match-rules": 10,
    "competition": 6,
    "huaian": None,
    "online-app": None,
}

PASS = None


def begin(slug: str, hands: list[str], leader: int = 0, level: str = NEUTRAL) -> RoundState:
    """A round of `slug` from four hands written out, at `level`, led by `leader`."""
    return start_round([parse_cards(h) for h in hands], Rank(level), load_variant(slug), leader)


def action(state: RoundState, seat: int, cards: str | None) -> Action:
    """The action of `seat`: a play of `cards` (in their only reading), or a pass (None)."""
    if cards is None:
        return PassAction(seat)
    return PlayAction(seat, play_of(parse_cards(cards), state.rules))


def step(state: RoundState, seat: int, cards: str | None) -> RoundState:
    """The state after `seat` plays `cards` (or passes, for None)."""
    return state.apply(action(state, seat, cards))


def run(state: RoundState, *moves: tuple[int, str | None]) -> RoundState:
    """The state after a list of (seat, cards or None) moves."""
    for seat, cards in moves:
        state = step(state, seat, cards)
    return state


def refusal(state: RoundState, seat: int, cards: str | None) -> IllegalAction:
    """The IllegalAction raised by the move (the test fails if it is allowed)."""
    move = action(state, seat, cards)
    assert not can(state, move)
    with pytest.raises(IllegalAction) as caught:
        state.verify(move)
    with pytest.raises(IllegalAction):
        state.apply(move)
    return caught.value


def single(rank: str) -> Reading:
    return Reading(CombinationType.SINGLE, Rank(rank), 1)


def sizes(state: RoundState) -> list[int]:
    return [len(h) for h in state.hands]


def announced(slug: str, counts: list[int]) -> dict[int, int]:
    """The hand counts of `counts` (by seat) that `slug` announces unasked."""
    limit = ANNOUNCED_AT_MOST[slug]
    if limit is None:
        return {}
    return {seat: n for seat, n in enumerate(counts) if n <= limit}


# A round that ends with three out (flow.new_lead, flow.jiefeng, flow.early_end): 0 goes out and
# 1 beats its last card; all pass, so 1 leads anew and goes out; 1's last play stands, so its
# partner 3 leads (接風); 2 beats 3, 3 passes, 2 leads and goes out third. 3 is left: 4th.
THREE_OUT_HANDS = ["S3", "S4 SK", "S5 SA", "S6 SQ"]
THREE_OUT_MOVES: list[tuple[int, str | None]] = [
    (0, "S3"),  # 0 out
    (1, "S4"),
    (2, PASS),
    (3, PASS),  # 1's play stands: 1 leads
    (1, "SK"),  # 1 out; 0 and 1 are not partners: play on
    (2, PASS),
    (3, PASS),  # 1's last play stands: its partner 3 leads
    (3, "S6"),  # 0 and 1 are out: 2 is next
    (2, "SA"),
    (3, PASS),  # only 3 had to pass: 2 leads
    (2, "S5"),  # 2 out, third: the round is over
]


# ---------------------------------------------------------------------------------------------
# Turn order and who may act (seats.players, flow.lead, flow.pass)


@all_variants
@pytest.mark.parametrize("leader", [0, 1, 2, 3])
def test_turns_go_round_from_the_leader(slug: str, leader: int) -> None:
    # seats.players, flow.lead: the leader acts first, then each next seat (i+1 mod 4) in turn.
    order = [(leader + k) % 4 for k in range(4)]
    hands = [""] * 4
    for seat, card in zip(order, ["S7", "S8", "S9", "ST"], strict=True):
        hands[seat] = f"{card} {'SHCD'[seat]}A"  # the ace keeps every seat in the round
    state = begin(slug, hands, leader)
    assert (state.turn, state.leader, state.trick) == (leader, leader, None)
    seen = []
    for seat in order:
        seen.append(state.turn)
        state = step(state, seat, hands[seat].split()[0])
    assert seen == order
    assert state.turn == leader  # after all four, the leader's turn again
    assert not state.over and state.out == ()


@all_variants
def test_only_the_seat_to_act_has_options(slug: str) -> None:
    # flow.turn: legal_plays are the turn seat's; any other seat's play or pass is refused.
    state = begin(slug, ["S3 S5", "S4 S6", "S7 S9", "S8 ST"], leader=0)
    for seat, cards in ((1, "S4"), (2, "S7"), (3, PASS)):
        assert refusal(state, seat, cards).rule == "flow.turn"
    leads = {p.reading for p in state.legal_plays()}
    assert leads == {single("3"), single("5")}
    state = step(state, 0, "S3")
    for seat, cards in ((0, "S5"), (2, PASS), (3, "S8")):
        assert refusal(state, seat, cards).rule == "flow.turn"
    assert {p.reading for p in state.legal_plays()} == {single("4"), single("6")}


@all_variants
def test_the_leader_may_not_pass(slug: str) -> None:
    # flow.lead: the leader may play any combination but may not pass.
    state = begin(slug, ["S3 D3 S5", "S4", "S7", "S8"], leader=0)
    assert not state.may_pass()
    assert refusal(state, 0, PASS).rule == "flow.lead"
    # Any combination may lead: a single or a pair.
    assert can(state, action(state, 0, "S5"))
    assert can(state, action(state, 0, "S3 D3"))


@all_variants
def test_a_follower_may_pass_even_when_able_to_beat(slug: str) -> None:
    # flow.pass (always): passing is allowed at any turn but a lead.
    state = step(begin(slug, ["S3 S5", "SA", "S7", "S8"], leader=0), 0, "S3")
    assert state.legal_plays()  # 1 could beat with SA
    assert state.may_pass()
    assert can(state, PassAction(1))


@all_variants
def test_playing_out_of_turn_is_illegal(slug: str) -> None:
    # flow.turn: only the seat whose turn it is may act, play or pass.
    state = begin(slug, ["S3 S5", "S4 S6", "S7 S9", "S8 ST"], leader=0)
    for seat, card in ((1, "S4"), (2, "S7"), (3, "S8")):
        assert refusal(state, seat, card).rule == "flow.turn"
        assert refusal(state, seat, PASS).rule == "flow.turn"
    state = step(state, 0, "S3")
    assert refusal(state, 2, "S7").rule == "flow.turn"  # 1 acts before 2
    assert refusal(state, 2, PASS).rule == "flow.turn"
    assert refusal(state, 0, "S5").rule == "flow.turn"  # the leader does not act twice


@all_variants
def test_a_play_that_does_not_beat_is_illegal(slug: str) -> None:
    # A follower must beat the play that stands with the same type and size, higher: lower
    # loses by the order of ranks (ranks.natural), equal by compare.equal_beats, another shape
    # by compare.same_type_and_size.
    state = step(begin(slug, ["S9 S3", "S8 DT D9 C4 C4", "S7", "S6"], leader=0), 0, "S9")
    assert refusal(state, 1, "S8").rule == "ranks.natural"  # lower
    assert refusal(state, 1, "D9").rule == "compare.equal_beats"  # equal
    assert refusal(state, 1, "C4 C4").rule == "compare.same_type_and_size"  # a pair
    assert can(state, action(state, 1, "DT"))


@all_variants
def test_cards_not_in_hand_are_illegal(slug: str) -> None:
    # flow.own_cards: a seat plays only cards it holds, each as often as it holds it.
    state = begin(slug, ["S3 S5", "S4 S6", "S7 S9", "S8 ST"], leader=0)
    assert refusal(state, 0, "S4").rule == "flow.own_cards"  # seat 1's card
    assert refusal(state, 0, "S3 S3").rule == "flow.own_cards"  # held once, played twice
    assert refusal(state, 0, "S3 D3").rule == "flow.own_cards"  # one of the two is missing
    state = step(state, 0, "S3")
    assert refusal(state, 1, "SA").rule == "flow.own_cards"


@all_variants
def test_an_illegal_action_changes_nothing(slug: str) -> None:
    # The state is immutable: a refused action leaves it as it was.
    state = begin(slug, ["S3 S5", "S4 S6", "S7 S9", "S8 ST"], leader=0)
    before = (state.hands, state.turn, state.trick, state.passes, state.out, state.history)
    refusal(state, 0, PASS)
    refusal(state, 1, "S4")
    assert (state.hands, state.turn, state.trick, state.passes, state.out, state.history) == before


def test_a_next_state_is_a_whole_dataclass_of_its_fields() -> None:
    """The states after a play and a pass (built field by field, faster than `__init__`) have
    every field of a RoundState and no other, compare and hash as one built by `__init__`,
    and stay frozen."""
    state = begin("huaian", ["S3 S5", "S4 S6", "S7 S9", "S8 ST"], leader=0)
    names = {f.name for f in dataclasses.fields(RoundState)}
    for after in (step(state, 0, "S3"), step(step(state, 0, "S3"), 1, PASS)):
        assert set(vars(after)) == names
        built = RoundState(**{name: getattr(after, name) for name in names})
        assert after == built and hash(after.hands) == hash(built.hands)
        with pytest.raises(dataclasses.FrozenInstanceError):
            after.turn = 3  # type: ignore[misc]


# ---------------------------------------------------------------------------------------------
# New leads (flow.new_lead) and 接風 (flow.jiefeng)


@all_variants
def test_a_new_lead_after_three_passes(slug: str) -> None:
    # flow.new_lead: when all the others pass, the player whose play stands leads anew.
    state = run(begin(slug, ["S3 S5 D5", "S4", "S7", "S8"], leader=0), (0, "S3"), (1, PASS))
    assert state.turn == 2
    state = step(state, 2, PASS)
    assert (state.turn, state.trick) == (3, (0, single("3")))
    state = step(state, 3, PASS)
    assert (state.turn, state.leader, state.trick) == (0, 0, None)
    # A fresh lead: any combination (a pair after a single), and no pass.
    assert refusal(state, 0, PASS).rule == "flow.lead"
    state = step(state, 0, "S5 D5")
    assert state.trick is not None and state.trick[1].type is CombinationType.PAIR


@all_variants
def test_passes_count_again_after_a_play_that_beats(slug: str) -> None:
    # flow.new_lead: only the passes since the last play count; the lead goes to its owner.
    hands = ["S3 SK", "S4 SQ", "S5 SJ", "S6 ST"]
    state = run(begin(slug, hands, leader=0), (0, "S3"), (1, PASS), (2, "S5"), (3, PASS))
    assert state.turn == 0  # one pass before 2 played does not count
    state = step(state, 0, PASS)
    assert state.turn == 1
    state = step(state, 1, PASS)
    assert (state.turn, state.leader, state.trick) == (2, 2, None)


@all_variants
def test_jiefeng_partner_leads_when_a_last_play_stands(slug: str) -> None:
    # flow.jiefeng (partner): 0 plays its last card and nobody beats it: its partner 2 leads.
    state = begin(slug, ["S3", "S4 S9", "S5 S6", "S7 S8"], leader=0)
    state = step(state, 0, "S3")
    assert state.out == (0,)
    assert state.turn == 1  # the others may still beat the last play
    state = run(state, (1, PASS), (2, PASS))
    assert state.turn == 3
    state = step(state, 3, PASS)
    assert (state.turn, state.leader, state.trick) == (2, 2, None)
    assert refusal(state, 2, PASS).rule == "flow.lead"


@all_variants
def test_no_jiefeng_when_someone_beats_the_last_play(slug: str) -> None:
    # flow.jiefeng, flow.new_lead: 1 beats 0's last card and the others pass: 1 leads, not 2.
    state = begin(slug, ["S3", "S4 S9", "S5 S6", "S7 S8"], leader=0)
    state = run(state, (0, "S3"), (1, "S4"), (2, PASS))
    assert state.turn == 3
    state = step(state, 3, PASS)  # 0 is out: only 2 and 3 had to pass
    assert (state.turn, state.leader, state.trick) == (1, 1, None)


@all_variants
def test_jiefeng_goes_to_the_partner_of_the_last_finisher(slug: str) -> None:
    # flow.jiefeng: 0 goes out, 1 beats with its own last card; 1's play stands: 3 (1's
    # partner) leads, not 2 (0's partner).
    state = begin(slug, ["S3", "S4", "S5 S6", "S7 S8"], leader=0)
    state = run(state, (0, "S3"), (1, "S4"))
    assert state.out == (0, 1) and not state.over
    state = step(state, 2, PASS)
    state = step(state, 3, PASS)
    assert (state.turn, state.leader, state.trick) == (3, 3, None)


@all_variants
def test_turns_skip_players_who_are_out(slug: str) -> None:
    # seats.players, flow.new_lead: a seat that is out never gets a turn.
    state = begin(slug, ["S3", "S4 S9 SK", "S5 ST", "S6 SJ"], leader=0)
    state = run(state, (0, "S3"), (1, "S4"), (2, "S5"), (3, "S6"))
    assert state.turn == 1  # 0 is out: after 3 comes 1
    state = run(state, (1, PASS), (2, PASS))
    assert (state.turn, state.trick) == (3, None)  # 3's play stood
    state = step(state, 3, "SJ")  # 3 out
    assert state.out == (0, 3) and state.turn == 1  # skips 0
    state = step(state, 1, PASS)
    assert state.turn == 2
    state = step(state, 2, PASS)
    # 3's last play stands; its partner 1 leads (接風).
    assert (state.turn, state.leader) == (1, 1)
    state = step(state, 1, "S9")
    assert state.turn == 2  # after 1 comes 2, then 1 again (0 and 3 are out)
    state = step(state, 2, "ST")
    assert state.out == (0, 3, 2) and state.over


# ---------------------------------------------------------------------------------------------
# The end of a round (flow.early_end) and the finishing order


@all_variants
def test_double_down_ends_the_round_early(slug: str) -> None:
    # flow.early_end: 0 and then its partner 2 go out: the round ends at once; the losers 3
    # and 1 follow in playing order after 2.
    state = begin(slug, ["S3", "S4 S9", "S5", "S6 S8"], leader=0)
    state = run(state, (0, "S3"), (1, PASS))
    assert not state.over and not state.double_down
    state = step(state, 2, "S5")
    assert state.over and state.turn is None
    assert state.out == (0, 2)
    assert state.double_down
    assert state.finish is not None and state.finish.order == (0, 2, 3, 1)
    assert refusal(state, 3, "S6").rule == "flow.early_end"
    assert refusal(state, 3, PASS).rule == "flow.early_end"


@all_variants
def test_double_down_after_jiefeng(slug: str) -> None:
    # flow.jiefeng, flow.early_end: 2 goes out; all pass; its partner 0 leads and goes out.
    state = begin(slug, ["S5", "S6 S8", "S3", "S4 S9"], leader=2)
    state = run(state, (2, "S3"), (3, PASS), (0, PASS), (1, PASS))
    assert (state.turn, state.trick) == (0, None)
    state = step(state, 0, "S5")
    assert state.over and state.double_down
    assert state.finish is not None and state.finish.order == (2, 0, 1, 3)


@all_variants
def test_double_down_of_seats_one_and_three(slug: str) -> None:
    # flow.early_end: 3 then 1 out; the losers follow 1 in playing order: 2, then 0.
    state = begin(slug, ["S5 S9", "S6", "S4 S8", "S3"], leader=3)
    state = run(state, (3, "S3"), (0, PASS), (1, "S6"))
    assert state.over and state.double_down
    assert state.finish is not None and state.finish.order == (3, 1, 2, 0)


@all_variants
def test_the_round_ends_when_three_are_out(slug: str) -> None:
    # flow.early_end, flow.new_lead, flow.jiefeng: 0, 1, 2 out; the fourth is 3.
    state = begin(slug, THREE_OUT_HANDS, leader=0)
    seen = []
    for seat, cards in THREE_OUT_MOVES:
        assert state.turn == seat
        state = step(state, seat, cards)
        seen.append(state.turn)
    assert seen == [1, 2, 3, 1, 2, 3, 3, 2, 3, 2, None]
    assert state.over and state.out == (0, 1, 2)
    assert not state.double_down
    assert state.finish is not None and state.finish.order == (0, 1, 2, 3)
    assert state.hands[3] == tuple(parse_cards("SQ"))


@all_variants
def test_three_out_with_the_fourth_not_next_in_line(slug: str) -> None:
    # flow.early_end: 1, 2, 0 go out (no two partners first): 3 is fourth.
    state = begin(slug, ["S6", "S3", "S4", "S5 S9"], leader=1)
    state = step(state, 1, "S3")
    state = step(state, 2, "S4")  # 2 beats 1's last card and goes out too
    assert state.out == (1, 2) and not state.over and not state.double_down
    state = run(state, (3, "S5"), (0, "S6"))
    assert state.over and state.out == (1, 2, 0)
    assert state.finish is not None and state.finish.order == (1, 2, 0, 3)


@all_variants
def test_no_finish_before_the_end(slug: str) -> None:
    state = begin(slug, THREE_OUT_HANDS, leader=0)
    for seat, cards in THREE_OUT_MOVES[:-1]:
        state = step(state, seat, cards)
        assert not state.over and state.finish is None


@all_variants
def test_cards_are_conserved(slug: str) -> None:
    # deck.decks: at every step the hands plus the cards played are the deal.
    state = begin(slug, THREE_OUT_HANDS, leader=0)
    deal = Counter(c for h in THREE_OUT_HANDS for c in parse_cards(h))

    def on_table(s: RoundState) -> Counter[Card]:
        return Counter(c for a in s.history if isinstance(a, PlayAction) for c in a.play.cards)

    for seat, cards in THREE_OUT_MOVES:
        state = step(state, seat, cards)
        in_hands = Counter(c for h in state.hands for c in h)
        assert in_hands + on_table(state) == deal
    assert len(state.history) == len(THREE_OUT_MOVES)


# ---------------------------------------------------------------------------------------------
# Hand counts (disclosure.hand_count)

COUNT_HANDS = [
    "S3 S4 S5 S6 S7 S8 S9 ST SJ SQ SK",  # 11 cards
    "D3 D4 D5 D6 D7 D8 D9 DT DJ DQ",  # 10
    "C3 C4 C5 C6 C7 C8 C9",  # 7
    "H3 H4 H5 H6 H7 H8",  # 6
]


@pytest.mark.parametrize(
    ("slug", "at_start", "after_two_plays"),
    [
        # 手中牌10張以下(包括10張牌)，必須主動報數: 10 announced, 11 not.
        ("match-rules", {1: 10, 2: 7, 3: 6}, {0: 10, 1: 9, 2: 7, 3: 6}),
        # 被問家…必須報告牌張數: told only when asked, never announced.
        ("competition", {}, {}),
        # silent: never told (assumed)
        ("huaian", {}, {}),
        ("online-app", {}, {}),
    ],
)
def test_announced_counts(
    slug: str, at_start: dict[int, int], after_two_plays: dict[int, int]
) -> None:
    # disclosure.hand_count
    state = begin(slug, COUNT_HANDS, leader=0)
    assert state.announced_counts() == at_start
    state = run(state, (0, "S3"), (1, "D4"))
    assert sizes(state) == [10, 9, 7, 6]
    assert state.announced_counts() == after_two_plays
    state = run(state, (2, "C5"))
    assert state.announced_counts() == announced(slug, [10, 9, 6, 6])
    for seat in range(4):
        view = state.view(seat)
        assert view.seat == seat
        assert view.hand == state.hands[seat]
        assert view.counts == state.announced_counts()
        assert (view.turn, view.trick, view.out) == (state.turn, state.trick, state.out)


@pytest.mark.parametrize(
    ("slug", "answers"),
    [
        # 且隨問隨報: asked, match-rules tells 10 or fewer (seat 0's 11 is not told).
        ("match-rules", {0: None, 1: 10, 3: 6}),
        # 被問家手中牌張低於6張（含6張）以下時，必須報告牌張數: 6 told, 10 and 11 not.
        ("competition", {0: None, 1: None, 3: 6}),
        ("huaian", {0: None, 1: None, 3: None}),
        ("online-app", {0: None, 1: None, 3: None}),
    ],
)
def test_an_ask_is_answered_and_changes_nothing(slug: str, answers: dict[int, int | None]) -> None:
    # disclosure.hand_count: seat 2 (7 cards) asks seats 0, 1 and 3 (11, 10 and 6 cards), out
    # of turn; the turn, the hands and the history stay as they were.
    state = begin(slug, COUNT_HANDS, leader=0)
    for about, answer in answers.items():
        ask = AskAction(2, about)
        assert can(state, ask)
        assert state.told(ask) == answer
    assert state.turn == 0 and state.history == () and sizes(state) == [11, 10, 7, 6]


@all_variants
def test_an_ask_about_a_seat_that_is_out(slug: str) -> None:
    # disclosure.hand_count: seat 0 goes out; asked, its count is 0 wherever counts are told.
    state = run(begin(slug, ["S3", "S4 S9", "S5 S6", "S7 S8"], leader=0), (0, "S3"))
    assert state.out == (0,)
    expected = None if TOLD_WHEN_ASKED_AT_MOST[slug] is None else 0
    assert state.told(AskAction(1, 0)) == expected
    # A seat that is out may ask too.
    expected = None if TOLD_WHEN_ASKED_AT_MOST[slug] is None else 2
    assert state.told(AskAction(0, 3)) == expected


@all_variants
def test_refused_asks_name_the_disclosure_clause(slug: str) -> None:
    # disclosure.hand_count: an ask about oneself, and any ask once the round is over.
    state = begin(slug, ["S3", "S4 S9", "S5", "S6 S8"], leader=0)
    for ask in (AskAction(1, 1), AskAction(0, 0)):
        assert not can(state, ask)
        with pytest.raises(IllegalAction) as caught:
            state.told(ask)
        assert caught.value.rule == "disclosure.hand_count"
    state = run(state, (0, "S3"), (1, PASS), (2, "S5"))  # 雙下: the round is over
    assert state.over
    for ask in (AskAction(1, 3), AskAction(3, 1)):
        with pytest.raises(IllegalAction) as caught:
            state.told(ask)
        assert caught.value.rule == "disclosure.hand_count"


def test_an_ask_by_or_about_no_seat_is_refused_by_the_api() -> None:
    # The Python API's own guard: the `replay` operation refuses such an ask before it (invalid
    # input), but `RoundState.told` must not read hands[4] or take -1 as the last seat.
    state = begin("competition", ["S3", "S4 S9", "S5", "S6 S8"], leader=0)
    for ask in (AskAction(4, 0), AskAction(0, 4), AskAction(-1, 0), AskAction(1, -1)):
        with pytest.raises(HarnessError, match=r"expected a seat 0\.\.3"):
            state.told(ask)


# ---------------------------------------------------------------------------------------------
# Declaring an ambiguous play (wild.declared, wild.default)

FULL_HOUSE_5 = Reading(CombinationType.FULL_HOUSE, Rank.FIVE, 5)
FULL_HOUSE_K = Reading(CombinationType.FULL_HOUSE, Rank.KING, 5)
AMBIGUOUS_HANDS = ["H9 S5 D5 SK DK H9 S4 D5 C6 S7", "S3", "S6", "S8"]


@all_variants
def test_an_ambiguous_play_needs_a_declared_reading(slug: str) -> None:
    # wild.declared, wild.default: at level 9 the wild H9 with two pairs 55 KK is a full house
    # of 5s or of Ks. Undeclared, it is illegal, except in competition where it is the small
    # one (出牌時要說明當大牌或小牌使用，否則只當小牌用).
    state = begin(slug, AMBIGUOUS_HANDS, leader=0, level="9")
    cards = parse_cards("H9 S5 D5 SK DK")
    if slug == "competition":
        assert play_of(cards, state.rules).reading == FULL_HOUSE_5
    else:
        with pytest.raises(IllegalAction) as caught:
            play_of(cards, state.rules)
        assert caught.value.rule == "wild.declared"
    for declared in (FULL_HOUSE_5, FULL_HOUSE_K):
        after = state.apply(PlayAction(0, play_of(cards, state.rules, declared)))
        assert after.trick == (0, declared)


@all_variants
def test_the_full_house_default_is_for_full_houses_only(slug: str) -> None:
    # wild.declared, wild.default: the wild with 4567 is a straight to 7 or to 8; no variant
    # has a default for straights, so it must be declared everywhere.
    state = begin(slug, AMBIGUOUS_HANDS, leader=0, level="9")
    with pytest.raises(IllegalAction) as caught:
        play_of(parse_cards("H9 S4 D5 C6 S7"), state.rules)
    assert caught.value.rule == "wild.declared"
    to_8 = Reading(CombinationType.STRAIGHT, Rank.EIGHT, 5)
    play = play_of(parse_cards("H9 S4 D5 C6 S7"), state.rules, to_8)
    assert state.apply(PlayAction(0, play)).trick == (0, to_8)


@all_variants
def test_a_declared_reading_the_cards_do_not_make_is_illegal(slug: str) -> None:
    # combinations.<type>.shape: the declared reading must be one the cards make.
    state = begin(slug, AMBIGUOUS_HANDS, leader=0, level="9")
    wrong = Reading(CombinationType.FULL_HOUSE, Rank.SIX, 5)
    move = PlayAction(0, play_of(parse_cards("H9 S5 D5 SK DK"), state.rules, wrong))
    with pytest.raises(IllegalAction) as caught:
        state.verify(move)
    assert caught.value.rule == "combinations.full_house.shape"


# ---------------------------------------------------------------------------------------------
# The JSON form: the `replay` operation


def replay(slug: str, hands: list[str], moves: list[tuple[int, str | None]], **extra: Any) -> Any:
    data: dict[str, Any] = {
        "hands": [h.split() for h in hands],
        "level": extra.get("level", NEUTRAL),
        "leader": extra.get("leader", 0),
        "actions": [
            {"seat": seat, "pass": True}
            if cards is None
            else {"seat": seat, "cards": cards.split()}
            for seat, cards in moves
        ],
    }
    return run_operation("replay", data, load_variant(slug))


def counts_json(slug: str, counts: list[int]) -> dict[str, int]:
    return {str(seat): n for seat, n in announced(slug, counts).items()}


@all_variants
def test_replay_three_out(slug: str) -> None:
    # flow.new_lead, flow.jiefeng, flow.early_end, disclosure.hand_count, in the JSON form.
    result = replay(slug, THREE_OUT_HANDS, THREE_OUT_MOVES)
    # (next, out, lead, hand sizes after the action), written from the script above.
    expected = [
        (1, 0, None, [0, 2, 2, 2]),
        (2, None, None, [0, 1, 2, 2]),
        (3, None, None, [0, 1, 2, 2]),
        (1, None, 1, [0, 1, 2, 2]),
        (2, 1, None, [0, 0, 2, 2]),
        (3, None, None, [0, 0, 2, 2]),
        (3, None, 3, [0, 0, 2, 2]),
        (2, None, None, [0, 0, 2, 1]),
        (3, None, None, [0, 0, 1, 1]),
        (2, None, 2, [0, 0, 1, 1]),
        (None, 2, None, [0, 0, 0, 1]),
    ]
    steps = []
    for nxt, out, lead, left in expected:
        entry: dict[str, Any] = {"legal": True, "next": nxt}
        if out is not None:
            entry["out"] = out
        if lead is not None:
            entry["lead"] = lead
        entry["counts"] = counts_json(slug, left)
        steps.append(entry)
    assert result["steps"] == steps
    assert result["over"] is True
    assert result["finish"] == [0, 1, 2, 3]
    assert result["double_down"] is False


@all_variants
def test_replay_double_down(slug: str) -> None:
    # flow.early_end, in the JSON form.
    moves: list[tuple[int, str | None]] = [(0, "S3"), (1, PASS), (2, "S5")]
    result = replay(slug, ["S3", "S4 S9", "S5", "S6 S8"], moves)
    assert [s["legal"] for s in result["steps"]] == [True, True, True]
    assert [s["next"] for s in result["steps"]] == [1, 2, None]
    assert result["steps"][-1]["out"] == 2
    assert "lead" not in result["steps"][-1]
    assert result["over"] is True
    assert result["finish"] == [0, 2, 3, 1]
    assert result["double_down"] is True


@all_variants
def test_replay_unfinished_round(slug: str) -> None:
    result = replay(slug, THREE_OUT_HANDS, THREE_OUT_MOVES[:4])
    assert result["steps"][-1]["lead"] == 1
    assert (result["over"], result["finish"], result["double_down"]) == (False, None, False)


@all_variants
@pytest.mark.parametrize(
    ("moves", "rule"),
    [
        ([(0, PASS)], "flow.lead"),  # the leader passes
        ([(1, "S4")], "flow.turn"),  # out of turn
        ([(0, "SA")], "flow.own_cards"),  # a card seat 0 does not hold
        ([(0, "S3"), (2, "S5")], "flow.turn"),  # 2 plays before 1
        ([(0, "S3"), (1, "S4"), (2, "S3")], "ranks.natural"),  # a 3 does not beat a 4
        ([(0, "S3"), (1, PASS), (2, PASS), (3, PASS), (0, PASS)], "flow.lead"),  # a new lead
    ],
)
def test_replay_stops_at_the_first_illegal_action(
    slug: str, moves: list[tuple[int, str | None]], rule: str
) -> None:
    # flow.lead, flow.turn, flow.own_cards, ranks.natural: the last move of
    # `moves` is illegal; the replay reports it and ignores the (legal-looking) rest.
    hands = ["S3 S7", "S4 S8", "S5 S9 S3", "S6 ST"]
    result = replay(slug, hands, [*moves, (0, "S3"), (1, PASS)])
    assert len(result["steps"]) == len(moves)
    *before, last = result["steps"]
    assert all(s["legal"] for s in before)
    assert last["legal"] is False and last["rule"] == rule
    assert set(last) == {"legal", "rule", "reason"}
    assert isinstance(last["reason"], str) and last["reason"]
    assert (result["over"], result["finish"], result["double_down"]) == (False, None, False)


@all_variants
def test_replay_a_play_that_does_not_beat(slug: str) -> None:
    # ranks.natural decides that an 8 does not beat a 9, in the JSON form.
    result = replay(slug, ["S9 S7", "S8 S4", "S5", "S6"], [(0, "S9"), (1, "S8"), (2, "S5")])
    assert len(result["steps"]) == 2
    assert result["steps"][0]["legal"] is True
    assert result["steps"][1]["legal"] is False
    assert result["steps"][1]["rule"] == "ranks.natural"


@all_variants
def test_replay_an_ambiguous_play(slug: str) -> None:
    # wild.declared, wild.default, in the JSON form: undeclared it is illegal but in
    # competition (the small full house); declared it is legal everywhere.
    hands = ["H9 S5 D5 SK DK", "S3", "S6", "S8"]
    plain = replay(slug, hands, [(0, "H9 S5 D5 SK DK")], level="9")
    (first,) = plain["steps"]
    if slug == "competition":
        assert first["legal"] is True and first["out"] == 0
    else:
        assert first["legal"] is False and first["rule"] == "wild.declared"
    data = {
        "hands": [h.split() for h in hands],
        "level": "9",
        "leader": 0,
        "actions": [
            {
                "seat": 0,
                "cards": ["H9", "S5", "D5", "SK", "DK"],
                "reading": {"type": "full_house", "rank": "K", "size": 5},
            },
            {"seat": 1, "pass": True},
        ],
    }
    declared = run_operation("replay", data, load_variant(slug))
    assert [s["legal"] for s in declared["steps"]] == [True, True]
    assert declared["steps"][0]["out"] == 0
    assert declared["steps"][1]["next"] == 2


@all_variants
def test_replay_an_ask(slug: str) -> None:
    # disclosure.hand_count, in the JSON form: seat 3 asks seat 1 (6 cards) before seat 0 leads;
    # the step keeps the turn, gives the answer as `told` and the counts announced unasked.
    hands = ["S3 S4", "D3 D4 D5 D6 D7 D8", "C3 C4 C5 C6 C7 C8 C9", "H3"]
    data = {
        "hands": [h.split() for h in hands],
        "level": NEUTRAL,
        "leader": 0,
        "actions": [{"seat": 3, "ask": 1}, {"seat": 3, "ask": 2}, {"seat": 0, "cards": ["S3"]}],
    }
    result = run_operation("replay", data, load_variant(slug))
    asked = TOLD_WHEN_ASKED_AT_MOST[slug]
    counts = counts_json(slug, [2, 6, 7, 1])
    assert result["steps"][:2] == [
        {"legal": True, "next": 0, "told": None if asked is None else 6, "counts": counts},
        {
            "legal": True,
            "next": 0,
            "told": 7 if asked is not None and asked >= 7 else None,
            "counts": counts,
        },
    ]
    assert result["steps"][2] == {
        "legal": True,
        "next": 1,
        "counts": counts_json(slug, [1, 6, 7, 1]),
    }


@pytest.mark.parametrize(
    "action",
    [
        {"seat": 0, "ask": 4},
        {"seat": 5, "ask": 1},
        {"seat": 0, "ask": True},
        {"seat": 0, "ask": 1.0},
        {"seat": 0, "ask": "1"},
    ],
)
def test_replay_rejects_a_malformed_ask(action: dict[str, Any]) -> None:
    data = {"hands": [["S3"], ["S4"], ["S5"], ["S6"]], "level": NEUTRAL, "leader": 0}
    with pytest.raises(InputError):
        run_operation("replay", {**data, "actions": [action]}, load_variant("huaian"))
