"""A process pool's workers end at once when the pool ends them, even where a worker's main
thread is outside Python code: they take SIGTERM's default action, not the Python handler a
command's `handling_stops` installs and forked workers inherit. With that handler, a SIGTERM
that lands while the main thread is in a blocking C call is only noted, and the pool's
`terminate` waits for the worker (once, for ever: a compare-play hung on it)."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

from harness.engine.cluster import Workers, run_tasks
from harness.stopping import handling_stops

REPO = Path(__file__).resolve().parents[1]

SLEEP = 8
"""Seconds the busy worker spends in C (system(3) waits through EINTR, running no Python)."""


def _task(task: tuple[str, str]) -> str:
    kind, marker = task
    if kind == "busy":
        Path(marker).touch()
        os.system(f"sleep {SLEEP}")
        return "slept"
    deadline = time.monotonic() + 30
    while not Path(marker).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    raise RuntimeError("a planted failure")


def test_a_failed_task_ends_a_worker_busy_outside_python_at_once(tmp_path: Path) -> None:
    """One task fails while the other worker is in a C call: the run raises the failure well
    before that call would end."""
    marker = str(tmp_path / "busy")
    with handling_stops():
        # The handlers a command runs under, which the forked workers inherit.
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)
        start = time.monotonic()
        with pytest.raises(RuntimeError, match="a planted failure"):
            run_tasks(_task, [("busy", marker), ("fail", marker)], Workers(jobs=2), print)
        took = time.monotonic() - start
    assert Path(marker).exists()
    assert took < SLEEP / 2, f"the pool waited {took:.1f} s for its busy worker"


def _report(conn: Connection) -> None:
    conn.send(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)


def _forked_takes_the_default() -> bool:
    """Whether a process forked now has SIGTERM's default action."""
    context = mp.get_context("fork")
    mine, theirs = context.Pipe()
    child = context.Process(target=_report, args=(theirs,))
    child.start()
    found = bool(mine.recv())
    child.join()
    return found


def test_only_a_process_forked_inside_the_block_has_sigterm_reset() -> None:
    """Inside `handling_stops` a forked child takes SIGTERM's default; outside it, a handler
    the program set itself is inherited as ever."""

    def own(signum: int, frame: Any) -> None:
        """A handler of the program's own."""

    previous = signal.signal(signal.SIGTERM, own)
    try:
        assert not _forked_takes_the_default()
        with handling_stops():
            assert _forked_takes_the_default()
        assert not _forked_takes_the_default()
    finally:
        signal.signal(signal.SIGTERM, previous)


# A fork hook registered before harness.stopping's (as `random`'s reseeding is): it sends the
# child SIGTERM and runs Python code, before `_after_fork_in_child` can reset the handler.
EARLY_SIGTERM = """
import os, signal, sys, threading

def early():
    os.kill(os.getpid(), signal.SIGTERM)
    sum(range(1000))  # Python code, where an inherited handler would run

os.register_at_fork(after_in_child=early)
from harness.stopping import handling_stops

def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)  # reached only by a child the SIGTERM did not end
    _, status = os.waitpid(pid, 0)
    print(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM)

with handling_stops():
    fork()  # from the main thread
    thread = threading.Thread(target=fork)  # from another, as a pool's maintenance thread forks
    thread.start()
    thread.join()
"""


def test_a_sigterm_reaching_the_child_before_its_reset_still_ends_it() -> None:
    """A SIGTERM sent to a process forked inside the block, while an earlier fork hook runs
    Python code, ends it (held pending until the handler is reset), from any forking thread."""
    done = subprocess.run(
        [sys.executable, "-c", EARLY_SIGTERM],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"], done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
