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
- `hand_plays_lead_27_*`: the listing of the same hands' plays in the reference's order
  (`HandPlays(hand, rules).plays()`, which the heuristic bot reads) against the kernel's
  `gd_hand_plays` called on card ints made beforehand (what the bot and the round in C pay),
  and their ratio; the benchmark stops if the two listings differ;
- with `--instructions` (needs valgrind): instructions per hand on both paths, warm, counted by
  callgrind (a process listing every hand twice, less one listing them once), and their ratio,
  for legal actions and for the listing of plays in the reference's order.

The paths are timed hand by hand in turn, so that the load of a shared machine weighs on both.

Both paths answer every hand; the benchmark stops if they disagree on how many actions.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

from _common import median_ms, random_hand, random_level, report, timings

from harness.engine.api import call
from harness.engine.fast.engine import FastEngine, encode
from harness.engine.fast.listing import card_int, hand_plays
from harness.engine.reference import ReferenceEngine
from harness.interpreter.actions import legal_actions
from harness.interpreter.legal import HandPlays
from harness.interpreter.readings import play_rules
from harness.kernel import status
from harness.model.cards import Card, Rank
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset

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

    _plays(fast, ruleset, hands)
    if args.instructions:
        _instructions(args.variant, args.hands, args.seed)


def held(hands: list[tuple[list[Card], Rank]]) -> list[ctypes.Array[ctypes.c_int32]]:
    """Each hand as the kernel reads it (card ints), made before any listing is timed."""
    return [(ctypes.c_int32 * len(h))(*(card_int(c) for c in h)) for h, _ in hands]


def list_plays(fast: FastEngine, level: Rank, cards: ctypes.Array[ctypes.c_int32]) -> int:
    """The kernel's listing of a leading hand's plays, left in a buffer as integers."""
    out = _BUFFER
    return int(
        fast.kernel.hand_plays(fast.tables(level).array, cards, len(cards), 0, -1, out, len(out))
    )


_BUFFER = (ctypes.c_int32 * (1 << 16))()


def _plays(fast: FastEngine, ruleset: Ruleset, hands: list[tuple[list[Card], Rank]]) -> None:
    """The listing of plays in the reference's order, on both paths, hand by hand in turn."""
    for hand, level in hands:
        mine = hand_plays(fast, level, hand)
        theirs = HandPlays(hand, play_rules(ruleset, level)).plays()
        if mine != [(encode(p.reading), tuple(card_int(c) for c in p.cards)) for p in theirs]:
            sys.exit("the kernel's listing of plays and the Python path's differ")
    python: list[float] = []
    kernel: list[float] = []
    for (hand, level), cards in zip(hands, held(hands), strict=True):
        rules = play_rules(ruleset, level)
        python += timings([lambda h=hand, r=rules: HandPlays(h, r).plays()])
        kernel += timings([lambda lv=level, c=cards: list_plays(fast, lv, c)])
    report("hand_plays_lead_27_python_median", median_ms(python), "ms")
    report("hand_plays_lead_27_kernel_median", median_ms(kernel), "ms")
    report("hand_plays_lead_27_kernel_ratio", median_ms(python) / median_ms(kernel), "x")


COUNT = """
import sys
sys.path.insert(0, sys.argv[4])
from fast import deals, held, list_plays
from harness.engine.fast.engine import FastEngine
from harness.interpreter.actions import legal_actions
from harness.interpreter.legal import HandPlays
from harness.interpreter.readings import play_rules
from harness.model.loader import load_variant

variant, hands, seed, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[5]
passes = int(sys.argv[6])
ruleset = load_variant(variant)
fast = FastEngine(ruleset)
dealt = deals(hands, seed)
cards = held(dealt)
for _ in range(passes):
    for (hand, level), ints in zip(dealt, cards):
        if path == "python":
            legal_actions(hand, level, ruleset)
        elif path == "fast":
            fast.listing(fast.tables(level), hand, None, False)
        elif path == "kernel":
            fast.fill(fast.tables(level), hand, None, False)
        elif path == "python_plays":
            HandPlays(hand, play_rules(ruleset, level)).plays()
        else:
            list_plays(fast, level, ints)
"""


def _instructions(variant: str, hands: int, seed: int) -> None:
    """Instructions per hand on both paths (callgrind), warm: a process listing every hand
    twice, less one listing them once."""
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    per = {}
    for path in ("python", "fast", "kernel", "python_plays", "kernel_plays"):
        twice, once = (_count(variant, hands, seed, path, passes) for passes in (2, 1))
        per[path] = (twice - once) / hands
    report("legal_actions_lead_27_python_instructions", per["python"] / 1e3, "kinstr")
    report("legal_actions_lead_27_fast_instructions", per["fast"] / 1e3, "kinstr")
    report("legal_actions_lead_27_instructions_ratio", per["python"] / per["fast"], "x")
    report("legal_actions_lead_27_kernel_instructions", per["kernel"] / 1e3, "kinstr")
    ratio = per["python"] / per["kernel"]
    report("legal_actions_lead_27_kernel_instructions_ratio", ratio, "x")
    report("hand_plays_lead_27_python_instructions", per["python_plays"] / 1e3, "kinstr")
    report("hand_plays_lead_27_kernel_instructions", per["kernel_plays"] / 1e3, "kinstr")
    ratio = per["python_plays"] / per["kernel_plays"]
    report("hand_plays_lead_27_kernel_instructions_ratio", ratio, "x")


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
