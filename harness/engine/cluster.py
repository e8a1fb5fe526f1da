"""Where independent tasks run (工作者): on one core, in worker processes, or on a Dask cluster.

`guandan fuzz` and `guandan simulate` share it: each plans its tasks from its seed alone and
merges what comes back in its own order, so where the tasks ran never changes the answer.
A Dask scheduler is trusted with pickled code: only one the user chose to trust is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import multiprocessing as mp
import os
import queue
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from harness.engine.process import pool_worker_start
from harness.errors import UsageError

Task = TypeVar("Task")
Result = TypeVar("Result")


@dataclass(frozen=True)
class SchedulerSecurity:
    """The TLS files a Dask client needs for a `tls://` scheduler (分佈式安全)."""

    ca_file: str
    cert: str
    key: str


@dataclass(frozen=True)
class Workers:
    """Where tasks run: `jobs` processes (1: this one), or the Dask scheduler at `scheduler`
    with its TLS files or, for a plain `tcp://` one, the user's explicit trust."""

    jobs: int = 1
    scheduler: str | None = None
    security: SchedulerSecurity | None = None
    insecure: bool = False
    connect_timeout: float = 10.0


def check_scheduler(workers: Workers) -> None:
    """Refuse a scheduler the user did not choose to trust: a plain `tcp://` one without
    `insecure`, a `tls://` one without its certificates, any other scheme."""
    address = workers.scheduler or ""
    scheme = address.partition("://")[0] if "://" in address else ""
    if scheme == "tls":
        if workers.security is None and not _tls_configured():
            raise UsageError(
                f"--scheduler {address}: give --tls-ca-file, --tls-cert and --tls-key (or set "
                "distributed.comm.tls.ca-file and distributed.comm.tls.client.cert in Dask's "
                "configuration)"
            )
        return
    if scheme in ("tcp", "") and workers.insecure:
        return
    if scheme in ("tcp", ""):
        raise UsageError(
            f"--scheduler {address}: a plain tcp:// scheduler is trusted with pickled code, so "
            "whoever answers there runs code as you; use tls:// with --tls-ca-file, --tls-cert "
            "and --tls-key, or --insecure-scheduler on a network you control"
        )
    raise UsageError(
        f"--scheduler {address}: expected tls://HOST:PORT (or tcp:// with --insecure-scheduler)"
    )


def _tls_configured() -> bool:
    """Whether Dask's own configuration names a CA and a client certificate (the files a
    `Security()` made without arguments reads), so that `tls://` needs no options."""
    try:
        config: Any = importlib.import_module("dask.config")
    except ImportError:
        return False
    ca = config.get("distributed.comm.tls.ca-file", None)
    cert = config.get("distributed.comm.tls.client.cert", None)
    return bool(ca and cert)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, which a container or `taskset`
    narrows), at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        with contextlib.suppress(OSError):
            return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def bounded_jobs(asked: int, shards: int | None = None) -> int:
    """How many processes `--jobs asked` runs (並行數): at most one per usable CPU and one per
    shard of the work (when known), at least 1. More would only share the CPUs and the memory:
    `--jobs 100000` once forked past 3,000 processes and 17 GiB for one match."""
    bound = min(asked, usable_cpus())
    if shards is not None:
        bound = min(bound, shards)
    return max(1, bound)


def run_tasks(
    work: Callable[[Task], Result],
    tasks: Iterable[Task],
    workers: Workers,
    done: Callable[[Result], None],
    stop: Callable[[Task], bool] | None = None,
    endless: bool = False,
) -> None:
    """Run `work` on each task where `workers` says, giving each result to `done` as it comes
    (in any order). `stop(task)` true ends the run before that task; `endless` says the tasks
    have no end, so a cluster is fed a few per worker at a time. `work` must be a module-level
    function, and tasks picklable, for processes and Dask."""
    over = stop or (lambda _task: False)
    if workers.scheduler is not None:
        check_scheduler(workers)
        _on_dask(work, tasks, workers, done, over, endless)
        return
    # The first tasks, as many as there may be processes: fewer tell the work's size.
    pending = iter(tasks)
    jobs = bounded_jobs(workers.jobs)
    first = list(itertools.islice(pending, jobs)) if jobs > 1 else []
    jobs = bounded_jobs(jobs, len(first)) if len(first) < jobs else jobs
    planned = itertools.chain(first, pending)
    if jobs > 1:
        _in_processes(work, planned, jobs, done, over)
        return
    for task in planned:
        if over(task):
            break
        done(work(task))


def _in_processes(
    work: Callable[[Task], Result],
    tasks: Iterable[Task],
    jobs: int,
    done: Callable[[Result], None],
    over: Callable[[Task], bool],
) -> None:
    """Run the tasks in `jobs` processes (forked where the platform can), two per process in
    flight, so that a time budget stops the run promptly. On Ctrl-C, or a task that failed in
    its process, the workers are terminated at once (leaving the pool's `with` does it)."""
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    answers: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def collect() -> None:
        answer = answers.get()
        if isinstance(answer, BaseException):
            raise answer
        done(answer)

    with mp.get_context(method).Pool(jobs, initializer=pool_worker_start) as pool:
        pending = 0
        for task in tasks:
            if over(task):
                break
            pool.apply_async(work, (task,), callback=answers.put, error_callback=answers.put)
            pending += 1
            while pending >= 2 * jobs:
                collect()
                pending -= 1
        for _ in range(pending):
            collect()


def _on_dask(
    work: Callable[[Task], Result],
    tasks: Iterable[Task],
    workers: Workers,
    done: Callable[[Result], None],
    over: Callable[[Task], bool],
    endless: bool,
) -> None:
    """Run the tasks on a Dask cluster (the optional extra `guandan-harness[cluster]`); the
    scheduler must answer within `connect_timeout` of the call, loading Dask included."""
    deadline = time.monotonic() + workers.connect_timeout
    try:
        # Dask ships no types; it is an optional extra, so it is imported only here.
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise UsageError(
            "--scheduler needs Dask distributed: pip install 'guandan-harness[cluster]'"
        ) from None
    address = workers.scheduler or ""
    security = None
    if address.startswith("tls://"):
        # The files of Dask's configuration (check_scheduler made sure it names them).
        security = distributed.Security(require_encryption=True)
    if workers.security is not None:
        files = workers.security
        security = distributed.Security(
            tls_ca_file=files.ca_file,
            tls_client_cert=files.cert,
            tls_client_key=files.key,
            require_encryption=True,
        )
    try:
        # A peer that accepts and never speaks holds Dask's client for ever, whatever its
        # timeout: the scheduler is asked who it is first, within the time given.
        _ask_identity(distributed, address, security, _left(deadline))
        client = distributed.Client(address, timeout=f"{_left(deadline)}s", security=security)
    except Exception as exc:  # whatever Dask raises on a bad address or a silent peer
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise UsageError(
            f"--scheduler {address}: no scheduler answered within {workers.connect_timeout:g} s "
            f"({first[:200]})"
        ) from None
    with client:
        running = distributed.as_completed()
        for task in tasks:
            if over(task):
                break
            running.add(client.submit(work, task, pure=False))
            # Endless tasks: keep two per worker thread in flight and plan more as they
            # finish, until `over` says stop (a finite plan is all submitted at once).
            while endless and running.count() >= 2 * _threads(client):
                done(next(running).result())
        for future in running:
            done(future.result())


def _left(deadline: float) -> float:
    """The seconds left until `deadline`, at least a tenth (a try, not none)."""
    return max(0.1, deadline - time.monotonic())


def _ask_identity(distributed: Any, address: str, security: Any, seconds: float) -> None:
    """Connect to the scheduler at `address` and ask its identity, all within `seconds`;
    TimeoutError (or Dask's OSError) otherwise. Nothing it answers is run: the reply is read
    as Dask reads any message, and dropped."""
    args = {} if security is None else security.get_connection_args("client")

    async def ask() -> None:
        comm = await distributed.comm.connect(address, timeout=seconds, **args)
        try:
            await comm.write({"op": "identity", "reply": True})
            await comm.read()
        finally:
            comm.abort()

    asyncio.run(asyncio.wait_for(ask(), seconds))


def _threads(client: Any) -> int:
    """The cluster's worker threads (each runs one task at a time), at least 1."""
    threads: dict[str, int] = client.nthreads()
    return max(1, sum(threads.values()))
