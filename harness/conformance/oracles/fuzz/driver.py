"""A whole fuzz run (差分模糊測試): plan the shards, run them on one core, in processes or on a Dask
cluster, merge and deduplicate what they found, and write each finding as a case file.

The shards are planned from the budget and the seed alone, never from the number of workers, so
`--jobs 1`, `--jobs 4` and a cluster find the same discrepancies for the same seed. Findings
with one signature (operation, the explainer's verdict) are one finding: the smallest example is
kept (then the first by its text), whichever shard found it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from harness.conformance.judging.judge import judge
from harness.conformance.judging.soundness import soundness
from harness.conformance.oracles.fuzz.findings import Finding
from harness.conformance.oracles.fuzz.search import (
    Shard,
    ShardResult,
    close_engines,
    hypothesis_storage,
    run_shard,
)
from harness.conformance.oracles.fuzz.targets import TARGETS
from harness.engine import Engine, EngineInfo, ReferenceEngine, call, load_engine
from harness.engine.cluster import SchedulerSecurity, Workers, run_tasks
from harness.engine.cluster import check_scheduler as cluster_check
from harness.errors import HarnessError, UsageError
from harness.model._files import write_atomically
from harness.model.ruleset import Ruleset
from harness.stopping import stop_asked

Json = dict[str, Any]
SHARD_SIZE = 200
"""Examples per shard: the unit a worker takes."""


@dataclass(frozen=True)
class FuzzConfig:
    """What to fuzz, how much and where: the engine, the variant (options chosen), the targets
    (None: every one the engine supports), the seed, the budget (examples, or seconds), and the
    workers (processes, or a Dask scheduler's address)."""

    engine: str
    ruleset: Ruleset
    targets: tuple[str, ...] | None = None
    seed: int = 0
    examples: int | None = 1000
    seconds: float | None = None
    jobs: int = 1
    scheduler: str | None = None
    timeout: float = 10.0
    shard_size: int = SHARD_SIZE
    shrink_seconds: float = 10.0
    """How long each stage of shrinking one finding may take (hypothesis's, then a replay's on
    its script and deal); the smallest finding by then is kept."""
    scheduler_security: SchedulerSecurity | None = None
    """The TLS files for a `tls://` scheduler."""
    insecure_scheduler: bool = False
    """Whether a plain `tcp://` scheduler is allowed (whoever answers there runs code)."""
    connect_timeout: float = 10.0
    """Seconds to wait for the scheduler to answer."""


def workers(config: FuzzConfig) -> Workers:
    """Where the shards of `config` run."""
    return Workers(
        config.jobs,
        config.scheduler,
        config.scheduler_security,
        config.insecure_scheduler,
        config.connect_timeout,
    )


def check_scheduler(config: FuzzConfig) -> None:
    """Refuse a scheduler the user did not choose to trust (see `cluster.check_scheduler`)."""
    cluster_check(workers(config))


@dataclass
class FuzzReport:
    """What a fuzz run did and found."""

    engine: str
    info: EngineInfo
    ruleset: Ruleset
    seed: int
    targets: tuple[str, ...]
    examples: dict[str, int] = field(default_factory=dict)
    asked: dict[str, int] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)
    """Of the inputs asked, those the engine answered `unsupported`, by operation."""
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False
    cases: list[str] = field(default_factory=list)
    dropped: list[tuple[Finding, str]] = field(default_factory=list)
    """Findings whose case the judge did not confirm (`confirm`), each with the reason."""
    confirmed: bool = False
    timeout: float = 10.0

    @property
    def total(self) -> int:
        """Examples run, all targets together."""
        return sum(self.examples.values())

    @property
    def compared(self) -> int:
        """Inputs whose answer was compared with the reference's (asked, not refused)."""
        return sum(self.asked.values()) - sum(self.refused.values())

    def by_operation(self) -> dict[str, int]:
        """Findings per operation."""
        out: dict[str, int] = {}
        for f in self.findings:
            out[f.operation] = out.get(f.operation, 0) + 1
        return out

    def to_json(self) -> Json:
        """The summary for CI: settings, examples, findings (each with its case file)."""
        return {
            "engine": self.engine,
            "engine_name": self.info.name,
            "variant": self.ruleset.slug,
            "options": dict(self.ruleset.chosen),
            "seed": self.seed,
            "targets": list(self.targets),
            "examples": dict(self.examples),
            "asked": dict(self.asked),
            "refused": dict(self.refused),
            "compared": self.compared,
            "seconds": round(self.seconds, 3),
            "examples_per_second": round(self.total / self.seconds, 1) if self.seconds else None,
            "interrupted": self.interrupted,
            "errors": list(self.errors),
            "findings": [
                {**f.to_json(), "case": self.cases[i] if i < len(self.cases) else None}
                for i, f in enumerate(self.findings)
            ],
            "dropped": [
                {"operation": f.operation, "kind": f.kind, "reason": why, "input": f.input}
                for f, why in self.dropped
            ],
        }


def describe(config: FuzzConfig) -> EngineInfo:
    """The engine's facts (operations, fields not modelled), asked once before the run."""
    engine = load_engine(config.engine, config.ruleset, timeout=config.timeout)
    try:
        return engine.describe()
    finally:
        engine.close()


def chosen_targets(config: FuzzConfig, info: EngineInfo) -> tuple[str, ...]:
    """The targets to run: those asked for (or all), each asking some operation the engine
    declares; an unknown name is a usage error."""
    names = config.targets or tuple(TARGETS)
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        raise UsageError(
            f"unknown operation {', '.join(unknown)}; expected one of {', '.join(TARGETS)}"
        )
    return tuple(n for n in names if set(TARGETS[n].operations) & set(info.operations))


def plan(config: FuzzConfig, info: EngineInfo, targets: tuple[str, ...]) -> Iterator[Shard]:
    """The shards of the run: the example budget shared among the targets by weight, cut into
    shards; with a time budget, shards in turn until the time is up."""
    deadline = time.time() + config.seconds if config.seconds is not None else None

    def shard(target: str, index: int, examples: int) -> Shard:
        return Shard(
            config.engine,
            config.ruleset,
            target,
            config.seed,
            index,
            examples,
            tuple(info.operations),
            tuple(info.not_modelled),
            config.timeout,
            deadline,
            config.shrink_seconds,
        )

    if config.examples is None:
        index = 0
        while True:
            for target in targets:
                yield shard(target, index, config.shard_size)
            index += 1
    budgets = split(config.examples, {t: TARGETS[t].weight for t in targets})
    for target in targets:
        budget = budgets[target]
        index = 0
        while budget > 0:
            size = min(config.shard_size, budget)
            yield shard(target, index, size)
            budget -= size
            index += 1


def split(examples: int, weights: Mapping[str, float]) -> dict[str, int]:
    """`examples` shared among the targets by weight, summing to exactly `examples`: each
    target's share rounded down, the rest one each to the largest remainders (the first target
    on a tie); a budget smaller than the targets leaves some with none."""
    total = sum(Fraction(w) for w in weights.values())
    exact = {t: examples * Fraction(w) / total for t, w in weights.items()}
    shares = {t: math.floor(x) for t, x in exact.items()}
    left = examples - sum(shares.values())
    order = sorted(weights, key=lambda t: (-(exact[t] - shares[t]), list(weights).index(t)))
    for target in order[:left]:
        shares[target] += 1
    return shares


Progress = Callable[[FuzzReport, int], None]


def fuzz(config: FuzzConfig, progress: Progress | None = None) -> FuzzReport:
    """Run the fuzz: every shard, merged; Ctrl-C stops it with what finished so far."""
    with hypothesis_storage():
        return _fuzz(config, progress)


def _fuzz(config: FuzzConfig, progress: Progress | None) -> FuzzReport:
    """`fuzz` itself."""
    if config.examples is None and config.seconds is None:
        raise UsageError("give a budget: --examples N or --time SECONDS")
    if config.scheduler is not None:
        check_scheduler(config)  # before any engine starts
    try:
        info = describe(config)
    except HarnessError as exc:
        raise UsageError(f"engine {config.engine}: {exc}") from None
    targets = chosen_targets(config, info)
    report = FuzzReport(config.engine, info, config.ruleset, config.seed, targets)
    report.timeout = config.timeout
    started = time.perf_counter()
    results: list[ShardResult] = []
    live = [0]

    def tick(n: int) -> None:
        live[0] += n
        report.seconds = time.perf_counter() - started
        if progress is not None:
            progress(report, live[0])

    def done(result: ShardResult) -> None:
        results.append(result)
        report.examples[result.target] = report.examples.get(result.target, 0) + result.examples
        for op, n in result.asked.items():
            report.asked[op] = report.asked.get(op, 0) + n
        for op, n in result.refused.items():
            report.refused[op] = report.refused.get(op, 0) + n
        if result.error and result.error not in report.errors:
            report.errors.append(result.error)
        report.findings = merge(r.findings for r in results)
        live[0] = report.total
        tick(0)

    shards = plan(config, info, targets)
    try:
        if config.scheduler is None and config.jobs == 1:
            # On this core the shard reports its examples as it goes.
            for shard in shards:
                if _over(config, shard):
                    break
                done(run_shard(shard, tick))
                live[0] = report.total
        else:
            run_tasks(
                run_shard,
                shards,
                workers(config),
                done,
                lambda shard: _over(config, shard),
                endless=config.examples is None,
            )
    except BaseException as exc:
        # An interrupt can reach us wrapped (hypothesis turns one that lands in its own code
        # into an AssertionError): once the user asked to stop, it is the stop.
        if not stop_asked(exc):
            raise
        report.interrupted = True
    finally:
        close_engines()
    report.findings = merge(r.findings for r in results)
    confirm(report)
    report.seconds = time.perf_counter() - started
    return report


def confirm(report: FuzzReport) -> None:
    """Keep only the findings whose case `check` would judge as found: the case (as its file
    says it) must not agree with the engine, and must agree with the reference. The others
    move to `report.dropped` with the reason; done once per report."""
    if report.confirmed or not report.findings:
        report.confirmed = True
        return
    try:
        engine = load_engine(report.engine, report.ruleset, timeout=report.timeout)
    except HarnessError as exc:
        report.errors.append(f"the findings could not be confirmed: {exc}")
        return
    reference = ReferenceEngine(report.ruleset)
    kept = []
    try:
        for finding in report.findings:
            reason = _unconfirmed(finding, report, engine, reference)
            if reason is None:
                kept.append(finding)
            else:
                report.dropped.append((finding, reason))
    finally:
        engine.close()
    report.findings = kept
    report.confirmed = True


def _unconfirmed(
    finding: Finding, report: FuzzReport, engine: Engine, reference: ReferenceEngine
) -> str | None:
    """Why the case `finding` becomes is no finding, by the judge `check` uses; None if it
    is one. The case is read back from its text, so what is judged is what is written."""
    text = case_yaml(finding, report.ruleset, report.info.name, report.seed)
    (case,) = yaml.safe_load(text)["cases"]
    op, data, expected = case["operation"], case["input"], case["expected"]
    mine = judge(expected, lambda: call(reference, op, data))
    if not mine.agrees:
        return f"the reference does not pass the case ({mine.status}: {mine.message})"
    not_modelled = report.info.not_modelled
    sound = soundness(op, data, report.ruleset, not_modelled)
    theirs = judge(expected, lambda: call(engine, op, data), not_modelled=not_modelled, sound=sound)
    if not theirs.judged:
        return "the engine refuses the case (unsupported)"
    if theirs.agrees:
        return f"the engine passes the case ({theirs.status}): no discrepancy once judged"
    return None


def _over(config: FuzzConfig, shard: Shard) -> bool:
    return shard.deadline is not None and time.time() >= shard.deadline


def merge(groups: Iterable[list[Finding]]) -> list[Finding]:
    """One finding per cause, in a stable order: findings of one operation with one signature,
    or explained by a clause value in common (an example that one value alone explains, and
    another that it and a second value explain equally, show one bug), are one; of them the one
    with the fewest equal fits is kept, then the smallest example."""
    found = [f for findings in groups for f in findings]
    cause = list(range(len(found)))

    def root(i: int) -> int:
        while cause[i] != i:
            cause[i] = cause[cause[i]]
            i = cause[i]
        return i

    first: dict[tuple[str, str], int] = {}
    for i, f in enumerate(found):
        for key in [f.signature, *((f.operation, fit) for fit in f.fits)]:
            j = first.setdefault(key, i)
            cause[root(i)] = root(j)
    best: dict[int, Finding] = {}
    for i, f in enumerate(found):
        kept = best.get(root(i))
        if kept is None or (len(f.fits), f.size()) < (len(kept.fits), kept.size()):
            best[root(i)] = f
    order = list(TARGETS)
    return sorted(
        best.values(),
        key=lambda f: (order.index(f.operation) if f.operation in order else 99, f.signature),
    )


# ---------------------------------------------------------------------------------------------
# Case files


_SAFE = re.compile(r"[^a-z0-9-]+")


def case_id(finding: Finding) -> str:
    """A stable id for the case a finding becomes (kebab-case, from its operation, clause and
    input)."""
    digest = hashlib.sha256(
        json.dumps([finding.signature, finding.input], sort_keys=True).encode()
    ).hexdigest()[:8]
    # Of a fixed alphabet and length whatever the finding holds: a file name, never a path.
    clause = _SAFE.sub("-", (finding.clause or "unknown").replace("_", "-").lower())[:60]
    operation = _SAFE.sub("-", finding.operation.replace("_", "-").lower())[:20]
    return f"fuzz-{operation}-{clause.strip('-') or 'unknown'}-{digest}"


def case_document(finding: Finding, ruleset: Ruleset, engine_name: str, seed: int) -> Json:
    """A finding as a case file: the input, the reference's answer as expected, the clauses
    the verdict rests on, the variant and options it was found under."""
    answered = (
        f"the engine failed: {finding.error}"
        if finding.error
        else "the engine answered " + json.dumps(finding.actual, ensure_ascii=False)
    )
    note = (
        f"Found by guandan fuzz (seed {seed}) against {engine_name}; {answered}. "
        f"Differences: {'; '.join(finding.differences)}."
    )
    if finding.explained_by:
        note += f" The engine answers as if {finding.explained_by}."
    case: Json = {
        "id": case_id(finding),
        "description": (
            f"{finding.operation}: the engine differs from the reference ({finding.kind}); "
            f"expected output from the reference interpreter, to be checked against the rules"
        ),
        "operation": finding.operation,
        "clauses": list(finding.clauses or (finding.clause,)),
        "variants": [ruleset.slug],
    }
    if ruleset.chosen:
        case["options"] = dict(ruleset.chosen)
    case.update({"input": finding.input, "expected": finding.expected, "note": note})
    return {"title": f"Found by guandan fuzz: {engine_name} on {ruleset.slug}", "cases": [case]}


CASE_HEADER = (
    "# Written by `guandan fuzz`. The expected output is the reference interpreter's:\n"
    "# check it against the rule texts before adding the case to a corpus.\n"
)


def case_yaml(finding: Finding, ruleset: Ruleset, engine_name: str, seed: int) -> str:
    """A finding as the text of a case file, as `write_cases` writes it."""
    doc = case_document(finding, ruleset, engine_name, seed)
    text: str = yaml.dump(doc, Dumper=_CaseDumper, allow_unicode=True, sort_keys=False, width=100)
    return CASE_HEADER + text


class _CaseDumper(yaml.SafeDumper):
    """Case files as people write them: short lists and small mappings on one line."""


def _flat(value: Any) -> bool:
    return not isinstance(value, dict | list)


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    return dumper.represent_sequence(
        "tag:yaml.org,2002:seq", data, flow_style=all(_flat(x) for x in data)
    )


def _represent_dict(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.Node:
    small = len(json.dumps(data)) <= 90 and all(
        _flat(v) or (isinstance(v, list) and all(_flat(x) for x in v)) for v in data.values()
    )
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=small)


_CaseDumper.add_representer(list, _represent_list)
_CaseDumper.add_representer(dict, _represent_dict)


def write_cases(report: FuzzReport, out: Path) -> list[Path]:
    """Write each finding the judge confirms (`confirm`) as a case file in `out` (made if
    missing); the paths written."""
    confirm(report)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for finding in report.findings:
        path = out / f"{case_id(finding)}.yaml"
        write_atomically(path, case_yaml(finding, report.ruleset, report.info.name, report.seed))
        written.append(path)
    report.cases = [str(p) for p in written]
    return written
