"""Numbers the commands and the pytest plugin take (數值範圍): every one bounded and finite,
checked by one parser, `Bounded`, so that `nan`, `inf`, a negative or a huge value is a usage
error naming the option before any work, never a wait for ever or an overflow."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

from harness.model.diagnostics import safe_text

MAX_SECONDS = 86_400.0
"""The longest wait any option takes (`--timeout`, `--connect-timeout`, `--shrink-seconds`):
a day. A longer one is a mistake, and past some size a wait is no longer a number the
platform's clocks and `select` take (1e308 hung, inf overflowed)."""

MAX_COUNT = 1_000_000_000
"""The largest count (`--matches`, `--examples`, `--jobs`, `--minimum`) an option takes."""


@dataclass(frozen=True)
class Bounded:
    """An argparse type for a number option: an integer (`integer`) or a finite decimal in
    `[low, high]` (above `low` where `open_low`), else a usage error, exit 2, naming the
    option (argparse puts its name first) and the range: `nan`, `inf`, `-1`, `1e308` are
    refused before any work. One parser for every number the commands take."""

    low: float
    high: float
    integer: bool = False
    open_low: bool = False
    unit: str = ""

    def __call__(self, text: str) -> float:
        shown = safe_text(text)
        kind = "a whole number" if self.integer else "a number"
        above = "above" if self.open_low else "at least"
        unit = f" {self.unit}" if self.unit else ""
        low, high = (f"{int(b):,}" if self.integer else f"{b:g}" for b in (self.low, self.high))
        wanted = f"expected {kind}{unit} {above} {low} and at most {high}"
        try:
            value = int(text, 10) if self.integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{wanted}, found '{shown}'") from None
        low_ok = value > self.low if self.open_low else value >= self.low
        if not (math.isfinite(value) and low_ok and value <= self.high):
            raise argparse.ArgumentTypeError(f"{wanted}, found '{shown}'")
        return value


SECONDS = Bounded(0.0, MAX_SECONDS, open_low=True, unit="of seconds")
"""`--timeout`, `--connect-timeout`, `--shrink-seconds`: seconds above 0, at most a day."""

COUNT = Bounded(1, MAX_COUNT, integer=True)
"""`--matches`, `--examples`, `--jobs`, `--minimum`: a whole number from 1."""

SEED = Bounded(0, 2**64 - 1, integer=True)
"""`--seed`: a whole number from 0 below 2**64 (what the seeded generators take whole)."""
