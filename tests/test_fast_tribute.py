"""Tribute between rounds on the fast engine (issue 52): the kernel's plan (進貢, 還牌, 抗貢, who
leads) is the reference's `plan_tribute` on random finishes and deals, for every bundled
variant and every one-clause mutant of a tribute clause; its carrying-out with the C bots is
the Python path's `_pay_tribute` (the same log entry, hands, leader, and the bots' memory, seen
in the round played after it)."""

from __future__ import annotations

import ctypes
import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from harness.engine.fast import tables
from harness.engine.fast.between_rounds import FastTribute
from harness.engine.fast.matches import FastMatches, fast_matches
from harness.interpreter import tribute as reference
from harness.interpreter.bots import RoundLog, deal, play_match, python_tribute
from harness.interpreter.heuristic import HeuristicBot
from harness.interpreter.round import start_round
from harness.kernel import build
from harness.model.cards import NATURAL_RANKS, Card, Rank, parse_card
from harness.model.declarations import marks
from harness.model.loader import load_variant, variant_slugs
from harness.model.mutants import mutants, mutate
from harness.model.ruleset import Ruleset
from harness.model.seats import Finish

HAS_COMPILER = build._compiler() is not None and not build._switched_off()
pytestmark = pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: the fast engine is off")

SLUGS = variant_slugs()
RULESETS = {slug: load_variant(slug) for slug in SLUGS}
BIG_JOKER = Card(Rank.BIG_JOKER, None)
SMALL_JOKER = Card(Rank.SMALL_JOKER, None)

Situation = tuple[Finish, list[list[Card]], Rank]


def _matches(ruleset: Ruleset) -> FastMatches:
    found = fast_matches(ruleset, "heuristic")
    assert found is not None, ruleset.slug
    return found


def _tribute(ruleset: Ruleset) -> FastTribute:
    found = _matches(ruleset)
    return FastTribute(found.engine, found.rules_ids, found.lister)


def _situations(
    seed: int, count: int, levels: tuple[Rank, ...] = NATURAL_RANKS
) -> Iterator[Situation]:
    """Random finishes, deals and levels; in one deal of three both big jokers are put in one
    hand (anti-tribute where that hand pays), in one of three a team gets a big joker each and
    the other a small joker each (equal tributes where the latter pays after a double-down)."""
    rng = random.Random(seed)
    for _ in range(count):
        hands, _, _ = deal(rng)
        order = [0, 1, 2, 3]
        rng.shuffle(order)
        way = rng.randrange(3)
        seat = rng.randrange(4)
        if way == 1:
            _give(hands, BIG_JOKER, [seat, seat], rng)
        elif way == 2:
            _give(hands, BIG_JOKER, [seat, (seat + 2) % 4], rng)
            _give(hands, SMALL_JOKER, [(seat + 1) % 4, (seat + 3) % 4], rng)
        yield Finish.of(order), hands, rng.choice(levels)


def _give(hands: list[list[Card]], card: Card, targets: list[int], rng: random.Random) -> None:
    """Swap both copies of `card` into the `targets` seats' hands (one each), each for another
    card of the target's, keeping every hand's size."""
    copies = [(s, i) for s in range(4) for i, c in enumerate(hands[s]) if c == card]
    for (s, i), target in zip(copies, targets, strict=True):
        # A swap moves no other copy, so the places found above stay right.
        if s != target:
            j = rng.choice([k for k, c in enumerate(hands[target]) if c != card])
            hands[s][i], hands[target][j] = hands[target][j], hands[s][i]


def _kind(plan: dict[str, Any]) -> str:
    """What sort of tribute a plan is, from the reference's answer alone: equal tributes are
    of one rank (a rank's value is its own)."""
    if plan["anti_tribute"] != "none":
        return str(plan["anti_tribute"])
    payments = plan["payments"]
    if len(payments) < 2:
        return "single" if payments else "none"
    ranks = {parse_card(p["cards"][0]).rank for p in payments}
    return "double tie" if len(ranks) == 1 else "double"


def _compare(
    ruleset: Ruleset, seed: int, count: int, levels: tuple[Rank, ...] = NATURAL_RANKS
) -> Counter[str]:
    """The kernel's plan against the reference's on `count` situations; their kinds."""
    fast = _tribute(ruleset)
    kinds: Counter[str] = Counter()
    for i, (finish, hands, level) in enumerate(_situations(seed, count, levels)):
        expected = reference.plan_tribute(finish, hands, level, ruleset).to_json()
        assert fast.plan(finish, hands, level) == expected, (ruleset.slug, seed, i)
        kinds[_kind(expected)] += 1
    return kinds


# --- the plan ---------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_the_plan_is_the_references_on_each_bundled_variant(slug: str) -> None:
    ruleset = RULESETS[slug]
    kinds = _compare(ruleset, seed=52, count=400)
    # Every sort of tribute came up: the variant's anti-tribute (must, or may after a single
    # finish), single and double tributes, equal ones among them.
    single_anti = "must" if ruleset.rules.tribute.anti.single_mandatory else "may"
    assert {"must", single_anti, "single", "double", "double tie"} <= set(kinds), kinds


def _tribute_mutants() -> list[tuple[str, str, object]]:
    """Every one-clause mutant of a tribute clause of a bundled variant that the fast engine
    plays."""
    found = []
    for slug, ruleset in RULESETS.items():
        for m in mutants(ruleset):
            if not m.clause.startswith("tribute."):
                continue
            changed = mutate(ruleset, m.clause, m.value)
            if changed is not None and not tables.refusals(changed):
                found.append((slug, m.clause, m.value))
    return found


def test_the_fast_engine_plays_every_tribute_mutant() -> None:
    """No tribute mutant the loader accepts is declined (each is compared below)."""
    every = [
        (slug, m.clause, m.value)
        for slug, ruleset in RULESETS.items()
        for m in mutants(ruleset)
        if m.clause.startswith("tribute.")
    ]
    assert len(every) >= 4 * 50
    assert _tribute_mutants() == every


def test_the_plan_is_the_references_on_every_tribute_mutant() -> None:
    levels = (Rank.TWO, Rank.TEN, Rank.ACE)
    for i, (slug, clause, value) in enumerate(_tribute_mutants()):
        changed = mutate(RULESETS[slug], clause, value)
        assert changed is not None
        assert sum(_compare(changed, seed=i, count=40, levels=levels).values()) == 40


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_the_plan_is_the_references_on_a_long_run(slug: str) -> None:
    assert sum(_compare(RULESETS[slug], seed=5252, count=5000).values()) == 5000


def test_the_fast_tribute_reads_every_clause_the_reference_does() -> None:
    """Each clause the reference's tribute declares is declared by the fast engine (read, and
    so refused where its value is not played), none left to be ignored."""
    wanted = {m.clause for m in marks(reference)}
    assert wanted <= {m.clause for m in tables.declarations()}, wanted


def test_impossible_hands_are_refused_with_the_seat() -> None:
    fast = _tribute(RULESETS["huaian"])
    hands, _, _ = deal(random.Random(1))
    hands[2] = hands[2] * 3
    with pytest.raises(Exception, match="seat 2 holds 81 cards"):
        fast.plan(Finish.of([0, 1, 2, 3]), hands, Rank.TWO)


def test_the_kernel_refuses_a_finish_that_is_no_permutation() -> None:
    fast = _tribute(RULESETS["huaian"])
    hands, _, _ = deal(random.Random(1))
    fast.plan(Finish.of([0, 1, 2, 3]), hands, Rank.TWO)  # the hands loaded
    order = (ctypes.c_int32 * 4)(0, 0, 1, 2)
    table = fast.engine.tables(Rank.TWO).array
    written = fast._plan(table, fast.table, order, fast._hands, fast._counts, fast._out, 1024)
    assert written == -4


# --- paying -----------------------------------------------------------------------------------


def _paid(
    ruleset: Ruleset, seed: int, count: int, levels: tuple[Rank, ...] = NATURAL_RANKS
) -> Counter[str]:
    """The tribute carried out on both paths with fresh C bots on `count` situations, then the
    round after it played by those bots: the same log entry (as JSON text), hands (in order),
    leader and round (the bots' memory, set by their returns, at work). The kinds paid."""
    matches = _matches(ruleset)
    fast = FastTribute(matches.engine, matches.rules_ids, matches.lister)
    kinds: Counter[str] = Counter()
    for i, (finish, hands, level) in enumerate(_situations(seed, count, levels)):
        where = (ruleset.slug, seed, i)
        outcomes = []
        for pay in (python_tribute, fast):
            bots = matches.players()
            before = fast.paid
            after, entry, leader = pay(finish, [list(h) for h in hands], level, ruleset, bots)
            assert fast.paid == before + (pay is fast), where
            log = RoundLog(2, level.value, None, leader, entry)
            state = start_round(after, level, ruleset, leader)
            matches.rounds(state, bots, log)
            outcomes.append((json.dumps(entry), after, leader, log.actions))
        assert outcomes[1] == outcomes[0], where
        entry = json.loads(outcomes[0][0])
        kinds["anti" if entry["anti_tribute"] else f"{len(entry['returned'])} returned"] += 1
    return kinds


@pytest.mark.parametrize("slug", SLUGS)
def test_paying_is_the_python_paths_on_each_bundled_variant(slug: str) -> None:
    kinds = _paid(RULESETS[slug], seed=520, count=60)
    assert {"anti", "1 returned", "2 returned"} <= set(kinds), kinds


def test_paying_is_the_python_paths_on_every_tribute_mutant() -> None:
    # A return of 2 or lower may find no card to return: a duty skipped.
    kinds: Counter[str] = Counter()
    for i, (slug, clause, value) in enumerate(_tribute_mutants()):
        changed = mutate(RULESETS[slug], clause, value)
        assert changed is not None
        kinds += _paid(changed, seed=i, count=6, levels=(Rank.TWO, Rank.ACE))
    assert {"anti", "0 returned", "1 returned", "2 returned"} <= set(kinds), kinds


def test_bots_not_its_own_pay_on_the_python_path() -> None:
    ruleset = RULESETS["huaian"]
    fast = _tribute(ruleset)
    for finish, hands, level in _situations(7, 20):
        expected = python_tribute(finish, hands, level, ruleset, [HeuristicBot()] * 4)
        got = fast(finish, hands, level, ruleset, [HeuristicBot()] * 4)
        assert json.dumps(got[1]) == json.dumps(expected[1])
        assert got[::2] == expected[::2]
    assert fast.paid == 0


# --- in whole matches -------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_a_fast_match_pays_every_tribute_in_the_kernel(slug: str) -> None:
    """`FastMatches.play` pays the tribute before every round but the first in the kernel, and
    its log is the Python path's, byte for byte (the whole check: tests/test_fast_matches.py)."""
    ruleset = RULESETS[slug]
    matches = _matches(ruleset)
    for seed in (5, 6):
        before = matches.tribute.paid
        log = matches.play(seed)
        assert matches.tribute.paid - before == len(log.rounds) - 1
        paid = FastTribute.paid_in_process
        python = play_match(ruleset, seed, "heuristic")
        assert FastTribute.paid_in_process == paid  # the Python path paid none in the kernel
        assert json.dumps(log.to_json()) == json.dumps(python.to_json()), (slug, seed)
