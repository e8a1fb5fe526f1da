"""Benchmark: `guandan simulate` throughput with heuristic bots, on one core, in processes and
on a Dask `LocalCluster` (issue 27).

Run `python benchmarks/simulate.py [--matches N] [--single N] [--jobs N] [--no-cluster]`;
prints `name: value unit` lines. `--single` matches are timed on one core (the rate a core
gives); `--matches` matches are timed in `--jobs` processes and then on a LocalCluster of as
many single-threaded worker processes, and the two runs' statistics must be equal (they share
their seeds), else the benchmark fails.
"""

from __future__ import annotations

import argparse
import time

from _common import report

from harness.engine.cluster import Workers
from harness.model.loader import load_variant
from harness.simulation.run import SimulationReport, simulate


def timed(run: SimulationReport) -> tuple[float, int]:
    """The run's seconds and the rounds it played."""
    return run.seconds, sum(len(m.rounds) for m in run.records)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian")
    parser.add_argument("--bots", default="heuristic")
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--single", type=int, default=100, help="matches timed on one core")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-cluster", action="store_true", help="leave the Dask run out")
    args = parser.parse_args()
    ruleset = load_variant(args.variant)

    seconds, rounds = timed(simulate(ruleset, args.bots, args.seed, args.single))
    report("simulate_one_core_matches_per_s", args.single / seconds, "matches/s")
    report("simulate_one_core_rounds_per_s", rounds / seconds, "rounds/s")

    spread = simulate(ruleset, args.bots, args.seed, args.matches, Workers(jobs=args.jobs))
    seconds, rounds = timed(spread)
    report(f"simulate_{args.matches}_matches_jobs_{args.jobs}", seconds, "s")
    report(f"simulate_jobs_{args.jobs}_rounds_per_s", rounds / seconds, "rounds/s")
    if args.no_cluster:
        return

    import distributed  # the `cluster` extra

    with distributed.LocalCluster(
        n_workers=args.jobs, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        workers = Workers(scheduler=cluster.scheduler_address, insecure=True)
        started = time.perf_counter()
        on_cluster = simulate(ruleset, args.bots, args.seed, args.matches, workers)
        # The cluster's start is left out: a cluster outlives one run.
        seconds = time.perf_counter() - started
    if on_cluster.statistics() != spread.statistics():
        raise SystemExit("the LocalCluster run's statistics differ from the processes' run")
    report(f"simulate_{args.matches}_matches_local_cluster_{args.jobs}", seconds, "s")
    report(f"simulate_local_cluster_{args.jobs}_rounds_per_s", timed(on_cluster)[1] / seconds,
           "rounds/s")  # fmt: skip


if __name__ == "__main__":
    main()
