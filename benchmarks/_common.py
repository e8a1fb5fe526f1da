"""Shared helpers for the benchmarks: seeded hands, timing, and the `name: value unit` lines."""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Run from a checkout without installing: `python benchmarks/plays.py`.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.model.cards import NATURAL_RANKS, Card, Rank, Suit, two_deck_pack


def report(name: str, value: float, unit: str) -> None:
    """Print one figure as `name: value unit`."""
    print(f"{name}: {value:.3f} {unit}" if value < 100 else f"{name}: {value:.0f} {unit}")


def random_hand(rng: random.Random, size: int, level: Rank, wilds: int | None = None) -> list[Card]:
    """`size` cards dealt from two decks; with `wilds` set, exactly that many heart level cards."""
    pack = list(two_deck_pack())
    if wilds is None:
        return rng.sample(pack, size)
    wild = Card(level, Suit.HEARTS)
    rest = [c for c in pack if c != wild]
    return rng.sample(rest, size - wilds) + [wild] * wilds


def random_level(rng: random.Random) -> Rank:
    """A level from 2 to A."""
    return rng.choice(NATURAL_RANKS)


def timings(calls: list[Callable[[], object]]) -> list[float]:
    """The wall time of each call, in seconds, in call order."""
    out = []
    for call in calls:
        start = time.perf_counter()
        call()
        out.append(time.perf_counter() - start)
    return out


def median_ms(samples: list[float]) -> float:
    """The median of `samples`, in milliseconds."""
    return statistics.median(samples) * 1000


def p99_ms(samples: list[float]) -> float:
    """The 99th percentile of `samples`, in milliseconds."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
