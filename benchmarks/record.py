"""Run benchmarks and record their figures in `benchmarks/results.json`, the one file the site's
Performance page is generated from: a speed figure is measured here and written by no hand.

The instruction counts CI holds the code to are not here: `python benchmarks/instructions.py
--record` writes them to `benchmarks/instructions.json`, which the page reads too.

Run `python benchmarks/record.py [BENCHMARK ...]` (default: all of `BENCHMARKS`); each named
benchmark is run in a fresh process and its figures replace those it recorded before, the
others' are kept. Each figure is stored with its unit, how it was measured, the command, the
date and what makes it comparable from one machine to another:

- a count of work done (cases, rounds) is deterministic;
- a ratio of two timings of the same run cancels most of the machine's speed;
- any other timing is stored with the same run's calibration: the seconds a fixed pure-Python
  workload (independent of the harness's code) took in a fresh process just before and just
  after the benchmark, and the figure expressed in those units (a rate times the calibration's
  seconds, a time over them), which moves far less between machines than the figure itself.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results.json"

CALIBRATION = """
import random, time
rng = random.Random(0)
data = [rng.random() for _ in range(200_000)]
start = time.perf_counter()
for _ in range(5):
    total = 0
    for x in sorted(data):
        total += int(x * 1000) % 7
    table = {i: str(i) for i in range(100_000)}
    total += sum(len(v) for v in table.values())
print(time.perf_counter() - start)
"""
"""A fixed workload of sorting, arithmetic, dicts and strings: its seconds are the unit a
timing is expressed in, so that figures of two machines can be set side by side."""


@dataclass(frozen=True)
class Figure:
    """One figure a benchmark prints: its title, how it was measured, and its kind
    (`instructions`, `count`, `ratio` or `timing`)."""

    title: str
    method: str
    kind: str


@dataclass(frozen=True)
class Benchmark:
    """A benchmark script, its arguments, and the figures of its output that are recorded."""

    script: str
    args: tuple[str, ...]
    figures: dict[str, Figure]

    @property
    def command(self) -> str:
        """The command line that prints the figures, as a reader types it."""
        return " ".join(["python", f"benchmarks/{self.script}", *self.args])


BENCHMARKS: dict[str, Benchmark] = {
    "check": Benchmark(
        "check.py",
        (),
        {
            "main_job_wall_median": Figure(
                "The main job: `guandan check --engine reference`, every variant",
                "wall time of a fresh process, median of 5 runs",
                "timing",
            ),
            "main_job_cpu_median": Figure(
                "The main job's CPU time",
                "user and system time of a fresh process, median of 5 runs",
                "timing",
            ),
            "main_job_case_runs": Figure(
                "Case runs in the main job", "case runs the check reports (deterministic)", "count"
            ),
            "python_protocol": Figure(
                "Corpus cases through the Python protocol",
                "huaian's cases with answers, 3 passes, in-process",
                "timing",
            ),
            "process_protocol_batched": Figure(
                "Corpus cases through the process protocol",
                "the same cases to `guandan serve`, in batches of 64",
                "timing",
            ),
            "process_over_python_protocol": Figure(
                "The process protocol over the Python protocol",
                "the two rates above, of the same run (batching pays for the pipe at 1 or more)",
                "ratio",
            ),
        },
    ),
    "fingerprint": Benchmark(
        "fingerprint.py",
        (),
        {
            "fingerprint_over_check": Figure(
                "`guandan fingerprint` over `guandan check`, same engine",
                "wall times of fresh processes, median of 3 runs each, on an engine playing "
                "four changed clause values with 2 ms an answer",
                "ratio",
            ),
        },
    ),
    "plays": Benchmark(
        "plays.py",
        (),
        {
            "classify_5_first": Figure(
                "classify, random 5-card sets, first pass",
                "20,000 seeded sets of huaian at random levels, in-process",
                "timing",
            ),
            "legal_plays_lead_27_median": Figure(
                "legal_plays, 27-card hand leading, median",
                "1,000 seeded hands, half holding both wild cards",
                "timing",
            ),
            "legal_actions_lead_27_median": Figure(
                "legal_actions, 27-card hand leading, median",
                "the same hands",
                "timing",
            ),
        },
    ),
    "rounds": Benchmark(
        "rounds.py",
        (),
        {
            "heuristic_rounds_per_second": Figure(
                "Whole heuristic-bot rounds, tribute included",
                "four heuristic bots on huaian, whole matches on one core",
                "timing",
            ),
            "rounds_random_bots": Figure(
                "Whole random-bot rounds, tribute included",
                "four random bots on huaian, whole matches on one core",
                "timing",
            ),
            "heuristic_rounds_per_second_fast": Figure(
                "Whole heuristic-bot rounds on the fast engine, tribute included",
                "the same matches on the fast engine (bots and rounds in the kernel, whole logs), "
                "each match played on both paths in turn and the logs compared",
                "timing",
            ),
            "heuristic_fast_simulating_over_python": Figure(
                "Whole heuristic-bot rounds as a simulation plays them: the fast engine against "
                "the Python path",
                "the same matches, each round's counts logged (all a simulation's records read), "
                "not its actions, in the same run",
                "ratio",
            ),
            "heuristic_fast_over_python": Figure(
                "Whole heuristic-bot rounds: the fast engine against the Python path",
                "rounds per second on the fast engine over the Python path's, the same matches "
                "in the same run",
                "ratio",
            ),
        },
    ),
    "fast": Benchmark(
        "fast.py",
        (),
        {
            "hand_plays_lead_27_kernel_ratio": Figure(
                "A leading 27-card hand's plays in the reference's order: the kernel against the "
                "interpreter",
                "HandPlays(hand).plays() over the kernel's gd_hand_plays on the same hands, "
                "medians of the same run",
                "ratio",
            ),
            "legal_actions_lead_27_kernel_ratio": Figure(
                "A leading 27-card hand's legal actions: the kernel (left as integers) against "
                "the interpreter",
                "the interpreter's legal_actions over the kernel's listing, medians of one run",
                "ratio",
            ),
            "legal_actions_lead_27_ratio": Figure(
                "A leading 27-card hand's legal actions as Python objects: the fast engine "
                "against the interpreter",
                "the interpreter's legal_actions over the fast engine's listing decoded into card "
                "codes and readings, medians of the same run",
                "ratio",
            ),
        },
    ),
}

_LINE = re.compile(r"^(?P<name>\w+): (?P<value>[-\d.e+]+) (?P<unit>\S+)$")


def printed(text: str) -> dict[str, tuple[float, str]]:
    """The `name: value unit` lines of a benchmark's output, by name."""
    found = {}
    for line in text.splitlines():
        match = _LINE.match(line.strip())
        if match:
            found[match["name"]] = (float(match["value"]), match["unit"])
    return found


def in_calibration_units(value: float, unit: str, calibration: float) -> float | None:
    """A timing expressed in calibration units: a rate (`…/s`) times the calibration's seconds,
    a time over them; None for a unit that is neither."""
    if unit.endswith("/s"):
        return value * calibration
    seconds = {"s": 1.0, "ms": 1e-3}.get(unit)
    return None if seconds is None else value * seconds / calibration


def calibrate() -> float:
    """The calibration workload's seconds, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", CALIBRATION], capture_output=True, text=True, check=True
    )
    return float(done.stdout.split()[-1])


def run(name: str, today: str) -> list[dict[str, object]]:
    """Run one benchmark between two calibrations; its recorded figures."""
    bench = BENCHMARKS[name]
    before = calibrate()
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / bench.script), *bench.args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    after = calibrate()
    if done.returncode != 0:
        raise SystemExit(f"{bench.command} failed:\n{done.stdout}{done.stderr}")
    calibration = (before + after) / 2
    found = printed(done.stdout)
    missing = sorted(set(bench.figures) - set(found))
    if missing:
        raise SystemExit(f"{bench.command} printed no {', '.join(missing)}:\n{done.stdout}")
    out: list[dict[str, object]] = []
    for key, figure in bench.figures.items():
        value, unit = found[key]
        entry: dict[str, object] = {
            "name": key,
            "benchmark": name,
            "title": figure.title,
            "value": value,
            "unit": unit,
            "method": figure.method,
            "kind": figure.kind,
            "command": bench.command,
            "date": today,
        }
        if figure.kind == "timing":
            entry["calibration_seconds"] = round(calibration, 4)
            units = in_calibration_units(value, unit, calibration)
            entry["in_calibration_units"] = None if units is None else float(f"{units:.4g}")
        out.append(entry)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks named (all by default) and rewrite the results file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmarks", nargs="*", help=f"any of {', '.join(BENCHMARKS)}")
    args = parser.parse_args(argv)
    unknown = [n for n in args.benchmarks if n not in BENCHMARKS]
    if unknown:
        parser.error(f"no benchmark {', '.join(unknown)} (known: {', '.join(BENCHMARKS)})")
    names = args.benchmarks or list(BENCHMARKS)
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    kept: list[dict[str, object]] = []
    if RESULTS.exists():
        old = json.loads(RESULTS.read_text(encoding="utf-8"))["figures"]
        # A benchmark this table no longer records (its figures have another home) goes.
        kept = [f for f in old if f["benchmark"] in BENCHMARKS and f["benchmark"] not in names]
    for name in names:
        print(f"running {BENCHMARKS[name].command}", file=sys.stderr)
        kept += run(name, today)
    order = list(BENCHMARKS)
    kept.sort(key=lambda f: order.index(str(f["benchmark"])))
    body = {"calibration": CALIBRATION.strip(), "figures": kept}
    RESULTS.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
