"""Benchmark: the instructions heuristic-bot play takes, counted by valgrind (callgrind).

Run `python benchmarks/instructions.py [--variant V] [--matches N] [--seed S]`; prints one
`name: value unit` line per figure. Needs Debian's `valgrind`.

Wall-clock figures on a shared machine move by a few per cent from run to run, which is more
than one small speed cut saves; an instruction count does not (with `PYTHONHASHSEED=0` two runs
agree to about 0.03 %), so it is the figure to weigh a cut with, before and after. The count is
of `--matches` whole heuristic matches (tribute included) from `--seed` on, less that of the
same process playing none (start-up and loading), per round played:
`heuristic_instructions_per_round`. It is about 50 times slower than the play itself.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from _common import report

REPO = Path(__file__).resolve().parents[1]

PLAY = """
import sys
from harness.interpreter.bots import play_match
from harness.model.loader import load_variant

variant, seed, matches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ruleset = load_variant(variant)
rounds = sum(len(play_match(ruleset, seed + i, "heuristic").rounds) for i in range(matches))
print(rounds)
"""


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian")
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--seed", type=int, default=20261129 + 1_000_000)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("benchmarks/instructions.py needs valgrind (Debian: apt-get install valgrind)")
    # Both processes at once: valgrind runs each on one core, and the idle one costs as much.
    processes = [_counting(args.variant, args.seed, n) for n in (args.matches, 0)]
    try:
        (played, rounds), (idle, _) = [_counted(process) for process in processes]
    finally:  # one that failed ends the run: the other does not outlive it
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    report("heuristic_instructions", (played - idle) / 1e6, "Minstr")
    report("heuristic_rounds", rounds, "rounds")
    report("heuristic_instructions_per_round", (played - idle) / rounds / 1e6, "Minstr")


def _counting(variant: str, seed: int, matches: int) -> subprocess.Popen[str]:
    """A process playing `matches` matches under callgrind, started."""
    environment = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         "-c", PLAY, variant, str(seed), str(matches)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
    )  # fmt: skip


def _counted(process: subprocess.Popen[str]) -> tuple[int, int]:
    """The instructions `process` (`_counting`) ran, and the rounds it played."""
    stdout, stderr = process.communicate()
    found = re.search(r"Collected : (\d+)", stderr)
    if process.returncode != 0 or found is None:
        sys.exit(f"valgrind did not count the play:\n{stderr[-2000:]}")
    return int(found.group(1)), int(stdout.split()[-1])


if __name__ == "__main__":
    main()
