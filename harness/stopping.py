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


def _after_fork_in_child() -> None:
    """In a process forked inside a `handling_stops` block (a pool's worker), SIGTERM, with
    which its pool ends it, takes its default action: the kernel ends the worker wherever its
    main thread is. The inherited handler would run only when that thread next runs Python
    code, so a SIGTERM landing just before it blocks (on the pool's task lock) was noted and
    never acted on, and the pool's `terminate` waited for the worker for ever (seen once in
    some 70 pools of a `compare-play --jobs 2`)."""
    if _installed and signal.getsignal(signal.SIGTERM) is _installed[0]:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


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
