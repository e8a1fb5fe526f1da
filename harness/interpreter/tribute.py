"""Tribute between rounds (進貢), the return card (還牌), anti-tribute (抗貢), and who leads.

`plan_tribute` answers, from the last round's finish and the new hands: who pays whom, which
cards each payer may give, whether anti-tribute applies, who returns a card to whom and which
cards may be returned, and who leads the new round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harness.errors import HarnessError
from harness.interpreter.readings import PlayRules, play_rules
from harness.model.cards import Card, Rank
from harness.model.declarations import Values, implements, where
from harness.model.ruleset import PlaceRef, ReturnTo, RevealWhen, Ruleset
from harness.model.seats import Finish, FinishKind, next_seat, previous_seat


def _places(refused: frozenset[PlaceRef], when: str) -> Values:
    """The place references that name a seat `when` (the others name nobody then)."""
    names = [p.value for p in PlaceRef if p not in refused]

    def test(value: Any) -> str | None:
        if value in names:
            return None
        return f"'{value}' names nobody {when}"

    return where(test, ", ".join(names))


_PAYERS = frozenset({PlaceRef.PAYER, PlaceRef.BIGGER_PAYER, PlaceRef.SMALLER_PAYER})
SINGLE_PLACES = _places(
    frozenset({PlaceRef.BIGGER_PAYER, PlaceRef.SMALLER_PAYER}), "after a single tribute"
)
DOUBLE_PLACES = _places(frozenset({PlaceRef.PAYER}), "after a double tribute")
ANTI_PLACES = _places(_PAYERS, "when no tribute is paid")
FINISH_PLACES = _places(_PAYERS, "before anyone pays")


class AntiTribute(StrEnum):
    """Whether anti-tribute (抗貢) applies: no, it must, or the payer may choose it."""

    NONE = "none"
    MUST = "must"
    MAY = "may"


@dataclass(frozen=True, slots=True)
class Payment:
    """One tribute: the payer, the receiver, and the cards the payer may give (any one)."""

    payer: int
    receiver: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ReturnDuty:
    """One return (還牌): giver, receiver, and the giver's own cards that may go back."""

    giver: int
    receiver: int
    max_rank: Rank | None
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class TributePlan:
    """Everything tribute decides before a round: payments, returns, anti-tribute, leader."""

    anti: AntiTribute
    payments: tuple[Payment, ...]
    returns: tuple[ReturnDuty, ...]
    leader: int
    anti_leader: int | None
    tie: bool = False
    reveal_together: bool = False

    def to_json(self) -> dict[str, object]:
        """The plan as in cases and the protocol."""
        return {
            "anti_tribute": self.anti.value,
            "payments": [
                {"payer": p.payer, "receiver": p.receiver, "cards": sorted(_codes(p.cards))}
                for p in self.payments
            ],
            "returns": [
                {
                    "giver": r.giver,
                    "receiver": r.receiver,
                    "max_rank": r.max_rank.value if r.max_rank else None,
                    "cards": sorted(_codes(r.cards)),
                }
                for r in self.returns
            ],
            "leader": self.leader,
            "anti_leader": self.anti_leader,
            "reveal_together": self.reveal_together,
        }


def _codes(cards: Sequence[Card]) -> set[str]:
    return {c.code for c in cards}


@implements("tribute.card")
def tribute_cards(hand: Sequence[Card], rules: PlayRules) -> tuple[Card, ...]:
    """The cards a payer may give: the highest in hand, the wild heart level card left out."""
    candidates = [c for c in hand if not rules.is_wild(c)]
    if not candidates:
        return ()
    best = max(rules.value[c.rank] for c in candidates)
    return tuple(
        sorted({c for c in candidates if rules.value[c.rank] == best}, key=lambda c: c.sort_key())
    )


@implements("tribute.return.max_rank", "ranks.natural")
def return_cards(hand: Sequence[Card], max_rank: Rank | None, rules: PlayRules) -> tuple[Card, ...]:
    """The cards of `hand` that may be returned: any, or of natural rank at most `max_rank`."""
    if max_rank is None:
        allowed = set(hand)
    else:
        # 10以下: by the natural order of ranks, so a level card of 10 or lower may go back.
        limit = rules.natural_index[max_rank]
        allowed = {c for c in hand if not c.is_joker and rules.natural_index[c.rank] <= limit}
    return tuple(sorted(allowed, key=lambda c: c.sort_key()))


def _big_jokers(hand: Sequence[Card]) -> int:
    return sum(1 for c in hand if c.rank is Rank.BIG_JOKER)


@implements("tribute.enabled", "tribute.anti.big_jokers", "tribute.anti.single_mandatory")
@implements("tribute.single.payer", "tribute.single.receiver", values=FINISH_PLACES)
@implements("tribute.lead.single", values=SINGLE_PLACES)
@implements("tribute.lead.anti", values=ANTI_PLACES)
def plan_tribute(
    finish: Finish, hands: Sequence[Sequence[Card]], level: Rank, ruleset: Ruleset
) -> TributePlan:
    """The tribute before a round at `level`, after `finish`, with the newly dealt `hands`."""
    rules = play_rules(ruleset, level)
    tribute = ruleset.rules.tribute
    if not tribute.enabled:
        return TributePlan(AntiTribute.NONE, (), (), finish.first, None)
    limit = tribute.return_.max_rank
    if finish.kind is FinishKind.DOUBLE_DOWN:
        return _double(finish, hands, rules, ruleset, limit)
    payer = _seat(tribute.single.payer, finish)
    receiver = _seat(tribute.single.receiver, finish)
    anti_leader = _seat(tribute.lead.anti, finish)
    if _big_jokers(hands[payer]) >= tribute.anti.big_jokers:
        anti = AntiTribute.MUST if tribute.anti.single_mandatory else AntiTribute.MAY
        if anti is AntiTribute.MUST:
            return TributePlan(anti, (), (), anti_leader, anti_leader)
    else:
        anti = AntiTribute.NONE
    payment = Payment(payer, receiver, tribute_cards(hands[payer], rules))
    duty = ReturnDuty(receiver, payer, limit, return_cards(hands[receiver], limit, rules))
    leader = _seat(tribute.lead.single, finish, payer=payer)
    return TributePlan(
        anti, (payment,), (duty,), leader, anti_leader if anti is AntiTribute.MAY else None
    )


@implements("tribute.double.assignment", "tribute.double.tie", "tribute.return.double_to")
@implements("tribute.return.reveal_together")
@implements("tribute.lead.double", "tribute.lead.double_tie", values=DOUBLE_PLACES)
def _double(
    finish: Finish,
    hands: Sequence[Sequence[Card]],
    rules: PlayRules,
    ruleset: Ruleset,
    limit: Rank | None,
) -> TributePlan:
    """Tribute after a double-down (雙下): two payers, ties, returns and the leader."""
    tribute = ruleset.rules.tribute
    payers = finish.losers
    anti_leader = _seat(tribute.lead.anti, finish)
    if sum(_big_jokers(hands[p]) for p in payers) >= tribute.anti.big_jokers:
        return TributePlan(AntiTribute.MUST, (), (), anti_leader, anti_leader)
    offers = {p: tribute_cards(hands[p], rules) for p in payers}
    worth = {p: max((rules.value[c.rank] for c in offers[p]), default=-1) for p in payers}
    a, b = payers
    tie = worth[a] == worth[b]
    if tie:
        # Equal tributes: each payer pays the winner who is its 上家 (clockwise, 順時針).
        receiver_of = {p: previous_seat(p) for p in payers}
        bigger, smaller = (a, b) if receiver_of[a] == finish.first else (b, a)
    else:
        bigger, smaller = sorted(payers, key=worth.__getitem__, reverse=True)
        receiver_of = {bigger: finish.first, smaller: finish.second}
    payments = tuple(Payment(p, receiver_of[p], offers[p]) for p in (bigger, smaller))
    returns = []
    for payment in payments:
        giver = payment.receiver
        to = payment.payer if tribute.return_.double_to is ReturnTo.PAYER else next_seat(giver)
        returns.append(ReturnDuty(giver, to, limit, return_cards(hands[giver], limit, rules)))
    ref = tribute.lead.double_tie if tie else tribute.lead.double
    leader = _seat(ref, finish, bigger=bigger, smaller=smaller)
    # 暗扣…同時亮開: after every double tribute (competition), or after equal ones (match-rules).
    reveal = tribute.return_.reveal_together
    together = reveal is RevealWhen.DOUBLE or (reveal is RevealWhen.TIE and tie)
    return TributePlan(AntiTribute.NONE, payments, tuple(returns), leader, None, tie, together)


def _seat(
    ref: PlaceRef,
    finish: Finish,
    *,
    payer: int | None = None,
    bigger: int | None = None,
    smaller: int | None = None,
) -> int:
    """The seat a place reference names after `finish` (and the tribute, where it needs it)."""
    named = {
        PlaceRef.FIRST: finish.first,
        PlaceRef.SECOND: finish.second,
        PlaceRef.THIRD: finish.third,
        PlaceRef.LAST: finish.last,
        PlaceRef.FIRST_NEXT: next_seat(finish.first),
        PlaceRef.FIRST_PREVIOUS: previous_seat(finish.first),
        PlaceRef.PAYER: payer,
        PlaceRef.BIGGER_PAYER: bigger,
        PlaceRef.SMALLER_PAYER: smaller,
    }
    seat = named[ref]
    if seat is None:
        raise HarnessError(f"the place {ref.value!r} names nobody in this tribute")
    return seat
