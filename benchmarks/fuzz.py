"""Benchmark: `guandan fuzz` throughput. Examples per second of each target against the
reference interpreter in-process (`--engine reference`), whole random rounds per second (the
replay target), the same over the process protocol (`guandan serve`, one request at a time), and
the speed-up of `--jobs 2` over `--jobs 1` on a slow engine (20 ms per answer; the default
budget is two whole shards, so that two workers can share it evenly).

Run `python benchmarks/fuzz.py [--variant V] [--seed S] [--scale X]` from the repository root;
prints `name: value unit` lines. Examples per second are the run's examples (as `guandan fuzz`
counts them) over its time, the engine's start included; `_checked` lines count the inputs
actually put to the engine. Target, a ratio measured in the same run: `--jobs 2` at least
1.6x `--jobs 1` on a slow engine. The rates are seconds, which move between days on a shared
machine: compare two versions of the code in the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from _common import report

from harness.conformance.oracles.fuzz.driver import FuzzConfig, FuzzReport, fuzz
from harness.conformance.oracles.fuzz.targets import TARGETS
from harness.model.loader import load_variant_spec
from harness.model.ruleset import Ruleset

REPO = Path(__file__).resolve().parents[1]
BUDGETS = {
    "classify": 1000,
    "beats": 1000,
    "legal_plays": 800,
    "tribute": 800,
    "settle": 1000,
    "score": 2000,
    "replay": 80,
    "match": 10,
}
"""Examples per target in-process: a few seconds each (replay and match are whole rounds)."""
PROCESS_TARGETS = ("classify", "beats", "replay")
SLOW = "py:tests.engines.pyengines:Slow"


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian", help="a bundled slug or a variant file")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every budget")
    parser.add_argument(
        "--slow-examples", type=int, default=400, help="budget of the --jobs runs (2 shards)"
    )
    args = parser.parse_args()
    # `py:tests.engines...` importable here and in worker processes (spawned or forked).
    sys.path.insert(0, str(REPO))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.getenv("PYTHONPATH")]))
    ruleset = load_variant_spec(args.variant)
    ruleset = ruleset.with_options(
        {**{n: o.default for n, o in ruleset.options.items()}, **dict(ruleset.chosen)}
    )

    def budget(target: str, share: float = 1.0) -> int:
        return max(1, round(BUDGETS[target] * args.scale * share))

    for target in TARGETS:
        run = fuzz(config("reference", ruleset, target, args.seed, budget(target)))
        figures("fuzz_reference", target, run)

    serve = f"exec:{sys.executable} -m harness.frontends.cli serve --variant {args.variant}"
    for target in PROCESS_TARGETS:
        run = fuzz(config(serve, ruleset, target, args.seed, budget(target, 0.5)))
        figures("fuzz_process", target, run)

    walls = {}
    for jobs in (1, 2):
        start = time.perf_counter()
        run = fuzz(config(SLOW, ruleset, "classify", args.seed, args.slow_examples, jobs))
        walls[jobs] = time.perf_counter() - start
        assert not run.errors, run.errors
        report(f"fuzz_jobs{jobs}_slow_wall", walls[jobs], "s")
    report("fuzz_jobs2_speedup_slow", walls[1] / walls[2], "x")


def config(
    engine: str, ruleset: Ruleset, target: str, seed: int, examples: int, jobs: int = 1
) -> FuzzConfig:
    """One target, an example budget, on one core unless `jobs` says otherwise."""
    return FuzzConfig(
        engine=engine, ruleset=ruleset, targets=(target,), seed=seed, examples=examples, jobs=jobs
    )


def figures(prefix: str, target: str, run: FuzzReport) -> None:
    """A target's examples/s (and inputs checked/s); for replay, whole rounds/s as well."""
    if run.errors or run.findings:
        raise SystemExit(f"{prefix} {target}: the reference differs from itself: {run.errors}")
    examples = run.examples.get(target, 0)
    checked = sum(run.asked.values())
    report(f"{prefix}_{target}", examples / run.seconds, "examples/s")
    report(f"{prefix}_{target}_checked", checked / run.seconds, "inputs/s")
    if target == "replay":
        report(f"{prefix}_rounds", run.asked.get("replay", 0) / run.seconds, "rounds/s")


if __name__ == "__main__":
    main()
