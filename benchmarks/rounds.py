"""Benchmark: complete rounds and whole matches per second with random bots (pure Python).

Run `python benchmarks/rounds.py [--variant V] [--rounds N] [--matches N]`; prints one
`name: value unit` line per figure.
"""

from __future__ import annotations

import argparse
import random
import time

from _common import report

from harness.interpreter.round import start_round
from harness.interpreter.simulate import RandomBot, RoundLog, deal, play_match, play_round
from harness.model.loader import load_variant


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    ruleset = load_variant(args.variant)

    rng = random.Random(args.seed)
    bots = [RandomBot(random.Random(args.seed + i)) for i in range(4)]
    start = time.perf_counter()
    actions = 0
    for number in range(args.rounds):
        hands, leader, _ = deal(rng)
        log = RoundLog(number, "2", None, leader, None)
        play_round(start_round(hands, ruleset.rules.levels.start, ruleset, leader), bots, log)
        actions += len(log.actions)
    elapsed = time.perf_counter() - start
    report("rounds_random_bots", args.rounds / elapsed, "rounds/s")
    report("actions_random_bots", actions / elapsed, "actions/s")

    start = time.perf_counter()
    rounds = 0
    for i in range(args.matches):
        rounds += len(play_match(ruleset, args.seed + i, "random").rounds)
    elapsed = time.perf_counter() - start
    report("matches_random_bots", args.matches / elapsed, "matches/s")
    report("rounds_per_match", rounds / args.matches, "rounds")


if __name__ == "__main__":
    main()
