"""A stop the user asked for (Ctrl-C or SIGTERM), noted as it arrives; layer 0, as every layer
that runs long work may ask whether it was interrupted.

A signal handler raises `KeyboardInterrupt` wherever the main thread happens to be. Inside a
library that catches and wraps exceptions (hypothesis, reading a test's source when SIGINT
lands, raises an `AssertionError` of its own), the interrupt can reach the command under
another name. The handlers installed by `handling_stops` note the signal first, so a command
can tell an interrupted run from a failed one whatever the exception says.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_received: list[int] = []


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread as Ctrl-C raises KeyboardInterrupt, so that the
    command stops the same way: what finished is written, the engines are ended."""


def received() -> tuple[int, ...]:
    """The stop signals received within the current `handling_stops` block, in order."""
    return tuple(_received)


def stop_asked(exc: BaseException) -> bool:
    """Whether `exc` is (or stands for) a stop the user asked for: a KeyboardInterrupt, or
    any exception once a stop signal was received."""
    return isinstance(exc, KeyboardInterrupt) or bool(_received)


@contextmanager
def handling_stops() -> Iterator[None]:
    """Within the block, SIGINT raises KeyboardInterrupt and SIGTERM `Terminated`, each
    noted in `received()` first; restored after. Only the main thread can install handlers:
    elsewhere the block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    pid = os.getpid()
    previous = {
        signum: signal.signal(signum, _handler(pid, error))
        for signum, error in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated))
    }
    _installed[:] = [signal.getsignal(signal.SIGTERM)]
    try:
        yield
    finally:
        _installed.clear()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _received.clear()


# The SIGTERM handler of the open `handling_stops` block, if one is open.
_installed: list[object] = []


_forking = threading.local()
"""Per forking thread: whether `_before_fork` blocked SIGTERM, for the hooks after the fork."""


def _ours() -> bool:
    """Whether SIGTERM's handler is the open `handling_stops` block's."""
    return bool(_installed) and signal.getsignal(signal.SIGTERM) is _installed[0]


def _before_fork() -> None:
    """Inside a `handling_stops` block, SIGTERM is blocked in the forking thread until the
    fork is over: a SIGTERM that reaches the child before `_after_fork_in_child` (while an
    earlier hook, `random`'s reseeding, runs Python code) waits, pending, instead of running
    the inherited handler, which would leave the worker alive (a `mutate --jobs 2` stopped
    by SIGTERM hung so once: its pool forked a worker as it ended the others)."""
    blocked = _ours() and signal.SIGTERM not in signal.pthread_sigmask(
        signal.SIG_BLOCK, {signal.SIGTERM}
    )
    _forking.blocked = blocked


def _unblock() -> None:
    """Unblock SIGTERM where `_before_fork` blocked it (a pending one is delivered now)."""
    if getattr(_forking, "blocked", False):
        _forking.blocked = False
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def _after_fork_in_child() -> None:
    """In a process forked inside a `handling_stops` block (a pool's worker), SIGTERM, with
    which its pool ends it, takes its default action: the kernel ends the worker wherever its
    main thread is. The inherited handler would run only when that thread next runs Python
    code, so a SIGTERM landing just before it blocks (on the pool's task lock) was noted and
    never acted on, and the pool's `terminate` waited for the worker for ever (seen once in
    some 70 pools of a `compare-play --jobs 2`). A SIGTERM sent since the fork, held pending
    by `_before_fork`, ends the child as the signal is unblocked."""
    if _ours():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _unblock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork, after_in_parent=_unblock, after_in_child=_after_fork_in_child
    )


def _handler(pid: int, error: type[KeyboardInterrupt]) -> Callable[[int, Any], None]:
    """A handler that notes the signal and raises `error` in process `pid`; in a process
    forked from it (a worker that inherits the handler: SIGINT, as SIGTERM is reset at the
    fork) it raises KeyboardInterrupt, as Python's default does."""

    def handler(signum: int, frame: Any) -> None:
        if os.getpid() != pid:
            signal.default_int_handler(signum, frame)
        _received.append(signum)
        raise error

    return handler
