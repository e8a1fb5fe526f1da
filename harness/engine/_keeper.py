"""The keeper (看守) of one engine process: it starts the engine and ends everything the engine
started when the engine exits, when the harness asks, or when the harness dies however it dies.

Run as `python -I -S _keeper.py FD COMMAND...` by `harness.engine.process`, never imported by
the harness: it uses a few modules of the standard library only (no `subprocess`, no `socket`),
so that it starts in some 20 ms. `FD` is one
end of a socket pair whose other end only the harness holds (the lifeline, 生命線):

- the keeper writes `+` once the engine has started, or `!` and the error when it cannot start;
- a byte from the harness, or the end of the lifeline (the harness exited, was killed, or
  crashed: the kernel closes its descriptors), makes the keeper kill every process below it;
- when the engine exits, the keeper kills what it left behind and exits with its status.

On Linux the keeper is a child subreaper (PR_SET_CHILD_SUBREAPER): a process the engine starts
stays below the keeper even after a `setsid()` and a double fork, so it is found and killed.
Elsewhere it ends the engine's process group, which a `setsid()` escapes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import sys

_PR_SET_CHILD_SUBREAPER = 36
_DEFAULTED = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGPIPE", "SIGXFSZ") if hasattr(signal, name)
)
_ROUNDS = 50  # kill-and-look passes over the processes below; a forking one is caught in a few


def _subreaper() -> bool:
    """Become a child subreaper (Linux): orphans below this process are reparented to it."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _below(root: int) -> list[int]:
    """The live processes below `root` (children, theirs, ...), read from /proc; zombies are
    left out (they are dead, only waiting to be reaped)."""
    parents: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue  # gone meanwhile
        # `pid (comm) state ppid ...`: comm may hold spaces and parentheses, the last ')' ends it.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 2 or fields[0] in (b"Z", b"X"):
            continue
        parents.setdefault(int(fields[1]), []).append(int(name))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _reap() -> dict[int, int]:
    """Reap every child that has exited: their wait statuses by pid."""
    statuses: dict[int, int] = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return statuses
        if pid == 0:
            return statuses
        statuses[pid] = status


def _signal_all(signum: int, engine: int, subreaper: bool) -> None:
    """Send `signum` to every process below the keeper (the engine's group where no /proc
    tells which they are)."""
    if subreaper:
        for pid in _below(os.getpid()):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signum)
    else:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(engine, signum)


def _kill_all(engine: int, subreaper: bool) -> dict[int, int]:
    """Kill every process below the keeper and reap them; the statuses reaped."""
    statuses: dict[int, int] = {}
    for _ in range(_ROUNDS if subreaper else 1):
        _signal_all(signal.SIGKILL, engine, subreaper)
        statuses.update(_reap())
        if not subreaper or not _below(os.getpid()):
            break
    return statuses


def _exit_as(status: int) -> None:
    """Exit as the engine did: with its exit code, or by the signal that ended it."""
    sys.stdout.flush()
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(argv: list[str]) -> None:
    """Keep the engine `argv[2:]`, spoken to through this process's stdin and stdout."""
    lifeline = int(argv[1])
    # The engine must not hold the lifeline: it could read the harness's word meant for us.
    os.set_inheritable(lifeline, False)
    command = argv[2:]
    subreaper = _subreaper()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness's to handle
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    try:
        # The engine leads a process group of its own, so that a `killpg` where there is no
        # /proc reaches it and its children but not the keeper.
        # Its signals as a program started from a shell has them: not the SIGINT the keeper
        # ignores, nor the SIGPIPE and SIGXFSZ Python ignores (subprocess restores these too).
        engine = os.posix_spawnp(
            command[0], command, os.environ, setpgroup=0, setsigdef=_DEFAULTED, setsigmask=()
        )
    except OSError as exc:
        os.write(lifeline, b"!" + str(exc).encode("utf-8", "replace"))
        os._exit(127)
    # A SIGTERM from the harness is passed on to every process below, the escaped ones too
    # (set before the harness hears of the start, so that its first SIGTERM finds it).
    signal.signal(signal.SIGTERM, lambda *_: _signal_all(signal.SIGTERM, engine, subreaper))
    # The engine has the harness's pipes now; the keeper's copies would hide their end.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.write(lifeline, b"+")
    status: int | None = None
    while status is None:
        with contextlib.suppress(InterruptedError):
            ready, _, _ = select.select([lifeline, wake_r], [], [])
            if lifeline in ready:
                # A byte (the harness ends the engine) or the end (the harness is gone).
                with contextlib.suppress(OSError):
                    os.read(lifeline, 1)
                statuses = _kill_all(engine, subreaper)
                status = statuses.get(engine, 0)
                continue
            with contextlib.suppress(BlockingIOError):
                os.read(wake_r, 512)
        statuses = _reap()
        if engine in statuses:
            status = statuses[engine]
            _kill_all(engine, subreaper)
    _exit_as(status)


if __name__ == "__main__":
    main(sys.argv)
