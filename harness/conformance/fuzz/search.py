"""One shard of a fuzz run (分片): a target, a seed stream and a budget, searched with
hypothesis; each new discrepancy is shrunk by hypothesis's shrinker and kept.

A shard runs hypothesis in chunks, each with its own seed from the shard's stream. A chunk stops
at its first new discrepancy and shrinks it: the test fails only for a discrepancy of the same
shape (`Finding.probe`) as the first, so the shrinker keeps to one bug. Known shapes are passed
over in later chunks, which look for new ones. The same shard (target, seed, index, budget)
gives the same findings, whoever runs it: one process, a pool, or a Dask cluster.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from harness.conformance.fuzz.findings import Checker, Finding, Found, explain
from harness.conformance.fuzz.targets import INPUTS, TARGETS
from harness.engine import Engine, ReferenceEngine, load_engine
from harness.model.ruleset import Ruleset

Json = dict[str, Any]
CHUNK = 100
"""Examples per hypothesis run inside a shard (a new seed each)."""


@dataclass(frozen=True)
class Shard:
    """A piece of a fuzz run: which engine, variant, target, seed stream and budget."""

    engine: str
    ruleset: Ruleset
    target: str
    seed: int
    index: int
    examples: int
    operations: tuple[str, ...]
    not_modelled: tuple[str, ...] = ()
    timeout: float = 10.0
    deadline: float | None = None
    """Wall-clock time (time.time()) after which the shard stops generating."""


@dataclass
class ShardResult:
    """What a shard found: its findings (each shrunk), examples run, time spent, and whether
    the engine could not be started."""

    target: str
    index: int
    examples: int = 0
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    asked: dict[str, int] = field(default_factory=dict)
    error: str | None = None


def chunk_seed(seed: int, target: str, index: int, chunk: int) -> int:
    """The seed of one chunk: a stable function of the run's seed and the chunk's place."""
    text = json.dumps([seed, target, index, chunk])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


# One engine per worker process and engine, variant and timeout: a process engine starts once.
_ENGINES: dict[tuple[str, str, float], Engine] = {}


def _engine(shard: Shard) -> Engine:
    key = (shard.engine, _ruleset_key(shard.ruleset), shard.timeout)
    if key not in _ENGINES:
        _ENGINES[key] = load_engine(shard.engine, shard.ruleset, timeout=shard.timeout)
    return _ENGINES[key]


def _ruleset_key(ruleset: Ruleset) -> str:
    values = {cid: repr(c.value) for cid, c in ruleset.clauses.items()}
    return json.dumps([ruleset.slug, values, dict(ruleset.chosen)], sort_keys=True, default=repr)


def close_engines() -> None:
    """Close the engines this process started."""
    for engine in _ENGINES.values():
        engine.close()
    _ENGINES.clear()


def run_shard(shard: Shard, progress: Any = None) -> ShardResult:
    """Search one shard; `progress(examples)` is called as examples run, where given."""
    started = time.perf_counter()
    result = ShardResult(shard.target, shard.index)
    try:
        engine = _engine(shard)
    except Exception as exc:
        result.error = f"the engine could not start: {exc}"
        return result
    checker = Checker(engine, ReferenceEngine(shard.ruleset), shard.not_modelled, shard.operations)
    known: set[tuple[str, str]] = set()
    chunk = 0
    while result.examples < shard.examples:
        if shard.deadline is not None and time.time() >= shard.deadline:
            break
        budget = min(CHUNK, shard.examples - result.examples)
        ran, finding = _chunk(
            shard,
            checker,
            chunk_seed(shard.seed, shard.target, shard.index, chunk),
            budget,
            known,
            progress,
        )
        result.examples += ran
        chunk += 1
        if finding is not None:
            known.add(finding.probe)
            samples = _samples(shard, chunk_seed(shard.seed, shard.target, shard.index, -1))
            result.findings.append(
                explain(finding, shard.ruleset, shard.not_modelled, engine, samples)
            )
        elif ran == 0:
            break
    result.asked = dict(checker.asked)
    result.seconds = time.perf_counter() - started
    return result


SAMPLES = 20
"""Other inputs of a finding's operation, on which rival explanations are told apart."""


def _samples(shard: Shard, seed: int) -> list[Json]:
    """`SAMPLES` inputs of the shard's operation, drawn with hypothesis under a fixed seed."""
    found: list[Json] = []
    strategy = INPUTS[shard.target](shard.ruleset) if shard.target in INPUTS else None
    if strategy is None:
        return found

    @hypothesis_seed(seed)
    @settings(
        max_examples=SAMPLES,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )
    @given(strategy)
    def collect(data: Json) -> None:
        found.append(data)

    collect()
    return found


def _chunk(
    shard: Shard,
    checker: Checker,
    seed: int,
    budget: int,
    known: set[tuple[str, str]],
    progress: Any,
) -> tuple[int, Finding | None]:
    """One hypothesis run: examples generated, and the new finding (shrunk) or None."""
    target = TARGETS[shard.target]
    state: dict[str, Any] = {"ran": 0, "probe": None, "last": None}

    @hypothesis_seed(seed)
    @settings(
        max_examples=budget,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate, Phase.shrink],
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        print_blob=False,
    )
    @given(st.data())
    def search(data: st.DataObject) -> None:
        if state["probe"] is None:
            state["ran"] += 1
            if progress is not None:
                progress(1)
            if shard.deadline is not None and time.time() >= shard.deadline:
                return
        try:
            target.explore(data.draw, checker, shard.ruleset)
        except Found as found:
            probe = found.finding.probe
            if probe in known or (state["probe"] is not None and probe != state["probe"]):
                return
            state["probe"] = probe
            state["last"] = found.finding
            raise

    try:
        search()
    except Found as found:
        return state["ran"], found.finding
    except Exception:
        return state["ran"], state["last"]
    return state["ran"], state["last"]
