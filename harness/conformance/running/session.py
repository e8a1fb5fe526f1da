"""Started engines, kept for reuse (引擎會話): the one pool the pytest plugin and `guandan fuzz`'s
shards take their engines from.

An engine is started once per engine spec, variant with its options, timeout and lane (a lane
is whoever may share an engine: an engine answers one question at a time, so `fuzz` gives each
thread one of its own), its hello (`describe`) asked at once, and handed out again for the same
key. A start that fails (the engine cannot be made, or refuses its hello) is remembered and its
error raised again for the same key, without a second start: the caller decides what the error
means (a skipped test, a shard's error). `close` closes every engine and forgets the failures.

Every tool asks a started engine its questions through `answers`: in batches where the engine
batches (a batch that fails as a whole asked again one question at a time, to find the one
that did it), an operation the engine does not declare unsupported without asking. `guandan
check` starts its engines itself (`runner._start_and_run`): it runs one engine per share of a
group and closes each when its share is done, which a pool of engines kept for reuse does not
fit; it asks through `answers` as `fingerprint` does.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from harness.engine import Engine, Json, Unsupported, call, load_engine, unwrap_response
from harness.engine.api import checked_output, protocol_warning
from harness.errors import EngineError, EngineErrorKind
from harness.model.ruleset import Ruleset

BATCH = 64
"""Questions a batch asks at most."""

Answer = Callable[[], Json]
"""An answer not yet read: calling it gives the output or raises the engine's error."""

Start = Callable[[str, Ruleset, float], Engine]
"""How an engine is started: spec, variant (options chosen), timeout."""


def ruleset_key(ruleset: Ruleset) -> str:
    """A variant with its options as text, the same for the same values in every process (a
    ruleset sent to a worker is another object there, and `Ruleset` compares by identity)."""
    values = {cid: repr(c.value) for cid, c in ruleset.clauses.items()}
    return json.dumps([ruleset.slug, values, dict(ruleset.chosen)], sort_keys=True, default=repr)


class EngineKey(NamedTuple):
    """What one started engine is for (引擎): spec, variant with its options, timeout, lane."""

    spec: str
    ruleset: str
    timeout: float
    lane: int


def _load(spec: str, ruleset: Ruleset, timeout: float) -> Engine:
    return load_engine(spec, ruleset, timeout=timeout)


def close_quietly(engine: Engine) -> None:
    """Close an engine; what its close raises costs nothing more (it is being let go)."""
    with contextlib.suppress(Exception):
        engine.close()


class EnginePool:
    """Engines started once per `EngineKey` and handed out again (引擎會話), the failed starts
    remembered; safe to share between threads."""

    def __init__(self, start: Start = _load) -> None:
        self._start = start
        self._lock = threading.Lock()
        # One gate per key, held while its engine starts: a second asker of the same key waits
        # for that start instead of making another engine; other keys start meanwhile.
        self._gates: dict[EngineKey, threading.Lock] = {}
        self._engines: dict[EngineKey, Engine] = {}
        self._failed: dict[EngineKey, Exception] = {}

    def engine(self, spec: str, ruleset: Ruleset, timeout: float = 10.0, lane: int = 0) -> Engine:
        """The engine for this key, started (and its hello asked) the first time; the error a
        failed start raised, raised again, every time after it failed."""
        key = EngineKey(spec, ruleset_key(ruleset), timeout, lane)
        with self._lock:
            gate = self._gates.setdefault(key, threading.Lock())
        with gate:
            failed = self._failed.get(key)
            if failed is not None:
                # Raised afresh: the first raise's traceback is not piled on at every ask.
                raise failed.with_traceback(None)
            started = self._engines.get(key)
            if started is not None:
                return started
            try:
                started = self._start(spec, ruleset, timeout)
            except Exception as exc:  # whatever a start raises is the caller's to report
                self._failed[key] = exc
                raise
            try:
                started.describe()
            except Exception as exc:  # a refused hello: the engine is of no use
                close_quietly(started)
                self._failed[key] = exc
                raise
            with self._lock:
                self._engines[key] = started
            return started

    def close(self) -> None:
        """Close every engine started, each whatever the others' closes raise, and forget them
        and the failed starts: an engine asked for after this starts anew."""
        with self._lock:
            engines = list(self._engines.values())
            self._engines.clear()
            self._failed.clear()
            self._gates.clear()
        for engine in engines:
            close_quietly(engine)


def _output(operation: str, response: Json, not_modelled: Sequence[str]) -> Json:
    """The output of one response of a batch, checked as `call` checks a single answer."""
    return checked_output(operation, unwrap_response(response), not_modelled)


def _refused(operation: str) -> Json:
    raise Unsupported(operation)


def answers(
    engine: Engine,
    questions: Sequence[tuple[str, Mapping[str, Any]]],
    stopped: Callable[[], bool] = lambda: False,
) -> Iterator[Answer]:
    """The answer to each question (operation, input), in order, each as an `Answer` (问答): the
    engine asked in batches of `BATCH` where it batches; stops early once `stopped()` is true,
    which is looked at before every request."""
    batcher = getattr(engine, "batch", None)
    if batcher is None:
        for operation, data in questions:
            if stopped():
                return
            yield functools.partial(call, engine, operation, data)
        return
    info = engine.describe()
    supported = set(info.operations)
    for start in range(0, len(questions), BATCH):
        if stopped():
            return
        chunk = questions[start : start + BATCH]
        asked = [q for q in chunk if q[0] in supported]
        try:
            responses = iter(batcher([(op, data) for op, data in asked]) if asked else ())
        except EngineError as exc:
            responses = None  # the batch failed as a whole: each question asked alone
            if exc.kind is EngineErrorKind.PROTOCOL:
                protocol_warning(
                    f"the engine's batch answer could not be used ({exc}); its requests are "
                    "asked one at a time from now on where a batch fails so"
                )
        for operation, data in chunk:
            if operation not in supported:
                yield functools.partial(_refused, operation)
            elif responses is not None:
                yield functools.partial(_output, operation, next(responses), info.not_modelled)
            else:
                if stopped():
                    return
                yield functools.partial(call, engine, operation, data)
