"""A process pool's workers end at once when the pool ends them, even where a worker's main
thread is outside Python code: they take SIGTERM's default action, not the Python handler a
command's `handling_stops` installs and forked workers inherit. With that handler, a SIGTERM
that lands while the main thread is in a blocking C call is only noted, and the pool's
`terminate` waits for the worker (once, for ever: a compare-play hung on it)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from harness.engine.cluster import Workers, run_tasks
from harness.stopping import handling_stops

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
