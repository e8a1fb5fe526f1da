"""A run of simulated matches (模擬對局): match i plays the seed derived from the run's seed and
i alone, in shards of a fixed size, wherever the shards run; the records merged by index.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from harness.engine.cluster import Workers, run_tasks
from harness.errors import HarnessError, UsageError
from harness.interpreter.simulate import make_bots, play_match
from harness.model.ruleset import Ruleset
from harness.simulation.records import MatchRecord, match_record
from harness.simulation.stats import Statistic, summarize

SHARD_SIZE = 5
"""Matches per shard: the unit a worker takes (never depends on the workers)."""


def match_seed(seed: int, index: int) -> int:
    """The seed of the `index`-th match of a run seeded `seed` (48 bits of a hash of both)."""
    digest = hashlib.sha256(f"guandan simulate {seed} {index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


@dataclass(frozen=True)
class Shard:
    """Matches `start` to `start + count - 1` of a run: the variant, the bots, the run's seed."""

    ruleset: Ruleset
    bots: str
    seed: int
    start: int
    count: int


def run_shard(shard: Shard) -> list[MatchRecord]:
    """Play the shard's matches; their records."""
    records = []
    for index in range(shard.start, shard.start + shard.count):
        log = play_match(shard.ruleset, match_seed(shard.seed, index), shard.bots)
        records.append(match_record(log, index, shard.ruleset))
    return records


def check_bots(bots: str) -> None:
    """A usage error unless `make_bots` knows the kind (or both kinds of `a,b`)."""
    try:
        make_bots(bots, 0)
    except HarnessError as exc:
        raise UsageError(f"--bots {bots}: {exc}") from None


@dataclass
class SimulationReport:
    """What a run played: its settings, the records so far, and the time it took."""

    ruleset: Ruleset
    bots: str
    seed: int
    matches: int
    records: list[MatchRecord] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False

    def statistics(self) -> list[Statistic]:
        """The statistics over the matches played."""
        return summarize(self.records, self.ruleset.rules.scoring.base is not None)


Progress = Callable[[SimulationReport], None]


def plan(ruleset: Ruleset, bots: str, seed: int, matches: int) -> Iterator[Shard]:
    """The shards of a run of `matches` matches."""
    for start in range(0, matches, SHARD_SIZE):
        yield Shard(ruleset, bots, seed, start, min(SHARD_SIZE, matches - start))


def simulate(
    ruleset: Ruleset,
    bots: str,
    seed: int,
    matches: int,
    workers: Workers | None = None,
    progress: Progress | None = None,
) -> SimulationReport:
    """Play `matches` matches of `ruleset` with `bots` where `workers` says; Ctrl-C stops the
    run with the matches finished so far."""
    if matches < 1:
        raise UsageError("--matches must be at least 1")
    check_bots(bots)
    report = SimulationReport(ruleset, bots, seed, matches)
    started = time.perf_counter()

    def done(records: list[MatchRecord]) -> None:
        report.records.extend(records)
        report.seconds = time.perf_counter() - started
        if progress is not None:
            progress(report)

    try:
        run_tasks(run_shard, plan(ruleset, bots, seed, matches), workers or Workers(), done)
    except KeyboardInterrupt:
        report.interrupted = True
    report.records.sort(key=lambda m: m.index)
    report.seconds = time.perf_counter() - started
    return report
