"""One cosmic-ray session over a copy of the package: init, the operator filter, the seeded
sample, and the sample run by the local distributor, split across copies."""

from __future__ import annotations

import ast
import contextlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosmic_ray.config import serialize_config
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkItem, WorkResult

from tools.mutation.workspace import environment

CONFIG = Path(__file__).with_name("cosmic-ray.toml")
SESSION = "session.sqlite"
SESSION_CONFIG = "cosmic-ray.session.toml"
FILTERED = "Filtered operator"
ON_DECORATOR = "a decorator's arguments"
NOT_SAMPLED = "not in the sample"
OTHER_COPY = "run in another copy"


@dataclass(frozen=True)
class Settings:
    """What a run changes in the committed config."""

    command: str
    timeout: float
    module_paths: tuple[str, ...] = ()
    operators: tuple[str, ...] = ()


def kept_operators(config: Path = CONFIG) -> dict[str, str]:
    """The operators the config keeps, each with its reason."""
    with config.open("rb") as fh:
        operators: dict[str, str] = tomllib.load(fh)["guandan"]["operators"]
    return operators


def configured_timeout(config: Path = CONFIG) -> float:
    """The committed config's seconds per mutant."""
    with config.open("rb") as fh:
        return float(tomllib.load(fh)["cosmic-ray"]["timeout"])


def session_config(settings: Settings, config: Path = CONFIG) -> dict[str, Any]:
    """cosmic-ray's part of the committed config with this run's test command and timeout, and
    an operator filter that drops every operator but the kept ones (or `settings.operators`)."""
    with config.open("rb") as fh:
        cosmic: dict[str, Any] = tomllib.load(fh)["cosmic-ray"]
    kept = settings.operators or tuple(kept_operators(config))
    cosmic["test-command"] = settings.command
    cosmic["timeout"] = settings.timeout
    if settings.module_paths:
        cosmic["module-path"] = list(settings.module_paths)
    # cr-filter-operators skips what a pattern matches: one pattern matching all but the kept.
    keep = "|".join(re.escape(name) for name in sorted(kept))
    cosmic["filters"] = {"operators-filter": {"exclude-operators": [f"(?!(?:{keep})$)"]}}
    return cosmic


def write_config(copy: Path, cosmic: dict[str, Any]) -> Path:
    """Write the session config into `copy`."""
    path = copy / SESSION_CONFIG
    path.write_text(serialize_config(cosmic), encoding="utf-8")
    return path


def cosmic_ray(copy: Path, *args: str) -> None:
    """Run a cosmic-ray command line in `copy`, whose folder the session's paths are relative to."""
    run([sys.executable, "-m", *args], copy)


def run(argv: Sequence[str], copy: Path) -> None:
    """Run `argv` in `copy` to its end; on an interrupt its whole process group is killed first."""
    with started(argv, copy) as process:
        if process.wait() != 0:
            raise RuntimeError(f"{' '.join(argv[2:])} failed with exit status {process.returncode}")


@contextlib.contextmanager
def started(argv: Sequence[str], copy: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`argv` started in `copy` in a process group of its own, killed if still running on
    leaving (an interrupt, an error), so that nothing keeps writing into the copy."""
    process = subprocess.Popen(argv, cwd=copy, env=environment(copy), start_new_session=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def initialise(copy: Path) -> None:
    """Make the session's work items (every operator of cosmic-ray; `choose` filters them)."""
    cosmic_ray(copy, "cosmic_ray.cli", "init", SESSION_CONFIG, SESSION)


def key(item: WorkItem) -> tuple[str, str, int]:
    """A work item's name that does not change between sessions (its job id is random)."""
    mutation = item.mutations[0]
    return (Path(mutation.module_path).as_posix(), mutation.operator_name, mutation.occurrence)


def sample(items: Sequence[WorkItem], size: int, seed: int) -> list[WorkItem]:
    """`size` of `items` chosen by `seed` alone (all of them when there are fewer)."""
    ordered = sorted(items, key=key)
    if size >= len(ordered):
        return ordered
    return sorted(random.Random(seed).sample(ordered, size), key=key)


def skip(db: WorkDB, items: Sequence[WorkItem], reason: str) -> None:
    """Mark `items` skipped in the session, as cosmic-ray's own filters do."""
    result = WorkResult(output=reason, worker_outcome=WorkerOutcome.SKIPPED)
    db.set_multiple_results([item.job_id for item in items], result)


def filtered(items: Sequence[WorkItem], patterns: Sequence[str]) -> list[WorkItem]:
    """The items whose operator a pattern of the operators filter's config matches (from the
    start of the name, as cr-filter-operators reads them)."""
    found = re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None
    return [i for i in items if found and found.match(i.mutations[0].operator_name)]


def decorator_lines(copy: Path, file: str) -> set[int]:
    """The lines of `file` (in `copy`) that hold a decorator."""
    tree = ast.parse((copy / file).read_text(encoding="utf-8"))
    return {
        line
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for decorator in node.decorator_list
        for line in range(decorator.lineno, (decorator.end_lineno or decorator.lineno) + 1)
    }


def on_decorators(copy: Path, items: Sequence[WorkItem]) -> list[WorkItem]:
    """The items that mutate a decorator's arguments (`@dataclass(frozen=True, slots=True)`,
    a cache's size): safety and speed, no rule, so never a bug an engine could share."""
    lines: dict[str, set[int]] = {}
    found = []
    for item in items:
        file, _, _ = key(item)
        if file not in lines:
            lines[file] = decorator_lines(copy, file)
        if item.mutations[0].start_pos[0] in lines[file]:
            found.append(item)
    return found


def choose(copy: Path, size: int, seed: int) -> tuple[int, list[WorkItem]]:
    """Skip the filtered operators' items and those on decorators, then all but a seeded sample
    of the others; the population sampled from and the sample. cr-filter-operators reads the
    same config entry but commits once per item, about 100 s for the 4 000 items here, so the
    filter is applied in one transaction."""
    with (copy / SESSION_CONFIG).open("rb") as fh:
        patterns = tomllib.load(fh)["cosmic-ray"]["filters"]["operators-filter"]
    with use_db(str(copy / SESSION), WorkDB.Mode.open) as db:
        pending = db.pending_work_items
        dropped = {item.job_id for item in filtered(pending, patterns["exclude-operators"])}
        skip(db, [item for item in pending if item.job_id in dropped], FILTERED)
        kept = [item for item in pending if item.job_id not in dropped]
        decorating = {item.job_id for item in on_decorators(copy, kept)}
        skip(db, [item for item in kept if item.job_id in decorating], ON_DECORATOR)
        dropped |= decorating
        population = [item for item in pending if item.job_id not in dropped]
        chosen = sample(population, size, seed)
        names = {item.job_id for item in chosen}
        skip(db, [item for item in population if item.job_id not in names], NOT_SAMPLED)
    return len(population), chosen


def execute(copies: Sequence[Path], chosen: Sequence[WorkItem]) -> dict[str, WorkResult]:
    """Run the chosen items, a share in each copy at once (each copy its own session and
    cosmic-ray process: cosmic-ray mutates files on disk, so two mutants cannot share a tree)."""
    shares = [chosen[k :: len(copies)] for k in range(len(copies))]
    for copy in copies[1:]:
        shutil.copyfile(copies[0] / SESSION, copy / SESSION)
        shutil.copyfile(copies[0] / SESSION_CONFIG, copy / SESSION_CONFIG)
    for copy, share in zip(copies, shares, strict=True):
        names = {item.job_id for item in share}
        with use_db(str(copy / SESSION), WorkDB.Mode.open) as db:
            skip(db, [item for item in chosen if item.job_id not in names], OTHER_COPY)
    argv = [sys.executable, "-m", "cosmic_ray.cli", "exec", SESSION_CONFIG, SESSION]
    with contextlib.ExitStack() as stack:
        processes = [stack.enter_context(started(argv, copy)) for copy in copies]
        for process in processes:
            if process.wait() != 0:
                raise RuntimeError(f"cosmic-ray exec failed with exit status {process.returncode}")
    results: dict[str, WorkResult] = {}
    for copy, share in zip(copies, shares, strict=True):
        names = {item.job_id for item in share}
        with use_db(str(copy / SESSION), WorkDB.Mode.open) as db:
            results.update((job, result) for job, result in db.results if job in names)
    return results


def outcome(result: WorkResult | None) -> str:
    """killed, survived, incompetent or error (an exception in cosmic-ray, no result)."""
    if result is None or result.worker_outcome != WorkerOutcome.NORMAL:
        return "error"
    return {
        TestOutcome.KILLED: "killed",
        TestOutcome.SURVIVED: "survived",
        TestOutcome.INCOMPETENT: "incompetent",
    }[result.test_outcome]
