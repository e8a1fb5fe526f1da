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
from harness.interpreter.simulate import play_match
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
    played, rounds = _counted(args.variant, args.seed, args.matches)
    idle, _ = _counted(args.variant, args.seed, 0)
    report("heuristic_instructions", (played - idle) / 1e6, "Minstr")
    report("heuristic_rounds", rounds, "rounds")
    report("heuristic_instructions_per_round", (played - idle) / rounds / 1e6, "Minstr")


def _counted(variant: str, seed: int, matches: int) -> tuple[int, int]:
    """The instructions a process playing `matches` matches runs, and the rounds it played."""
    environment = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         "-c", PLAY, variant, str(seed), str(matches)],
        capture_output=True, text=True, env=environment, check=False,
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(f"valgrind did not count the play:\n{done.stderr[-2000:]}")
    return int(found.group(1)), int(done.stdout.split()[-1])


if __name__ == "__main__":
    main()
