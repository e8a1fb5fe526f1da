"""Variants compared in play (對局比較): each variant played on the same match seeds as the
first (common random numbers: the same deals, wherever the rules let the play agree), the
statistics side by side with their differences, and each difference attributed clause by
clause: the first variant of a pair with one of the other's clauses, played the same way.

A step is played only if it can differ: a run records the clauses its matches read
(`SimulationReport.consulted`), and a step that changes none of the first's is, on the same
seeds, the first's matches move for move, so it is reported as such without being played.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from harness.engine.cluster import Workers
from harness.model.derived import derive
from harness.model.ruleset import Ruleset, differing_clauses
from harness.simulation.run import Progress, SimulationReport, simulate
from harness.simulation.stats import (
    Z95,
    Estimate,
    paired_difference,
    paired_ratio_difference,
)


def difference(base: Estimate, other: Estimate, z: float = Z95) -> Estimate:
    """`other` − `base` with a normal interval from the two intervals' half-widths, for a
    statistic that cannot be paired match by match (a per-round one): the runs share their
    seeds, which makes their errors agree, so the interval is on the safe side."""
    if base.value is None or other.value is None:
        return Estimate(None, None, None, min(base.n, other.n))
    centre = other.value - base.value
    if None in (base.low, base.high, other.low, other.high):
        return Estimate(centre, None, None, min(base.n, other.n))
    spread = [((e.high or 0.0) - (e.low or 0.0)) / (2 * z) for e in (base, other)]
    half = z * math.sqrt(sum(s * s for s in spread))
    return Estimate(centre, centre - half, centre + half, min(base.n, other.n))


@dataclass(frozen=True)
class Step:
    """One clause of the other variant set alone on the first, and what it moved; `refused`
    when the loader does not accept that value without the other's other clauses; `skipped`
    when it was not played, since no match of the first read the clause it changes."""

    clause: str
    value: object
    changes: Mapping[str, Estimate]
    refused: bool = False
    skipped: bool = False
    """Not played: on the same seeds each match plays as the first's, so its changes are the
    first's against itself, what playing it gives to the last bit."""


@dataclass(frozen=True)
class Pair:
    """The first variant against one other: both runs, the differences, the one-clause steps."""

    base: SimulationReport
    other: SimulationReport
    changes: Mapping[str, Estimate]
    steps: tuple[Step, ...]


def _changes(base: SimulationReport, other: SimulationReport) -> dict[str, Estimate]:
    """Each statistic's difference: paired match by match where it is one number per match or
    a ratio over rounds, else from the two intervals."""
    theirs = {s.name: s.estimate for s in other.statistics()}
    out = {}
    for s in base.statistics():
        if s.name in theirs:
            paired = paired_difference(s.name, base.records, other.records)
            if paired is None:
                paired = paired_ratio_difference(s.name, base.records, other.records)
            out[s.name] = paired if paired is not None else difference(s.estimate, theirs[s.name])
    return out


class ComparisonInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a comparison in play: it stops there, with the pairs that
    were complete before it (`pairs`), each of whose runs played every match."""

    def __init__(self, pairs: list[Pair]) -> None:
        super().__init__()
        self.pairs = pairs


def compare_play(
    rulesets: Sequence[Ruleset],
    bots: str,
    seed: int,
    matches: int,
    workers: Workers | None = None,
    started: Callable[[str], None] | None = None,
    every_pair: bool = False,
    progress: Progress | None = None,
    fast: bool = True,
) -> list[Pair]:
    """The first variant against each other one (with `every_pair`, each variant against each
    later one), on the same seeds, with the steps; each variant is played once, and a step
    only where a match of the first read a clause it changes (else it is `skipped`). `started`
    is told each variant's name as its run starts, `progress` of the run's matches as they end.
    An interrupted run stops the comparison: `ComparisonInterrupted` carries the whole pairs.
    The matches are played on the fast engine where it plays them, unless not `fast`."""
    played: dict[Ruleset, SimulationReport] = {}  # by identity: a Ruleset is compared so
    pairs: list[Pair] = []

    def run(ruleset: Ruleset) -> SimulationReport:
        report = played.get(ruleset)
        if report is None:
            if started is not None:
                started(ruleset.slug)
            report = simulate(ruleset, bots, seed, matches, workers, progress, fast)
            if report.interrupted:
                # Its matches are not all played: no difference over it would be paired.
                raise ComparisonInterrupted(pairs)
            played[ruleset] = report
        return report

    chosen = (
        list(itertools.combinations(rulesets, 2))
        if every_pair
        else [(rulesets[0], other) for other in rulesets[1:]]
    )
    for first, other in chosen:
        base, theirs = run(first), run(other)
        # The base against itself: a step its matches never read plays them alike. Worked out
        # before the reads are asked for, since the statistics read the rules too.
        alike = _changes(base, base)
        read = base.consulted
        steps = []
        for clause_id in differing_clauses([first, other]):
            value = other.value(clause_id)
            alone = derive(first, {clause_id: value})
            if alone is None:
                steps.append(Step(clause_id, value, {}, refused=True))
                continue
            changed = differing_clauses([first, alone])
            if changed and read.isdisjoint(changed):
                steps.append(Step(clause_id, value, alike, skipped=True))
            else:  # (a step that changes nothing is the first itself, played already)
                steps.append(Step(clause_id, value, _changes(base, run(alone))))
        pairs.append(Pair(base, theirs, _changes(base, theirs), tuple(steps)))
    return pairs
