"""Benchmark and speed guard: the instructions the main job, `guandan --version` and
heuristic-bot play take, counted by valgrind (callgrind).

Run `python benchmarks/instructions.py [--variant V] [--matches N] [--seed S]`; prints one
`name: value unit` line per figure. `--check` compares the figures with those committed in
`benchmarks/instructions.json` and exits 1 if one moved by more than the tolerance there (2 %),
either way; `--record` writes that file anew (do it in the commit that makes a figure move on
purpose, and say why). Needs Debian's `valgrind`.

Record where CI counts: a fresh clone, in a fresh virtual environment made with `pip install
".[test]"` (`.ci/run`'s newest end). The counts depend on the environment as well as the
code: checkouts worked in for a while have counted `--version` 15 % and 40 % higher than a
fresh clone, for reasons not found, so a figure from one environment is never compared with
one from another.

Wall-clock figures on a shared machine move by a few per cent from run to run, and by a factor
of three between days, which is more than one speed cut saves; an instruction count does not
(with `PYTHONHASHSEED=0` two runs agree to about 0.03 %), so it is the figure a target is set in
and a cut weighed by, before and after. The figures:

- `main_job_instructions`: the whole process of `guandan check --engine reference` (every
  variant), start-up included: what a user waits for.
- `version_instructions`, and `version_over_bare_python`, its ratio to a bare interpreter
  measured in the same run: the start-up every command pays.
- `heuristic_instructions_per_round`: `--matches` whole heuristic matches (tribute included)
  from `--seed` on, less the same process playing none (start-up and loading), per round.
- `fast_heuristic_instructions_per_round`: the same matches on the fast engine as `simulate`
  plays them (the bots, the rounds and the tribute in the kernel, each round's counts logged,
  not its actions), after the tables of every level are compiled, counted the same way; and
  `fast_heuristic_fewer_instructions`, the Python path's count over it. Where the fast engine
  is off, neither is counted (and `--check` says so rather than fail).

Each command runs once first outside valgrind, so that compiling the modules' bytecode is never
counted, in a cache folder of the run's own (`XDG_CACHE_HOME`), which that first run fills: the
counts then never depend on what a user's cache held before (the fast engine's kernel, the
corpus read as JSON). Counting is about 50 times slower than the work itself: a minute or two
in all.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from _common import report

from harness.kernel import status

REPO = Path(__file__).resolve().parents[1]
COMMITTED = REPO / "benchmarks" / "instructions.json"

PLAY = """
import sys
from harness.interpreter.bots import play_match
from harness.model.loader import load_variant

variant, seed, matches, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ruleset = load_variant(variant)
if path == "fast":
    from harness.engine.fast.matches import fast_matches

    fast = fast_matches(ruleset, "heuristic")
    if fast is None:
        sys.exit("the fast engine is off or does not play " + variant)
    fast.prepare()  # every level's tables, as a simulation compiles them before it plays
    rounds = sum(
        len(fast.play(seed + i, actions=False).rounds)
        for i in range(matches)
    )
else:
    rounds = sum(len(play_match(ruleset, seed + i, "heuristic").rounds) for i in range(matches))
print(rounds)
"""

GUANDAN = ["-m", "harness.frontends.cli"]


@dataclass(frozen=True)
class Counted:
    """One process counted by callgrind: the instructions it ran and what it printed."""

    instructions: int
    stdout: str


def main() -> None:
    """Print the figures; with `--check` or `--record`, guard or record them."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="huaian")
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--seed", type=int, default=20261129 + 1_000_000)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="compare with the committed figures")
    group.add_argument("--record", action="store_true", help="write the committed figures anew")
    args = parser.parse_args()
    if args.check or args.record:
        # The committed figures are of the default work: the guard measures exactly that.
        args.variant, args.matches, args.seed = "huaian", 8, 20261129 + 1_000_000
    if shutil.which("valgrind") is None:
        sys.exit("benchmarks/instructions.py needs valgrind (Debian: apt-get install valgrind)")
    figures = measure(args.variant, args.matches, args.seed)
    for name, (value, unit) in figures.items():
        report(name, value, unit)
    if args.record:
        record(figures)
    elif args.check:
        sys.exit(check(figures))


def measure(variant: str, matches: int, seed: int) -> dict[str, tuple[float, str]]:
    """Every figure, by name: its value and unit."""
    with tempfile.TemporaryDirectory(prefix="guandan-instructions-") as cache:
        os.environ["XDG_CACHE_HOME"] = cache
        return _measure(variant, matches, seed)


def _measure(variant: str, matches: int, seed: int) -> dict[str, tuple[float, str]]:
    play = [sys.executable, "-c", PLAY, variant, str(seed)]
    commands = {
        "main_job": [sys.executable, *GUANDAN, "check", "--engine", "reference"],
        "version": [sys.executable, *GUANDAN, "--version"],
        "bare": [sys.executable, "-c", "pass"],
        "played": [*play, str(matches), "python"],
        "idle": [*play, "0", "python"],
    }
    fast_on = status().active
    if fast_on:
        commands["fast_played"] = [*play, str(matches), "fast"]
        commands["fast_idle"] = [*play, "0", "fast"]
    warm = ("main_job", "version", "idle", *(("fast_idle",) if fast_on else ()))
    for command in (commands[name] for name in warm):
        subprocess.run(command, capture_output=True, env=_environment(), check=True)
    counted = _count_all(commands)
    found = re.search(r": ([\d,]+) cases: ", counted["main_job"].stdout)
    if found is None:
        sys.exit(f"the main job printed no summary:\n{counted['main_job'].stdout[-2000:]}")
    runs = int(found.group(1).replace(",", ""))
    rounds = int(counted["played"].stdout.split()[-1])
    played = counted["played"].instructions - counted["idle"].instructions
    version, bare = counted["version"].instructions, counted["bare"].instructions
    figures = {
        "main_job_instructions": (counted["main_job"].instructions / 1e6, "Minstr"),
        "main_job_case_runs": (runs, "runs"),
        "version_instructions": (version / 1e6, "Minstr"),
        "version_over_bare_python": (version / bare, "x"),
        "heuristic_instructions": (played / 1e6, "Minstr"),
        "heuristic_rounds": (rounds, "rounds"),
        "heuristic_instructions_per_round": (played / rounds / 1e6, "Minstr"),
    }
    if fast_on:
        fast_rounds = int(counted["fast_played"].stdout.split()[-1])
        if fast_rounds != rounds:
            sys.exit(f"the fast engine played {fast_rounds} rounds, the Python path {rounds}")
        fast = counted["fast_played"].instructions - counted["fast_idle"].instructions
        figures["fast_heuristic_instructions_per_round"] = (fast / rounds / 1e6, "Minstr")
        figures["fast_heuristic_fewer_instructions"] = (played / fast, "x")
    return figures


GUARDED = (
    "main_job_instructions",
    "version_instructions",
    "heuristic_instructions_per_round",
    "fast_heuristic_instructions_per_round",
)
"""The figures the guard holds to the committed ones: the counts a speed target is set in."""


def record(figures: dict[str, tuple[float, str]]) -> None:
    """Write the guarded figures, with the interpreter they were counted on, to the file."""
    committed = {
        "about": "Instruction counts (valgrind callgrind, PYTHONHASHSEED=0) that "
        "`python benchmarks/instructions.py --check` holds the code to; "
        "`--record` writes them anew.",
        "python": _python(),
        "tolerance": 0.02,
        "figures": {name: round(figures[name][0], 3) for name in GUARDED},
        "version_over_bare_python": round(figures["version_over_bare_python"][0], 3),
        "fast_engine": status().active,
        "units": {name: figures[name][1] for name in GUARDED},
    }
    COMMITTED.write_text(json.dumps(committed, indent=2) + "\n", encoding="utf-8")


def check(figures: dict[str, tuple[float, str]]) -> int:
    """0 if every guarded figure is within the tolerance of the committed one; else 1, each
    figure that moved named with both values."""
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    if committed["python"] != _python():
        # Another CPython runs another bytecode loop: its counts are not comparable.
        print(f"instructions guard: figures were counted on Python {committed['python']}, "
              f"this is {_python()}; run with --record on {_python()} to guard it")  # fmt: skip
        return 1
    tolerance = committed["tolerance"]
    moved = []
    kernel = status()
    for name, then in committed["figures"].items():
        if name not in figures:
            # The fast engine's count, where it is off (no compiler, or switched off).
            print(f"instructions guard: {name} not counted here: {kernel}")
            continue
        if name == "version_instructions" and committed.get("fast_engine") and not kernel.active:
            # `--version` loads the kernel to say whether it is on: counted with it loaded, the
            # figure is not the count of a start-up that skips it.
            print(f"instructions guard: {name} not compared here (counted loading the kernel, "
                  f"and here the {kernel})")  # fmt: skip
            continue
        now = figures[name][0]
        change = now / then - 1
        if abs(change) > tolerance:
            moved.append(f"{name}: {then} -> {now:.3f} ({change:+.1%}, more than ±{tolerance:.0%})")
    for line in moved:
        print(f"instructions guard: {line}")
    if moved:
        print("a cut is welcome: record it with --record; a rise needs a reason in the commit")
    return 1 if moved else 0


def _python() -> str:
    """The interpreter's implementation and minor version, e.g. `cpython-3.11`."""
    return f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}"


def _environment() -> dict[str, str]:
    """The counted processes' environment: fixed hashing, this checkout's code, no colour."""
    return {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(REPO), "NO_COLOR": "1"}


def _count_all(commands: dict[str, list[str]]) -> dict[str, Counted]:
    """Each command run under callgrind, two at a time (valgrind runs each on one core)."""
    names = list(commands)
    counted: dict[str, Counted] = {}
    for start in range(0, len(names), 2):
        batch = names[start : start + 2]
        processes = {name: _counting(commands[name]) for name in batch}
        try:
            for name, process in processes.items():
                counted[name] = _counted(name, process)
        finally:  # one that failed ends the run: the other does not outlive it
            for process in processes.values():
                if process.poll() is None:
                    process.kill()
                    process.wait()
    return counted


def _counting(command: list[str]) -> subprocess.Popen[str]:
    """`command` under callgrind, started."""
    return subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_environment(), cwd=REPO,
    )  # fmt: skip


def _counted(name: str, process: subprocess.Popen[str]) -> Counted:
    """The instructions `process` (`_counting`) ran, and what it printed."""
    stdout, stderr = process.communicate()
    found = re.search(r"Collected : (\d+)", stderr)
    if process.returncode != 0 or found is None:
        sys.exit(f"valgrind did not count {name}:\n{stderr[-2000:]}")
    return Counted(int(found.group(1)), stdout)


if __name__ == "__main__":
    main()
