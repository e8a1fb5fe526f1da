"""Hypothesis strategies for Guandan (摜蛋) data, variant-aware: the generators of `guandan fuzz`,
the pytest plugin and the property tests.

Card sets lean toward combinations (n of a kind, sequences that may run past A, flushes, full
houses, jokers), with wild cards (逢人配) and near-misses (one card dropped or added); hands mix
such sets with random cards; readings to follow come from real card sets; deals, finishes,
match states and score inputs cover the other operations; `rounds` plays whole rounds among the
reference's legal actions, with illegal actions mixed in at a set rate. Everything shrinks
toward small, plain examples: few cards, low ranks, short rounds.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

from harness.interpreter.classify import classify
from harness.interpreter.inputs import match_state
from harness.interpreter.legal import hand_plays
from harness.interpreter.round import AskAction, PassAction, PlayAction, RoundState, start_round
from harness.model.cards import NATURAL_RANKS, Card, Rank, Suit, two_deck_pack
from harness.model.ruleset import Ruleset
from harness.model.seats import SEATS, partner

Json = dict[str, Any]
T = TypeVar("T")
PACK: tuple[Card, ...] = two_deck_pack()
_DISTINCT: tuple[Card, ...] = tuple(dict.fromkeys(PACK))
_SUITS: tuple[Suit, ...] = tuple(Suit)
_JOKERS = (Rank.SMALL_JOKER, Rank.BIG_JOKER)
_ALL_RANKS = NATURAL_RANKS + _JOKERS

# The shapes a drawn card set leans toward; the first is what a shrunk example becomes.
_KINDS = (
    "same_rank",
    "random",
    "sequence",
    "pair_sequence",
    "triple_sequence",
    "full_house",
    "flush",
    "jokers",
    "bomb",
    "big_bomb",
)


@functools.cache
def ints(low: int, high: int) -> st.SearchStrategy[int]:
    """Whole numbers from `low` to `high`, the strategy made once (drawing is hot, building a
    strategy is not cheap)."""
    return st.integers(low, high)


def pick(draw: st.DrawFn, items: Sequence[T]) -> T:
    """One of `items` (the first, when shrunk), without building a strategy for them."""
    return items[draw(ints(0, len(items) - 1))]


_STREAM = st.integers(0, 2**16 - 1)


def stream(draw: st.DrawFn) -> random.Random | None:
    """A seeded stream for choices that need no shrinking of their own (an order, suits), in
    one draw instead of one a choice: None, the plain choice, is what it shrinks to."""
    seed = draw(_STREAM)
    return random.Random(seed) if seed else None


def shuffled(draw: st.DrawFn, items: Sequence[T]) -> list[T]:
    """`items` in a drawn order (one draw; shrinks to the order given)."""
    out = list(items)
    rng = stream(draw)
    if rng is not None:
        rng.shuffle(out)
    return out


_LEVELS = st.sampled_from(NATURAL_RANKS)


def levels() -> st.SearchStrategy[Rank]:
    """A level (級) from 2 to A."""
    return _LEVELS


def wild_card(level: Rank) -> Card:
    """The wild card at `level`: the heart level card (逢人配)."""
    return Card(level, Suit.HEARTS)


class _Pool:
    """The cards still free in two decks: each card at most twice."""

    def __init__(self) -> None:
        self.used: Counter[Card] = Counter()

    def free(self, card: Card) -> bool:
        return self.used[card] < 2

    def take(self, card: Card) -> Card:
        self.used[card] += 1
        return card


def _take_rank(
    rng: random.Random | None, pool: _Pool, rank: Rank, suit: Suit | None = None
) -> Card | None:
    """One free card of `rank` (of `suit` when given, else one chosen
    by `rng`, else the next in turn), or None when none is left."""
    if rank in _JOKERS:
        card = Card(rank, None)
        return pool.take(card) if pool.free(card) else None
    suits = [suit] if suit is not None else [s for s in _SUITS if pool.free(Card(rank, s))]
    suits = [s for s in suits if pool.free(Card(rank, s))]
    if not suits:
        return None
    # Without a stream, suits go round in turn: plain, and no flush unless one is asked for.
    chosen = suits[len(pool.used) % len(suits)] if rng is None else rng.choice(suits)
    return pool.take(Card(rank, chosen))


def _run(draw: st.DrawFn, length: int) -> list[Rank]:
    """`length` consecutive ranks, cyclic over 2..A so that some runs wrap past A (J Q K A 2)."""
    start = draw(ints(0, 12))
    return [NATURAL_RANKS[(start + i) % 13] for i in range(length)]


def _combination(draw: st.DrawFn, pool: _Pool, level: Rank, max_size: int) -> list[Card]:
    """Cards leaning toward one combination shape, taken from `pool`."""
    kind = pick(draw, _KINDS)
    suits = stream(draw)
    ranks: list[Rank] = []
    suit: Suit | None = None
    if kind == "same_rank":
        rank = pick(draw, _ALL_RANKS)
        ranks = [rank] * draw(ints(1, 8))
    elif kind == "random":
        count = draw(ints(1, max_size))
        ranks = [pick(draw, _ALL_RANKS) for _ in range(count)]
    elif kind == "sequence":
        ranks = _run(draw, pick(draw, (5, 5, 4, 6)))
    elif kind == "pair_sequence":
        ranks = [r for r in _run(draw, pick(draw, (3, 3, 2, 4))) for _ in range(2)]
    elif kind == "triple_sequence":
        ranks = [r for r in _run(draw, pick(draw, (2, 2, 3))) for _ in range(3)]
    elif kind == "full_house":
        three, two = pick(draw, NATURAL_RANKS), pick(draw, NATURAL_RANKS)
        ranks = [three] * 3 + [two] * 2
    elif kind == "flush":
        suit = pick(draw, _SUITS)
        ranks = _run(draw, pick(draw, (5, 5, 4, 6)))
    elif kind == "jokers":
        ranks = [Rank.SMALL_JOKER] * draw(ints(0, 2)) + [Rank.BIG_JOKER] * draw(ints(0, 2))
    elif kind == "bomb":
        # A bomb of 4 to 8 natural cards (炸彈), to which wild cards may add.
        ranks = [pick(draw, NATURAL_RANKS)] * draw(ints(4, 8))
    else:
        # The biggest bombs: all eight cards of a rank and both wild cards (ten cards).
        ranks = [pick(draw, NATURAL_RANKS)] * 8
    cards = [c for r in ranks[:max_size] if (c := _take_rank(suits, pool, r, suit)) is not None]
    wild = wild_card(level)
    # Wild cards (逢人配) join the set or stand in for one of its cards.
    adds = kind in ("bomb", "big_bomb")
    for _ in range(2 if kind == "big_bomb" else draw(ints(0, 2))):
        if not pool.free(wild):
            break
        if cards and not adds and draw(ints(0, 1)) == 1:
            index = draw(ints(0, len(cards) - 1))
            pool.used[cards[index]] -= 1
            cards[index] = pool.take(wild)
        elif len(cards) < max_size:
            cards.append(pool.take(wild))
    # Near-misses: a card dropped or one added.
    change = draw(ints(0, 7))
    if change == 1 and len(cards) > 1:
        pool.used[cards.pop(draw(ints(0, len(cards) - 1)))] -= 1
    elif change == 2 and len(cards) < max_size:
        extra = _take_rank(suits, pool, pick(draw, _ALL_RANKS))
        if extra is not None:
            cards.append(extra)
    return cards


def draw_card_set(draw: st.DrawFn, level: Rank, max_size: int = 10) -> list[Card]:
    """A set of cards (at most twice each) leaning toward a combination at `level`."""
    cards = _combination(draw, _Pool(), level, max_size)
    if not cards:
        cards = [pick(draw, _DISTINCT)]
    return shuffled(draw, cards)


def draw_hand(
    draw: st.DrawFn, level: Rank, min_size: int = 1, max_size: int = 27, pool: Any = None
) -> list[Card]:
    """A hand (手牌) at `level`: a few combinations and random cards, from two decks."""
    pool = pool if pool is not None else _Pool()
    size = draw(ints(min_size, max_size))
    cards: list[Card] = []
    for _ in range(draw(ints(0, 4))):
        if len(cards) >= size:
            break
        cards += _combination(draw, pool, level, size - len(cards))
    free = [c for c in PACK if pool.free(c)]
    while len(cards) < size and free:
        card = free.pop(draw(ints(0, len(free) - 1)))
        if pool.free(card):
            cards.append(pool.take(card))
    return shuffled(draw, cards)


def draw_hand_with_wilds(
    draw: st.DrawFn, level: Rank, min_size: int = 1, max_size: int = 27
) -> list[Card]:
    """A hand at `level` that holds 0, 1 or 2 wild cards (the heart level card, 逢人配)."""
    wild = wild_card(level)
    wilds = draw(st.integers(0, min(2, max_size)))
    others = [c for c in PACK if c != wild]
    positions = st.lists(
        st.integers(0, len(others) - 1),
        min_size=max(0, min_size - wilds),
        max_size=max_size - wilds,
        unique=True,
    )
    hand = [others[i] for i in draw(positions)] + [wild] * wilds
    return draw(st.permutations(hand))


def codes(cards: Sequence[Card]) -> list[str]:
    """The card codes of `cards`, as cases and the protocol write them."""
    return [c.code for c in cards]


def draw_reading(draw: st.DrawFn, ruleset: Ruleset, level: Rank) -> Json:
    """A reading to follow (the previous play): one reading of a drawn card set."""
    cards = draw_card_set(draw, level)
    found = classify(cards, level, ruleset).readings
    if not found:
        return {"type": "single", "rank": cards[0].rank.value, "size": 1}
    return pick(draw, found).to_json()


def draw_deal(draw: st.DrawFn, level: Rank, full: bool = True) -> list[list[Card]]:
    """Four hands from one pack: 27 each (a whole deal), or 1 to 27 each when `full` is false.

    Some deals put both big jokers, or all four jokers, in one hand (抗貢 needs them). A whole
    deal is a shuffle by a drawn seed: one draw rather than 108, as a whole deal shrinks to
    nothing plainer anyway.
    """
    if full:
        order = list(PACK)
        random.Random(draw(_SEED)).shuffle(order)
        stack = draw(ints(0, 3))
        if stack:
            # Move the jokers wanted into one seat's hand (dealt one card at a time).
            seat = draw(ints(0, 3))
            wanted = [Rank.BIG_JOKER] + ([Rank.SMALL_JOKER] if stack == 3 else [])
            moved = [c for c in order if c.rank in wanted]
            order = [c for c in order if c.rank not in wanted]
            for i, card in enumerate(moved):
                order.insert(seat + 4 * i, card)
        return [order[s::4] for s in range(4)]
    pool = _Pool()
    return [draw_hand(draw, level, 1, 27, pool) for _ in range(4)]


_SEED = st.integers(0, 2**32 - 1)


def finishes() -> st.SearchStrategy[list[int]]:
    """A finishing order: the seats from first out (上游) to last (下游)."""
    return st.permutations([0, 1, 2, 3]).map(list)


def draw_match_state(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    """A match between rounds: levels (often at or near the final level), the declarer (打家),
    failures at the final level and the streak counters (連續頭游/末游)."""
    natural = list(ruleset.rules.ranks.natural)
    near_end = natural[-4:]

    def level() -> Rank:
        return pick(draw, natural if draw(ints(0, 1)) == 0 else near_end)

    state: dict[str, object] = {
        "levels": [level().value, level().value],
        "declarer": pick(draw, (0, 1, None)),
        "failures": [draw(ints(0, 3)), draw(ints(0, 3))],
        **_streaks(draw),
        "winner": None,
    }
    match_state(state)  # a state that can be; raises if the generator is wrong
    return state


def _streaks(draw: st.DrawFn) -> dict[str, list[int]]:
    """Streak counters that can be (連續頭游/末游): at most one seat on a run of firsts, the
    lasts one seat or two partners (a double-down's losers), and no seat on both."""
    first = pick(draw, (None, *SEATS))
    others = [s for s in SEATS if s != first]
    pairs = [(s, partner(s)) for s in (0, 1) if first not in (s, partner(s))]
    lasts = pick(draw, [(), *((s,) for s in others), *pairs])
    return {
        "firsts": [draw(ints(0, 4)) if s == first else 0 for s in SEATS],
        "lasts": [draw(ints(0, 4)) if s in lasts else 0 for s in SEATS],
    }


def draw_score_input(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    """A round's result for scoring (歡樂豆): winners, levels gained, final level, match over."""
    return {
        "winner": draw(ints(0, 1)),
        "levels_gained": draw(ints(0, 6)),
        "final_level": pick(draw, ruleset.rules.ranks.natural).value,
        "match_over": draw(ints(0, 1)) == 1,
    }


_BYTE = st.integers(0, 255)
_SEAT = st.integers(0, 3)
_OTHER = st.integers(0, 2)


def choose_action(draw: st.DrawFn, state: RoundState) -> PlayAction | PassAction:
    """A legal action of the seat whose turn it is: a pass a third of the time where passing is
    allowed, else one of its legal plays (a pass when it has none)."""
    seat = state.turn
    assert seat is not None
    if state.trick is not None and draw(_OTHER) == 0 and state.may_pass():
        return PassAction(seat)
    plays = state.legal_plays()
    if not plays:
        return PassAction(seat)
    return PlayAction(seat, pick(draw, plays))


def _declared(action: PlayAction | PassAction, level: Rank, ruleset: Ruleset) -> bool:
    """Whether a script declares the play's reading: where its cards read several ways (it
    must), and for plays of an even number of cards otherwise (so both forms are exercised)."""
    if not isinstance(action, PlayAction):
        return False
    cards = action.play.cards
    return len(cards) % 2 == 0 or len(classify(cards, level, ruleset).readings) > 1


def play_json(action: PlayAction | PassAction | AskAction, declare: bool = True) -> Json:
    """An action as a replay script writes it."""
    if isinstance(action, AskAction):
        return {"seat": action.seat, "ask": action.about}
    if isinstance(action, PassAction):
        return {"seat": action.seat, "pass": True}
    out: Json = {"seat": action.seat, "cards": codes(action.play.cards)}
    if declare:
        out["reading"] = action.play.reading.to_json()
    return out


def _illegal(draw: st.DrawFn, state: RoundState) -> Json:
    """An action the rules (most likely) refuse now: out of turn, a lead passed, cards not held,
    no combination, a play that does not beat, or an ask about oneself."""
    seat = state.turn
    assert seat is not None
    hand = state.hands[seat]
    kind = draw(
        st.sampled_from(
            ("out_of_turn", "pass", "not_held", "no_combination", "not_beating", "ask_self")
        )
    )
    if kind == "out_of_turn":
        others = [s for s in range(4) if s != seat and state.active(s) and state.hands[s]]
        if others:
            other = pick(draw, others)
            return {"seat": other, "cards": [state.hands[other][0].code]}
    if kind == "pass" and state.trick is None:
        return {"seat": seat, "pass": True}
    if kind == "not_held":
        missing = [c for c in _DISTINCT if c not in hand]
        return {"seat": seat, "cards": [pick(draw, missing).code]}
    if kind == "no_combination" and len(hand) >= 2:
        return {"seat": seat, "cards": codes(shuffled(draw, hand)[:2])}
    if kind == "ask_self":
        return {"seat": seat, "ask": seat}
    if state.trick is not None:
        # Any play of the hand, most of which do not beat what is on the table.
        plays = hand_plays(hand, state.rules)
        if plays:
            play = pick(draw, plays)
            return play_json(PlayAction(seat, play))
    return {"seat": seat, "cards": codes(hand[:1] + hand[1:2])}


def draw_round(
    draw: st.DrawFn,
    ruleset: Ruleset,
    illegal_rate: float = 0.2,
    full: bool | None = None,
    max_actions: int = 400,
) -> Json:
    """A replay input: a deal, the level, the leader and actions chosen among the reference's
    legal ones (plays, passes and asks), with an illegal action in a share `illegal_rate` of the
    rounds (the replay stops there). Hands are whole (27 cards) when `full`, else 1 to 27 each,
    either when None. Rounds may stop before their end, which is how a shrunk round gets short."""
    level = pick(draw, NATURAL_RANKS)
    leader = draw(ints(0, 3))
    whole = draw(ints(0, 1)) == 1 if full is None else full
    hands_ = draw_deal(draw, level, full=whole)
    state = start_round(hands_, level, ruleset, leader)
    actions: list[Json] = []
    # Small draws are the common ones: a roll above 100 x (1 - rate) puts an illegal action in
    # this round, at a step drawn next; shrinking leads back to a round without one.
    illegal_at = -1
    if draw(ints(0, 99)) >= 100 - round(100 * illegal_rate):
        illegal_at = draw(ints(0, 150))
    while not state.over and len(actions) < max_actions:
        # One byte a step: two zeros in a row stop the round here (rare when generating, and the
        # shrinker's first move when it makes a failing round short); 255, also rare, is an ask.
        roll = draw(_BYTE)
        if roll == 0 and draw(_BYTE) == 0:
            break
        seat = state.turn
        assert seat is not None
        if len(actions) == illegal_at:
            actions.append(_illegal(draw, state))
            break
        if roll == 255:
            about = draw(_SEAT)
            actions.append({"seat": (about + 1 + draw(_OTHER)) % 4, "ask": about})
            continue
        action = choose_action(draw, state)
        actions.append(play_json(action, declare=_declared(action, level, ruleset)))
        state = state.apply(action)
    return {
        "hands": [codes(h) for h in hands_],
        "level": level.value,
        "leader": leader,
        "actions": actions,
    }


# The strategies: each `draw_*` function above, as hypothesis builds it (`st.composite`). Code
# that draws inside a strategy of its own calls the `draw_*` functions directly, which builds
# no strategy object per example.
card_sets = st.composite(draw_card_set)
hands = st.composite(draw_hand)
hands_with_wilds = st.composite(draw_hand_with_wilds)
readings = st.composite(draw_reading)
deals = st.composite(draw_deal)
match_states = st.composite(draw_match_state)
score_inputs = st.composite(draw_score_input)
rounds = st.composite(draw_round)
