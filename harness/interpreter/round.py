"""A round of play (一局): turns, tricks, passes, 接風/借風, finishing order and the early end.

`RoundState` is immutable: `verify(action)` raises `IllegalAction` saying which rule forbids it,
and `apply(action)` returns the next state. Each action is a frozen record: the turn actions, a
play (`PlayAction`) or a pass (`PassAction`), and the question about a hand count (`AskAction`,
問牌), which any seat may ask at any time in the round and which changes nothing: `told(ask)`
is its answer, and there is no state after it to apply.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from harness.errors import HarnessError, IllegalAction
from harness.interpreter.classify import default_reading, rules_readings
from harness.interpreter.legal import HandPlays
from harness.interpreter.readings import Play, PlayRules, Reading, play_rules
from harness.model.cards import Card, Rank, format_cards, holds
from harness.model.declarations import implements, only
from harness.model.ruleset import (
    CombinationType,
    DisclosureMode,
    JiefengRule,
    PassRule,
    Ruleset,
)
from harness.model.seats import Finish, next_seat, partner, team

# The clauses that can refuse an action in a round (IllegalAction.rule).
_TURN = "flow.turn"
_EARLY_END = "flow.early_end"
_LEAD = "flow.lead"
_PASS = "flow.pass"
_OWN_CARDS = "flow.own_cards"
_ONLY_LISTED = "combinations.only_listed"
_DECLARED = "wild.declared"
_SHAPE = {kind: f"combinations.{kind.value}.shape" for kind in CombinationType}
_HAND_COUNT = "disclosure.hand_count"

VERDICTS = (
    _TURN,
    _EARLY_END,
    _LEAD,
    _PASS,
    _OWN_CARDS,
    _ONLY_LISTED,
    _DECLARED,
    *_SHAPE.values(),
    _HAND_COUNT,
)
"""The clause ids a refused action in a round names (裁定): the clause registry reads them."""


@dataclass(frozen=True, slots=True)
class PlayAction:
    """A seat puts down cards (出牌), declared as one reading."""

    seat: int
    play: Play


@dataclass(frozen=True, slots=True)
class PassAction:
    """A seat passes (不要/棄權)."""

    seat: int


Action = PlayAction | PassAction
"""A turn action: what the seat whose turn it is does (play or pass)."""


@dataclass(frozen=True, slots=True)
class AskAction:
    """Seat `seat` asks how many cards seat `about` holds (問牌/問張數).

    Not a turn action: any seat may ask at any time while the round goes on, whose turn it is
    does not change, and the answer (`RoundState.told`) is what the variant obliges the asked
    seat to tell. Refused (`disclosure.hand_count`) once the round is over, and when a seat asks
    about itself.
    """

    seat: int
    about: int


@dataclass(frozen=True)
class RoundState:
    """The state of a round: hands, the trick on the table, whose turn, who has gone out."""

    rules: PlayRules
    hands: tuple[tuple[Card, ...], ...]
    turn: int | None
    leader: int
    trick: tuple[int, Reading] | None = None
    out: tuple[int, ...] = ()
    history: tuple[Action, ...] = field(default=(), repr=False)
    """The plays and passes so far (asks change nothing and are not recorded)."""
    memo: dict[int, HandPlays] = field(default_factory=dict, repr=False, compare=False)
    """The plays found for each seat's hand, shared by the states of a round (`_next`), which all
    have its rules: a hand changes only when its seat plays, so a seat asked again between its
    plays is not searched again. Each entry holds its hand, and serves only that very hand."""

    @property
    def passes(self) -> int:
        """The passes since the play on the table: the history's last actions that are passes."""
        count = 0
        for action in reversed(self.history):
            if not isinstance(action, PassAction):
                break
            count += 1
        return count

    @property
    def level(self) -> Rank:
        """The level being played (打幾)."""
        return self.rules.level

    @property
    def over(self) -> bool:
        """Whether the round has ended (three out, or one team holding 1st and 2nd)."""
        return self.turn is None

    def active(self, seat: int) -> bool:
        """Whether `seat` still holds cards."""
        return seat not in self.out

    @property
    def finish(self) -> Finish | None:
        """The finishing order once the round is over; None before."""
        if not self.over:
            return None
        return finish_of(self.out)

    @property
    def double_down(self) -> bool:
        """Whether the first two out are partners (雙下)."""
        return _double_down(self.out)

    # -- what each seat may do ---------------------------------------------------------------

    def legal_plays(self) -> list[Play]:
        """The plays the seat whose turn it is may make now (the round not over)."""
        return list(self._turn_plays)

    @cached_property
    def _turn_plays(self) -> list[Play]:
        """The plays of the seat whose turn it is: as leader, or beating the trick."""
        seat = self.turn
        assert seat is not None
        return self.plays_of(seat).open_to(None if self.trick is None else self.trick[1])

    def plays_of(self, seat: int) -> HandPlays:
        """Every play of `seat`'s hand now, from the round's memo (one search per hand)."""
        hand = self.hands[seat]
        plays = self.memo.get(seat)
        if plays is None or plays.hand is not hand:
            plays = self.memo[seat] = HandPlays(hand, self.rules)
        return plays

    @implements("flow.pass")
    def may_pass(self) -> bool:
        """Whether the seat whose turn it is may pass now (the round not over): never when
        leading; else as the variant says."""
        if self.trick is None:
            return False
        if self.rules.rules.flow.pass_ is PassRule.ALWAYS:
            return True
        return not self._turn_plays

    @implements("flow.turn", "flow.own_cards", "flow.lead", "combinations.only_listed")
    def verify(self, action: Action | AskAction) -> None:
        """Raise `IllegalAction` (naming the deciding clause) unless `action` is allowed now."""
        if isinstance(action, AskAction):
            self._verify_ask(action)
            return
        self._verify_turn(action.seat)
        if isinstance(action, PassAction):
            # `may_pass` decides, so a replay's refused passes check it, the leader's included.
            if not self.may_pass():
                if self.trick is None:
                    raise IllegalAction("the leader must play; a lead cannot be passed", _LEAD)
                raise IllegalAction("a player able to beat must play", _PASS)
            return
        # A play handed out by `legal_plays` for this very state (the bots') is allowed: it is
        # of the seat's cards, read as its reading, beating the trick.
        if any(play is action.play for play in self.__dict__.get("_turn_plays", ())):
            return
        cards = action.play.cards
        self._verify_holds(action.seat, cards)
        readings = rules_readings(cards, self.rules)
        if not readings:
            raise IllegalAction(_NO_PLAY, _ONLY_LISTED)
        if action.play.reading not in readings:
            found = ", ".join(str(r) for r in readings)
            kind = action.play.reading.type
            raise IllegalAction(
                f"{format_cards(cards)} is not {action.play.reading} (it reads as: {found})",
                _SHAPE[kind],
            )
        if self.trick is not None:
            refused = self.rules.refusal(action.play.reading, self.trick[1])
            if refused is not None:
                raise IllegalAction(f"{action.play.reading} does not beat {self.trick[1]}", refused)

    def _verify_turn(self, seat: int) -> None:
        if self.over:
            if self.double_down and len(self.out) < 3:
                raise IllegalAction("the round ended early on a double-down (雙下)", _EARLY_END)
            raise IllegalAction("the round is over: three players are out", _TURN)
        if seat != self.turn:
            raise IllegalAction(f"it is seat {self.turn}'s turn, not seat {seat}'s", _TURN)

    @implements("disclosure.hand_count")
    def _verify_ask(self, ask: AskAction) -> None:
        """An ask is refused once the round is over and when a seat asks about itself."""
        for seat in (ask.seat, ask.about):
            if seat not in range(4):
                raise HarnessError(f"seat {seat!r}: expected a seat 0..3")
        if self.over:
            raise IllegalAction("the round is over: no hand count is asked after it", _HAND_COUNT)
        if ask.about == ask.seat:
            raise IllegalAction(
                f"seat {ask.seat} asks its own hand count, which it holds", _HAND_COUNT
            )

    def _verify_holds(self, seat: int, cards: Sequence[Card]) -> None:
        if not holds(self.hands[seat], cards):
            missing = Counter(cards) - Counter(self.hands[seat])
            raise IllegalAction(f"seat {seat} does not hold {format_cards(missing)}", _OWN_CARDS)

    def play_action(self, seat: int, cards: Sequence[Card], reading: Reading | None) -> PlayAction:
        """The play of `cards` by `seat`, read as `reading` or as the cards' only (or default)
        reading; refused (IllegalAction) when it is not the seat's turn, it does not hold the
        cards, or they make no play or several without a declaration (逢人配 出牌時須說明)."""
        self._verify_turn(seat)
        self._verify_holds(seat, cards)
        return PlayAction(seat, play_of(cards, self.rules, reading))

    # -- acting --------------------------------------------------------------------------------

    def apply(self, action: Action) -> RoundState:
        """The state after the turn action `action`; raises `IllegalAction` if it is not allowed.
        (An ask changes nothing: its answer is `told(ask)`.)"""
        self.verify(action)
        history = (*self.history, action)
        if isinstance(action, PassAction):
            return self._after_pass(action.seat, history)
        return self._after_play(action, history)

    def _after_play(self, action: PlayAction, history: tuple[Action, ...]) -> RoundState:
        seat = action.seat
        remaining = list(self.hands[seat])
        # The cards played are most often the hand's own objects: found by identity, at C speed,
        # else by equality.
        ids = list(map(id, remaining))
        for card in action.play.cards:
            try:
                at = ids.index(id(card))
            except ValueError:
                at = remaining.index(card)
            del remaining[at]
            del ids[at]
        hand = tuple(remaining)
        new = list(self.hands)
        new[seat] = hand
        hands = tuple(new)
        out = self.out + ((seat,) if not hand else ())
        trick = (seat, action.play.reading)
        turn = None if self._ends(out) else _next_holding(seat, out)
        return self._next(hands, turn, self.leader, trick, out, history)

    @implements("flow.new_lead")
    def _after_pass(self, seat: int, history: tuple[Action, ...]) -> RoundState:
        """The state after a pass; when all others have passed, the new leader (接風 if out)."""
        assert self.trick is not None
        passes = self.passes + 1  # this pass is not in the history yet
        owner = self.trick[0]
        # Everyone still holding cards, but the player whose play stands, has passed.
        needed = sum(1 for s in range(4) if self.active(s) and s != owner)
        if passes >= needed:
            lead = owner if self.active(owner) else self._jiefeng(owner)
            return self._next(self.hands, lead, lead, None, self.out, history)
        turn = self._next_active(seat)
        return self._next(self.hands, turn, self.leader, self.trick, self.out, history)

    def _next(
        self,
        hands: tuple[tuple[Card, ...], ...],
        turn: int | None,
        leader: int,
        trick: tuple[int, Reading] | None,
        out: tuple[int, ...],
        history: tuple[Action, ...],
    ) -> RoundState:
        """A state of this round with the same rules and memo (`dataclasses.replace`, faster:
        the fields set at once, as a frozen dataclass's `__init__` sets them one by one)."""
        state = object.__new__(RoundState)
        state.__dict__.update(
            rules=self.rules,
            hands=hands,
            turn=turn,
            leader=leader,
            trick=trick,
            out=out,
            history=history,
            memo=self.memo,
        )
        return state

    @implements("flow.jiefeng")
    def _jiefeng(self, finisher: int) -> int:
        """Who leads when a finisher's last play stands (接風/借風)."""
        mate = partner(finisher)
        if self.rules.rules.flow.jiefeng is JiefengRule.PARTNER and self.active(mate):
            return mate
        return self._next_active(finisher)

    def _next_active(self, seat: int) -> int:
        """The next seat after `seat` still holding cards (出牌順序)."""
        return _next_holding(seat, self.out)

    @implements("flow.early_end")
    def _ends(self, out: tuple[int, ...]) -> bool:
        """Whether the round is over once `out` are out: three, or 雙下 with the early end."""
        if len(out) >= 3:
            return True
        return bool(self.rules.rules.flow.early_end and _double_down(out))

    # -- what each seat may see ----------------------------------------------------------------

    @implements("disclosure.hand_count")
    def announced_counts(self) -> dict[int, int]:
        """The hand counts told to every seat unasked now (主動報數), by seat: those at or below
        the limit where the variant announces them, all where they are visible; none where
        counts are told only on request, or never."""
        rule = self.rules.rules.disclosure.hand_count
        if rule is None or rule.mode is DisclosureMode.ON_REQUEST:
            return {}
        if rule.mode is DisclosureMode.ALWAYS_VISIBLE:
            return {s: len(h) for s, h in enumerate(self.hands)}
        return {s: len(h) for s, h in enumerate(self.hands) if len(h) <= rule.max_cards}

    @implements("disclosure.hand_count")
    def told(self, ask: AskAction) -> int | None:
        """The count seat `ask.about` must tell when asked (問牌): its count where the variant
        tells counts (on request, or announced and 隨問隨報) and it is at or below the limit, or
        always where counts are visible; None where it need not tell (above the limit, or a
        variant that tells no counts). Raises `IllegalAction` when the ask is refused."""
        self.verify(ask)
        rule = self.rules.rules.disclosure.hand_count
        if rule is None:
            return None
        count = len(self.hands[ask.about])
        if rule.mode is DisclosureMode.ALWAYS_VISIBLE or count <= rule.max_cards:
            return count
        return None

    def view(self, seat: int) -> SeatView:
        """What `seat` may see: its own hand, the table, and the hand counts announced unasked."""
        return SeatView(
            seat, self.hands[seat], self.trick, self.turn, self.out, self.announced_counts()
        )


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat sees: its hand, the play to beat, whose turn, who is out, the counts
    announced unasked (a count told on request is the answer to an ask, `RoundState.told`)."""

    seat: int
    hand: tuple[Card, ...]
    trick: tuple[int, Reading] | None
    turn: int | None
    out: tuple[int, ...]
    counts: dict[int, int]


def start_round(
    hands: Sequence[Sequence[Card]], level: Rank, ruleset: Ruleset, leader: int
) -> RoundState:
    """A round from an explicit deal (four hands), the level played, and the first leader."""
    if len(hands) != 4:
        raise HarnessError(f"a deal has 4 hands, found {len(hands)}")
    if leader not in range(4):
        raise HarnessError(f"leader {leader!r}: expected a seat 0..3")
    return RoundState(play_rules(ruleset, level), tuple(tuple(h) for h in hands), leader, leader)


@implements("wild.declared", values=only(True))
def play_of(cards: Sequence[Card], rules: PlayRules, reading: Reading | None = None) -> Play:
    """A play of `cards`, read as `reading`, or as their only (or default) reading."""
    if reading is not None:
        return Play(tuple(cards), reading)
    found = rules_readings(cards, rules)
    if len(found) == 1:
        return Play(tuple(cards), found[0])
    default = default_reading(found, rules)
    if default is not None:
        return Play(tuple(cards), default)
    if not found:
        raise IllegalAction(_NO_PLAY, _ONLY_LISTED)
    listed = ", ".join(str(r) for r in found)
    raise IllegalAction(
        f"{format_cards(cards)} reads several ways ({listed}); declare one", _DECLARED
    )


# Why cards are no play; a message, free text no judge compares, so one for no cards too.
_NO_PLAY = "no play: the cards (at least one) make none of the combinations"


def finish_of(out: Sequence[int]) -> Finish:
    """The finishing order of a round that ended with `out` gone out, in order: the others
    follow the last one out round the table (名次)."""
    order = list(out)
    seat = order[-1]
    while len(order) < 4:
        seat = next_seat(seat)
        if seat not in order:
            order.append(seat)
    return Finish.of(order)


def _double_down(out: tuple[int, ...]) -> bool:
    """Whether the first two of `out` are partners (雙下)."""
    return len(out) >= 2 and team(out[0]) == team(out[1])


@implements("flow.turn")
def _next_holding(seat: int, out: tuple[int, ...]) -> int:
    """The next seat after `seat` not in `out` (出牌順序)."""
    probe = next_seat(seat)
    while probe in out:
        probe = next_seat(probe)
    return probe
