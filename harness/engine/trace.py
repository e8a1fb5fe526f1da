"""A protocol trace (協定記錄): every line sent to and read from every engine process, as JSON
lines in one file (`--trace FILE` on check, fuzz, fingerprint and smoke).

Each record is one protocol line: `{"t": seconds since the trace began, "pid": the harness
process's id, "engine": the engine process's number in that harness process, "dir": "sent" or
"received", "line": its text}`, with `"bytes"` (its full size) when the text was cut at
`TRACE_LINE_LIMIT` (for an overflow, the bytes read before the rest was dropped),
`"escaped": true` when it was not UTF-8 (shown with backslash escapes),
`"overflow": true` for a line longer than the protocol's limit (only its start is kept) and
`"unfinished": true` for a last line left without its newline. `(pid, engine)` names one engine
process. The file is opened once, with O_APPEND, and each record is written whole by one
`write`: processes forked from the one that opened it (`check --jobs`, `fuzz --jobs`) share it,
their records whole. A process that does not inherit the current trace (a spawned or Dask
worker) traces nothing. Engines that run inside the harness (`reference`, `py:`) speak no
protocol lines: they are not traced.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

from harness.errors import OutputError

TRACE_LINE_LIMIT = 64 << 10
"""The longest line text kept in a record, in bytes; a longer line is cut, its size noted."""


class Trace:
    """An open trace file that records lines, safe to share among threads and forked
    processes."""

    def __init__(self, path: str) -> None:
        # A FIFO or a device is written through; a file is written in a temporary file beside
        # it, renamed over it as the trace closes (a trace that fails leaves the previous file
        # as it was). Every write appends, whichever process makes it.
        self.path = path
        self._opener = os.getpid()
        self._partial: str | None = None
        flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        if os.path.exists(path) and not os.path.isfile(path):
            self._fd = os.open(path, flags | getattr(os, "O_NOCTTY", 0))
        else:
            # A link to a file: the file it leads to is replaced, and the link stays.
            real = os.path.realpath(path)
            made, self._partial = tempfile.mkstemp(
                dir=os.path.dirname(real), prefix=f".{os.path.basename(real)}.", suffix=".tmp"
            )
            try:
                os.fchmod(made, 0o644)
                self._fd = os.open(self._partial, flags)
            except OSError:
                os.unlink(self._partial)
                raise
            finally:
                os.close(made)
            self._real = real
        self._start = time.monotonic()  # system-wide: forked processes share the origin
        self._lock = threading.Lock()
        self._engines = 0
        self.failed: OSError | None = None
        """The first write that failed in this process (a full disk): the run fails with it."""
        _OPEN.add(self)

    def engine(self) -> int:
        """A number for a new engine process, unique in this process of the harness."""
        with self._lock:
            self._engines += 1
            return self._engines

    def sent(self, engine: int, line: bytes) -> None:
        """Record a line written to engine `engine` (its newline left out)."""
        self._record(engine, "sent", line, len(line), {})

    def received(self, engine: int, line: bytes, size: int, **notes: bool) -> None:
        """Record a line engine `engine` printed, of `size` bytes of which `line` holds the
        start (at least TRACE_LINE_LIMIT + 3 of them, when there are so many); `notes` such
        as `overflow=True` are kept in the record."""
        self._record(engine, "received", line, size, notes)

    def _record(
        self, engine: int, direction: str, line: bytes, size: int, notes: dict[str, bool]
    ) -> None:
        cut = size > TRACE_LINE_LIMIT
        kept = line[:TRACE_LINE_LIMIT]
        record: dict[str, Any] = {"pid": os.getpid(), "engine": engine, "dir": direction}
        try:
            record["line"] = kept.decode("utf-8")
        except UnicodeDecodeError as exc:
            if cut and exc.start >= len(kept) - 3 and exc.reason == "unexpected end of data":
                record["line"] = kept[: exc.start].decode("utf-8")  # the cut split a character
            else:
                record["line"] = kept.decode("utf-8", "backslashreplace")
                record["escaped"] = True
        if cut:
            record["bytes"] = size
        record.update(notes)
        with self._lock:
            # The time is taken under the lock: records of one process are in time order.
            stamped = {"t": round(time.monotonic() - self._start, 6), **record}
            data = (json.dumps(stamped, ensure_ascii=False) + "\n").encode("utf-8")
            if self.failed is not None:
                return  # the trace is lost already: the run says so as it ends
            try:
                while data:
                    data = data[os.write(self._fd, data) :]
            except OSError as exc:
                self.failed = exc

    def close(self) -> None:
        """Close the file (in the process that opened it; a forked one's copy stays): the
        trace takes the place of the file named, unless a write failed (`failed`), when the
        previous file stays as it was."""
        with contextlib.suppress(OSError):
            os.close(self._fd)
        _OPEN.discard(self)
        partial, self._partial = self._partial, None
        if partial is None or os.getpid() != self._opener:
            return
        try:
            if self.failed is None:
                os.replace(partial, self._real)
        except OSError as exc:
            self.failed = exc
        finally:
            with contextlib.suppress(OSError):
                os.unlink(partial)


_OPEN: weakref.WeakSet[Trace] = weakref.WeakSet()
_current: Trace | None = None


def _after_fork() -> None:
    """In a forked child: a lock some thread of the parent held at the fork is held for ever
    in the child (that thread is not there to release it); each trace gets a fresh one."""
    for trace in list(_OPEN):
        trace._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def current_trace() -> Trace | None:
    """The trace of the command running (`--trace`), which every engine process started
    meanwhile writes to; None when there is none."""
    return _current


@contextlib.contextmanager
def tracing(path: str | None) -> Iterator[Trace | None]:
    """Open the trace `path` (nothing when None) as the current trace for the block; closed
    after it."""
    global _current
    if path is None:
        yield None
        return
    try:
        trace = Trace(path)
    except OSError as exc:
        raise OutputError(path, exc.strerror or str(exc)) from None
    previous, _current = _current, trace
    try:
        yield trace
    finally:
        _current = previous
        trace.close()
    if trace.failed is not None:
        # A trace that lost records is no trace: the run fails, naming it.
        raise OutputError(path, trace.failed.strerror or str(trace.failed))
