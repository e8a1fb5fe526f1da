"""`guandan compare-play A B [...]`: variants compared in play, on the same match seeds, with
each difference attributed clause by clause (對局比較)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import TextIO

from harness import __version__
from harness.errors import UsageError
from harness.frontends.cli._common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    Subparsers,
    add_bots,
    add_output,
    add_python_path,
    columns,
    epilog,
    padded,
    variant,
    variant_input,
    words_stream,
    write_output,
)
from harness.frontends.cli._progress import LiveLine
from harness.frontends.cli._workers import add_workers, workers
from harness.frontends.cli.simulate import matches_done
from harness.model.bounds import COUNT, SEED
from harness.simulation.comparison import ComparisonInterrupted, Pair, Step, compare_play
from harness.simulation.run import SimulationReport, check_bots
from harness.simulation.stats import Estimate

INTERACT = (
    "Each step sets one clause of the other variant on the first, all else unchanged; clauses "
    "may interact, so the steps need not add up to the whole difference."
)
CHANCE = (
    "Each * is one 95 % interval taken alone: of the changes that are really nothing, about one "
    "in twenty is marked all the same, so among this many a lone * is weak evidence."
)
UNREAD = (
    "A step not played changes a clause that no match of the first variant read: on the same "
    "seeds its matches are the first's, move for move, so it changes nothing (as played, it "
    "would give the first against itself, which is what is recorded for it)."
)


def skip_reason(base: str, clause: str) -> str:
    """Why a step was not played: no match of `base` read its clause."""
    return f"not played: no match of {base} read {clause}, so every match plays alike"


def _number(estimate: Estimate, rate: bool) -> str:
    if estimate.value is None:
        return "-"
    scale, unit = (100.0, " %") if rate else (1.0, "")
    text = f"{scale * estimate.value:+.2f}{unit}" if estimate.low is not None else ""
    if estimate.low is None or estimate.high is None:
        return text or f"{scale * estimate.value:+.2f}{unit}"
    return f"{text} [{scale * estimate.low:+.2f}, {scale * estimate.high:+.2f}]"


def _moved(estimate: Estimate) -> bool:
    """Whether the interval of a change leaves zero out."""
    low, high = estimate.low, estimate.high
    return low is not None and high is not None and (low > 0 or high < 0)


def write_pairs(pairs: list[Pair], out: TextIO) -> None:
    """The differences and the steps, for people: a change whose interval leaves out zero is
    marked *; each step shows rounds per match and every statistic it moved, or why it was
    not played."""
    for pair in pairs:
        a, b = pair.base.ruleset.slug, pair.other.ruleset.slug
        what = {s.name: s for s in pair.base.statistics()}
        mine = {s.name: s.estimate for s in pair.base.statistics()}
        theirs = {s.name: s.estimate for s in pair.other.statistics()}
        out.write(
            f"guandan compare-play: {a} against {b}, {pair.base.bots} bots, seed "
            f"{pair.base.seed}, {len(pair.base.records):,} matches each on the same seeds\n"
        )
        width = max([len("statistic"), *(columns(what[name].what) for name in pair.changes)])
        out.write(f"  {padded('statistic', width)} {a:>11} {b:>11}   {b} - {a} [95 %]\n")
        for name, change in pair.changes.items():
            rate = what[name].rate
            # A rate is a share in % beside its difference in %, never a bare number.
            scale, unit = (100.0, " %") if rate else (1.0, "")
            values = [
                "-" if e.value is None else f"{scale * e.value:.2f}{unit}"
                for e in (mine[name], theirs[name])
            ]
            mark = " *" if _moved(change) else ""
            out.write(
                f"  {padded(what[name].what, width)} {values[0]:>11} {values[1]:>11}   "
                f"{_number(change, rate)}{mark}\n"
            )
        out.write(f"  each clause of {b} alone on {a}:\n")
        for step in pair.steps:
            value = json.dumps(step.value, ensure_ascii=False)
            if step.refused:
                out.write(
                    f"    {step.clause} = {value}: not playable alone (the loader refuses it)\n"
                )
                continue
            if step.skipped:
                out.write(f"    {step.clause} = {value}: {skip_reason(a, step.clause)}\n")
                continue
            shown = [
                (name, change)
                for name, change in step.changes.items()
                if name == "rounds_per_match" or _moved(change)
            ]
            parts = [
                f"{what[n].what} {_number(c, what[n].rate)}{' *' if _moved(c) else ''}"
                for n, c in shown
            ]
            out.write(f"    {step.clause} = {value}: {'; '.join(parts)}\n")
        out.write(f"  {INTERACT}\n  {CHANCE}\n")
        if any(step.skipped for step in pair.steps):
            out.write(f"  {UNREAD}\n")


def _statistics(pair: Pair) -> dict[str, dict[str, object]]:
    """Each statistic of either variant: what it is, both values (None where a variant has no
    such statistic: beans where only one scores) and the difference where both have it."""
    mine = {s.name: s for s in pair.base.statistics()}
    theirs = {s.name: s for s in pair.other.statistics()}
    out: dict[str, dict[str, object]] = {}
    for name in [*mine, *(n for n in theirs if n not in mine)]:
        a, b, change = mine.get(name), theirs.get(name), pair.changes.get(name)
        stat = a or b
        assert stat is not None
        out[name] = {
            "what": stat.what,
            "rate": stat.rate,
            "base": None if a is None else a.estimate.to_json(),
            "other": None if b is None else b.estimate.to_json(),
            "difference": None if change is None else change.to_json(),
        }
    return out


def _step(step: Step, base: str) -> dict[str, object]:
    """A step as JSON; one not played has `skipped`, saying why (a played one has no such key,
    as before steps could be left unplayed)."""
    out: dict[str, object] = {"clause": step.clause, "value": step.value, "refused": step.refused}
    if step.skipped:
        out["skipped"] = skip_reason(base, step.clause)
    out["changes"] = {n: c.to_json() for n, c in step.changes.items()}
    return out


def summary(pairs: list[Pair], command: str) -> dict[str, object]:
    """The JSON summary: the command, seed and version; per pair each statistic's values and
    difference, and each step's changes, as {value, low, high, n}, with why where a step was
    not played."""
    first = pairs[0].base
    return {
        "command": command,
        "version": __version__,
        "seed": first.seed,
        "bots": first.bots,
        "matches": len(first.records),
        "pairs": [
            {
                "base": p.base.ruleset.slug,
                "other": p.other.ruleset.slug,
                "statistics": _statistics(p),
                "steps": [_step(step, p.base.ruleset.slug) for step in p.steps],
                "note": INTERACT,
            }
            for p in pairs
        ],
    }


def cmd_compare_play(args: argparse.Namespace, out: TextIO) -> int:
    """Play each variant on the same seeds, with the one-clause steps, and print the table."""
    if len(args.variants) < 2:
        raise UsageError("compare-play needs two variants or more")
    rulesets = [variant(v, []) for v in args.variants]
    where = workers(args)
    check_bots(args.bots)
    words = words_stream(args, out, "json")
    line = LiveLine(quiet=args.quiet)

    def started(name: str) -> None:
        if not args.quiet:
            line.end()
            sys.stderr.write(f"compare-play: playing {name}\n")

    def show(report: SimulationReport) -> None:
        line.show(f"  {report.ruleset.slug}: {matches_done(report)}")
        if len(report.records) == report.matches:
            line.end()

    try:
        pairs = compare_play(
            rulesets,
            args.bots,
            args.seed,
            args.matches,
            where,
            started,
            args.every_pair,
            show,
            not args.python,
        )
    except ComparisonInterrupted as stop:
        pairs = stop.pairs
        sys.stderr.write(
            f"\ncompare-play: interrupted, {len(pairs)} pair{'s' * (len(pairs) != 1)} "
            f"complete{': no comparison written' if not pairs else ''}\n"
        )
        if pairs:
            _write(pairs, args, words, out, interrupted=True)
        return EXIT_INTERRUPTED
    _write(pairs, args, words, out, interrupted=False)
    return EXIT_OK


def _write(
    pairs: list[Pair], args: argparse.Namespace, words: TextIO, out: TextIO, interrupted: bool
) -> None:
    """The table of `pairs` and, where asked for, the JSON summary."""
    write_pairs(pairs, words)
    if args.json:
        command = shlex.join(
            ["guandan", "compare-play", *args.variants, "--matches", str(args.matches),
             "--bots", args.bots, "--seed", str(args.seed)]
            + (["--every-pair"] if args.every_pair else [])
        )  # fmt: skip
        data = summary(pairs, command)
        data["interrupted"] = interrupted
        text = json.dumps(data, ensure_ascii=False, indent=1)
        write_output(args.json, text + "\n", out)


def register(sub: Subparsers) -> None:
    """Add `compare-play`."""
    p = sub.add_parser(
        "compare-play",
        help="variants compared in play, each difference attributed clause by clause (對局比較)",
        epilog=epilog(
            ["guandan compare-play huaian match-rules --matches 400 --bots heuristic --seed 1"],
            "0 the variants compared",
        ),
    )
    p.add_argument(
        "variants",
        nargs="+",
        type=variant_input,
        metavar="VARIANT",
        help="a variant slug or file: the first, then each one compared to it",
    )
    p.add_argument(
        "--every-pair",
        action="store_true",
        help="compare each variant with each one after it, not only the first with the others "
        "(each variant is still played once)",
    )
    p.add_argument("--matches", type=COUNT, required=True, help="matches per variant and per step")
    # Measuring is the heuristic bot's job: random play says little of a rule's effect.
    add_bots(p, "heuristic")
    add_python_path(p)
    p.add_argument("--seed", type=SEED, required=True, help="the seed every run shares")
    add_workers(p, "processes to play the matches in (the numbers do not change)")
    add_output(p, "--json", "FILE", "also write the comparison as JSON")
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress: neither the line as each run starts nor the live count",
    )
    p.set_defaults(func=cmd_compare_play)
