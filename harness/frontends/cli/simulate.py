"""`guandan simulate`: many whole matches of a variant with bots, and what they measure, with
95 % confidence intervals (對局統計)."""

from __future__ import annotations

import argparse
import json
import shlex
from typing import TextIO

from harness import __version__
from harness.frontends.cli._common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    Subparsers,
    add_bots,
    add_option,
    add_output,
    add_python_path,
    epilog,
    padded,
    variant,
    variant_input,
    words_stream,
    write_output,
)
from harness.frontends.cli._progress import LiveLine, add_quiet
from harness.frontends.cli._workers import add_workers, workers
from harness.model.bounds import COUNT, SEED
from harness.simulation.run import SimulationReport, check_bots, simulate
from harness.simulation.stats import Estimate, Statistic


def command_line(args: argparse.Namespace) -> str:
    """The command that gives the same numbers (where the matches ran left out)."""
    words = ["guandan", "simulate", "--variant", args.variant]
    for option in args.option:
        words += ["--option", option]
    words += ["--matches", str(args.matches), "--bots", args.bots, "--seed", str(args.seed)]
    return shlex.join(words)


def summary(report: SimulationReport, command: str) -> dict[str, object]:
    """The JSON summary: the command, seed and version, and each statistic as {value, low,
    high, n}."""
    return {
        "command": command,
        "version": __version__,
        "variant": report.ruleset.slug,
        "options": dict(report.ruleset.chosen),
        "seed": report.seed,
        "bots": report.bots,
        "matches": len(report.records),
        "interrupted": report.interrupted,
        "seconds": round(report.seconds, 3),
        "statistics": {
            s.name: {"what": s.what, "rate": s.rate, **s.estimate.to_json()}
            for s in report.statistics()
        },
    }


def _shown(estimate: Estimate, rate: bool) -> str:
    if estimate.value is None:
        return "-"
    if rate:
        value, low, high = (100 * (x or 0.0) for x in (estimate.value, estimate.low, estimate.high))
        return f"{value:6.1f} %  [{low:5.1f}, {high:5.1f}]"
    if estimate.low is None or estimate.high is None:
        return f"{estimate.value:8.2f}"
    return f"{estimate.value:8.2f}  [{estimate.low:.2f}, {estimate.high:.2f}]"


def bots_shown(bots: str) -> str:
    """Who plays whom, for people: `heuristic bots`, or with two kinds, which team is which
    (the team rows, "matches won by team 0", are read by it)."""
    if "," not in bots:
        return f"{bots} bots"
    first, second = bots.split(",", 1)
    return f"{first} (team 0: seats 0 and 2) against {second} (team 1: seats 1 and 3)"


def write_table(report: SimulationReport, out: TextIO) -> None:
    """The statistics as a table for people: value, 95 % interval, sample size."""
    stats: list[Statistic] = report.statistics()
    rate = len(report.records) / report.seconds if report.seconds else 0.0
    out.write(
        f"guandan simulate: {report.ruleset.slug}, {bots_shown(report.bots)}, seed {report.seed}: "
        f"{len(report.records):,} matches in {report.seconds:.1f} s ({rate:,.1f}/s)"
        f"{' (interrupted)' if report.interrupted else ''}\n"
    )
    out.write(f"  {'statistic':<60} {'value  [95 % interval]':<30} n\n")
    for s in stats:
        out.write(f"  {padded(s.what, 60)} {_shown(s.estimate, s.rate):<30} {s.estimate.n:,}\n")


def matches_done(report: SimulationReport) -> str:
    """A run's progress for its live line: `120/400 matches (55.1/s)`."""
    done = len(report.records)
    rate = done / report.seconds if report.seconds else 0.0
    return f"{done:,}/{report.matches:,} matches ({rate:,.1f}/s)"


def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    """Play the matches and print their statistics (and write them as JSON)."""
    ruleset = variant(args.variant, args.option)
    where = workers(args)
    check_bots(args.bots)
    words = words_stream(args, out, "json")
    line = LiveLine(quiet=args.quiet)

    def show(report: SimulationReport) -> None:
        line.show(f"simulate: {matches_done(report)}")

    try:
        report = simulate(ruleset, args.bots, args.seed, args.matches, where, show, not args.python)
    finally:
        line.end()
    write_table(report, words)
    if args.json:
        text = json.dumps(summary(report, command_line(args)), ensure_ascii=False, indent=1)
        write_output(args.json, text + "\n", out)
    return EXIT_INTERRUPTED if report.interrupted else EXIT_OK


def register(sub: Subparsers) -> None:
    """Add `simulate`."""
    p = sub.add_parser(
        "simulate",
        help="play many matches with bots: statistics with confidence intervals (對局統計)",
        epilog=epilog(
            [
                "guandan simulate --variant huaian --matches 200 --bots greedy --seed 1 "
                "--jobs 2 --json a.json",
                "guandan simulate --variant online-app --matches 100 --bots greedy,random --seed 7",
            ],
            "0 the matches played",
        ),
    )
    p.add_argument("--variant", required=True, type=variant_input, help="a variant slug or file")
    add_option(p)
    p.add_argument("--matches", type=COUNT, required=True, help="how many matches to play")
    add_bots(p, "heuristic")  # the bot worth measuring with
    add_python_path(p)
    p.add_argument(
        "--seed", type=SEED, required=True, help="the seed: match i plays a seed from it and i"
    )
    add_workers(p, "processes to play the matches in (the numbers do not change)")
    add_output(p, "--json", "FILE", "also write a summary with every statistic as JSON")
    add_quiet(p)
    p.set_defaults(func=cmd_simulate)
