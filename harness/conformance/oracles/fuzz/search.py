"""One shard of a fuzz run (分片): a target, a seed stream and a budget, searched with
hypothesis; each new discrepancy is shrunk by hypothesis's shrinker (a replay then by
`shrink.shrink_replay`, on its script and deal) and kept.

A shard runs hypothesis in chunks, each with its own seed from the shard's stream. A chunk stops
at its first new discrepancy and shrinks it: the test fails only for a discrepancy of the same
shape (`Finding.probe`) as the first, so the shrinker keeps to one bug. Known shapes are passed
over in later chunks, which look for new ones. The same shard (target, seed, index, budget)
gives the same findings, whoever runs it: one process, a pool, or a Dask cluster.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.errors import Flaky

from harness.conformance.oracles.fuzz.findings import Checker, Finding, Found, explain
from harness.conformance.oracles.fuzz.shrink import shrink_replay
from harness.conformance.oracles.fuzz.targets import TARGETS, inputs
from harness.conformance.running.session import EnginePool, ruleset_key
from harness.engine import Engine, ReferenceEngine
from harness.model.ruleset import Ruleset

Json = dict[str, Any]
CHUNK = 100
"""Examples per hypothesis run inside a shard (a new seed each)."""

SHRINK_CALLS = 300
"""Candidates hypothesis may try in shrinking one finding (as well as `shrink_seconds`): its
shrinker's cost differs from release to release (the same replay fuzz took 7 s with 6.170 and
310 s with 6.140), so a count, not the clock alone, bounds it; a replay is then shrunk further
by `shrink_replay`, which needs few of them."""


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
    shrink_seconds: float = 10.0
    """How long each stage of shrinking one finding may take (hypothesis's, then a replay's);
    the smallest finding by then is kept."""


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
    refused: dict[str, int] = field(default_factory=dict)
    error: str | None = None


def chunk_seed(seed: int, target: str, index: int, chunk: int) -> int:
    """The seed of one chunk: a stable function of the run's seed and the chunk's place."""
    text = json.dumps([seed, target, index, chunk])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


# One engine per worker (process and thread: a Dask worker may run shards in threads, and an
# engine answers one question at a time) and engine, variant and timeout: each starts once.
_ENGINES = EnginePool()


def _engine(shard: Shard) -> Engine:
    return _ENGINES.engine(shard.engine, shard.ruleset, shard.timeout, threading.get_ident())


def close_engines() -> None:
    """Close the engines this process started."""
    _ENGINES.close()


STORAGE_VARIABLE = "HYPOTHESIS_STORAGE_DIRECTORY"
"""Where hypothesis keeps what it writes, when the user names a folder for it."""


@contextlib.contextmanager
def hypothesis_storage() -> Iterator[None]:
    """Hypothesis's storage (its `.hypothesis` folder) private to the run, removed after it,
    unless the user named one (`HYPOTHESIS_STORAGE_DIRECTORY`)."""
    # Newer hypothesis releases (6.170 among them) write there the constants they read off the
    # source of the modules loaded, even with no example database, and the folder defaults to
    # one in the current folder: `guandan fuzz` would leave `.hypothesis/` wherever it ran.
    if os.environ.get(STORAGE_VARIABLE):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="guandan-fuzz-hypothesis-") as folder:
        os.environ[STORAGE_VARIABLE] = folder  # for the worker processes it starts
        # (untyped in the oldest hypothesis the ranges allow)
        set_hypothesis_home_dir(folder)  # type: ignore[no-untyped-call, unused-ignore]
        try:
            yield
        finally:
            os.environ.pop(STORAGE_VARIABLE, None)
            # Found again as before when next asked (the variable, else the default).
            set_hypothesis_home_dir(None)  # type: ignore[no-untyped-call, unused-ignore]


_WORKER_STORAGE: list[str] = []


def _worker_storage() -> None:
    """In a worker no fuzz run started (a Dask cluster's), hypothesis's storage is a temporary
    folder of the process's own, removed when it exits (see `hypothesis_storage`)."""
    if os.environ.get(STORAGE_VARIABLE) or _WORKER_STORAGE:
        return
    folder = tempfile.mkdtemp(prefix="guandan-fuzz-hypothesis-")
    atexit.register(shutil.rmtree, folder, True)
    _WORKER_STORAGE.append(folder)
    set_hypothesis_home_dir(folder)  # type: ignore[no-untyped-call, unused-ignore]


def run_shard(shard: Shard, progress: Any = None) -> ShardResult:
    """Search one shard; `progress(examples)` is called as examples run, where given."""
    _worker_storage()
    try:
        engine = _engine(shard)
    except Exception as exc:  # an engine that cannot start is reported, not raised
        return ShardResult(shard.target, shard.index, error=f"the engine could not start: {exc}")
    return search(engine, shard, progress)


def search(engine: Engine, shard: Shard, progress: Any = None) -> ShardResult:
    """Search one shard on an engine already started (the pytest plugin's, or this process's)."""
    started = time.perf_counter()
    result = ShardResult(shard.target, shard.index)
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
            # Hypothesis shrinks the draws; a replay is then shrunk on its script and deal.
            finding = shrink_replay(finding, checker, seconds=shard.shrink_seconds)
            # One pool of samples for every shard of the target: the same evidence everywhere.
            samples = _samples(
                shard.ruleset, finding.operation, chunk_seed(shard.seed, finding.operation, -1, -1)
            )
            result.findings.append(
                explain(
                    finding,
                    shard.ruleset,
                    shard.not_modelled,
                    engine,
                    samples,
                    tuple(checker.passed.get(finding.operation, ())),
                    shard.operations,
                )
            )
        elif ran == 0:
            break
    result.asked = dict(checker.asked)
    result.refused = dict(checker.refused)
    result.seconds = time.perf_counter() - started
    return result


SAMPLES = {"legal_plays": 60, "legal_actions": 30, "replay": 20}
"""Other inputs of a finding's operation on which an explanation is tried (200 by default)."""


_SAMPLED: dict[tuple[str, str, int], list[Json]] = {}


def _samples(ruleset: Ruleset, operation: str, seed: int) -> list[Json]:
    """Inputs of `operation` (`SAMPLES`), drawn with hypothesis under a fixed seed; made once
    per process, variant, operation and seed."""
    key = (ruleset_key(ruleset), operation, seed)
    if key in _SAMPLED:
        return _SAMPLED[key]
    found: list[Json] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=SAMPLES.get(operation, 200),
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )
    @given(inputs(operation, ruleset))
    def collect(data: Json) -> None:
        found.append(data)

    collect()
    _SAMPLED[key] = found
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
    state: dict[str, Any] = {
        "ran": 0,
        "probe": None,
        "last": None,
        "shrink_until": 0.0,
        "shrinks": 0,
        "n": target.batch,
    }

    def count(n: int) -> None:
        state["ran"] += n
        if progress is not None:
            progress(n)

    @hypothesis_seed(seed)
    @settings(
        max_examples=max(1, -(-budget // target.batch)),
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
        generating = state["probe"] is None
        if not generating:
            state["shrinks"] += 1
            if state["shrinks"] > SHRINK_CALLS or time.perf_counter() > state["shrink_until"]:
                return  # shrinking has had its time: every further candidate passes, cheaply
        # The budget is ours to keep, not hypothesis's (its examples are `batch` inputs, and it
        # may run more or fewer than asked): the last example takes what is left, and none
        # runs once it is spent. A candidate of the shrinker has the finding's size, so that
        # its draws read as the finding's did.
        n = min(target.batch, budget - state["ran"]) if generating else state["n"]
        if n <= 0:
            return
        if generating and shard.deadline is not None and time.time() >= shard.deadline:
            return
        try:
            target.explore(cast(st.DrawFn, data.draw), checker, shard.ruleset, n)
        except Found as found:
            if generating:
                count(n)
            probe = found.finding.probe
            if probe in known or (state["probe"] is not None and probe != state["probe"]):
                return
            if state["probe"] is None:
                state["shrink_until"] = time.perf_counter() + shard.shrink_seconds
                state["n"] = n
            state["probe"] = probe
            state["last"] = found.finding
            raise
        # An example counts once explored: one hypothesis abandoned midway (too big) does not.
        if generating:
            count(n)

    try:
        search()
    except Found as found:
        return state["ran"], found.finding
    except Flaky:  # shrinking stopped by time, or an engine that answers one input two ways:
        # the last failing example is the smallest the shrinker reached
        return state["ran"], state["last"]
    return state["ran"], state["last"]
