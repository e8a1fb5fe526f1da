"""Benchmark: `guandan fingerprint` against `guandan check` on the same engine, as a user runs
them: the wall time of each in a fresh process (median of several runs), and their ratio.

The engine is tests/engines/realbugs.py's `ManyClauses`: four clause values changed and 2 ms an
answer, so that the fingerprint has 76 failing cases to explain. Run `python
benchmarks/fingerprint.py [--runs N] [--engine SPEC]`; prints `name: value unit` lines. Target:
the fingerprint within 3 times the check.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import report

ROOT = Path(__file__).resolve().parents[1]


def wall(command: list[str], runs: int) -> float:
    """The median wall time of `command` run `runs` times, each in a fresh process."""
    walls = []
    for _ in range(runs):
        start = time.perf_counter()
        # Exit 1 is a verdict (failures, or unexplained answers), not a failure to run.
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
        walls.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return statistics.median(walls)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", default="py:tests.engines.realbugs:ManyClauses")
    parser.add_argument("--variant", default="huaian")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command")
    args = parser.parse_args()
    cli = [sys.executable, "-m", "harness.frontends.cli"]
    engine = ["--engine", args.engine, "--variant", args.variant]
    with tempfile.TemporaryDirectory() as tmp:
        check = wall([*cli, "check", *engine], args.runs)
        out = ["--out", str(Path(tmp) / "fp.yaml")]
        fingerprint = wall([*cli, "fingerprint", *engine, *out], args.runs)
    report("check_wall_median", check, "s")
    report("fingerprint_wall_median", fingerprint, "s")
    report("fingerprint_over_check", fingerprint / check, "x")


if __name__ == "__main__":
    main()
