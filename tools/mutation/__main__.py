"""`python -m tools.mutation run --sample N --seed S [--jobs 2] [--json FILE]`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tools.mutation import report
from tools.mutation.runner import Options, run


def parser() -> argparse.ArgumentParser:
    """The command line."""
    top = argparse.ArgumentParser(prog="python -m tools.mutation", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)
    sub = commands.add_parser(
        "run",
        help="run a seeded sample of the interpreter's code mutants against the corpus",
        description="Mutate a copy of harness/interpreter/ (simulate.py left out) with "
        "cosmic-ray; each sampled mutant is killed when `guandan check --engine reference` "
        "fails on the bundled corpus.",
    )
    sub.add_argument("--sample", type=int, default=300, help="mutants to run (default 300)")
    sub.add_argument("--seed", type=int, required=True, help="the sample's seed")
    sub.add_argument("--jobs", type=int, default=2, help="copies mutated at once (default 2)")
    sub.add_argument("--timeout", type=float, help="seconds per mutant (default: the config's)")
    sub.add_argument(
        "--json", type=Path, help=f"write the results file here (the site reads {report.RESULTS})"
    )
    sub.add_argument(
        "--fail-under",
        type=float,
        help="exit 1 when fewer than this per cent of the judged mutants are killed",
    )
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; 1 when a stale equivalent or a low score fails the run."""
    args = parser().parse_args(argv)
    options = Options(sample=args.sample, seed=args.seed, jobs=args.jobs, timeout=args.timeout)
    done = run(options, progress=True)
    print(report.summary(done))
    if args.json:
        report.write(done, args.json)
    score = report.results(done)["killed_percent"]
    failed = bool(done.stale) or (args.fail_under is not None and score < args.fail_under)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted: the working tree was not changed", file=sys.stderr)
        sys.exit(130)
