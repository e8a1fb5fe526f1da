"""Tests for tribute (進貢), the return card (還牌), anti-tribute (抗貢) and who leads after it.

Every expectation below was worked out by hand from the tribute paragraphs of the sources
(spec/sources/*.txt) and the tribute clauses of variants/*.yaml; none was copied from the code's
output. Each test names the clause id(s) it checks.

Seats 0-3 sit in playing order: seat i+1 (mod 4) is seat i's 下家, seat i-1 its 上家; partners
are 0 & 2 and 1 & 3. A finish is [first, second, third, last].

The rules, per source:

* tribute.card: the payer gives the highest card by the single order at the new level (big joker
  > small joker > level card > A > K … > 2), the wild heart level card left out; any copy or suit
  of that value may be given, so the plan lists every such card.
* tribute.single.payer / .receiver: not a double-down (1st+3rd, or 1st+4th where the last is the
  first's own partner): the last pays the first, who returns one card to the last.
* tribute.anti.big_jokers / .single_mandatory: a single payer with both big jokers: no tribute in
  competition (必須抗貢) and match-rules (則不用進貢); huaian and online-app 可抗貢, the payer
  may resist. After a double-down: two big jokers between the two payers, always no tribute.
* tribute.double.assignment: the bigger tribute goes to the first, the smaller to the second.
* tribute.double.tie: equal tributes: each payer pays the winner who is its 上家.
* tribute.return.double_to: competition and match-rules return to the payer whose tribute the
  winner took; huaian and online-app: each winner to its own 下家 (給自己的下家).
* tribute.return.max_rank: competition 10 or lower by natural rank (10 以下（含10）); elsewhere any.
* tribute.lead.*: the payer after a single tribute, the bigger payer after a double one, the
  first after anti-tribute; after equal tributes 上游's 下家 (match-rules, and assumed for huaian
  and online-app) or 上游's 上家 (competition: 由上游上家先出牌).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from harness.errors import HarnessError, InputError
from harness.interpreter.bots import apply_tribute
from harness.interpreter.operations import run_operation
from harness.interpreter.readings import play_rules
from harness.interpreter.tribute import (
    AntiTribute,
    TributePlan,
    plan_tribute,
    return_cards,
    tribute_cards,
)
from harness.model.cards import Card, Rank, parse_card, parse_cards
from harness.model.loader import load_variant
from harness.model.seats import Finish, FinishKind

VARIANTS = ("competition", "match-rules", "huaian", "online-app")

# tribute.anti.single_mandatory: 必須抗貢 (competition), 則不用進貢 (match-rules) vs 可抗貢.
SINGLE_ANTI = {
    "competition": AntiTribute.MUST,
    "match-rules": AntiTribute.MUST,
    "huaian": AntiTribute.MAY,
    "online-app": AntiTribute.MAY,
}
# tribute.return.double_to: to the payer whose tribute was taken, or to the winner's 下家.
RETURNS_TO_PAYER = {
    "competition": True,
    "match-rules": True,
    "huaian": False,
    "online-app": False,
}
# tribute.return.max_rank: only competition limits the return card (10 or lower).
LIMITED_RETURN = {"competition": True, "match-rules": False, "huaian": False, "online-app": False}
# tribute.lead.double_tie: 上游's 下家 ("next") or 上游's 上家 ("previous").
TIE_LEADER = {
    "competition": "previous",
    "match-rules": "next",
    "huaian": "next",
    "online-app": "next",
}


# --- helpers -----------------------------------------------------------------------------------


def deal(*hands: str) -> list[tuple[Card, ...]]:
    """Four hands written out in full, seat 0 first."""
    assert len(hands) == 4
    return [parse_cards(h) for h in hands]


def codes(cards: Iterable[Card]) -> set[str]:
    return {c.code for c in cards}


def plan(slug: str, finish: Sequence[int], hands: Sequence[str], level: str = "7") -> TributePlan:
    return plan_tribute(Finish.of(finish), deal(*hands), Rank(level), load_variant(slug))


def payments(p: TributePlan) -> dict[tuple[int, int], set[str]]:
    """The payments as {(payer, receiver): the codes the payer may give}."""
    out = {(x.payer, x.receiver): codes(x.cards) for x in p.payments}
    assert len(out) == len(p.payments)
    return out


def returns(p: TributePlan) -> dict[tuple[int, int], set[str]]:
    """The returns as {(giver, receiver): the codes the giver may return}."""
    out = {(r.giver, r.receiver): codes(r.cards) for r in p.returns}
    assert len(out) == len(p.returns)
    return out


def limited(slug: str, any_card: set[str], ten_or_lower: set[str]) -> set[str]:
    """What a winner may return: ten_or_lower in competition, any_card elsewhere."""
    return ten_or_lower if LIMITED_RETURN[slug] else any_card


# --- tribute.card ------------------------------------------------------------------------------

# The payer's hand (at seat 3, the last of finish [0, 1, 2, 3]), the level, the cards it may give.
CARD_CASES = [
    # The heart level card is the wild and is left out: the next highest, either ace, is paid.
    ("H7 SA DA S3", "7", {"SA", "DA"}),
    # A non-heart level card ranks above A and is paid.
    ("S7 SA D3", "7", {"S7"}),
    ("H7 S7 SA", "7", {"S7"}),
    # Every suit of the level card but hearts, and only these.
    ("D7 C7 H7 SA", "7", {"D7", "C7"}),
    # Two wilds: still left out.
    ("H7 H7 SK D2", "7", {"SK"}),
    # Jokers are paid when held: big above small above the level card.
    ("HR SB S7 SA", "7", {"HR"}),
    ("SB S7 H7 SA", "7", {"SB"}),
    ("SB SB S3", "7", {"SB"}),
    # Two copies of one card: the card is listed once.
    ("SA SA SK", "7", {"SA"}),
    # At level 7 the 2s are plain 2s: every suit, the heart included.
    ("C2 D2 S2 H2", "7", {"C2", "D2", "S2", "H2"}),
    # At level 2 the heart 2 is wild, the diamond 2 is the level card above A.
    ("H2 SA D2", "2", {"D2"}),
    ("H2 SA SK", "2", {"SA"}),
    # At level A the heart ace is wild, the other aces are the level card.
    ("HA SA SK", "A", {"SA"}),
    ("HA SK DK", "A", {"SK", "DK"}),
    # At level T the heart ten is wild; an ace is still the natural highest.
    ("HT SA ST", "T", {"ST"}),
    ("HT SQ D9", "T", {"SQ"}),
]


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize(("hand", "level", "expected"), CARD_CASES)
def test_tribute_card_is_highest_but_wild(
    slug: str, hand: str, level: str, expected: set[str]
) -> None:
    """tribute.card: the highest card at the new level, the heart level card left out."""
    p = plan(slug, [0, 1, 2, 3], ["S4", "C5", "C6", hand], level)
    assert payments(p) == {(3, 0): expected}


@pytest.mark.parametrize(("hand", "level", "expected"), CARD_CASES)
def test_tribute_cards_function(hand: str, level: str, expected: set[str]) -> None:
    """tribute.card: `tribute_cards` on a hand alone gives the same cards."""
    rules = play_rules(load_variant("match-rules"), Rank(level))
    got = tribute_cards(parse_cards(hand), rules)
    assert codes(got) == expected
    assert len(got) == len(expected)  # each card once


# --- single tribute: tribute.single.payer, tribute.single.receiver, tribute.lead.single --------


@pytest.mark.parametrize("slug", VARIANTS)
def test_single_first_and_third(slug: str) -> None:
    """tribute.single.payer, tribute.single.receiver, tribute.lead.single, tribute.return.max_rank.

    Finish [0, 1, 2, 3]: 0 first, its partner 2 third; the last (3) pays the first (0), 0 returns
    a card to 3, and the payer 3 leads.
    """
    assert Finish.of([0, 1, 2, 3]).kind is FinishKind.FIRST_AND_THIRD
    p = plan(slug, [0, 1, 2, 3], ["SA S3 D5", "C9 CT", "DJ DQ", "SK S8 D8"])
    assert p.anti is AntiTribute.NONE
    assert payments(p) == {(3, 0): {"SK"}}
    assert returns(p) == {(0, 3): limited(slug, {"SA", "S3", "D5"}, {"S3", "D5"})}
    assert p.leader == 3
    assert p.anti_leader is None


@pytest.mark.parametrize("slug", VARIANTS)
def test_single_first_and_third_other_seats(slug: str) -> None:
    """tribute.single.payer, tribute.single.receiver, tribute.lead.single.

    Finish [2, 3, 0, 1]: 2 first, its partner 0 third, 1 last: 1 pays 2, 2 returns to 1.
    """
    p = plan(slug, [2, 3, 0, 1], ["SA S3", "D9 DQ C4", "HK H4", "C3 C5"])
    assert p.anti is AntiTribute.NONE
    assert payments(p) == {(1, 2): {"DQ"}}
    assert returns(p) == {(2, 1): limited(slug, {"HK", "H4"}, {"H4"})}
    assert p.leader == 1
    assert p.anti_leader is None


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize(("finish", "first", "last"), [([1, 2, 0, 3], 1, 3), ([0, 3, 1, 2], 0, 2)])
def test_single_first_and_fourth_partner_pays(
    slug: str, finish: list[int], first: int, last: int
) -> None:
    """tribute.single.payer, tribute.single.receiver, tribute.lead.single.

    1st+4th: the last is the first's own partner; still the last pays the first (下游向上游),
    the first returns to it, and the payer leads.
    """
    assert Finish.of(finish).kind is FinishKind.FIRST_AND_FOURTH
    assert last == (first + 2) % 4
    hands = ["C3 C4", "C5 C6", "C8 C9", "CT CJ"]
    hands[last] = "SQ DQ S2"
    hands[first] = "HA D6"
    p = plan(slug, finish, hands)
    assert p.anti is AntiTribute.NONE
    assert payments(p) == {(last, first): {"SQ", "DQ"}}
    assert returns(p) == {(first, last): limited(slug, {"HA", "D6"}, {"D6"})}
    assert p.leader == last
    assert p.anti_leader is None


# --- anti-tribute ------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize(("finish", "first", "last"), [([0, 1, 2, 3], 0, 3), ([1, 2, 0, 3], 1, 3)])
def test_single_anti_two_big_jokers(slug: str, finish: list[int], first: int, last: int) -> None:
    """tribute.anti.big_jokers, tribute.anti.single_mandatory, tribute.lead.anti.

    The single payer holds both big jokers. competition and match-rules: no tribute, the first
    leads. huaian and online-app (可抗貢): the payer may resist; the plan still lists the payment
    (a big joker), the return and the payer's lead if it pays, and the first leads if it resists.
    """
    hands = ["C3 C4", "C5 C6", "C8 C9", "CT CJ"]
    hands[last] = "HR HR S3"
    hands[first] = "SK D4"
    p = plan(slug, finish, hands)
    assert p.anti is SINGLE_ANTI[slug]
    assert p.anti_leader == first
    if p.anti is AntiTribute.MUST:
        assert p.payments == ()
        assert p.returns == ()
        assert p.leader == first
    else:
        assert payments(p) == {(last, first): {"HR"}}
        assert returns(p) == {(first, last): {"SK", "D4"}}
        assert p.leader == last


@pytest.mark.parametrize("slug", VARIANTS)
def test_single_one_big_joker_is_not_enough(slug: str) -> None:
    """tribute.anti.big_jokers, tribute.card: the payer's one big joker is paid.

    The other big joker is with the payer's partner (seat 1) in one deal and with the first in
    another; only the payer's own hand counts for a single tribute.
    """
    for hands in (
        ["S4 S5", "HR C6", "C8 C9", "HR SB S3"],
        ["HR S5", "C7 C6", "C8 C9", "HR SB S3"],
    ):
        p = plan(slug, [0, 1, 2, 3], hands)
        assert p.anti is AntiTribute.NONE
        assert p.anti_leader is None
        assert payments(p) == {(3, 0): {"HR"}}
        assert p.leader == 3


# Double-down finishes (winners 1st and 2nd) with their first, second and the two payers.
DOUBLE_FINISHES = [
    ([0, 2, 1, 3], 0, 2),
    ([0, 2, 3, 1], 0, 2),
    ([3, 1, 0, 2], 3, 1),
]


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize(("finish", "first", "second"), DOUBLE_FINISHES)
@pytest.mark.parametrize(
    ("payer_a", "payer_b"),
    [("HR S3", "HR D4"), ("HR HR S3", "SA D4"), ("S3 C5", "HR SB HR")],
    ids=["one_each", "both_in_first_payer", "both_in_second_payer"],
)
def test_double_anti_two_big_jokers(
    slug: str, finish: list[int], first: int, second: int, payer_a: str, payer_b: str
) -> None:
    """tribute.anti.big_jokers, tribute.lead.anti: after a double-down two big jokers between the
    payers, one each or both in one hand, mean no tribute in every variant; the first leads."""
    assert Finish.of(finish).kind is FinishKind.DOUBLE_DOWN
    losers = sorted({0, 1, 2, 3} - {first, second})
    hands = ["", "", "", ""]
    hands[first] = "SK D9"
    hands[second] = "CK C9"
    hands[losers[0]] = payer_a
    hands[losers[1]] = payer_b
    p = plan(slug, finish, hands)
    assert p.anti is AntiTribute.MUST
    assert p.payments == ()
    assert p.returns == ()
    assert p.leader == first
    assert p.anti_leader == first


@pytest.mark.parametrize("slug", VARIANTS)
def test_double_one_big_joker_is_not_enough(slug: str) -> None:
    """tribute.anti.big_jokers, tribute.double.assignment, tribute.lead.double.

    Finish [0, 2, 1, 3]: payer 1 has one big joker, the other is with the first (0). No
    anti-tribute: 1 pays the big joker to 0, 3 pays an ace to 2, and 1 leads.
    """
    p = plan(slug, [0, 2, 1, 3], ["HR S4", "HR C6", "D8 C9", "SA S3"])
    assert p.anti is AntiTribute.NONE
    assert p.anti_leader is None
    assert payments(p) == {(1, 0): {"HR"}, (3, 2): {"SA"}}
    assert p.leader == 1


# --- double-down with different tributes -------------------------------------------------------


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize("finish", [[0, 2, 1, 3], [0, 2, 3, 1]])
def test_double_bigger_tribute_from_first_previous(slug: str, finish: list[int]) -> None:
    """tribute.double.assignment, tribute.return.double_to, tribute.lead.double,
    tribute.return.max_rank.

    Winners 0 (first) and 2 (second). Seat 3 pays a big joker, seat 1 an ace: the big joker goes
    to 0, the ace to 2. competition and match-rules: 0 returns to 3, 2 returns to 1 (each to the
    payer whose tribute it took). huaian and online-app: each winner returns to its own 下家:
    0 to 1, 2 to 3. The bigger payer (3) leads. The order of the losers in the finish does not
    matter (both are last).
    """
    p = plan(slug, finish, ["SK S5", "SA S3", "DQ D9", "HR S4"])
    assert p.anti is AntiTribute.NONE
    assert p.anti_leader is None
    assert payments(p) == {(3, 0): {"HR"}, (1, 2): {"SA"}}
    from_first = limited(slug, {"SK", "S5"}, {"S5"})
    from_second = limited(slug, {"DQ", "D9"}, {"D9"})
    if RETURNS_TO_PAYER[slug]:
        assert returns(p) == {(0, 3): from_first, (2, 1): from_second}
    else:
        assert returns(p) == {(0, 1): from_first, (2, 3): from_second}
    assert p.leader == 3


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize("finish", [[0, 2, 1, 3], [0, 2, 3, 1]])
def test_double_bigger_tribute_from_first_next(slug: str, finish: list[int]) -> None:
    """tribute.double.assignment, tribute.return.double_to, tribute.lead.double, tribute.card.

    At level 7 seat 1 pays the level card S7 (above A), seat 3 an ace: S7 goes to the first (0),
    the ace to the second (2). Here both readings of the return agree: 0 returns to 1 (the payer
    of its tribute and its 下家), 2 returns to 3. The bigger payer (1) leads.
    """
    p = plan(slug, finish, ["SK S5", "S7 S3", "DQ D9", "SA DA C4"])
    assert payments(p) == {(1, 0): {"S7"}, (3, 2): {"SA", "DA"}}
    assert returns(p) == {
        (0, 1): limited(slug, {"SK", "S5"}, {"S5"}),
        (2, 3): limited(slug, {"DQ", "D9"}, {"D9"}),
    }
    assert p.leader == 1
    assert p.anti is AntiTribute.NONE


@pytest.mark.parametrize("slug", VARIANTS)
def test_double_other_seats(slug: str) -> None:
    """tribute.double.assignment, tribute.return.double_to, tribute.lead.double.

    Finish [3, 1, 2, 0]: winners 3 (first) and 1 (second), payers 0 and 2. Seat 0 pays a small
    joker, seat 2 a king (the wild H7 left out): SB to 3, the king to 1. To the payer: 3 returns
    to 0, 1 returns to 2. To the 下家: 3 returns to 0, 1 returns to 2 as well. 0 leads.
    Then with the bigger tribute from seat 2: SB to 3 from 2, to the payer 3→2 and 1→0, to the
    下家 3→0 and 1→2; 2 leads.
    """
    p = plan(slug, [3, 1, 2, 0], ["SB C3", "ST S2", "H7 SK C4", "D6 D5"])
    assert payments(p) == {(0, 3): {"SB"}, (2, 1): {"SK"}}
    assert returns(p) == {(3, 0): {"D6", "D5"}, (1, 2): {"ST", "S2"}}
    assert p.leader == 0

    p = plan(slug, [3, 1, 2, 0], ["H7 SK C4", "SJ S2", "SB C3", "D6 D5"])
    assert payments(p) == {(2, 3): {"SB"}, (0, 1): {"SK"}}
    from_first = {"D6", "D5"}
    from_second = limited(slug, {"SJ", "S2"}, {"S2"})
    if RETURNS_TO_PAYER[slug]:
        assert returns(p) == {(3, 2): from_first, (1, 0): from_second}
    else:
        assert returns(p) == {(3, 0): from_first, (1, 2): from_second}
    assert p.leader == 2


# --- double-down with equal tributes -----------------------------------------------------------

# (finish, hands, payments, returns, first's 下家, first's 上家): each payer pays its 上家.
TIE_CASES = [
    # Both pay an ace: 1 (0's 下家) pays 0, 3 pays its 上家 2; returns go back 0→1, 2→3.
    (
        [0, 2, 1, 3],
        ["S5 S6", "SA S3", "D8 D9", "DA C4"],
        {(1, 0): {"SA"}, (3, 2): {"DA"}},
        {(0, 1): {"S5", "S6"}, (2, 3): {"D8", "D9"}},
        1,
        3,
    ),
    # The same with the losers the other way round in the finish.
    (
        [0, 2, 3, 1],
        ["S5 S6", "SA S3", "D8 D9", "DA C4"],
        {(1, 0): {"SA"}, (3, 2): {"DA"}},
        {(0, 1): {"S5", "S6"}, (2, 3): {"D8", "D9"}},
        1,
        3,
    ),
    # Both a small joker (competition's own example 如同為小王); first 2, second 0:
    # 3 (2's 下家) pays 2, 1 pays 0; returns 2→3, 0→1.
    (
        [2, 0, 3, 1],
        ["S5 S6", "SB S3", "D8 D9", "SB C4"],
        {(3, 2): {"SB"}, (1, 0): {"SB"}},
        {(2, 3): {"D8", "D9"}, (0, 1): {"S5", "S6"}},
        3,
        1,
    ),
    # Both the level card (S7 and D7 at level 7; the wild H7 of seat 0 is not paid):
    # first 1, second 3; 2 pays 1, 0 pays 3; returns 1→2, 3→0.
    (
        [1, 3, 0, 2],
        ["H7 D7 C3", "SJ S5", "S7 D4", "C6 C8"],
        {(2, 1): {"S7"}, (0, 3): {"D7"}},
        {(1, 2): {"SJ", "S5"}, (3, 0): {"C6", "C8"}},
        2,
        0,
    ),
]


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize(
    ("finish", "hands", "paid", "returned", "first_next", "first_previous"), TIE_CASES
)
def test_double_equal_tributes(
    slug: str,
    finish: list[int],
    hands: list[str],
    paid: dict[tuple[int, int], set[str]],
    returned: dict[tuple[int, int], set[str]],
    first_next: int,
    first_previous: int,
) -> None:
    """tribute.double.tie, tribute.return.double_to, tribute.lead.double_tie.

    Equal tributes: each payer pays the winner who is its 上家 (the first takes from its 下家);
    each winner returns to the payer it took from, who is also its 下家. match-rules: 上游's 下家
    leads (and huaian and online-app by assumption); competition: 上游's 上家 (由上游上家先出牌).
    """
    p = plan(slug, finish, hands)
    assert p.anti is AntiTribute.NONE
    assert p.tie
    assert payments(p) == paid
    expected = {
        key: limited(slug, cards, {c for c in cards if c[1] in "23456789T"})
        for key, cards in returned.items()
    }
    assert returns(p) == expected
    assert p.leader == (first_previous if TIE_LEADER[slug] == "previous" else first_next)
    assert p.anti_leader is None


@pytest.mark.parametrize("slug", VARIANTS)
def test_double_unequal_is_no_tie(slug: str) -> None:
    """tribute.double.tie, tribute.double.assignment: an ace and a king are not equal; suits
    never matter (SA and DA are equal, as in the tie cases)."""
    p = plan(slug, [0, 2, 1, 3], ["S5 S6", "SK S3", "D8 D9", "DA C4"])
    assert not p.tie
    assert payments(p) == {(3, 0): {"DA"}, (1, 2): {"SK"}}
    assert p.leader == 3


# --- tribute.return.max_rank -------------------------------------------------------------------


@pytest.mark.parametrize("slug", VARIANTS)
def test_return_limit_single(slug: str) -> None:
    """tribute.return.max_rank: competition returns a card of 10 or lower (no jokers, no J/Q/K/A);
    elsewhere any card of the first's hand."""
    p = plan(slug, [0, 1, 2, 3], ["SA SK ST S9 HR SB", "C3", "C4", "D5 D6"])
    every = {"SA", "SK", "ST", "S9", "HR", "SB"}
    assert returns(p) == {(0, 3): limited(slug, every, {"ST", "S9"})}
    (duty,) = p.returns
    assert duty.max_rank == (Rank.TEN if LIMITED_RETURN[slug] else None)


@pytest.mark.parametrize("slug", VARIANTS)
@pytest.mark.parametrize(
    ("level", "hand", "ten_or_lower"),
    [
        # A level card of 10 or lower counts by its natural rank: S7 and the wild H7 at level 7.
        ("7", "S7 H7 SJ D3", {"S7", "H7", "D3"}),
        # The level card at Q plays above A, but its natural rank is Q: not returnable.
        ("Q", "SQ HQ ST", {"ST"}),
        # The level card at 10 is a 10.
        ("T", "ST HT SJ", {"ST", "HT"}),
        # Nothing of 10 or lower: nothing may be returned in competition.
        ("2", "SJ SQ HR", set()),
    ],
)
def test_return_limit_level_card(slug: str, level: str, hand: str, ten_or_lower: set[str]) -> None:
    """tribute.return.max_rank: the limit reads the natural rank, the level card included."""
    p = plan(slug, [0, 1, 2, 3], [hand, "C3", "C4", "D5 D6"], level)
    assert returns(p) == {(0, 3): limited(slug, codes(parse_cards(hand)), ten_or_lower)}


def test_return_cards_function() -> None:
    """tribute.return.max_rank: `return_cards` with the limit 10 and with none."""
    hand = parse_cards("SA SK ST S9 HR SB S9")
    rules = play_rules(load_variant("competition"), Rank.TWO)
    assert codes(return_cards(hand, Rank.TEN, rules)) == {"ST", "S9"}
    assert len(return_cards(hand, Rank.TEN, rules)) == 2  # the two S9 are one card
    assert codes(return_cards(hand, None, rules)) == {"SA", "SK", "ST", "S9", "HR", "SB"}
    assert return_cards((), Rank.TEN, rules) == ()


# --- apply_tribute -----------------------------------------------------------------------------


def test_apply_tribute_single() -> None:
    """apply_tribute: 3 pays SA to 0, 0 returns S3 to 3; one copy moves, the rest stays."""
    hands = deal("S3 S4 D5", "C9 CT", "DJ DQ", "SA SA S8")
    after = apply_tribute(hands, [(3, 0, parse_card("SA")), (0, 3, parse_card("S3"))])
    assert [Counter(h) for h in after] == [
        Counter(parse_cards("S4 D5 SA")),
        Counter(parse_cards("C9 CT")),
        Counter(parse_cards("DJ DQ")),
        Counter(parse_cards("SA S8 S3")),
    ]
    # The hands given are not changed.
    assert hands[3] == parse_cards("SA SA S8")


def test_apply_tribute_double() -> None:
    """apply_tribute: two payments and two returns after a double-down (to the 下家)."""
    hands = deal("SK S5", "SA S3", "DQ D9", "HR S4")
    given = [
        (3, 0, parse_card("HR")),
        (1, 2, parse_card("SA")),
        (0, 1, parse_card("S5")),
        (2, 3, parse_card("D9")),
    ]
    after = apply_tribute(hands, given)
    assert [Counter(h) for h in after] == [
        Counter(parse_cards("SK HR")),
        Counter(parse_cards("S3 S5")),
        Counter(parse_cards("DQ SA")),
        Counter(parse_cards("S4 D9")),
    ]
    assert sum(len(h) for h in after) == 8


def test_apply_tribute_plan_round_trip() -> None:
    """apply_tribute with the cards a plan offers: the payer loses the card, the first gains it."""
    hands = deal("SA S3 D5", "C9 CT", "DJ DQ", "SK S8 D8")
    p = plan_tribute(Finish.of([0, 1, 2, 3]), hands, Rank.SEVEN, load_variant("competition"))
    (pay,) = p.payments
    (duty,) = p.returns
    after = apply_tribute(hands, [(pay.payer, pay.receiver, pay.cards[0]), (0, 3, duty.cards[0])])
    assert Counter(after[0]) == Counter(parse_cards("SA SK")) + Counter(hands[0]) - Counter(
        [duty.cards[0], parse_card("SA")]
    )
    assert parse_card("SK") in after[0]
    assert parse_card("SK") not in after[3]
    assert duty.cards[0] in after[3]
    assert len(after[0]) == 3 and len(after[3]) == 3


def test_apply_tribute_card_not_held() -> None:
    """apply_tribute: a card the giver does not hold cannot be given."""
    hands = deal("S3", "S4", "S5", "S6")
    with pytest.raises((ValueError, HarnessError)):
        apply_tribute(hands, [(3, 0, parse_card("SA"))])


# --- the JSON form (operation "tribute") -------------------------------------------------------


def run(slug: str, data: dict[str, Any]) -> dict[str, Any]:
    return run_operation("tribute", data, load_variant(slug))


def norm(items: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """Payments or returns sorted by payer/giver, their cards as sets."""
    return sorted(({**x, "cards": set(x["cards"])} for x in items), key=lambda x: x[key])


@pytest.mark.parametrize("slug", VARIANTS)
def test_json_single(slug: str) -> None:
    """tribute.single.payer, tribute.single.receiver, tribute.card, tribute.return.max_rank,
    tribute.lead.single, in the JSON form."""
    out = run(
        slug,
        {
            "finish": [0, 1, 2, 3],
            "hands": [["SA", "S3", "D5"], ["C9", "CT"], ["DJ", "DQ"], ["H7", "SK", "DK", "S8"]],
            "level": "7",
        },
    )
    assert set(out) == {
        "anti_tribute",
        "payments",
        "returns",
        "leader",
        "anti_leader",
        "reveal_together",
    }
    assert out["reveal_together"] is False  # one return: nothing to show together
    assert out["anti_tribute"] == "none"
    assert norm(out["payments"], "payer") == [{"payer": 3, "receiver": 0, "cards": {"SK", "DK"}}]
    assert norm(out["returns"], "giver") == [
        {
            "giver": 0,
            "receiver": 3,
            "max_rank": "T" if LIMITED_RETURN[slug] else None,
            "cards": limited(slug, {"SA", "S3", "D5"}, {"S3", "D5"}),
        }
    ]
    assert out["leader"] == 3
    assert out["anti_leader"] is None
    # The card lists are written in a fixed order.
    for item in out["payments"] + out["returns"]:
        assert item["cards"] == sorted(item["cards"])


@pytest.mark.parametrize("slug", VARIANTS)
def test_json_single_anti(slug: str) -> None:
    """tribute.anti.single_mandatory, tribute.anti.big_jokers, tribute.lead.anti (JSON)."""
    out = run(
        slug,
        {
            "finish": [1, 2, 3, 0],
            "hands": [["HR", "HR", "S3"], ["SK", "D4"], ["C5"], ["C6"]],
            "level": "7",
        },
    )
    assert out["anti_leader"] == 1
    if SINGLE_ANTI[slug] is AntiTribute.MUST:
        assert out == {
            "anti_tribute": "must",
            "payments": [],
            "returns": [],
            "leader": 1,
            "anti_leader": 1,
            "reveal_together": False,
        }
    else:
        assert out["anti_tribute"] == "may"
        assert norm(out["payments"], "payer") == [{"payer": 0, "receiver": 1, "cards": {"HR"}}]
        assert norm(out["returns"], "giver") == [
            {"giver": 1, "receiver": 0, "max_rank": None, "cards": {"SK", "D4"}}
        ]
        assert out["leader"] == 0


@pytest.mark.parametrize("slug", VARIANTS)
def test_json_double(slug: str) -> None:
    """tribute.double.assignment, tribute.return.double_to, tribute.lead.double (JSON)."""
    out = run(
        slug,
        {
            "finish": [0, 2, 1, 3],
            "hands": [["SK", "S5"], ["SA", "S3"], ["DQ", "D9"], ["HR", "S4"]],
            "level": "7",
        },
    )
    assert out["anti_tribute"] == "none"
    assert norm(out["payments"], "payer") == [
        {"payer": 1, "receiver": 2, "cards": {"SA"}},
        {"payer": 3, "receiver": 0, "cards": {"HR"}},
    ]
    max_rank = "T" if LIMITED_RETURN[slug] else None
    to = {0: 3, 2: 1} if RETURNS_TO_PAYER[slug] else {0: 1, 2: 3}
    assert norm(out["returns"], "giver") == [
        {
            "giver": 0,
            "receiver": to[0],
            "max_rank": max_rank,
            "cards": limited(slug, {"SK", "S5"}, {"S5"}),
        },
        {
            "giver": 2,
            "receiver": to[2],
            "max_rank": max_rank,
            "cards": limited(slug, {"DQ", "D9"}, {"D9"}),
        },
    ]
    assert out["leader"] == 3
    assert out["anti_leader"] is None


@pytest.mark.parametrize("slug", VARIANTS)
def test_json_double_tie_and_anti(slug: str) -> None:
    """tribute.double.tie, tribute.lead.double_tie, tribute.anti.big_jokers (JSON)."""
    tie = run(
        slug,
        {
            "finish": [0, 2, 1, 3],
            "hands": [["S5"], ["SB", "S3"], ["D8"], ["SB", "C4"]],
            "level": "7",
        },
    )
    assert norm(tie["payments"], "payer") == [
        {"payer": 1, "receiver": 0, "cards": {"SB"}},
        {"payer": 3, "receiver": 2, "cards": {"SB"}},
    ]
    assert {(r["giver"], r["receiver"]) for r in tie["returns"]} == {(0, 1), (2, 3)}
    assert tie["leader"] == (3 if TIE_LEADER[slug] == "previous" else 1)
    # tribute.return.reveal_together: after equal tributes competition (every double tribute)
    # and match-rules (equal tributes only) lay the returns face down; huaian and online-app not.
    assert tie["reveal_together"] is (slug in ("competition", "match-rules"))

    anti = run(
        slug,
        {
            "finish": [0, 2, 1, 3],
            "hands": [["S5"], ["HR", "S3"], ["D8"], ["HR", "C4"]],
            "level": "7",
        },
    )
    assert anti == {
        "anti_tribute": "must",
        "payments": [],
        "returns": [],
        "leader": 0,
        "anti_leader": 0,
        "reveal_together": False,  # no return to reveal
    }


@pytest.mark.parametrize(
    "finish",
    [[0, 1, 1, 3], [0, 1, 2], [0, 1, 2, 3, 0], [0, 1, 2, 4], [-1, 0, 1, 2], "0123", None, ["a"]],
)
def test_json_finish_not_a_permutation(finish: Any) -> None:
    """A finish that is not a permutation of 0..3 is an InputError."""
    data = {"finish": finish, "hands": [["S3"], ["S4"], ["S5"], ["S6"]], "level": "7"}
    with pytest.raises(InputError):
        run("match-rules", data)


@pytest.mark.parametrize("finish", [[0.5, 1, 2, 3], [True, False, 2, 3], ["0", "1", "2", "3"]])
def test_json_finish_of_non_integers(finish: Any) -> None:
    """A finish whose seats are not integers is not a permutation of 0..3: an InputError."""
    data = {"finish": finish, "hands": [["S3"], ["S4"], ["S5"], ["S6"]], "level": "7"}
    with pytest.raises(InputError):
        run("match-rules", data)


def test_finish_of_rejects_non_permutation() -> None:
    """Finish.of: anything but a permutation of 0..3 is an error."""
    with pytest.raises(HarnessError):
        Finish.of([0, 0, 1, 2])


@pytest.mark.parametrize(
    "hands",
    [
        # One card three times across the hands: two decks hold two of each.
        [["SA", "S3"], ["SA"], ["S5"], ["SA"]],
        [["HR", "HR"], ["S4"], ["HR"], ["S6"]],
        # Three times in one hand.
        [["S3", "S3", "S3"], ["S4"], ["S5"], ["S6"]],
        # Not four hands.
        [["S3"], ["S4"], ["S5"]],
        # Not a card.
        [["S3"], ["X9"], ["S5"], ["S6"]],
        # A hand that is not a list.
        [["S3"], "S4", ["S5"], ["S6"]],
    ],
)
def test_json_bad_hands(hands: Any) -> None:
    """Malformed hands are an InputError."""
    data = {"finish": [0, 1, 2, 3], "hands": hands, "level": "7"}
    with pytest.raises(InputError):
        run("competition", data)


@pytest.mark.parametrize(
    "data",
    [
        {"finish": [0, 1, 2, 3], "hands": [["S3"], ["S4"], ["S5"], ["S6"]], "level": "HR"},
        {"finish": [0, 1, 2, 3], "hands": [["S3"], ["S4"], ["S5"], ["S6"]], "level": "1"},
        {"finish": [0, 1, 2, 3], "hands": [["S3"], ["S4"], ["S5"], ["S6"]]},
        {"hands": [["S3"], ["S4"], ["S5"], ["S6"]], "level": "7"},
        {"finish": [0, 1, 2, 3], "level": "7"},
    ],
)
def test_json_bad_level_or_missing_field(data: dict[str, Any]) -> None:
    """A joker or unknown level, or a missing field, is an InputError."""
    with pytest.raises(InputError):
        run("huaian", data)


def test_json_two_copies_are_fine() -> None:
    """Two copies of a card across the hands are allowed (two decks)."""
    out = run(
        "match-rules",
        {"finish": [0, 1, 2, 3], "hands": [["SA"], ["S4"], ["S5"], ["SA", "S6"]], "level": "7"},
    )
    assert out["payments"] == [{"payer": 3, "receiver": 0, "cards": ["SA"]}]
