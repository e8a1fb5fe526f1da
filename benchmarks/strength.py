"""Win rates of the heuristic bot's team against the random and the greedy bots' teams.

Run `python benchmarks/strength.py [--variant V] [--matches N] [--seed S]`; prints one
`name: value unit` line per figure: the share of matches won and its 95 % Wilson interval.
Seats swap every other match (the heuristic team plays seats 0 and 2, then 1 and 3).
"""

from __future__ import annotations

import argparse
import math

from _common import report

from harness.interpreter.bots import play_match
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset

Z95 = 1.959964
"""The two-sided 95 % quantile of the normal distribution."""


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sound near 0 and 1, unlike p ± z·se)."""
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return centre - half, centre + half


def wins(ruleset: Ruleset, seed: int, matches: int, against: str) -> int:
    """Matches won by the heuristic team against `against`, seats swapped every other match."""
    won = 0
    for i in range(matches):
        if i % 2:
            won += play_match(ruleset, seed + i, f"{against},heuristic").winner == 1
        else:
            won += play_match(ruleset, seed + i, f"heuristic,{against}").winner == 0
    return won


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ruleset = load_variant(args.variant)
    for against in ("random", "greedy"):
        won = wins(ruleset, args.seed, args.matches, against)
        low, high = wilson(won, args.matches)
        report(f"heuristic_vs_{against}_win_rate", won / args.matches, "share")
        report(f"heuristic_vs_{against}_low", low, "share")
        report(f"heuristic_vs_{against}_high", high, "share")


if __name__ == "__main__":
    main()
