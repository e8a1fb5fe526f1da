"""A run of simulated matches (模擬對局): match i plays the seed derived from the run's seed and
i alone, in shards of a fixed size, wherever the shards run; the records merged by index.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness.engine.cluster import Workers, run_tasks
from harness.errors import HarnessError, UsageError
from harness.interpreter.bots import make_bots, play_match
from harness.model.ruleset import Ruleset
from harness.simulation.records import MatchRecord, match_record
from harness.simulation.stats import Statistic, summarize

if TYPE_CHECKING:
    from harness.engine.fast.matches import FastMatches

SHARD_SIZE = 5
FAST_SHARD_SIZE = 40
"""Matches per shard on the fast engine, where five take a few milliseconds: the work of
sending a shard (its rule set, pickled) would weigh as much as playing it. The numbers are the
same whatever the shards' size: each match plays the seed of its index."""
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
    fast: bool = True
    """Whether the fast engine plays the matches where it can (the numbers are the same)."""
    run: int = 0
    """The run's own number (the identity of its rule set where the run was planned): a process
    builds the fast engine's tables once for the run, not once for each shard's copy of it."""


@dataclass(frozen=True)
class ShardResult:
    """A shard's match records, and the clauses read so far in the process that played it
    (`Ruleset.consulted` of the shard's ruleset: every clause, unless it is a watched copy)."""

    records: list[MatchRecord]
    consulted: frozenset[str]


def run_shard(shard: Shard) -> ShardResult:
    """Play the shard's matches, on the fast engine where it plays them; their records and the
    clauses read."""
    records = []
    fast = fast_matches(shard.ruleset, shard.bots, shard.run) if shard.fast else None
    for index in range(shard.start, shard.start + shard.count):
        seed = match_seed(shard.seed, index)
        if fast is None:
            log = play_match(shard.ruleset, seed, shard.bots)
        else:
            # The records read the counts of each round, not its actions: none is logged. The
            # shard's own rule set plays, so that the clauses read are recorded in it.
            log = fast.play(seed, shard.bots, actions=False, ruleset=shard.ruleset)
        records.append(match_record(log, index, shard.ruleset))
    return ShardResult(records, shard.ruleset.consulted())


def fast_matches(ruleset: Ruleset, bots: str, run: int = 0) -> FastMatches | None:
    """The fast engine's round player and bots for `ruleset` and `bots` (kept for the `run`
    where one is named), or None where the Python path plays: the fast engine off, a clause
    value it does not play, or bots it has not (it plays the heuristic bots)."""
    # Imported here: the fast engine loads the kernel, which a run on the Python path skips.
    from harness.engine.fast.matches import fast_matches as found

    return found(ruleset, bots, run)


def check_bots(bots: str) -> None:
    """A usage error unless `make_bots` knows the kind (or both kinds of `a,b`)."""
    try:
        make_bots(bots, 0)
    except HarnessError as exc:
        raise UsageError(f"--bots {bots}: {exc}") from None


@dataclass
class SimulationReport:
    """What a run played: its settings, the records so far, and the time it took.

    `ruleset` is what the run played: a watched copy of the variant asked for
    (`Ruleset.watched`, the same clauses), whose reads `consulted` gathers."""

    ruleset: Ruleset
    bots: str
    seed: int
    matches: int
    records: list[MatchRecord] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False
    read_in_shards: set[str] = field(default_factory=set)
    """The clauses each shard's process had read when it ended (`ShardResult.consulted`)."""

    def statistics(self) -> list[Statistic]:
        """The statistics over the matches played."""
        return summarize(self.records, self.ruleset.rules.scoring.base is not None)

    @property
    def consulted(self) -> frozenset[str]:
        """The clauses the run has read so far, in every process (its statistics included): a
        clause outside them decides nothing in it, so a run of the same seeds that differs in
        such clauses alone plays every match alike (common random numbers)."""
        return frozenset(self.read_in_shards) | self.ruleset.consulted()


Progress = Callable[[SimulationReport], None]


def plan(
    ruleset: Ruleset, bots: str, seed: int, matches: int, fast: bool = True
) -> Iterator[Shard]:
    """The shards of a run of `matches` matches (on the fast engine where it plays them, unless
    not `fast`, in shards of `FAST_SHARD_SIZE`)."""
    # Asked here first, so that forked workers find the tables compiled (and a copy made by
    # spawning builds them once for the run).
    found = fast_matches(ruleset, bots, id(ruleset)) if fast else None
    if found is not None:
        found.prepare()
    on_fast = found is not None
    size = FAST_SHARD_SIZE if on_fast else SHARD_SIZE
    for start in range(0, matches, size):
        count = min(size, matches - start)
        yield Shard(ruleset, bots, seed, start, count, on_fast, id(ruleset))


def simulate(
    ruleset: Ruleset,
    bots: str,
    seed: int,
    matches: int,
    workers: Workers | None = None,
    progress: Progress | None = None,
    fast: bool = True,
) -> SimulationReport:
    """Play `matches` matches of `ruleset` with `bots` where `workers` says, on the fast engine
    where it plays them unless not `fast` (the numbers are the same); Ctrl-C stops the run with
    the matches finished so far."""
    if matches < 1:
        raise UsageError("--matches must be at least 1")
    check_bots(bots)
    # A watched copy: what the run reads is recorded, afresh (no memo has seen the copy).
    played = ruleset.watched()
    report = SimulationReport(played, bots, seed, matches)
    started = time.perf_counter()

    def done(result: ShardResult) -> None:
        report.records.extend(result.records)
        report.read_in_shards.update(result.consulted)
        report.seconds = time.perf_counter() - started
        if progress is not None:
            progress(report)

    try:
        shards = plan(played, bots, seed, matches, fast)
        run_tasks(run_shard, shards, workers or Workers(), done)
    except KeyboardInterrupt:
        report.interrupted = True
    report.records.sort(key=lambda m: m.index)
    report.seconds = time.perf_counter() - started
    return report
