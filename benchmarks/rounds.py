"""Benchmark: whole rounds and whole matches per second with random bots (pure Python).

Run `python benchmarks/rounds.py [--variant V] [--rounds N] [--matches N]`; prints one
`name: value unit` line per figure.

`rounds_random_bots` counts the rounds of whole matches (`play_match`), so each round includes
all its work: the deal, the tribute and return before it (進貢/還牌, or anti-tribute), the play
to its end, the settlement and the log. Matches are played, seed after seed, until at least
`--rounds` rounds have been; `actions_random_bots` counts the plays and passes of those rounds.
`matches_random_bots` times `--matches` further matches, and `rounds_per_match` is their length.
`heuristic_rounds_per_second` counts whole rounds the same way (tribute included) with four
heuristic bots, on one core; `heuristic_rounds_per_second_fast` the same matches on the fast
engine (bots and rounds in the kernel), each match played on both paths in turn and their logs
compared, and `heuristic_fast_over_python` the ratio of the two in the same run;
`heuristic_rounds_per_second_fast_simulating` the same matches on the fast engine as `simulate`
plays them (each round's counts logged, all its records read, not each action), and
`heuristic_fast_simulating_over_python` its ratio.
"""

from __future__ import annotations

import argparse
import time

from _common import report

from harness.engine.fast.matches import fast_matches
from harness.interpreter.bots import play_match
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian")
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    ruleset = load_variant(args.variant)

    seed = args.seed + 1_000_000
    rounds, actions, elapsed = _rounds(ruleset, seed, args.rounds, "random")
    report("rounds_random_bots", rounds / elapsed, "rounds/s")
    report("actions_random_bots", actions / elapsed, "actions/s")

    start = time.perf_counter()
    rounds = 0
    for i in range(args.matches):
        rounds += len(play_match(ruleset, args.seed + i, "random").rounds)
    elapsed = time.perf_counter() - start
    report("matches_random_bots", args.matches / elapsed, "matches/s")
    report("rounds_per_match", rounds / args.matches, "rounds")

    rounds, python, fast = _heuristic_both(ruleset, seed, args.rounds)
    report("heuristic_rounds_per_second", rounds / python, "rounds/s")
    if fast is not None:
        whole, counted = fast
        report("heuristic_rounds_per_second_fast", rounds / whole, "rounds/s")
        report("heuristic_fast_over_python", python / whole, "x")
        report("heuristic_rounds_per_second_fast_simulating", rounds / counted, "rounds/s")
        report("heuristic_fast_simulating_over_python", python / counted, "x")


def _heuristic_both(
    ruleset: Ruleset, seed: int, least: int
) -> tuple[int, float, tuple[float, float] | None]:
    """Whole heuristic matches from `seed` on until at least `least` rounds, each played on the
    Python path, then on the fast engine with whole logs, then on it as a simulation plays
    them (each round's counts logged, not its actions), one core, in turn, so that the load of
    a shared machine weighs on all: rounds, seconds on the Python path, and on the fast engine
    both ways (None where it is off). The whole logs of each match must be equal."""
    fast = fast_matches(ruleset, "heuristic")
    if fast is not None:
        fast.prepare()  # as a simulation does before it plays: the tables of every level
    rounds = 0
    python_seconds = fast_seconds = counted_seconds = 0.0
    while rounds < least:
        start = time.perf_counter()
        log = play_match(ruleset, seed, "heuristic")
        python_seconds += time.perf_counter() - start
        rounds += len(log.rounds)
        if fast is not None:
            start = time.perf_counter()
            other = fast.play(seed)
            fast_seconds += time.perf_counter() - start
            if other.to_json() != log.to_json():
                raise SystemExit(
                    f"seed {seed}: the fast engine's log differs from the Python path's"
                )
            start = time.perf_counter()
            fast.play(seed, actions=False)
            counted_seconds += time.perf_counter() - start
        seed += 1
    both = (fast_seconds, counted_seconds)
    return rounds, python_seconds, both if fast is not None else None


def _rounds(ruleset: Ruleset, seed: int, least: int, bots: str) -> tuple[int, int, float]:
    """Whole matches from `seed` on until at least `least` rounds: rounds, actions, seconds."""
    start = time.perf_counter()
    rounds = actions = 0
    while rounds < least:
        log = play_match(ruleset, seed, bots)
        rounds += len(log.rounds)
        actions += sum(len(r.actions) for r in log.rounds)
        seed += 1
    return rounds, actions, time.perf_counter() - start


if __name__ == "__main__":
    main()
