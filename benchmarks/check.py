"""Benchmark: conformance cases per second through the Python protocol and through the process
protocol (batches of 64 to `guandan serve`), and the main job as a user runs it: the wall time of
`guandan check --engine reference` over every variant (median and spread of several runs).

Run `python benchmarks/check.py [--variant V] [--rounds N] [--runs N]`; prints `name: value unit`
lines. Targets: at least 5,000 cases/s through the process protocol; the main job in 1.5 s.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time

from _common import report

from harness.conformance.cases.case_loader import compare_output, load_cases
from harness.conformance.running.runner import RunConfig, select
from harness.engine import ReferenceEngine, call
from harness.engine.process import ProcessEngine
from harness.model.loader import load_variant_spec


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian", help="a bundled slug or a variant file")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the corpus")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5, help="runs of the whole main job")
    args = parser.parse_args()
    cases, _ = load_cases()
    ruleset = load_variant_spec(args.variant)
    # The variant's own cases with answers (no derived variants, no expected refusals).
    config = RunConfig("reference", [ruleset], derived=False)
    chosen = [item.case for item in select(config, cases)]
    chosen = [case for case in chosen if not case.options and not case.expects_refusal]
    work = chosen * args.rounds

    engine = ReferenceEngine(ruleset)
    start = time.perf_counter()
    for case in work:
        compare_output(case.expected, call(engine, case.operation, case.input))
    report("python_protocol", len(work) / (time.perf_counter() - start), "cases/s")

    process = ProcessEngine(
        f"{sys.executable} -m harness.frontends.cli serve --variant {args.variant}",
        ruleset,
        timeout=60,
    )
    try:
        process.describe()
        start = time.perf_counter()
        for i in range(0, len(work), args.batch):
            chunk = work[i : i + args.batch]
            answers = process.batch([(c.operation, c.input) for c in chunk])
            for case, answer in zip(chunk, answers, strict=True):
                compare_output(case.expected, answer.get("output"))
        report("process_protocol_batched", len(work) / (time.perf_counter() - start), "cases/s")
    finally:
        process.close()
    report("cases_per_pass", len(chosen), "cases")
    main_job(args.runs)


def main_job(runs: int) -> None:
    """`guandan check --engine reference`, every variant, in a fresh process each time."""
    command = [sys.executable, "-m", "harness.frontends.cli", "check", "--engine", "reference"]
    walls = []
    summary = ""
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        walls.append(time.perf_counter() - start)
        summary = done.stdout
    found = re.search(r": (\d+) cases: ", summary)
    total = int(found.group(1)) if found else 0
    middle = statistics.median(walls)
    report("main_job_wall_median", middle, "s")
    report("main_job_wall_spread", max(walls) - min(walls), "s")
    report("main_job_case_runs", total, "runs")
    report("main_job_case_runs_per_s", total / middle, "runs/s")


if __name__ == "__main__":
    main()
