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
from itertools import chain

from harness.interpreter.classify import rules_classification, rules_readings
from harness.interpreter.legal import HandPlays
from harness.interpreter.readings import SEQUENCE_TYPES, Play, PlayRules, Reading
from harness.interpreter.round import Action, PassAction, PlayAction, RoundState
from harness.model.cards import Card, Rank, holds, same_cards
from harness.model.ruleset import CombinationType
from harness.model.seats import partner, team

SHORT_HAND = 6
"""An opponent holding this many cards or fewer is close to going out: bombs are worth it."""

PARTNER_SHORT = 8
"""A partner holding this many cards or fewer is worth keeping the lead for (a bomb)."""

GOING_OUT = 10
"""Hands of this many cards or fewer are asked whether they are one play (to go out with)."""

BREAKS_TRIED = 6
"""The lowest plays off the plan weighed when no part of the plan beats the trick."""


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
    needs: int
    """`ranks` as bits (`_bits`): cards with counts `counts` make the run when
    `needs & ~_bits(counts) == 0`."""


_BIT = {rank: i for i, rank in enumerate(Rank)}


def _bit(rank: Rank, count: int) -> int:
    """The bits saying `count` cards of `rank` or more: one per card, each rank in its row."""
    return sum(1 << (_BIT[rank] + 16 * k) for k in range(count))


def _bits(counts: dict[Rank, int]) -> int:
    """What cards with these counts by rank hold, as bits (see `_bit`)."""
    bits = 0
    for rank, count in counts.items():
        bits |= _BITS.get((rank, count)) or _bit(rank, count)
    return bits


_BITS = {(rank, count): _bit(rank, count) for rank in Rank for count in range(9)}
"""`_bit` of every rank for the counts two decks allow (eight cards of a rank at most)."""


class _Index:
    """What the interpreter lists for a hand, arranged for planning any part of that hand."""

    __slots__ = (
        "bombs",
        "covered",
        "dealt",
        "exact",
        "full_house",
        "groups",
        "listing",
        "parts",
        "rules",
        "sequences",
        "shortest",
        "sizes",
    )

    def __init__(self, listing: HandPlays) -> None:
        hand, rules = listing.hand, listing.rules
        self.listing = listing
        """The interpreter's plays of the hand indexed: a part of it makes none they lack."""
        self.dealt = tuple(hand)
        self.covered: Sequence[Card] = hand
        self.rules = rules
        self.groups: dict[tuple[Rank, int], Reading] = {}
        self.full_house: dict[Rank, Reading] = {}
        self.bombs: set[tuple[Rank, int]] = set()
        """The keys of `groups` whose reading is a bomb (on the ladder)."""
        self.sequences: list[_Sequence] = []
        self.exact: list[tuple[Play, Counter[Card]]] = []
        self.parts: dict[tuple[Rank, int], tuple[int, int, int]] = {}
        """`_part` of each rank and count, kept as it is asked for."""
        self.sizes: dict[tuple[Rank, int], int] = {}
        """The largest group listed of each rank up to each count (1 where none is), kept."""
        self._read(listing.plays())
        self.shortest = min((s.reading.size for s in self.sequences), default=0)
        """The fewest cards a run of `sequences` takes."""
        # Whole bombs before runs of many ranks (a straight flush may break a bomb of one rank).
        self.exact.sort(key=lambda e: (e[0].reading.type in SEQUENCE_TYPES, -e[0].reading.size))

    def _read(self, plays: Iterable[Play]) -> None:
        """Index each play in turn (one loop, its lookups bound once: a hand lists ~55)."""
        rules = self.rules
        level, wild_suit = rules.level, rules.wild_suit
        ladder_types, ladder_step = rules.ladder_types, rules.ladder_step
        groups, full_house, bombs = self.groups, self.full_house, self.bombs
        sequences, exact = self.sequences, self.exact
        sequence_types, full = SEQUENCE_TYPES, CombinationType.FULL_HOUSE
        for play in plays:
            reading = play.reading
            kind = reading.type
            # Only a type on the ladder has bombs: the others are never asked for their step.
            bomb = kind in ladder_types and ladder_step(reading) is not None
            if kind in sequence_types:
                # Natural cards by rank; a run with a wild card is left out.
                ranks: dict[Rank, int] = {}
                for card in play.cards:
                    card_rank = card.rank
                    if card_rank is level and card.suit is wild_suit:  # rules.is_wild, inlined
                        break
                    ranks[card_rank] = ranks.get(card_rank, 0) + 1
                else:  # no wild card among them
                    if bomb:
                        exact.append((play, Counter(play.cards)))
                    else:
                        sequences.append(_Sequence(reading, tuple(ranks.items()), _bits(ranks)))
                continue
            if kind is full:
                if reading.size == 5:
                    full_house.setdefault(reading.rank, reading)
                continue
            rank = reading.rank
            wilds = 0
            one_rank = True  # whether every natural card is of the reading's rank
            for card in play.cards:
                if card.rank is level and card.suit is wild_suit:  # rules.is_wild(card), inlined
                    wilds += 1
                elif card.rank is not rank:
                    one_rank = False
            if wilds < len(play.cards) and one_rank:
                key = (rank, reading.size)
                groups[key] = reading
                if bomb:
                    bombs.add(key)
                else:
                    bombs.discard(key)
            elif bomb and not wilds:
                exact.append((play, Counter(play.cards)))  # bombs of several ranks (four jokers)

    def covers(self, hand: Sequence[Card]) -> bool:
        """Whether `hand` is part of the hand indexed (so that its readings are listed here)."""
        if hand is self.covered:
            return True
        if not holds(self.dealt, hand):
            return False
        self.covered = hand
        return True


def plan_hand(hand: Sequence[Card], index: _Index) -> list[Unit]:
    """A decomposition of `hand` into units, found greedily to need few plays."""
    rules = index.rules
    left = list(hand)
    units: list[Unit] = []
    held: Counter[Card] | None = None  # counted only when a bomb is small enough to be held
    for play, needed in index.exact:
        if len(play.cards) > len(left):
            continue
        if held is None:
            held = Counter(left)
        if all(held[c] >= n for c, n in needed.items()):
            if play.reading.type in SEQUENCE_TYPES and _costs_more(left, play.cards, index):
                continue
            units.append(Unit(play.reading, play.cards, True))
            _remove(left, play.cards)
            held -= needed
    by_rank: dict[Rank, list[Card]] = {}
    wilds: list[Card] = []
    value, level, wild_suit = rules.value, rules.level, rules.wild_suit
    for card in sorted(left, key=lambda c: value[c.rank]):
        if card.rank is level and card.suit is wild_suit:  # rules.is_wild(card), inlined
            wilds.append(card)
        else:
            by_rank.setdefault(card.rank, []).append(card)
    # Bombs of one rank: all its natural cards, and a wild card to make a triple a bomb.
    groups, bombs = index.groups, index.bombs
    for rank, cards in list(by_rank.items()):
        key = (rank, len(cards))
        if key in bombs and _reads(groups[key], cards, rules):
            units.append(Unit(groups[key], tuple(cards), True))
            del by_rank[rank]
    while wilds:
        triple = next(
            (r for r, cards in by_rank.items() if len(cards) == 3 and (r, 4) in bombs),
            None,
        )
        if triple is None:
            break
        reading = index.groups[(triple, 4)]
        bomb = (*by_rank[triple], wilds[-1])
        if not _reads(reading, bomb, rules):
            break
        wilds.pop()
        del by_rank[triple]
        units.append(Unit(reading, bomb, True))
    if wilds:
        by_rank.setdefault(rules.level, []).extend(wilds)
    units.extend(_runs(by_rank, index))
    units.extend(_groups(by_rank, index))
    return units


def broken_cost(plan: Sequence[Unit], cards: Sequence[Card], index: _Index) -> int:
    """The plays `cards` taken out of the hand add to `plan` (played as one more play): the
    units they break are planned again without them."""
    broken, left = _breaking(_in_breaking_order(plan), cards)
    return len(plan_hand(left, index)) + 1 - broken


def _in_breaking_order(plan: Sequence[Unit]) -> list[Unit]:
    """The units of `plan` in the order they are broken: the small first, bombs last."""
    return sorted(plan, key=_breaking_order)


def _breaking(ordered: Sequence[Unit], cards: Sequence[Card]) -> tuple[int, list[Card]]:
    """How many units of a plan (`_in_breaking_order`) taking `cards` out breaks, and the
    cards they leave."""
    wanted = Counter(cards)
    broken: list[Unit] = []
    for unit in ordered:
        if not wanted:
            break
        # A card is a key only while it is still wanted (its count above 0).
        if not wanted.keys().isdisjoint(unit.cards):
            broken.append(unit)
            for card in unit.cards:  # wanted -= Counter(unit.cards), without a Counter
                n = wanted.get(card)
                if n == 1:
                    del wanted[card]
                elif n:
                    wanted[card] = n - 1
    left = list(chain.from_iterable(u.cards for u in broken))
    for card in cards:
        if card in left:
            left.remove(card)
    return len(broken), left


def _breaking_order(unit: Unit) -> tuple[bool, int]:
    return (unit.bomb, len(unit.cards))


def _reads(reading: Reading | None, cards: Sequence[Card], rules: PlayRules) -> bool:
    """Whether `cards` read as `reading` (the interpreter's classification)."""
    # The classification's own tuple: `rules_readings` would copy it into a list first.
    return reading is not None and reading in rules_classification(cards, rules).readings


def _remove(cards: list[Card], taken: Iterable[Card]) -> None:
    for card in taken:
        cards.remove(card)


def _costs_more(left: Sequence[Card], taken: Sequence[Card], index: _Index) -> bool:
    """Whether taking `taken` out of `left` as one bomb costs more than one extra play."""
    before = Counter(c.rank for c in left)
    after = before - Counter(c.rank for c in taken)
    return _cost(after, index) > _cost(before, index)


def _part(rank: Rank, n: int, index: _Index) -> tuple[int, int, int]:
    """What `n` cards of `rank` add to `_cost`: plays, triples and pairs (for full houses)."""
    found = index.parts.get((rank, n))
    if found is not None:
        return found
    if n <= 0:
        found = (0, 0, 0)
    elif (rank, n) in index.groups:
        found = (1, int(n == 3 and rank in index.full_house), int(n == 2))
    else:
        found = (n, 0, 0)
    index.parts[(rank, n)] = found
    return found


def _totals(counts: Counter[Rank] | dict[Rank, int], index: _Index) -> list[int]:
    plays = triples = pairs = 0
    parts = index.parts
    for key in counts.items():
        part = parts.get(key) or _part(*key, index)
        plays += part[0]
        triples += part[1]
        pairs += part[2]
    return [plays, triples, pairs]


def _cost(counts: Counter[Rank] | dict[Rank, int], index: _Index) -> int:
    """The plays needed for cards by rank played as groups (full houses pairing up)."""
    plays, triples, pairs = _totals(counts, index)
    return plays - min(triples, pairs)


def _runs(by_rank: dict[Rank, list[Card]], index: _Index) -> list[Unit]:
    """The runs worth making of the cards left (each saving at least one play), best first."""
    if sum(map(len, by_rank.values())) < index.shortest:
        return []  # too few cards for any run
    counts = {r: len(c) for r, c in by_rank.items()}
    plays, triples, pairs = _totals(counts, index)
    units: list[Unit] = []
    # The runs the cards can make; counts only fall, so each pass keeps those still made.
    candidates = index.sequences
    while True:
        best: _Sequence | None = None
        best_cost = plays - min(triples, pairs)  # a run is made only when it saves a play
        best_totals = (plays, triples, pairs)
        held = ~_bits(counts)
        candidates = [seq for seq in candidates if not seq.needs & held]
        parts = index.parts
        for seq in candidates:
            # Only the ranks of the run change: the totals move by their parts.
            p, t, q = plays + 1, triples, pairs
            for r, n in seq.ranks:
                c = counts[r]
                had = parts.get((r, c)) or _part(r, c, index)
                has = parts.get((r, c - n)) or _part(r, c - n, index)
                p += has[0] - had[0]
                t += has[1] - had[1]
                q += has[2] - had[2]
            cost = p - min(t, q)
            if cost < best_cost:
                best, best_cost, best_totals = seq, cost, (p - 1, t, q)
        if best is None:
            return units
        plays, triples, pairs = best_totals
        cards: list[Card] = []
        for r, n in best.ranks:
            counts[r] -= n
            cards += by_rank[r][:n]
            del by_rank[r][:n]
        if _reads(best.reading, cards, index.rules):
            units.append(Unit(best.reading, tuple(cards), False))
        else:  # the cards read otherwise (a wild card among them): put them back as they were
            for card in cards:
                by_rank[card.rank].append(card)
            return units


def _size(rank: Rank, n: int, index: _Index) -> int:
    """The largest group of `rank` listed for the hand of at most `n` cards, else 1; kept."""
    found = index.sizes[(rank, n)] = next(
        (k for k in range(n, 1, -1) if (rank, k) in index.groups), 1
    )
    return found


def _groups(by_rank: dict[Rank, list[Card]], index: _Index) -> list[Unit]:
    """Triples, pairs and singles of the cards left, triples taking the lowest pairs along."""
    rules = index.rules
    triples: list[Unit] = []
    pairs: list[Unit] = []
    units: list[Unit] = []
    level, sizes = rules.level, index.sizes
    for rank, cards in by_rank.items():
        n = len(cards)
        while n > 0:
            size = sizes.get((rank, n)) or _size(rank, n, index)
            part = tuple(cards[n - size : n])
            n -= size
            reading = index.groups.get((rank, size))
            # Natural cards of one rank read as the listed group of their size; wild ones may not.
            # (Wild cards are level cards: only the level's cards may hold one.)
            wild = rank is level and any(rules.is_wild(c) for c in part)
            if reading is None or (wild and not _reads(reading, part, rules)):
                # Its cards one by one; a card that is no play alone stays out of the plan.
                single = index.groups.get((rank, 1))
                if single is not None:
                    alone = [c for c in part if _reads(single, (c,), rules)]
                    units += [Unit(single, (c,), False) for c in alone]
                continue
            unit = Unit(reading, part, (rank, size) in index.bombs)
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
        # A pair of A or above wins tricks alone: it is kept out of full houses.
        kicker = next(
            (p for p in pairs if rules.key(p.reading) < rules.value[Rank.ACE]),
            None,
        )
        joined = triple.cards + kicker.cards if kicker is not None else ()
        if kicker is not None and _reads(full, joined, rules):
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
        self._after: dict[int, list[Unit]] = {}
        self._returned: _Index | None = None
        self._readings: dict[int, tuple[Sequence[Card], PlayRules, list[Reading]]] = {}

    # -- planning ------------------------------------------------------------------------------

    def plan(self, state: RoundState, seat: int) -> list[Unit]:
        """The plan of `seat`'s hand in `state`: the last one, less the unit played since, while
        the hand is what that leaves; else a new one."""
        hand = state.hands[seat]
        kept = self._plans.get(seat)
        if kept is not None and kept[0] is hand:
            return kept[1]
        rest = self._after.pop(seat, None)
        if rest is None or not same_cards([c for u in rest for c in u.cards], hand):
            rest = plan_hand(hand, self._index_for(state, seat))
        self._plans[seat] = (hand, rest)
        return rest

    def _index_for(self, state: RoundState, seat: int) -> _Index:
        """The index of the hand the seat was dealt (its parts are planned with it)."""
        hand = state.hands[seat]
        index = self._index.get(seat)
        if index is None or index.rules is not state.rules or not index.covers(hand):
            # The hand it returned a card from holds this one (還牌): its index serves.
            spare = self._returned
            if spare is not None and spare.rules is state.rules and spare.covers(hand):
                index = self._index[seat] = spare
                return index
            # The round's own memo of the seat's plays: the interpreter lists them once for both.
            index = self._index[seat] = _Index(state.plays_of(seat))
        return index

    # -- acting --------------------------------------------------------------------------------

    def act(self, state: RoundState, seat: int) -> Action:
        """Lead by the plan, or follow cheaply, keeping bombs and the partner's tricks."""
        hand = state.hands[seat]
        rules = state.rules
        previous = None if state.trick is None else state.trick[1]
        plan = self.plan(state, seat)
        if len(plan) <= 2 or len(hand) <= GOING_OUT:
            # The whole hand may be one play: going out beats everything.
            for reading in self._whole(seat, hand, rules):
                if previous is None or rules.beats(reading, previous):
                    return PlayAction(seat, Play(hand, reading))
        if state.trick is not None and team(state.trick[0]) == team(seat) and state.may_pass():
            return PassAction(seat)  # the partner's play stands: never beat it needlessly
        if state.trick is None:
            unit = self._lead(state, seat, plan)
            if unit is None:
                return PlayAction(seat, state.legal_plays()[0])
            return self._play(seat, plan, unit)
        chosen = self._follow(state, seat, plan)
        if isinstance(chosen, Unit):
            return self._play(seat, plan, chosen)
        if chosen is not None:
            return PlayAction(seat, chosen)
        if state.may_pass():
            return PassAction(seat)
        plays = state.legal_plays()
        return PlayAction(seat, min(plays, key=lambda p: self._break_cost(state, seat, plan, p)))

    def _whole(self, seat: int, hand: Sequence[Card], rules: PlayRules) -> list[Reading]:
        """The readings of the seat's whole hand, kept while the hand is that very one (a seat
        passing trick after trick is asked again and again)."""
        kept = self._readings.get(seat)
        if kept is None or kept[0] is not hand or kept[1] is not rules:
            kept = self._readings[seat] = (hand, rules, rules_readings(hand, rules))
        return kept[2]

    def _play(self, seat: int, plan: list[Unit], unit: Unit) -> PlayAction:
        """Play a unit of the plan; the rest of the plan stands for the hand it leaves."""
        self._after[seat] = [u for u in plan if u is not unit]
        return PlayAction(seat, Play(unit.cards, unit.reading))

    def _lead(self, state: RoundState, seat: int, plan: list[Unit]) -> Unit | None:
        rules = state.rules
        plain = [u for u in plan if not u.bomb] or plan
        if not plain:
            return None
        nxt = _next_opponent(state, seat)
        close = len(state.hands[nxt]) if nxt is not None else len(state.hands[seat])
        if close <= 2:
            # The next opponent may go out on a small play: lead more cards, or the highest.
            wide = [u for u in plain if len(u.cards) > close]
            if not wide:
                return max(plain, key=lambda u: rules.key(u.reading))
            plain = wide
        return min(plain, key=lambda u: (rules.key(u.reading), -len(u.cards)))

    def _follow(self, state: RoundState, seat: int, plan: list[Unit]) -> Unit | Play | None:
        """A unit or a play beating the trick worth making, or None (pass)."""
        assert state.trick is not None
        rules = state.rules
        owner, previous = state.trick
        beaten = rules.beaten(previous)  # the rules' memo of what beats `previous`
        fitting = []
        for unit in plan:
            beats = beaten.get(unit.reading)
            if beats is None:
                beats = beaten[unit.reading] = rules.beats(unit.reading, previous)
            if beats:
                fitting.append(unit)
        plain = [u for u in fitting if not u.bomb]
        if plain:
            return min(plain, key=lambda u: rules.key(u.reading))
        pressed = self._pressed(state, seat, owner)
        if rules.ladder_step(previous) is None:
            # Break the plan only a little (one play more), or more when the trick matters.
            others: list[Play] = []
            # Only what the whole hand indexed makes can a part of it make: that listing is
            # at hand, the hand's own is listed only when it may find a play.
            if self._index_for(state, seat).listing.beaten_by_any(previous):
                others = state.plays_of(seat).following(previous, bombs=False)
            others = sorted(others, key=lambda p: rules.key(p.reading))[:BREAKS_TRIED]
            best = self._cheapest(state, seat, plan, others)
            if best is not None and (pressed or best[1] <= 1):
                return best[0]
        bombs = [u for u in fitting if u.bomb]
        if bombs and (pressed or len(plan) <= 2):
            return min(bombs, key=lambda u: _bomb_key(rules, u.reading))
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

    def _cheapest(
        self, state: RoundState, seat: int, plan: list[Unit], plays: Sequence[Play]
    ) -> tuple[Play, int] | None:
        """The play of `plays` (non-bombs, lowest first) adding fewest plays to the plan, the
        lowest of those, with what it adds; None if there is none."""
        index = self._index_for(state, seat)
        best: tuple[Play, int] | None = None
        ordered = _in_breaking_order(plan) if plays else plan
        for play in plays:
            broken, left = _breaking(ordered, play.cards)
            # A later play wins only by adding fewer: one that cannot is not planned. What is
            # left may need no play at all (a card that is no play alone stays out of a plan).
            if best is not None and 1 - broken >= best[1]:
                continue
            added = len(plan_hand(left, index)) + 1 - broken
            if best is None or added < best[1]:
                best = (play, added)
        return best

    def _break_cost(
        self, state: RoundState, seat: int, plan: list[Unit], play: Play
    ) -> tuple[int, int, int]:
        """How much `play` costs: bombs last, then the plays it adds to the plan, then its rank."""
        rules = state.rules
        step = rules.ladder_step(play.reading)
        added = broken_cost(plan, play.cards, self._index_for(state, seat))
        return (0 if step is None else 1 + step, added, rules.key(play.reading))

    # -- tribute -----------------------------------------------------------------------------

    def choose(self, options: Sequence[Card]) -> Card:
        """A tribute card: the rules force its rank; the first of them."""
        return min(options, key=lambda c: c.sort_key())

    def give_back(self, hand: Sequence[Card], options: Sequence[Card], rules: PlayRules) -> Card:
        """A return (還牌): the lowest card it can spare, a single of its plan if it has one,
        else the one whose loss costs its plan least."""
        index = self._returned = _Index(HandPlays(tuple(hand), rules))
        plan = plan_hand(hand, index)
        singles = [u.cards[0] for u in plan if len(u.cards) == 1 and not u.bomb]
        spare = [c for c in options if c in singles]
        if spare:
            return min(spare, key=lambda c: (rules.value[c.rank], c.sort_key()))

        def cost(card: Card) -> tuple[int, int, tuple[int, int]]:
            return (broken_cost(plan, (card,), index), rules.value[card.rank], card.sort_key())

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
