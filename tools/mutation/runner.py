"""A whole mutation run: copies, baseline, session, sample, execution and the described
outcomes; the working tree is only read."""

from __future__ import annotations

import datetime
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tools.mutation import equivalents, session, workspace
from tools.mutation.mutants import Mutant, describe


@dataclass(frozen=True)
class Options:
    """What to run: the sample, its seed, the copies at once, and for tests a narrower run."""

    sample: int
    seed: int
    jobs: int = 2
    timeout: float | None = None
    module_paths: tuple[str, ...] = ()
    operators: tuple[str, ...] = ()
    check_args: tuple[str, ...] = ()
    source: Path = field(default_factory=workspace.repository_root)


@dataclass(frozen=True)
class Outcome:
    """One sampled mutant and what became of it."""

    mutant: Mutant
    outcome: str
    equivalent: equivalents.Equivalent | None


@dataclass(frozen=True)
class Run:
    """A finished run: its options, the population it sampled from, each mutant's outcome."""

    options: Options
    population: int
    timeout: float
    outcomes: tuple[Outcome, ...]
    stale: tuple[equivalents.Equivalent, ...]
    date: str
    commit: str | None


def run(options: Options, progress: bool = False) -> Run:
    """Run the sample on copies of `options.source` in a temporary folder, removed on leaving
    (also on an interrupt)."""
    # The commit and the reviewed list are read as the copies are made: the working tree may
    # move on during a long run, and the results are of the code that was copied.
    reviewed = equivalents.load(options.source)
    commit = _commit(options.source)
    with tempfile.TemporaryDirectory(prefix="guandan-mutation-") as folder:
        copies = [
            workspace.copy_package(options.source, Path(folder) / f"copy{k}")
            for k in range(max(1, options.jobs))
        ]
        for copy in copies:
            if not workspace.imported_from(copy).is_relative_to(copy.resolve()):
                raise RuntimeError(f"the copy in {copy} is not the package imported there")
        command = workspace.test_command(options.check_args)
        took = workspace.baseline(copies[0], command)
        timeout = options.timeout or max(session.configured_timeout(), 10 * took)
        settings = session.Settings(command, timeout, options.module_paths, options.operators)
        for copy in copies:
            session.write_config(copy, session.session_config(settings))
        session.initialise(copies[0])
        population, chosen = session.choose(copies[0], options.sample, options.seed)
        if progress:
            print(
                f"{len(chosen)} of {population} mutants sampled (seed {options.seed}); "
                f"running them in {len(copies)} copies, {timeout:.0f} s each at most",
                file=sys.stderr,
                flush=True,
            )
        results = session.execute(copies, chosen)
        outcomes = []
        for item in chosen:
            spec = item.mutations[0]
            file = Path(spec.module_path).as_posix()
            lines = (spec.start_pos[0], spec.end_pos[0])
            mutant = describe(copies[0], file, spec.operator_name, spec.occurrence, lines)
            verdict = session.outcome(results.get(item.job_id))
            match = equivalents.matching(reviewed, mutant) if verdict == "survived" else None
            outcomes.append(Outcome(mutant, verdict, match))
        stale = tuple(equivalents.stale(copies[0], reviewed))
    return Run(
        options=options,
        population=population,
        timeout=timeout,
        outcomes=tuple(outcomes),
        stale=stale,
        date=datetime.datetime.now(datetime.UTC).date().isoformat(),
        commit=commit,
    )


def _commit(root: Path) -> str | None:
    """The checkout's git commit, None outside a git checkout."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout.strip() or None
