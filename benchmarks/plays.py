"""Benchmark: classify throughput, and legal_plays and legal_actions latency on 27-card hands
(pure Python; half the hands hold both wild cards).

Run `python benchmarks/plays.py [--variant V] [--hands N]`; prints one `name: value unit` line per
figure: classify's rate on random 5-card and 6-card sets, and the median latency of legal_plays
and of legal_actions for a leading 27-card hand (with the median number of actions beside it).
These are seconds, which move between days on a shared machine: compare two versions of the
code in the same run, never with a figure from another day; the guarded speed target is the
instruction count of `benchmarks/instructions.py`.

Classify is timed on a first pass over its sets (`classify_N_first`) and again on the same sets
after the legal_plays and legal_actions figures (`classify_N_repeat`): the steady state of a
long run, where other work has used the interpreter's memos in between.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from _common import median_ms, p99_ms, random_hand, random_level, report, timings

from harness.interpreter.actions import legal_actions
from harness.interpreter.classify import classify
from harness.interpreter.legal import legal_plays
from harness.model.cards import Card, Rank
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset

ClassifySets = list[tuple[list[Card], Rank]]


def classify_sets(size: int, count: int, seed: int) -> ClassifySets:
    """`count` random `size`-card sets, each with a random level."""
    rng = random.Random(seed)
    return [(random_hand(rng, size, lvl := random_level(rng)), lvl) for _ in range(count)]


def classify_rate(ruleset: Ruleset, sets: ClassifySets) -> float:
    """Classifications per second of `sets`."""
    start = time.perf_counter()
    for cards, level in sets:
        classify(cards, level, ruleset)
    return len(sets) / (time.perf_counter() - start)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--sets", type=int, default=20_000, help="card sets per classify figure")
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    ruleset = load_variant(args.variant)

    by_size = {size: classify_sets(size, args.sets, args.seed + size) for size in (5, 6)}
    for size, sets in by_size.items():
        report(f"classify_{size}_first", classify_rate(ruleset, sets), "sets/s")

    rng = random.Random(args.seed)
    deals = []
    for i in range(args.hands):
        level = random_level(rng)
        hand = random_hand(rng, 27, level, wilds=2 if i % 2 == 0 else None)
        deals.append((hand, level))
    lead = timings([lambda h=h, lv=lv: legal_plays(h, lv, ruleset) for h, lv in deals])
    report("legal_plays_lead_27_median", median_ms(lead), "ms")
    report("legal_plays_lead_27_p99", p99_ms(lead), "ms")

    # A random previous play: one of the plays another random hand could lead.
    against = []
    for hand, level in deals:
        other = random_hand(rng, 27, level)
        previous = rng.choice(legal_plays(other, level, ruleset)).reading
        against.append(lambda h=hand, lv=level, p=previous: legal_plays(h, lv, ruleset, p))
    follow = timings(against)
    report("legal_plays_follow_27_median", median_ms(follow), "ms")
    report("legal_plays_follow_27_p99", p99_ms(follow), "ms")

    counts = [len(legal_actions(h, lv, ruleset)) for h, lv in deals[:200]]
    actions = timings([lambda h=h, lv=lv: legal_actions(h, lv, ruleset) for h, lv in deals])
    report("legal_actions_lead_27_median", median_ms(actions), "ms")
    report("legal_actions_lead_27_p99", p99_ms(actions), "ms")
    report("legal_actions_lead_27_count_median", statistics.median(counts), "actions")

    for size, sets in by_size.items():
        report(f"classify_{size}_repeat", classify_rate(ruleset, sets), "sets/s")


if __name__ == "__main__":
    main()
