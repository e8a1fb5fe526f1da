"""Benchmark: conformance cases per second through the Python protocol and through the process
protocol (batches of 64 to `guandan serve`) and their ratio, and the main job as a user runs it:
the CPU time and wall time of `guandan check --engine reference` over every variant (median of
several runs, and the spread of the wall time).

Run `python benchmarks/check.py [--variant V] [--rounds N] [--runs N]`; prints `name: value unit`
lines. Seconds on a shared machine move by a factor of three between days, so the targets are
a same-run ratio and a count: the process protocol at least as fast as the Python protocol
(`process_over_python_protocol` at least 1: batching pays for the pipe), and the main job's
instructions, which `benchmarks/instructions.py` counts and guards (at most 10,000 million,
about 1.5 s of CPU).
"""

from __future__ import annotations

import argparse
import re
import resource
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
    direct = len(work) / (time.perf_counter() - start)
    report("python_protocol", direct, "cases/s")

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
        batched = len(work) / (time.perf_counter() - start)
        report("process_protocol_batched", batched, "cases/s")
    finally:
        process.close()
    report("process_over_python_protocol", batched / direct, "x")
    report("cases_per_pass", len(chosen), "cases")
    main_job(args.runs)


def main_job(runs: int) -> None:
    """`guandan check --engine reference`, every variant, in a fresh process each time."""
    command = [sys.executable, "-m", "harness.frontends.cli", "check", "--engine", "reference"]
    walls, cpus = [], []
    summary = ""
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        summary = done.stdout
    found = re.search(r": (\d+) cases: ", summary)
    total = int(found.group(1)) if found else 0
    middle = statistics.median(walls)
    report("main_job_cpu_median", statistics.median(cpus), "s")
    report("main_job_wall_median", middle, "s")
    report("main_job_wall_spread", max(walls) - min(walls), "s")
    report("main_job_case_runs", total, "runs")
    report("main_job_case_runs_per_s", total / middle, "runs/s")


if __name__ == "__main__":
    main()
