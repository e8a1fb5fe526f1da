"""The process protocol (行程協定), client side: JSON lines over stdin/stdout between the harness
and an engine in any language, and the adapter that drives one (`ProcessEngine`). Messages:
`spec/protocol.schema.json`; the server side is `harness.engine.server`.

An engine is not trusted to behave: every read is bounded in bytes (a line of at most
`LINE_LIMIT`, the last `STDERR_TAIL` bytes of stderr), bytes that are not UTF-8 are a protocol
error at once, answers are matched by id, and each engine runs in a session of its own under a
keeper (`_keeper.py`) that kills every process below it when the engine ends, when told, or
when the harness dies, however it dies: nothing an engine starts outlives the run.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import queue
import select
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.engine._variants import as_ruleset, clause_values
from harness.engine.api import EngineBase, EngineInfo, Json, unwrap_response
from harness.engine.trace import TRACE_LINE_LIMIT, Trace, current_trace
from harness.errors import EngineError, EngineErrorKind, HarnessError, OptionRefused
from harness.model.ruleset import Ruleset
from harness.wording import counted

PROTOCOL_VERSION = 1
LINE_LIMIT = 32 << 20
"""The longest line an engine may print on stdout, in bytes (its newline not counted): 32 MiB,
some 30 times the reference's own largest answer (`legal_actions` of a 27-card hand: 9,707
actions, about 1 MiB), so that a correct engine never meets it and a runaway one is stopped."""
STDERR_TAIL = 4096
"""How many bytes of an engine's stderr are kept (the last ones) to tell what went wrong."""

_POSIX = os.name == "posix"
_KILL: int = getattr(signal, "SIGKILL", signal.SIGTERM)  # Windows has no SIGKILL
_CHUNK = 65536  # bytes asked of one read of a pipe
# Lines read ahead of the harness: a flood of lines then blocks the engine on a full pipe
# instead of filling the harness's memory (at most this many lines of LINE_LIMIT bytes).
_QUEUED = 8
_TRACED = TRACE_LINE_LIMIT + 4  # bytes of a line handed to the trace, which keeps fewer
_TERM_GRACE = 0.5  # seconds an engine has between SIGTERM and SIGKILL
# Seconds for the last lines of an engine that has exited to come through its pipe: they were
# written before it exited, but a grandchild may keep the pipe open, so no end of file comes.
_EXIT_GRACE = 0.5
_BYE_WAIT = 1.0  # seconds an engine has to exit by itself after `bye`
_JOIN = 1.0  # seconds to wait for a reader thread once the group is gone
_KEEPER = Path(__file__).with_name("_keeper.py")
# Every engine runs under a keeper where a Python can start one (not frozen, POSIX).
_KEPT = _POSIX and bool(sys.executable) and _KEEPER.is_file()
_KEEPER_START = 10.0  # seconds for a keeper to say whether the engine started
_KEEPER_END = 2.0  # seconds for a keeper to end everything below it once told to

ENVIRONMENT_VARIABLE = "GUANDAN_ENGINE_ENV"
"""`inherit` (the default: an engine gets the harness's whole environment, secrets included)
or `clean` (only `KEPT_VARIABLES`); set by `--clean-env` on every command that runs engines."""
KEPT_VARIABLES = ("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP")
"""What a clean environment keeps (with every `LC_*`, and on Windows `SYSTEMROOT`, `COMSPEC`
and `PATHEXT`, without which programs there do not start)."""
_WINDOWS_KEPT = ("SYSTEMROOT", "COMSPEC", "PATHEXT")


def engine_environment() -> dict[str, str] | None:
    """The environment an engine is started with: None (the harness's own) unless
    `GUANDAN_ENGINE_ENV=clean`, then only the variables a program needs to start."""
    mode = os.environ.get(ENVIRONMENT_VARIABLE, "inherit")
    if mode != "clean":
        return None
    kept = (*KEPT_VARIABLES, *_WINDOWS_KEPT)
    return {key: value for key, value in os.environ.items() if key in kept or key.startswith("LC_")}


@dataclass(frozen=True)
class _Overflow:
    """The engine printed a line longer than LINE_LIMIT (its bytes were dropped)."""


@dataclass(frozen=True)
class _Eof:
    """The engine's stdout is closed; `unfinished` bytes of a last line had no newline."""

    unfinished: int


@dataclass(frozen=True)
class _Exited:
    """The engine's process (the direct child) has exited."""

    code: int | None


_Event = bytes | _Overflow | _Eof | _Exited


def _exit_code(proc: subprocess.Popen[bytes]) -> int | None:
    """Wait for `proc` to exit, without reaping it where the system allows (os.waitid with
    WNOWAIT): while it is a zombie its pid, which is its group's id, cannot be given to another
    process, so that signalling the group later can reach no stranger. Its exit status (minus
    the signal number when a signal ended it), or None when it cannot be known."""
    try:
        result = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    except AttributeError:  # no waitid here: wait, and reap
        return proc.wait()
    except ChildProcessError:  # already reaped, by the harness ending it
        return proc.returncode
    if result is None:
        return None
    return result.si_status if result.si_code == os.CLD_EXITED else -result.si_status


class _Session:
    """One run of an engine's command: its process group, pipes and the threads that read them.

    Three daemon threads: one cuts stdout into lines (bounded, in bytes) and queues them, one
    keeps the tail of stderr, one waits for the process to exit. None keeps unbounded data.
    Every line written and read is recorded in `trace`, when there is one.
    """

    def __init__(self, argv: Sequence[str], trace: Trace | None = None) -> None:
        # A session of its own (POSIX): a Ctrl-C at the terminal is the harness's to handle.
        # Under a keeper where one can run: see `harness/engine/_keeper.py`.
        self.lifeline: socket.socket | None = None
        command = list(argv)
        passed: tuple[int, ...] = ()
        theirs: socket.socket | None = None
        if _KEPT:
            self.lifeline, theirs = socket.socketpair()
            command = [sys.executable, "-I", "-S", str(_KEEPER), str(theirs.fileno()), *argv]
            passed = (theirs.fileno(),)
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=_POSIX,
                pass_fds=passed,
                env=engine_environment(),
            )
        except BaseException:
            if self.lifeline is not None:
                self.lifeline.close()
            raise
        finally:
            if theirs is not None:
                theirs.close()  # the keeper's copy is the only one now
        if self.lifeline is not None:
            self._started()
        self.trace = trace
        self.traced = trace.engine() if trace is not None else 0
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        assert self.proc.stderr is not None
        self.owner = os.getpid()
        self.events: queue.Queue[_Event] = queue.Queue(maxsize=_QUEUED)
        self.backlog: deque[_Event] = deque()
        self.stopping = threading.Event()
        self.exited = threading.Event()
        self.code: int | None = None
        self._tail = bytearray()
        self._tail_cut = False
        self._tail_lock = threading.Lock()
        self._stdin = self.proc.stdin.fileno()
        if _POSIX:
            # Writes are given a deadline: an engine that reads nothing must not block us.
            os.set_blocking(self._stdin, False)
        self._threads = [
            deaf_thread(self._read_stdout, self.proc.stdout.fileno()),
            deaf_thread(self._read_stderr, self.proc.stderr.fileno()),
        ]
        waiter = deaf_thread(self._wait)
        for thread in (*self._threads, waiter):
            thread.daemon = True
            thread.start()
        with _LIVE_LOCK:
            _LIVE.add(self)

    def _started(self) -> None:
        """Wait for the keeper to say the engine has started: OSError, with the keeper's
        reason, when it cannot (a missing command, one not executable)."""
        assert self.lifeline is not None
        self.lifeline.settimeout(_KEEPER_START)
        try:
            word = self.lifeline.recv(4096)
        except OSError:
            word = b""
        if word.startswith(b"+"):
            self.lifeline.setblocking(False)
            return
        self.lifeline.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(timeout=5)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        reason = word[1:].decode("utf-8", "replace") if word.startswith(b"!") else ""
        raise OSError(reason or "the engine's keeper did not start it")

    # -- the threads ---------------------------------------------------------------------------

    def _put(self, event: _Event) -> bool:
        """Queue `event`, waiting while the queue is full; False once the session is ending."""
        while not self.stopping.is_set():
            try:
                self.events.put(event, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _read_stdout(self, fd: int) -> None:
        pending = bytearray()
        skipping = False  # inside a line already reported as too long: drop it to its end
        try:
            while chunk := os.read(fd, _CHUNK):
                start = 0
                while (end := chunk.find(b"\n", start)) >= 0:
                    if skipping:
                        skipping = False
                    elif len(pending) + end - start > LINE_LIMIT:
                        self._traced_line(pending, overflow=True)
                        if not self._put(_Overflow()):
                            return
                    else:
                        pending += chunk[start:end]
                        self._traced_line(pending)
                        if not self._put(bytes(pending)):
                            return
                    pending.clear()
                    start = end + 1
                if not skipping:
                    pending += chunk[start:]
                    if len(pending) > LINE_LIMIT:
                        self._traced_line(pending, overflow=True)
                        pending.clear()
                        skipping = True
                        if not self._put(_Overflow()):
                            return
        except OSError:
            pass
        if pending and not skipping:
            self._traced_line(pending, unfinished=True)
        self._put(_Eof(0 if skipping else len(pending)))

    def _traced_line(self, line: bytearray, **notes: bool) -> None:
        """Record a line the engine printed in the trace (its start only, when too long)."""
        if self.trace is not None:
            self.trace.received(self.traced, bytes(line[:_TRACED]), len(line), **notes)

    def _read_stderr(self, fd: int) -> None:
        try:
            while chunk := os.read(fd, _CHUNK):
                with self._tail_lock:
                    self._tail += chunk
                    if len(self._tail) > STDERR_TAIL:
                        del self._tail[:-STDERR_TAIL]
                        self._tail_cut = True
        except OSError:
            pass

    def _wait(self) -> None:
        self.code = _exit_code(self.proc)
        self.exited.set()
        self._put(_Exited(self.code))

    # -- the harness's side --------------------------------------------------------------------

    def get(self, timeout: float) -> _Event | None:
        """The next event (the backlog first), or None when none comes within `timeout`."""
        if self.backlog:
            return self.backlog.popleft()
        try:
            return self.events.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None

    def drain(self) -> int:
        """Drop the lines already printed (they answer no message still to be sent); keep the
        end-of-file and exit events for later. How many lines were dropped."""
        dropped = 0
        while True:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                return dropped
            if isinstance(event, bytes | _Overflow):
                dropped += 1
            else:
                self.backlog.append(event)

    def write(self, data: bytes, deadline: float) -> None:
        """Write `data` to the engine's stdin by `deadline`: TimeoutError when it does not read,
        BrokenPipeError when it has exited."""
        if self.trace is not None:
            self.trace.sent(self.traced, data.removesuffix(b"\n"))
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._stdin, view) :]
                continue
            except BlockingIOError:
                pass
            if self.exited.is_set():
                raise BrokenPipeError("the engine has exited")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the engine does not read its input")
            select.select([], [self._stdin], [], min(remaining, 0.1))

    def stderr_text(self) -> str:
        """What the engine last wrote on stderr (its last STDERR_TAIL bytes), for a detail."""
        with self._tail_lock:
            seen = bytes(self._tail).decode("utf-8", "replace").strip()
            cut = self._tail_cut
        if not seen:
            return ""
        if cut:
            return f"stderr (its last {STDERR_TAIL} bytes): …{seen}"
        return f"stderr: {seen}"

    def signal_group(self, signum: int) -> None:
        """Send `signum` to the engine's whole process group (to the engine alone off POSIX;
        to the keeper, which passes it on to every process below it, when there is one)."""
        try:
            if self.lifeline is not None:
                os.kill(self.proc.pid, signum)
            elif _POSIX:
                os.killpg(self.proc.pid, signum)
            elif signum != 0:
                self.proc.kill()
        except (ProcessLookupError, PermissionError):
            pass

    def cut(self) -> None:
        """Tell the keeper to kill every process below it at once (a byte down the lifeline;
        its end, when this process dies, says the same)."""
        if self.lifeline is not None:
            with contextlib.suppress(OSError):
                self.lifeline.send(b"k")

    def end(self, wait: float = 0.0) -> None:
        """End the engine and everything it started: give it `wait` seconds to exit by itself,
        then SIGTERM them, SIGKILL them after a short grace, reap, and close the pipes."""
        if wait > 0:
            self.exited.wait(wait)
        if not self.exited.is_set():
            self.signal_group(signal.SIGTERM)
            self.exited.wait(_TERM_GRACE)
        if self.lifeline is not None:
            # The keeper kills what is left, escaped processes too, and exits; killed itself
            # only when it does not (it would leave them behind).
            self.cut()
            if not self.exited.wait(_KEEPER_END):
                self.signal_group(_KILL)
        else:
            # The group is signalled even when the engine has exited: a grandchild may be
            # left. The engine is not reaped before (see _exit_code): the group's id is ours.
            self.signal_group(_KILL)
        # Reaped now; not waited for longer when unkillable (in uninterruptible sleep).
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self.stopping.set()
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        for thread, pipe in zip(self._threads, (self.proc.stdout, self.proc.stderr), strict=True):
            thread.join(_JOIN)
            # A reader still blocked (a process escaped the group keeps the pipe open) keeps its
            # descriptor: closing it under the thread could hand the number to another file.
            if not thread.is_alive() and pipe is not None:
                pipe.close()
        if self.lifeline is not None:
            self.lifeline.close()
        with _LIVE_LOCK:
            _LIVE.discard(self)


_LIVE: set[_Session] = set()
_LIVE_LOCK = threading.Lock()


@atexit.register
def _end_all() -> None:
    """At exit, kill the engines never closed (an interrupted run) and all they started."""
    with _LIVE_LOCK:
        sessions = list(_LIVE)
    for session in sessions:
        if session.owner == os.getpid():  # not those of a parent this process was forked from
            if session.lifeline is not None:
                session.cut()
            else:
                session.signal_group(_KILL)


def deaf_thread(target: Callable[..., object], *args: object) -> threading.Thread:
    """A daemon thread (not started) that blocks every signal: a signal sent to the process
    (SIGTERM from a pool ending its workers, SIGINT) is then delivered to the main thread,
    whose blocking call it interrupts so that Python runs the handler. Delivered to a helper
    thread instead, it only sets a flag while the main thread sleeps on, possibly forever (a
    pool worker waiting for its next task: seen once in seven `fuzz --jobs 2 --trace` runs)."""

    def run() -> None:
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        target(*args)

    return threading.Thread(target=run, daemon=True)


def pool_worker_start() -> None:
    """The start of a pool's worker process (`fuzz`, `simulate`, `compare-play`, `mutate`):
    Ctrl-C at a terminal reaches the whole process group, workers too, and is the parent's to
    handle (it ends the pool), never a traceback from each worker; and the worker ends with
    its parent (`die_with_parent`), whom a SIGKILL leaves no code to end it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def die_with_parent(every: float = 0.2) -> None:
    """In a worker process the harness started (a share of `check`, a fuzz or mutate worker):
    kill this process within `every` seconds of its parent's end, however that came (a SIGKILL
    leaves no parent code to stop it). Its engines' keepers then see their lifelines end.

    A watch on the parent's id, not PR_SET_PDEATHSIG, which fires when the *thread* that
    started the process ends, not the process."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os.kill(os.getpid(), _KILL)

    deaf_thread(watch).start()


def _first_id(message: Json) -> int | None:
    """The lowest request id `message` carries: any answer with a lower id is stale."""
    ids = [item.get("id") for item in message.get("requests", ())]
    ids.append(message.get("id"))
    numbers = [i for i in ids if isinstance(i, int)]
    return min(numbers) if numbers else None


def _stale(reply: Json, message: Json, first: int) -> bool:
    """An answer to an earlier message (a duplicate, or one that came too late): not this one's.
    Ids start at 1: an id below that was never sent, so it is not stale but a protocol error
    (the answer is taken as this message's, and its id does not match)."""
    reply_id = reply.get("id")
    if isinstance(reply_id, int) and not isinstance(reply_id, bool) and 1 <= reply_id < first:
        return True
    return reply.get("type") == "hello" and message.get("type") != "hello"


def parse_command(command: str) -> list[str]:
    """The argv of an engine command (shell words); HarnessError when it cannot be parsed."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise HarnessError(
            f"the command cannot be split into words ({str(exc).lower()}): {command}"
        ) from None
    if not argv or not argv[0]:
        raise HarnessError("engine command is empty")
    return argv


class ProcessEngine(EngineBase):
    """An engine in another process, spoken to in the process protocol, for one variant (a
    Ruleset with its options chosen, or a bundled one by slug); restarted when it crashes,
    hangs, prints garbage or answers the wrong id."""

    def __init__(
        self,
        command: str,
        ruleset: Ruleset | str,
        timeout: float = 10.0,
        trace: Trace | None = None,
    ) -> None:
        self.argv = parse_command(command)
        self.ruleset = as_ruleset(ruleset)
        self.timeout = timeout
        self.trace = trace
        """Where each line of the engine's is recorded; else the command's `current_trace()`."""
        self._session: _Session | None = None
        self._info: EngineInfo | None = None
        self._next_id = 0
        self.restarts = 0
        self.discarded = 0
        """Lines the engine printed that answered nothing asked (duplicates, stale answers)."""
        self._stray = 0  # of those, the ones dropped during the current exchange

    # -- the process ---------------------------------------------------------------------------

    def _start(self) -> None:
        try:
            self._session = _Session(self.argv, self.trace or current_trace())
        except OSError as exc:
            raise EngineError(
                EngineErrorKind.CRASH, f"cannot start {self.argv[0]!r}: {exc}"
            ) from None
        reply = self._exchange(self.hello())
        if reply.get("type") == "error":
            message = str(reply.get("message", "refused"))
            self._stop()
            option = reply.get("option")
            if isinstance(option, str):
                # The engine names the option whose value it does not play.
                value = self.ruleset.chosen.get(option)
                raise OptionRefused(option, value, message)
            raise EngineError(
                EngineErrorKind.UNSUPPORTED, f"the engine refused the handshake: {message}"
            )
        if reply.get("type") != "hello":
            self._stop()
            raise EngineError(
                EngineErrorKind.PROTOCOL, "expected a hello answer", json.dumps(reply)[:300]
            )
        if reply.get("protocol") != PROTOCOL_VERSION:
            self._stop()
            raise EngineError(
                EngineErrorKind.PROTOCOL,
                f"the engine speaks protocol {reply.get('protocol')!r}, not {PROTOCOL_VERSION}",
            )
        try:
            self._info = EngineInfo.from_json(reply)
        except HarnessError as exc:
            self._stop()
            raise EngineError(EngineErrorKind.PROTOCOL, str(exc)) from None

    def hello(self) -> Json:
        """The hello this engine is sent: the variant's slug, the options chosen, and every
        clause's value, so that an engine may play a variant it does not know by name."""
        return {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "variant": self.ruleset.slug,
            "options": dict(self.ruleset.chosen),
            "clauses": clause_values(self.ruleset),
        }

    def _stop(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.end()

    def _fail(self, kind: EngineErrorKind, message: str, detail: str = "") -> EngineError:
        """End the engine's process group (it restarts on the next request) and describe what
        went wrong, with the tail of its stderr."""
        session, self._session = self._session, None
        seen = ""
        if session is not None:
            session.end()  # the readers have now read its stderr to the end
            seen = session.stderr_text()
        self.restarts += 1
        stray = f"{counted(self._stray, 'stray line')} dropped before it" if self._stray else ""
        extra = "\n".join(x for x in (detail, stray, seen) if x)
        return EngineError(kind, message, extra)

    def _exchange(self, message: Json) -> Json:
        """Send `message` and return its answer: the first line that is a JSON object and not a
        stale answer (one whose id is below this message's, or a repeated hello)."""
        session = self._session
        assert session is not None
        first = _first_id(message)
        floor = first if first is not None else self._next_id + 1
        # Whatever the engine printed before this message cannot answer it (a duplicate, a
        # stale answer, stray text): it is dropped, so it is never charged to this request.
        self._stray = session.drain()
        self.discarded += self._stray
        deadline = time.monotonic() + self.timeout
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            session.write(data, deadline)
        except TimeoutError:
            raise self._fail(
                EngineErrorKind.TIMEOUT,
                f"the engine did not read its input within {self.timeout:g} s",
            ) from None
        except OSError:
            session.exited.wait(_EXIT_GRACE)  # for its exit status
            raise self._fail(
                EngineErrorKind.CRASH, self._exit_text(session, "closed its input")
            ) from None
        exit_by: float | None = None  # once the engine has exited: when to stop waiting
        while True:
            now = time.monotonic()
            if exit_by is None and session.exited.is_set():
                exit_by = now + _EXIT_GRACE
            until = deadline if exit_by is None else min(deadline, exit_by)
            event = session.get(until - now)
            if event is None:
                if exit_by is not None:
                    raise self._fail(EngineErrorKind.CRASH, self._exit_text(session, "exited"))
                raise self._fail(EngineErrorKind.TIMEOUT, f"no answer within {self.timeout:g} s")
            if isinstance(event, _Exited):
                continue  # the loop starts the grace for its last lines
            if isinstance(event, _Eof):
                # Its stdout is closed: it has exited, or is about to.
                session.exited.wait(_EXIT_GRACE)
                note = (
                    f"it left a last line of {event.unfinished} bytes unfinished"
                    if event.unfinished
                    else ""
                )
                raise self._fail(
                    EngineErrorKind.CRASH, self._exit_text(session, "closed its output"), note
                )
            if isinstance(event, _Overflow):
                raise self._fail(
                    EngineErrorKind.PROTOCOL,
                    f"the engine printed a line longer than {LINE_LIMIT} bytes",
                )
            reply = self._parse(event)
            if _stale(reply, message, floor):
                self._stray += 1
                self.discarded += 1
                continue
            return reply

    def _exit_text(self, session: _Session, what: str) -> str:
        """How the engine ended, with its exit status when known."""
        if session.exited.is_set():
            return f"the engine exited (status {session.code}) without answering"
        return f"the engine {what} without answering"

    def _parse(self, line: bytes) -> Json:
        """One line of the engine's as a JSON object, or a protocol error."""
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            shown = line[:300].decode("utf-8", "replace")
            raise self._fail(
                EngineErrorKind.PROTOCOL,
                f"the engine printed a line that is not UTF-8 (byte {exc.start})",
                f"line: {shown}",
            ) from None
        try:
            reply = json.loads(text)
        except (ValueError, RecursionError):  # JSONDecodeError, or an int too long to read
            raise self._fail(
                EngineErrorKind.PROTOCOL,
                "the engine printed a line that is not JSON",
                f"line: {text.strip()[:300]}",
            ) from None
        if not isinstance(reply, dict):
            raise self._fail(
                EngineErrorKind.PROTOCOL,
                "the engine printed JSON that is not an object",
                f"line: {text.strip()[:300]}",
            )
        return reply

    def _ensure(self) -> EngineInfo:
        if self._session is None or self._session.exited.is_set():
            self._stop()
            self._start()
        assert self._info is not None
        return self._info

    # -- the engine API ------------------------------------------------------------------------

    def describe(self) -> EngineInfo:
        """The facts the engine gave in its hello answer."""
        return self._ensure()

    def request(self, operation: str, data: Mapping[str, Any]) -> Json:
        """One request and its answer."""
        return self.batch([(operation, data)])[0]

    def batch(self, requests: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Json]:
        """Several requests in one message; each answer is an output or an EngineError raised
        for the whole batch when the process fails."""
        self._ensure()
        ids = []
        items = []
        for operation, data in requests:
            self._next_id += 1
            ids.append(self._next_id)
            items.append({"id": self._next_id, "operation": operation, "input": dict(data)})
        self._next_id += 1
        batch_id = self._next_id
        if len(items) == 1:
            reply = self._exchange({"type": "request", **items[0]})
            responses = [reply]
        else:
            reply = self._exchange({"type": "batch", "id": batch_id, "requests": items})
            if reply.get("type") != "batch" or reply.get("id") != batch_id:
                raise self._fail(
                    EngineErrorKind.PROTOCOL,
                    f"expected the batch answer with id {batch_id}",
                    json.dumps(reply, ensure_ascii=False)[:300],
                )
            raw = reply.get("responses")
            if not isinstance(raw, list) or len(raw) != len(items):
                raise self._fail(
                    EngineErrorKind.PROTOCOL, "the batch answer has the wrong number of responses"
                )
            responses = raw
        out: list[Json] = []
        for expected_id, response in zip(ids, responses, strict=True):
            if not isinstance(response, dict) or response.get("id") != expected_id:
                got = response.get("id") if isinstance(response, dict) else response
                raise self._fail(
                    EngineErrorKind.PROTOCOL,
                    f"expected the answer to request {expected_id}, got id {got!r}",
                    "answer: " + json.dumps(response, ensure_ascii=False)[:300],
                )
            out.append(response)
        return out

    def answer(self, operation: str, data: Mapping[str, Any]) -> Json:
        """The output of one operation, or EngineError (unsupported, invalid input, ...)."""
        return unwrap_response(self.request(operation, data))

    def close(self) -> None:
        """Say bye and end the process and everything it started."""
        session, self._session = self._session, None
        if session is None:
            return
        if not session.exited.is_set():
            with contextlib.suppress(OSError, TimeoutError):
                session.write(b'{"type": "bye"}\n', time.monotonic() + _BYE_WAIT)
        # A polite engine exits by itself; the group is ended whatever it left running.
        session.end(wait=_BYE_WAIT)
