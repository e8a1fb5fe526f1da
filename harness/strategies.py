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

from collections import Counter
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from harness.interpreter.classify import classify
from harness.interpreter.legal import hand_plays
from harness.interpreter.match import MatchState
from harness.interpreter.round import AskAction, PassAction, PlayAction, RoundState, start_round
from harness.model.cards import NATURAL_RANKS, Card, Rank, Suit, two_deck_pack
from harness.model.ruleset import Ruleset

Json = dict[str, Any]
PACK: tuple[Card, ...] = two_deck_pack()
_DISTINCT: tuple[Card, ...] = tuple(dict.fromkeys(PACK))
_SUITS: tuple[Suit, ...] = tuple(Suit)
_JOKERS = (Rank.SMALL_JOKER, Rank.BIG_JOKER)

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
)


def levels() -> st.SearchStrategy[Rank]:
    """A level (級) from 2 to A."""
    return st.sampled_from(NATURAL_RANKS)


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


def _take_rank(draw: st.DrawFn, pool: _Pool, rank: Rank, suit: Suit | None = None) -> Card | None:
    """One free card of `rank` (of `suit` when given), or None when none is left."""
    if rank in _JOKERS:
        card = Card(rank, None)
        return pool.take(card) if pool.free(card) else None
    suits = [suit] if suit is not None else [s for s in _SUITS if pool.free(Card(rank, s))]
    suits = [s for s in suits if pool.free(Card(rank, s))]
    if not suits:
        return None
    return pool.take(Card(rank, draw(st.sampled_from(suits))))


def _run(draw: st.DrawFn, length: int) -> list[Rank]:
    """`length` consecutive ranks, cyclic over 2..A so that some runs wrap past A (J Q K A 2)."""
    start = draw(st.integers(0, 12))
    return [NATURAL_RANKS[(start + i) % 13] for i in range(length)]


def _combination(draw: st.DrawFn, pool: _Pool, level: Rank, max_size: int) -> list[Card]:
    """Cards leaning toward one combination shape, taken from `pool`."""
    kind = draw(st.sampled_from(_KINDS))
    ranks: list[Rank] = []
    suit: Suit | None = None
    if kind == "same_rank":
        rank = draw(st.sampled_from(NATURAL_RANKS + _JOKERS))
        ranks = [rank] * draw(st.integers(1, 8))
    elif kind == "random":
        count = draw(st.integers(1, max_size))
        ranks = [draw(st.sampled_from(NATURAL_RANKS + _JOKERS)) for _ in range(count)]
    elif kind == "sequence":
        ranks = _run(draw, draw(st.sampled_from((5, 5, 4, 6))))
    elif kind == "pair_sequence":
        ranks = [r for r in _run(draw, draw(st.sampled_from((3, 3, 2, 4)))) for _ in range(2)]
    elif kind == "triple_sequence":
        ranks = [r for r in _run(draw, draw(st.sampled_from((2, 2, 3)))) for _ in range(3)]
    elif kind == "full_house":
        three, two = draw(st.lists(st.sampled_from(NATURAL_RANKS), min_size=2, max_size=2))
        ranks = [three] * 3 + [two] * 2
    elif kind == "flush":
        suit = draw(st.sampled_from(_SUITS))
        ranks = _run(draw, draw(st.sampled_from((5, 5, 4, 6))))
    elif kind == "jokers":
        ranks = [Rank.SMALL_JOKER] * draw(st.integers(0, 2)) + [Rank.BIG_JOKER] * draw(
            st.integers(0, 2)
        )
    else:
        # A bomb of 4 to 8 natural cards, to which wild cards may add up to 10 (炸彈).
        ranks = [draw(st.sampled_from(NATURAL_RANKS))] * draw(st.integers(4, 8))
    cards = [c for r in ranks[:max_size] if (c := _take_rank(draw, pool, r, suit)) is not None]
    wild = wild_card(level)
    # Wild cards (逢人配) join the set or stand in for one of its cards.
    for _ in range(draw(st.integers(0, 2)) if kind != "bomb" else draw(st.sampled_from((2, 0, 1)))):
        if not pool.free(wild):
            break
        if cards and kind != "bomb" and draw(st.booleans()):
            index = draw(st.integers(0, len(cards) - 1))
            pool.used[cards[index]] -= 1
            cards[index] = pool.take(wild)
        elif len(cards) < max_size:
            cards.append(pool.take(wild))
    # Near-misses: a card dropped or one added.
    change = draw(st.integers(0, 7))
    if change == 1 and len(cards) > 1:
        pool.used[cards.pop(draw(st.integers(0, len(cards) - 1)))] -= 1
    elif change == 2 and len(cards) < max_size:
        extra = _take_rank(draw, pool, draw(st.sampled_from(NATURAL_RANKS + _JOKERS)))
        if extra is not None:
            cards.append(extra)
    return cards


@st.composite
def card_sets(draw: st.DrawFn, level: Rank, max_size: int = 10) -> list[Card]:
    """A set of cards (at most twice each) leaning toward a combination at `level`."""
    cards = _combination(draw, _Pool(), level, max_size)
    if not cards:
        cards = [draw(st.sampled_from(_DISTINCT))]
    return draw(st.permutations(cards))


@st.composite
def hands(
    draw: st.DrawFn, level: Rank, min_size: int = 1, max_size: int = 27, pool: Any = None
) -> list[Card]:
    """A hand (手牌) at `level`: a few combinations and random cards, from two decks."""
    pool = pool if pool is not None else _Pool()
    size = draw(st.integers(min_size, max_size))
    cards: list[Card] = []
    for _ in range(draw(st.integers(0, 4))):
        if len(cards) >= size:
            break
        cards += _combination(draw, pool, level, size - len(cards))
    free = [c for c in PACK if pool.free(c)]
    while len(cards) < size and free:
        card = free.pop(draw(st.integers(0, len(free) - 1)))
        if pool.free(card):
            cards.append(pool.take(card))
    return draw(st.permutations(cards))


@st.composite
def hands_with_wilds(
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


@st.composite
def readings(draw: st.DrawFn, ruleset: Ruleset, level: Rank) -> Json:
    """A reading to follow (the previous play): one reading of a drawn card set."""
    cards = draw(card_sets(level))
    found = classify(cards, level, ruleset).readings
    if not found:
        return {"type": "single", "rank": cards[0].rank.value, "size": 1}
    return draw(st.sampled_from(found)).to_json()


@st.composite
def deals(draw: st.DrawFn, level: Rank, full: bool = True) -> list[list[Card]]:
    """Four hands from one pack: 27 each (a whole deal), or 1 to 27 each when `full` is false.

    Some deals put both big jokers, or all four jokers, in one hand (抗貢 needs them).
    """
    if full:
        order = list(draw(st.permutations(PACK)))
        stack = draw(st.integers(0, 3))
        if stack:
            # Move the jokers wanted into one seat's hand (dealt one card at a time).
            seat = draw(st.integers(0, 3))
            wanted = [Rank.BIG_JOKER] + ([Rank.SMALL_JOKER] if stack == 3 else [])
            moved = [c for c in order if c.rank in wanted]
            order = [c for c in order if c.rank not in wanted]
            for i, card in enumerate(moved):
                order.insert(seat + 4 * i, card)
        return [order[s::4] for s in range(4)]
    pool = _Pool()
    return [draw(hands(level, 1, 27, pool)) for _ in range(4)]


def finishes() -> st.SearchStrategy[list[int]]:
    """A finishing order: the seats from first out (上游) to last (下游)."""
    return st.permutations([0, 1, 2, 3]).map(list)


@st.composite
def match_states(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    """A match between rounds: levels (often at or near the final level), the declarer (打家),
    failures at the final level and the streak counters (連續頭游/末游)."""
    natural = list(ruleset.rules.ranks.natural)
    near_end = natural[-4:]
    level = st.one_of(st.sampled_from(natural), st.sampled_from(near_end))
    state: dict[str, object] = {
        "levels": [draw(level).value, draw(level).value],
        "declarer": draw(st.sampled_from([0, 1, None])),
        "failures": [draw(st.integers(0, 3)), draw(st.integers(0, 3))],
        "firsts": [draw(st.integers(0, 4)) for _ in range(4)],
        "lasts": [draw(st.integers(0, 4)) for _ in range(4)],
        "winner": None,
    }
    MatchState.from_json(state)  # a state the reference reads; raises if the generator is wrong
    return state


@st.composite
def score_inputs(draw: st.DrawFn, ruleset: Ruleset) -> Json:
    """A round's result for scoring (歡樂豆): winners, levels gained, final level, match over."""
    return {
        "winner": draw(st.integers(0, 1)),
        "levels_gained": draw(st.integers(0, 6)),
        "final_level": draw(st.sampled_from(ruleset.rules.ranks.natural)).value,
        "match_over": draw(st.booleans()),
    }


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
            other = draw(st.sampled_from(others))
            return {"seat": other, "cards": [state.hands[other][0].code]}
    if kind == "pass" and state.trick is None:
        return {"seat": seat, "pass": True}
    if kind == "not_held":
        missing = [c for c in _DISTINCT if c not in hand]
        return {"seat": seat, "cards": [draw(st.sampled_from(missing)).code]}
    if kind == "no_combination" and len(hand) >= 2:
        return {"seat": seat, "cards": codes(draw(st.permutations(hand))[:2])}
    if kind == "ask_self":
        return {"seat": seat, "ask": seat}
    if state.trick is not None:
        # Any play of the hand, most of which do not beat what is on the table.
        plays = hand_plays(hand, state.rules)
        if plays:
            play = draw(st.sampled_from(plays))
            return play_json(PlayAction(seat, play))
    return {"seat": seat, "cards": codes(hand[:1] + hand[1:2])}


@st.composite
def rounds(
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
    level = draw(levels())
    leader = draw(st.integers(0, 3))
    whole = draw(st.booleans()) if full is None else full
    hands_ = draw(deals(level, full=whole))
    state = start_round(hands_, level, ruleset, leader)
    actions: list[Json] = []
    # Small draws are the common ones: a roll above 100 x (1 - rate) puts an illegal action in
    # this round, at a step drawn next; shrinking leads back to a round without one.
    illegal_at = -1
    if draw(st.integers(0, 99)) >= 100 - round(100 * illegal_rate):
        illegal_at = draw(st.integers(0, 150))
    while not state.over and len(actions) < max_actions:
        # Two zeros stop the round here: rare when generating (small values are common, two in a
        # row are not), and the shrinker's first move when it makes a failing round short.
        if draw(st.integers(0, 255)) == 0 and draw(st.integers(0, 255)) == 0:
            break
        seat = state.turn
        assert seat is not None
        if len(actions) == illegal_at:
            actions.append(_illegal(draw, state))
            break
        # A large roll (rare) is an ask, so that shrinking leads back to plain plays.
        if draw(st.integers(0, 99)) >= 98:
            about = draw(st.integers(0, 3))
            asker = draw(st.sampled_from([s for s in range(4) if s != about]))
            actions.append({"seat": asker, "ask": about})
            continue
        action: PlayAction | PassAction
        if state.trick is not None and draw(st.integers(0, 2)) == 0 and state.may_pass(seat):
            action = PassAction(seat)
        else:
            plays = state.legal_plays(seat)
            if not plays:
                action = PassAction(seat)
            else:
                action = PlayAction(seat, plays[draw(st.integers(0, len(plays) - 1))])
        several = (
            isinstance(action, PlayAction)
            and len(classify(action.play.cards, level, ruleset).readings) > 1
        )
        actions.append(play_json(action, declare=several or draw(st.booleans())))
        state = state.apply(action)
    return {
        "hands": [codes(h) for h in hands_],
        "level": level.value,
        "leader": leader,
        "actions": actions,
    }
