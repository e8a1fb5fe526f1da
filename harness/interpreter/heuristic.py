"""A rule-based bot (啟發式): plans its hand into combinations and plays by the plan.

The plan is a greedy decomposition of the hand (拆牌) into readings the interpreter lists for
it: bombs first, then the runs that save plays, then triples (with pairs as full houses), pairs
and singles. It leads the lowest non-bomb part of its plan, follows with the cheapest beating
play that breaks the plan least, keeps its bombs for when they matter, and never beats its
partner needlessly. It knows the variant only through the interpreter (the plays it lists, their
readings and how they compare), so it plays any variant; it uses no randomness.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.interpreter.classify import rules_readings
from harness.interpreter.legal import HandPlays
from harness.interpreter.readings import SEQUENCE_TYPES, Play, PlayRules, Reading
from harness.interpreter.round import Action, PassAction, PlayAction, RoundState
from harness.model.cards import Card, Rank
from harness.model.ruleset import CombinationType
from harness.model.seats import partner, team

SHORT_HAND = 6
"""An opponent holding this many cards or fewer is close to going out: bombs are worth it."""

PARTNER_SHORT = 8
"""A partner holding this many cards or fewer is worth keeping the lead for (a bomb)."""


@dataclass(frozen=True, slots=True)
class Unit:
    """One part of a plan: a reading and the cards of the hand meant to make it."""

    reading: Reading
    cards: tuple[Card, ...]
    bomb: bool


@dataclass(frozen=True, slots=True)
class _Sequence:
    """A run the hand can make: its reading and how many natural cards of each rank it takes."""

    reading: Reading
    ranks: tuple[tuple[Rank, int], ...]


class _Index:
    """What the interpreter lists for a hand, arranged for planning any part of that hand."""

    __slots__ = ("exact", "full_house", "groups", "hand", "rules", "sequences")

    def __init__(self, hand: Sequence[Card], rules: PlayRules) -> None:
        self.hand = Counter(hand)
        self.rules = rules
        self.groups: dict[tuple[Rank, int], Reading] = {}
        self.full_house: dict[Rank, Reading] = {}
        self.sequences: list[_Sequence] = []
        self.exact: list[Play] = []
        for play in HandPlays(tuple(hand), rules).plays():
            self._add(play)
        # Whole bombs before runs of many ranks (a straight flush may break a bomb of one rank).
        self.exact.sort(key=lambda p: (p.reading.type in SEQUENCE_TYPES, -p.reading.size))

    def _add(self, play: Play) -> None:
        reading, rules = play.reading, self.rules
        naturals = [c for c in play.cards if not rules.is_wild(c)]
        wilds = len(play.cards) - len(naturals)
        ranks = Counter(c.rank for c in naturals)
        bomb = rules.ladder_step(reading) is not None
        if reading.type in SEQUENCE_TYPES:
            if wilds:
                return
            if bomb:
                self.exact.append(play)
            else:
                self.sequences.append(_Sequence(reading, tuple(ranks.items())))
        elif reading.type is CombinationType.FULL_HOUSE:
            if reading.size == 5:
                self.full_house.setdefault(reading.rank, reading)
        elif len(ranks) == 1 and reading.rank in ranks and reading.size == len(play.cards):
            self.groups[(reading.rank, reading.size)] = reading
        elif bomb and len(ranks) > 1 and not wilds:
            self.exact.append(play)  # bombs of several ranks (the four jokers)

    def covers(self, hand: Sequence[Card]) -> bool:
        """Whether `hand` is part of the hand indexed (so that its readings are listed here)."""
        return not Counter(hand) - self.hand


def plan_hand(hand: Sequence[Card], index: _Index) -> list[Unit]:
    """A decomposition of `hand` into units, found greedily to need few plays."""
    rules = index.rules
    left = list(hand)
    units: list[Unit] = []
    for play in index.exact:
        if not Counter(play.cards) - Counter(left):
            if play.reading.type in SEQUENCE_TYPES and _costs_more(left, play.cards, index):
                continue
            units.append(Unit(play.reading, play.cards, True))
            _remove(left, play.cards)
    by_rank: dict[Rank, list[Card]] = {}
    wilds: list[Card] = []
    for card in sorted(left, key=lambda c: rules.value[c.rank]):
        (wilds if rules.is_wild(card) else by_rank.setdefault(card.rank, [])).append(card)
    # Bombs of one rank: all its natural cards, and a wild card to make a triple a bomb.
    for rank, cards in list(by_rank.items()):
        reading = index.groups.get((rank, len(cards)))
        if reading is not None and rules.ladder_step(reading) is not None:
            units.append(Unit(reading, tuple(cards), True))
            del by_rank[rank]
    while wilds:
        triple = next(
            (
                r
                for r, cards in by_rank.items()
                if len(cards) == 3 and _is_bomb(index.groups.get((r, 4)), rules)
            ),
            None,
        )
        if triple is None:
            break
        wild = wilds.pop()
        reading = index.groups[(triple, 4)]
        units.append(Unit(reading, (*by_rank.pop(triple), wild), True))
    if wilds:
        by_rank.setdefault(rules.level, []).extend(wilds)
    units.extend(_runs(by_rank, index))
    units.extend(_groups(by_rank, index))
    return units


def _is_bomb(reading: Reading | None, rules: PlayRules) -> bool:
    return reading is not None and rules.ladder_step(reading) is not None


def _remove(cards: list[Card], taken: Iterable[Card]) -> None:
    for card in taken:
        cards.remove(card)


def _costs_more(left: Sequence[Card], taken: Sequence[Card], index: _Index) -> bool:
    """Whether taking `taken` out of `left` as one bomb costs more than one extra play."""
    before = Counter(c.rank for c in left)
    after = before - Counter(c.rank for c in taken)
    return _cost(after, index) > _cost(before, index)


def _cost(counts: Counter[Rank] | dict[Rank, int], index: _Index) -> int:
    """The plays needed for cards by rank played as groups (full houses pairing up)."""
    plays = triples = pairs = 0
    for rank, n in counts.items():
        if n <= 0:
            continue
        if (rank, n) in index.groups:
            plays += 1
            triples += n == 3 and rank in index.full_house
            pairs += n == 2
        else:
            plays += n
    return plays - min(triples, pairs)


def _runs(by_rank: dict[Rank, list[Card]], index: _Index) -> list[Unit]:
    """The runs worth making of the cards left (each saving at least one play), best first."""
    counts = {r: len(c) for r, c in by_rank.items()}
    units: list[Unit] = []
    while True:
        best: _Sequence | None = None
        best_cost = _cost(counts, index)  # a run is made only when it saves a play
        for seq in index.sequences:
            if any(counts.get(r, 0) < n for r, n in seq.ranks):
                continue
            for r, n in seq.ranks:
                counts[r] -= n
            cost = _cost(counts, index) + 1
            for r, n in seq.ranks:
                counts[r] += n
            if cost < best_cost:
                best, best_cost = seq, cost
        if best is None:
            return units
        cards: list[Card] = []
        for r, n in best.ranks:
            counts[r] -= n
            cards += by_rank[r][:n]
            del by_rank[r][:n]
        if best.reading in rules_readings(cards, index.rules):
            units.append(Unit(best.reading, tuple(cards), False))
        else:  # the cards read otherwise (a wild card among them): put them back as they were
            for card in cards:
                by_rank[card.rank].append(card)
            return units


def _groups(by_rank: dict[Rank, list[Card]], index: _Index) -> list[Unit]:
    """Triples, pairs and singles of the cards left, triples taking the lowest pairs along."""
    rules = index.rules
    triples: list[Unit] = []
    pairs: list[Unit] = []
    units: list[Unit] = []
    for rank, cards in by_rank.items():
        n = len(cards)
        while n > 0:
            size = next(k for k in range(n, 0, -1) if (rank, k) in index.groups or k == 1)
            part = tuple(cards[n - size : n])
            n -= size
            reading = index.groups.get((rank, size))
            if reading is None:
                # No single of this rank listed (cannot happen for a card held); keep it whole.
                units.append(Unit(Reading(CombinationType.SINGLE, rank, 1), part, False))
                continue
            unit = Unit(reading, part, _is_bomb(reading, rules))
            if reading.type is CombinationType.TRIPLE and rank in index.full_house:
                triples.append(unit)
            elif reading.type is CombinationType.PAIR:
                pairs.append(unit)
            else:
                units.append(unit)
    triples.sort(key=lambda u: rules.key(u.reading))
    pairs.sort(key=lambda u: rules.key(u.reading))
    for triple in triples:
        full = index.full_house[triple.reading.rank]
        kicker = next(
            (p for p in pairs if rules.key(p.reading) < rules.value[Rank.ACE]),
            None,
        )
        joined = triple.cards + kicker.cards if kicker is not None else ()
        if kicker is not None and full in rules_readings(joined, rules):
            pairs.remove(kicker)
            units.append(Unit(full, joined, False))
        else:
            units.append(triple)
    return units + pairs


class HeuristicBot:
    """Plays by a plan of its hand: see the module's docstring."""

    def __init__(self) -> None:
        self._index: dict[int, _Index] = {}
        self._plans: dict[int, tuple[tuple[Card, ...], list[Unit]]] = {}

    # -- planning ------------------------------------------------------------------------------

    def plan(self, state: RoundState, seat: int) -> list[Unit]:
        """The plan of `seat`'s hand in `state` (kept while the hand is what it was planned as)."""
        hand = state.hands[seat]
        kept = self._plans.get(seat)
        if kept is not None and kept[0] is hand:
            return kept[1]
        index = self._index_for(hand, state.rules, seat)
        if kept is not None:
            rest = kept[1]
            if Counter(c for u in rest for c in u.cards) == Counter(hand):
                self._plans[seat] = (hand, rest)
                return rest
        plan = plan_hand(hand, index)
        self._plans[seat] = (hand, plan)
        return plan

    def _index_for(self, hand: Sequence[Card], rules: PlayRules, seat: int) -> _Index:
        index = self._index.get(seat)
        if index is None or index.rules is not rules or not index.covers(hand):
            index = self._index[seat] = _Index(hand, rules)
        return index

    def _replanned(self, state: RoundState, seat: int, play: Play) -> int:
        """The number of plays left after `play`, by a new plan of what is left."""
        hand = state.hands[seat]
        left = list(hand)
        _remove(left, play.cards)
        return len(plan_hand(left, self._index_for(hand, state.rules, seat)))

    # -- acting --------------------------------------------------------------------------------

    def act(self, state: RoundState, seat: int) -> Action:
        """Lead by the plan, or follow cheaply, keeping bombs and the partner's tricks."""
        plays = state.legal_plays()
        hand = state.hands[seat]
        for play in plays:
            if len(play.cards) == len(hand):
                return PlayAction(seat, play)  # going out beats everything
        plan = self.plan(state, seat)
        if state.trick is None:
            return PlayAction(seat, self._lead(state, seat, plan, plays))
        chosen = self._follow(state, seat, plan, plays)
        if chosen is None:
            if state.may_pass():
                return PassAction(seat)
            chosen = min(plays, key=lambda p: self._break_cost(state, seat, plan, p))
        return PlayAction(seat, chosen)

    def _lead(self, state: RoundState, seat: int, plan: list[Unit], plays: list[Play]) -> Play:
        rules = state.rules
        listed = {p.reading: p for p in plays}
        units = [u for u in plan if u.reading in listed]
        plain = [u for u in units if not u.bomb] or units
        if not plain:
            return plays[0]
        nxt = _next_opponent(state, seat)
        close = len(state.hands[nxt]) if nxt is not None else 99
        if close <= 2:
            # The next opponent may go out on a small play: lead more cards, or the highest.
            wide = [u for u in plain if len(u.cards) > close]
            if wide:
                plain = wide
            else:
                return self._as_play(max(plain, key=lambda u: rules.key(u.reading)), listed, rules)
        lowest = min(plain, key=lambda u: (rules.key(u.reading), -len(u.cards)))
        return self._as_play(lowest, listed, rules)

    def _follow(
        self, state: RoundState, seat: int, plan: list[Unit], plays: list[Play]
    ) -> Play | None:
        assert state.trick is not None
        rules = state.rules
        owner = state.trick[0]
        if team(owner) == team(seat):
            return None  # the partner's play stands: never beat it needlessly
        listed = {p.reading: p for p in plays}
        pressed = self._pressed(state, seat, owner)
        fitting = [u for u in plan if u.reading in listed]
        plain = [u for u in fitting if not u.bomb]
        if plain:
            return self._as_play(min(plain, key=lambda u: rules.key(u.reading)), listed, rules)
        others = [p for p in plays if rules.ladder_step(p.reading) is None]
        if others:
            costs = {id(p): self._break_cost(state, seat, plan, p) for p in others}
            best = min(others, key=lambda p: costs[id(p)])
            if pressed or costs[id(best)][1] <= 1:
                return best
        bombs = [u for u in fitting if u.bomb]
        if bombs and (pressed or len(plan) <= 2):
            cheapest = min(bombs, key=lambda u: _bomb_key(rules, u.reading))
            return self._as_play(cheapest, listed, rules)
        return None

    def _pressed(self, state: RoundState, seat: int, owner: int) -> bool:
        """Whether this trick matters: an opponent close to going out, or the partner's lead
        beaten while the partner is short."""
        for other in range(4):
            mine = team(other) == team(seat)
            if not mine and state.active(other) and len(state.hands[other]) <= SHORT_HAND:
                return True
        mate = partner(seat)
        return (
            state.leader == mate
            and owner != mate
            and state.active(mate)
            and len(state.hands[mate]) <= PARTNER_SHORT
        )

    def _break_cost(
        self, state: RoundState, seat: int, plan: list[Unit], play: Play
    ) -> tuple[int, int, int]:
        """How much `play` costs: the plays it adds to the plan, bombs last, then its rank."""
        rules = state.rules
        step = rules.ladder_step(play.reading)
        added = self._replanned(state, seat, play) + 1 - len(plan)
        return (0 if step is None else 1 + step, added, rules.key(play.reading))

    @staticmethod
    def _as_play(unit: Unit, listed: dict[Reading, Play], rules: PlayRules) -> Play:
        """The unit as a play: its own cards where they read as planned, else the listed ones."""
        play = listed[unit.reading]
        if Counter(play.cards) == Counter(unit.cards):
            return play
        if unit.reading in rules_readings(unit.cards, rules):
            return Play(unit.cards, unit.reading)
        return play

    # -- tribute -----------------------------------------------------------------------------

    def choose(self, options: Sequence[Card]) -> Card:
        """A tribute card: the rules force its rank; the first of them."""
        return min(options, key=lambda c: c.sort_key())

    def give_back(self, hand: Sequence[Card], options: Sequence[Card], rules: PlayRules) -> Card:
        """A return (還牌): the lowest card it can spare, a single of its plan if it has one."""
        plan = plan_hand(hand, _Index(hand, rules))
        singles = {u.cards[0] for u in plan if len(u.cards) == 1 and not u.bomb}
        spare = [c for c in options if c in singles]
        if spare:
            return min(spare, key=lambda c: (rules.value[c.rank], c.sort_key()))
        index = _Index(hand, rules)

        def cost(card: Card) -> tuple[int, int, tuple[int, int]]:
            left = list(hand)
            left.remove(card)
            return (len(plan_hand(left, index)), rules.value[card.rank], card.sort_key())

        return min(options, key=cost)

    def resist(self) -> bool:
        """Claims an optional anti-tribute (it keeps its big jokers)."""
        return True


def _next_opponent(state: RoundState, seat: int) -> int | None:
    """The next seat after `seat` still holding cards, if it is an opponent."""
    for step in (1, 2, 3):
        other = (seat + step) % 4
        if state.active(other):
            return other if team(other) != team(seat) else None
    return None


def _bomb_key(rules: PlayRules, reading: Reading) -> tuple[int, int]:
    step = rules.ladder_step(reading)
    return (0 if step is None else step, rules.key(reading))
