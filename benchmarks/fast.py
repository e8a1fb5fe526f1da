"""Benchmark: the fast engine beside the Python path, in the same run (issue 52): legal actions
of a leading 27-card hand (half the hands hold both wild cards), and their ratio.

Run `python benchmarks/fast.py [--variant V] [--hands N] [--instructions]`; prints one
`name: value unit` line per figure:

- `legal_actions_lead_27_python_median`: the interpreter's `legal_actions` (cards and readings
  as Python objects);
- `legal_actions_lead_27_fast_median`: the fast engine's listing, kernel and decoding into
  card codes and reading ints (`FastEngine.listing`);
- `legal_actions_lead_27_ratio`: the first over the second, from the same hands in one run;
- `legal_actions_lead_27_kernel_*`: the kernel's listing alone, left in its buffer as integers
  (`FastEngine.fill`: what a caller on the compact form, such as a bot in C, would pay), and
  the Python path's time over it;
- `legal_actions_op_*`: the same through the `legal_actions` operation (JSON in and out) on
  both engines, and its ratio;
- with `--instructions` (needs valgrind): instructions per hand on both paths, warm, counted by
  callgrind (a process listing every hand twice, less one listing them once), and their ratio.

The paths are timed hand by hand in turn, so that the load of a shared machine weighs on both.

Both paths answer every hand; the benchmark stops if they disagree on how many actions.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

from _common import median_ms, random_hand, random_level, report, timings

from harness.engine.api import call
from harness.engine.fast.engine import FastEngine
from harness.engine.reference import ReferenceEngine
from harness.interpreter.actions import legal_actions
from harness.kernel import status
from harness.model.cards import Card, Rank
from harness.model.loader import load_variant

REPO = Path(__file__).resolve().parents[1]


def deals(hands: int, seed: int) -> list[tuple[list[Card], Rank]]:
    """`hands` leading 27-card hands with their levels; every other one holds both wilds."""
    rng = random.Random(seed)
    out = []
    for i in range(hands):
        level = random_level(rng)
        out.append((random_hand(rng, 27, level, wilds=2 if i % 2 == 0 else None), level))
    return out


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian")
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261207)
    parser.add_argument("--instructions", action="store_true", help="count with callgrind too")
    args = parser.parse_args()
    found = status()
    if not found.active:
        sys.exit(f"benchmarks/fast.py needs the fast engine: {found}")
    ruleset = load_variant(args.variant)
    fast = FastEngine(ruleset)
    hands = deals(args.hands, args.seed)
    # Each path once over every hand first: memos and tables made, so both are timed warm.
    counts = [len(legal_actions(h, lv, ruleset)) for h, lv in hands]
    mine = [len(fast.listing(fast.tables(lv), h, None, False)) for h, lv in hands]
    if counts != mine:
        sys.exit("the fast engine and the Python path disagree on the number of actions")

    # The two paths hand by hand in turn, so that a shared machine's load weighs on both alike.
    python: list[float] = []
    compact: list[float] = []
    kernel: list[float] = []
    for hand, level in hands:
        python += timings([lambda h=hand, lv=level: legal_actions(h, lv, ruleset)])
        compact += timings([lambda h=hand, lv=level: fast.listing(fast.tables(lv), h, None, False)])
        kernel += timings([lambda h=hand, lv=level: fast.fill(fast.tables(lv), h, None, False)])
    report("legal_actions_lead_27_python_median", median_ms(python), "ms")
    report("legal_actions_lead_27_fast_median", median_ms(compact), "ms")
    report("legal_actions_lead_27_ratio", median_ms(python) / median_ms(compact), "x")
    report("legal_actions_lead_27_kernel_median", median_ms(kernel), "ms")
    report("legal_actions_lead_27_kernel_ratio", median_ms(python) / median_ms(kernel), "x")
    report("legal_actions_lead_27_count_median", sorted(counts)[len(counts) // 2], "actions")

    reference = ReferenceEngine(ruleset)
    requests = [{"hand": [c.code for c in h], "level": lv.value} for h, lv in hands]
    by_op: dict[str, list[float]] = {"python": [], "fast": []}
    for request in requests:
        for name, engine in (("python", reference), ("fast", fast)):
            by_op[name] += timings([lambda e=engine, r=request: call(e, "legal_actions", r)])
    report("legal_actions_op_python_median", median_ms(by_op["python"]), "ms")
    report("legal_actions_op_fast_median", median_ms(by_op["fast"]), "ms")
    ratio = median_ms(by_op["python"]) / median_ms(by_op["fast"])
    report("legal_actions_op_ratio", ratio, "x")

    if args.instructions:
        _instructions(args.variant, args.hands, args.seed)


COUNT = """
import sys
sys.path.insert(0, sys.argv[4])
from fast import deals
from harness.engine.fast.engine import FastEngine
from harness.interpreter.actions import legal_actions
from harness.model.loader import load_variant

variant, hands, seed, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[5]
passes = int(sys.argv[6])
ruleset = load_variant(variant)
fast = FastEngine(ruleset)
dealt = deals(hands, seed)
for _ in range(passes):
    for hand, level in dealt:
        if path == "python":
            legal_actions(hand, level, ruleset)
        elif path == "fast":
            fast.listing(fast.tables(level), hand, None, False)
        else:
            fast.fill(fast.tables(level), hand, None, False)
"""


def _instructions(variant: str, hands: int, seed: int) -> None:
    """Instructions per hand on both paths (callgrind), warm: a process listing every hand
    twice, less one listing them once."""
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    per = {}
    for path in ("python", "fast", "kernel"):
        twice, once = (_count(variant, hands, seed, path, passes) for passes in (2, 1))
        per[path] = (twice - once) / hands
    report("legal_actions_lead_27_python_instructions", per["python"] / 1e3, "kinstr")
    report("legal_actions_lead_27_fast_instructions", per["fast"] / 1e3, "kinstr")
    report("legal_actions_lead_27_instructions_ratio", per["python"] / per["fast"], "x")
    report("legal_actions_lead_27_kernel_instructions", per["kernel"] / 1e3, "kinstr")
    ratio = per["python"] / per["kernel"]
    report("legal_actions_lead_27_kernel_instructions_ratio", ratio, "x")


def _count(variant: str, hands: int, seed: int, path: str, passes: int) -> int:
    """The instructions a process listing `hands` hands `passes` times on `path` runs, under
    callgrind."""
    environment = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         "-c", COUNT, variant, str(hands), str(seed), str(REPO / "benchmarks"), path,
         str(passes)],
        capture_output=True, text=True, env=environment, check=False,
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(f"valgrind did not count the {path} path:\n{done.stderr[-2000:]}")
    return int(found.group(1))


if __name__ == "__main__":
    main()
