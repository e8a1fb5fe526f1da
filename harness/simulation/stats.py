"""Statistics with 95 % confidence intervals (信賴區間): a mean with the normal interval, a rate
with the Wilson score interval, and the statistics of a run of simulated matches.

Each statistic is computed from the records in the order of their match index, so the same
records give the same numbers to the last bit.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.simulation.records import MatchRecord, RoundRecord, Tribute

Z95 = 1.959963984540054
"""The standard normal quantile of 0.975: a two-sided 95 % interval."""

BEHIND = (1, 2, 3, 4, 5, 6)
"""The deficits k (levels behind) whose comeback rate is reported: each from 1 to 6, none
skipped (issue 51: 5+ was missing)."""


@dataclass(frozen=True)
class Estimate:
    """A value with its 95 % interval and the sample size; all None over no sample (and the
    interval None for a mean of one)."""

    value: float | None
    low: float | None
    high: float | None
    n: int

    def to_json(self) -> dict[str, float | int | None]:
        """`{value, low, high, n}`, rounded to six decimals."""

        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 6)

        return {"value": r(self.value), "low": r(self.low), "high": r(self.high), "n": self.n}


def wilson(successes: int, n: int, z: float = Z95) -> Estimate:
    """The rate `successes / n` with its Wilson score interval."""
    if n == 0:
        return Estimate(None, None, None, 0)
    p = successes / n
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z / scale * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n)


def binomial_range(n: int, p: float, level: float = 0.999) -> tuple[int, int]:
    """The counts a binomial(n, p) falls between with probability `level` or more, a share
    (1 − level)/2 or less left out on each side (二項分佈的中央區間): the exact tails, where a
    count of successes is tested against a closed-form rate."""
    if not 0 <= p <= 1 or not 0 < level < 1 or n < 0:
        raise ValueError(f"binomial_range: n={n!r}, p={p!r}, level={level!r}")
    if p in (0, 1):
        return (0, 0) if p == 0 else (n, n)
    tail = (1 - level) / 2
    log_p, log_q = math.log(p), math.log1p(-p)
    top = math.lgamma(n + 1)
    pmf = [
        math.exp(top - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_p + (n - k) * log_q)
        for k in range(n + 1)
    ]
    below = 0.0
    low = 0
    while below + pmf[low] <= tail:
        below += pmf[low]
        low += 1
    above = 0.0
    high = n
    while above + pmf[high] <= tail:
        above += pmf[high]
        high -= 1
    return low, high


def mean(values: Sequence[float], z: float = Z95) -> Estimate:
    """The mean of `values` with the normal interval mean ± z·s/√n (s the sample deviation)."""
    n = len(values)
    if n == 0:
        return Estimate(None, None, None, 0)
    centre = statistics.fmean(values)
    if n == 1:
        return Estimate(centre, None, None, 1)
    half = z * statistics.stdev(values) / math.sqrt(n)
    return Estimate(centre, centre - half, centre + half, n)


@dataclass(frozen=True)
class Statistic:
    """One number of a run: its name (a JSON key), what it means, and its estimate."""

    name: str
    what: str
    estimate: Estimate
    rate: bool


def _rate(name: str, what: str, flags: Sequence[float]) -> Statistic:
    return Statistic(name, what, wilson(int(sum(flags)), len(flags)), True)


def _mean(name: str, what: str, values: Sequence[float]) -> Statistic:
    return Statistic(name, what, mean(values), False)


def _per_round(
    records: Sequence[MatchRecord], keep: Callable[[RoundRecord], bool]
) -> list[RoundRecord]:
    return [r for m in records for r in m.rounds if keep(r)]


PER_MATCH: dict[str, Callable[[MatchRecord], float | None]] = {
    "rounds_per_match": lambda m: float(len(m.rounds)),
    "matches_with_final_failure": lambda m: float(any(m.failed)),
    "first_declarer_wins": lambda m: float(m.winner == m.first_declarer),
    "team0_wins": lambda m: float(m.winner == 0),
    "beans_per_match": lambda m: None if m.beans is None else float(m.beans),
}
"""The statistics that are one number per match (a mean, or a rate over matches): two runs on
the same seeds can be compared match by match."""


def paired_difference(
    name: str, base: Sequence[MatchRecord], other: Sequence[MatchRecord], z: float = Z95
) -> Estimate | None:
    """`other` − `base` for a per-match statistic, as the mean of the differences of the
    matches both runs played with one seed (common random numbers: a match's two versions
    share their deals, so their difference varies far less than either); None for a
    statistic that is not per match, or when no match is in both."""
    value = PER_MATCH.get(name)
    if value is None:
        return None
    theirs = {m.seed: value(m) for m in other}
    diffs = []
    for m in sorted(base, key=lambda m: m.index):
        mine, their = value(m), theirs.get(m.seed)
        if mine is not None and their is not None:
            diffs.append(their - mine)
    return mean(diffs, z) if diffs else None


@dataclass(frozen=True)
class PerRound:
    """A per-round statistic: what it means, whether it is a rate, the rounds it counts and
    each round's value (a flag for a rate)."""

    what: str
    rate: bool
    keep: Callable[[RoundRecord], bool]
    value: Callable[[RoundRecord], float]


def _all(_r: RoundRecord) -> bool:
    return True


def _after_first(r: RoundRecord) -> bool:
    return r.tribute is not None


def _at_final(r: RoundRecord) -> bool:
    return r.at_final


PER_ROUND: dict[str, PerRound] = {
    "plays_per_round": PerRound("plays per round (passes not counted)", False, _all,
                                lambda r: r.plays),
    "tricks_per_round": PerRound("tricks per round", False, _all, lambda r: r.tricks),
    "bombs_per_round": PerRound("bombs per round", False, _all, lambda r: r.bombs),
    "double_down_rate": PerRound("rounds won by a double-down (雙下)", True, _all,
                                 lambda r: r.double_down),
    "tribute_rate": PerRound("rounds after the first with one tribute (進貢)", True,
                             _after_first, lambda r: r.tribute is Tribute.SINGLE),
    "double_tribute_rate": PerRound("rounds after the first with a double tribute (雙貢)",
                                    True, _after_first, lambda r: r.tribute is Tribute.DOUBLE),
    "anti_tribute_rate": PerRound("rounds after the first with anti-tribute (抗貢)", True,
                                  _after_first, lambda r: r.tribute is Tribute.ANTI),
    "final_level_failure_rate": PerRound("rounds at the declarer's final level it failed",
                                         True, _at_final, lambda r: r.failed_final),
}  # fmt: skip
"""The statistics over rounds (n = rounds): two runs on the same seeds are compared match by
match as ratios (`paired_ratio_difference`)."""


def paired_ratio_difference(
    name: str, base: Sequence[MatchRecord], other: Sequence[MatchRecord], z: float = Z95
) -> Estimate | None:
    """`other` − `base` for a per-round statistic, a ratio over the matches both runs played
    with one seed: the statistic is Σ values / Σ rounds counted, and its difference's interval
    takes the match as the unit (the delta method for a ratio: each match's share of the error
    is its values less the ratio times its rounds, over the mean rounds a match). The rounds of
    one match are not independent, and a match's two versions share their deals; runs that play
    a match alike add nothing to the error. None for a statistic that is not per round, or
    where a run counts no round."""
    stat = PER_ROUND.get(name)
    if stat is None:
        return None
    theirs = {m.seed: m for m in other}
    pairs = [(m, theirs[m.seed]) for m in sorted(base, key=lambda m: m.index) if m.seed in theirs]
    sums = []
    for run in (0, 1):
        counted = [[r for r in pair[run].rounds if stat.keep(r)] for pair in pairs]
        values = [math.fsum(float(stat.value(r)) for r in rs) for rs in counted]
        sums.append((values, [len(rs) for rs in counted]))
    (xa, na), (xb, nb) = sums
    if not pairs or sum(na) == 0 or sum(nb) == 0:
        return None
    ra, rb = math.fsum(xa) / sum(na), math.fsum(xb) / sum(nb)
    ma, mb = sum(na) / len(pairs), sum(nb) / len(pairs)
    shares = [(xb[i] - rb * nb[i]) / mb - (xa[i] - ra * na[i]) / ma for i in range(len(pairs))]
    if len(pairs) == 1:
        return Estimate(rb - ra, None, None, 1)
    half = z * statistics.stdev(shares) / math.sqrt(len(pairs))
    return Estimate(rb - ra, rb - ra - half, rb - ra + half, len(pairs))


def summarize(records: Sequence[MatchRecord], scores: bool) -> list[Statistic]:
    """The statistics of a run over `records` (any order); `scores`: the variant scores beans.

    Per-round figures take the round as the unit (n = rounds), per-match ones the match."""
    ms = sorted(records, key=lambda m: m.index)
    finals = _per_round(ms, _at_final)
    failed = [(m, t) for m in ms for t in (0, 1) if m.failed[t]]
    rounds_stats = [
        (_rate if stat.rate else _mean)(
            name, stat.what, [stat.value(r) for r in _per_round(ms, stat.keep)]
        )
        for name, stat in PER_ROUND.items()
    ]
    out = [
        _mean("rounds_per_match", "rounds per match", [len(m.rounds) for m in ms]),
        *rounds_stats,
        _rate("matches_with_final_failure", "matches where a team failed at its final level",
              [any(m.failed) for m in ms]),
        _rate("final_failure_reset_rate", "failures at the final level that sent the team back",
              [r.reset for r in finals if r.failed_final]),
        _rate("failed_team_wins", "teams that failed at the final level and still won the match",
              [m.winner == t for m, t in failed]),
        _rate("first_declarer_wins", "matches won by the team that declared first",
              [m.winner == m.first_declarer for m in ms]),
        _rate("team0_wins", "matches won by team 0 (seats 0 and 2)", [m.winner == 0 for m in ms]),
    ]  # fmt: skip
    for k in BEHIND:
        out.append(
            _rate(
                f"wins_from_{k}_behind",
                f"teams ever {k}+ levels behind that won the match",
                [m.winner == t for m in ms for t in (0, 1) if m.behind[t] >= k],
            )
        )
    if scores:
        out.append(
            _mean(
                "beans_per_match",
                "beans (歡樂豆) a winning seat gains per match",
                [m.beans for m in ms if m.beans is not None],
            )
        )
    return out
