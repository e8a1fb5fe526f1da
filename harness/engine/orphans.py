"""Orphans of a killed keeper (孤兒進程): what an engine started outlives neither the engine's
keeper nor the command, even when the engine kills its own keeper.

Each engine runs below a keeper (`harness/engine/_keeper.py`), a child subreaper that kills
whatever the engine started. An engine that SIGKILLs its keeper leaves what it started without
one: on Linux, `guandan` is a child subreaper too (`adopt_orphans`), so those processes are
reparented to it rather than to init, and `end_orphans` kills them as the command ends. They
are known by their session: every engine and keeper runs in a session of its own, so a process
below `guandan` in another session than its own is an engine's; the command's own workers
(pools, Dask's local processes, multiprocessing's tracker) share its session and are left to
end as they do. A `guandan` killed with SIGKILL cannot do this; nor can other systems, where no
subreaper exists.
"""

from __future__ import annotations

import contextlib
import os
import signal

from harness.engine._keeper import _below, _subreaper

_ROUNDS = 50  # kill-and-look passes: an orphan that forks as it dies is caught in a few


def adopt_orphans() -> bool:
    """Become a child subreaper (Linux): an engine's processes orphaned below this one are
    reparented to it. Whether it could."""
    return _subreaper()


def end_orphans() -> list[int]:
    """Kill every process below this one in another session than its own (an engine's, whose
    keeper is gone or going), and reap those that were its children; the pids killed."""
    ours = os.getsid(0)
    killed: list[int] = []
    for _ in range(_ROUNDS):
        theirs = [pid for pid in _below(os.getpid()) if _session(pid) not in (ours, None)]
        if not theirs:
            break
        for pid in theirs:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        for pid in theirs:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
    return killed


def _session(pid: int) -> int | None:
    """The session of `pid`, or None once it is gone."""
    try:
        return os.getsid(pid)
    except (ProcessLookupError, PermissionError):
        return None
