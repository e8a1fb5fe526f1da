"""Running the corpus against an engine (`guandan check`, 檢查): the cases selected
(`selection`) run group by group, on threads, forked processes or in this one, each answer
judged (`judge`), listed (`ExpectFail`), journalled (`journal`) and gathered (`results`).

The cases are the bundled corpus and one's own case files (`RunConfig.cases_paths`); a case with
a problem is left out and the problem reported (`RunResult.problems`), and the others run.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from typing import Any

from harness.conformance.cases.case_loader import load_corpus
from harness.conformance.judging.judge import BAD as BAD
from harness.conformance.judging.judge import PASSED as PASSED
from harness.conformance.judging.judge import Status as Status
from harness.conformance.judging.judge import judge
from harness.conformance.judging.soundness import soundness
from harness.conformance.running.journal import Journal as _Journal  # the name tests patch
from harness.conformance.running.journal import journal_path as journal_path
from harness.conformance.running.journal import read_previous as read_previous
from harness.conformance.running.results import NOT_STARTED as NOT_STARTED
from harness.conformance.running.results import CaseResult as CaseResult
from harness.conformance.running.results import ExpectFail as ExpectFail
from harness.conformance.running.results import Refusal as Refusal
from harness.conformance.running.results import RunConfig as RunConfig
from harness.conformance.running.results import RunResult as RunResult
from harness.conformance.running.results import families as families
from harness.conformance.running.results import json_text as json_text
from harness.conformance.running.results import options_text as options_text
from harness.conformance.running.results import share_percent as share_percent
from harness.conformance.running.selection import Selected as Selected
from harness.conformance.running.selection import select as select
from harness.conformance.running.selection import select_with_left_out as select_with_left_out
from harness.conformance.running.session import answers, close_quietly
from harness.engine import Engine, EngineError, EngineInfo, Reach, load_engine
from harness.engine.cluster import bounded_jobs
from harness.engine.process import die_with_parent
from harness.errors import EngineErrorKind, EngineNotStarted, HarnessError, OptionRefused
from harness.model.derived import base_name, is_derived
from harness.model.ruleset import Ruleset

STOP_SECONDS = 2.0
"""How long a stopped run waits at most for its engines to close and its worker processes to end
(a process engine busy with a request has a second to take its `bye`, then is terminated), before
it leaves them to their threads or kills the processes: Ctrl-C stops a run within about two
seconds."""


def _judge(
    item: Selected, answer: Callable[[], dict[str, Any]], not_modelled: Sequence[str] = ()
) -> CaseResult:
    """Ask, and weigh the answer with the one judge (`judge.judge`): the case's result."""
    case = item.case
    sound = soundness(case.operation, case.input, item.ruleset, not_modelled)
    found = judge(
        case.expected,
        answer,
        not_modelled=not_modelled,
        sound=sound,
        impossible=case.description,
    )
    return CaseResult.judged(item.case, item.ruleset, item.options, found)


def _as_listed(result: CaseResult, expect_fail: ExpectFail | None) -> CaseResult:
    """The result as an expect-fail list has it: a listed failure is xfail, a listed pass is
    xpass (the list is stale), each a new result; an unlisted one is itself."""
    entry = None if expect_fail is None else expect_fail.lists(result)
    if expect_fail is None or entry is None:
        return result
    if result.status in PASSED:
        message = f"listed in {expect_fail.source} as failing ({entry}), but it passes"
        return replace(result, status=Status.XPASS, message=message)
    if result.status in (Status.FAIL, Status.ERROR, Status.TIMEOUT):
        return replace(result, status=Status.XFAIL)
    return result


def run(
    config: RunConfig, progress: Callable[[CaseResult, int, int], None] | None = None
) -> RunResult:
    """Run the selected cases on the engine and return every result (resumed ones included).

    Cases with problems (in one's own case files) are left out and the problems returned in the
    result; the other cases run. Ctrl-C (KeyboardInterrupt) during the cases stops the run within
    about two seconds: the engines are closed, and the result holds the cases that finished
    (`interrupted`); they are journalled, so that a resumed run asks only the others.
    """
    started = time.perf_counter()
    # The engine is started before anything else: one that cannot start stops the run at once
    # (`EngineNotStarted`), and its hello says whether derived variants apply to it.
    ready: dict[Ruleset, Engine] | None = None
    # Ctrl-C while the engine starts leaves `ready` None: a run stopped before any case.
    with contextlib.suppress(KeyboardInterrupt):
        ready = _probe(config)
    try:
        return _run(config, progress, started, ready)
    finally:
        for engine in (ready or {}).values():
            close_quietly(engine)


def _run(
    config: RunConfig,
    progress: Callable[[CaseResult, int, int], None] | None,
    started: float,
    ready: dict[Ruleset, Engine] | None,
) -> RunResult:
    """`run`, once the engine has started (`ready`: an engine started for one rule set, which
    the group of that rule set uses when it runs on one engine; None: Ctrl-C came while it
    started, and the run stops before any case)."""
    cases, problems = load_corpus(config.cases_paths or [], bundled=config.bundled)
    chosen, left_out = select_with_left_out(config, cases)
    done = {r.key: r for r in config.resume}
    todo = [item for item in chosen if item.key not in done]
    journal = _Journal(config.journal)
    results: dict[str, CaseResult] = {
        item.key: done[item.key] for item in chosen if item.key in done
    }
    total = len(chosen)
    counter = [len(results)]
    names: dict[str, str] = {}
    stop = _Stop()
    for engine in (ready or {}).values():
        _note_facts(names, engine.describe())
        stop.add(engine)

    def record(result: CaseResult) -> None:
        with stop.lock:
            # Once the run is stopped, an answer still coming is dropped: the stop closed its
            # engine, so it may be an error of our own making, which must not be journalled.
            if not stop.is_set():
                _record(result)

    def _record(result: CaseResult) -> None:
        result = _as_listed(result, config.expect_fail)
        # Recorded, then journalled: a Ctrl-C between the two is made good by `catch_up`.
        results[result.key] = result
        journal.write(result)
        counter[0] += 1
        if progress is not None:
            progress(result, counter[0], total)

    # One group per variant and choice of options: `with_options` made each choice one object.
    # The variants asked for run first: their hellos say whether the derived ones apply.
    groups: dict[Ruleset, list[Selected]] = {}
    for item in sorted(todo, key=lambda item: is_derived(item.ruleset)):
        groups.setdefault(item.ruleset, []).append(item)
    starts = _Starts()
    interrupted = False
    inapplicable: set[str] = {r.variant for r in done.values() if not_applicable(r)}
    try:
        if ready is None:
            raise KeyboardInterrupt
        for ruleset, items in groups.items():
            if is_derived(ruleset) and names.get("rulesets") not in _PLAYS_DERIVED:
                # Never started for: the engine does not claim to play a derived variant.
                inapplicable.add(ruleset.slug)
                for item in items:
                    record(_not_applicable(item, names))
                continue
            probed = ready.pop(ruleset) if ruleset in ready else None
            _run_group(config, ruleset, items, record, names, starts, stop, probed)
    except KeyboardInterrupt:
        stop.halt()
        interrupted = True
        with stop.lock:
            journal.catch_up([r for key, r in results.items() if key not in done])
    refusals: list[Refusal] = []
    not_started: list[str] = []
    if not interrupted:
        # What a refusal says, and which variants never started, depend on every group: an
        # interrupted run leaves them to the run that resumes it.
        # A resumed result that is not a start failure shows the engine started for its variant.
        starts.started.update(
            r.variant for r in done.values() if not r.message.startswith(NOT_STARTED)
        )
        refusals = starts.record_refusals(record)
        selected = list(dict.fromkeys(item.ruleset.slug for item in chosen))
        not_started = [
            slug for slug in selected if slug not in starts.started and slug not in inapplicable
        ]

    stale: list[str] = []
    if config.expect_fail is not None:
        known = {c.id for c in cases}
        for entry in config.expect_fail.entries:
            hits = [r for r in results.values() if entry in (r.id, r.key)]
            if entry.split("[")[0] not in known:
                stale.append(f"{entry} (no such case in the corpus)")
            elif hits and all(r.status is Status.XPASS for r in hits):
                stale.append(f"{entry} (it passes)")
    ordered = [results[item.key] for item in chosen if item.key in results]
    return RunResult(
        config,
        ordered,
        stale,
        names.get("name", config.engine),
        names.get("version", ""),
        time.perf_counter() - started,
        {c.id: c for c in cases},
        problems,
        refusals,
        not_started,
        left_out,
        interrupted,
        total,
    )


class _Starts:
    """Which variants the engine started for, and the option sets it refused to start for.

    A refusal is recorded only once every group has run, because what it says depends on the
    other option sets: the engine refused one option value (the others ran), or it did not start
    for the variant at all."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started: set[str] = set()
        self.refused: dict[Ruleset, tuple[list[Selected], EngineError]] = {}

    def start(self, slug: str) -> None:
        """The engine started for `slug` (under some option set)."""
        with self.lock:
            self.started.add(slug)

    def refuse(self, ruleset: Ruleset, share: list[Selected], error: EngineError) -> None:
        """The engine refused to start for `ruleset` (a variant with its options chosen)."""
        with self.lock:
            items, _ = self.refused.get(ruleset, ([], error))
            self.refused[ruleset] = ([*items, *share], error)

    def record_refusals(self, record: Callable[[CaseResult], None]) -> list[Refusal]:
        """Record the refused cases as unsupported, each saying why; the refusals."""
        out: list[Refusal] = []
        for ruleset, (items, error) in self.refused.items():
            slug = ruleset.slug
            option = error.option if isinstance(error, OptionRefused) else None
            if slug not in self.started:
                message = f"{NOT_STARTED}: {error}"
            elif option is not None:
                message = str(error)  # it names the option and its value
            else:
                chosen = options_text(items[0].options)
                message = f"the engine refused {slug} with {chosen}: {error}"
            out.append(Refusal(slug, dict(items[0].options), str(error), len(items), option))
            for item in items:
                result = CaseResult.of(
                    item.case, slug, item.options, Status.UNSUPPORTED, message, error.detail
                )
                record(result)
        return out


class _Stop:
    """The stop of a run: once it is set (Ctrl-C, or a worker failed), the engines running are
    closed, no engine is asked anything more, and no result is recorded.

    `lock` is held while a result is recorded, so that nothing is journalled or shown once the
    stop is set (the report of what finished is being written by then)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._set = False
        self._engines: dict[int, Engine] = {}

    def is_set(self) -> bool:
        """Whether the run is stopping."""
        return self._set

    def add(self, engine: Engine) -> bool:
        """Note an engine that has started, to close it on a stop; False when the run is
        stopping already (the caller closes it)."""
        with self.lock:
            if not self._set:
                self._engines[id(engine)] = engine
            return not self._set

    def discard(self, engine: Engine) -> None:
        """Forget an engine that its worker closes."""
        with self.lock:
            self._engines.pop(id(engine), None)

    def halt(self) -> None:
        """Set the stop and close the engines running, each in a thread of its own, waiting
        `STOP_SECONDS` at most (an engine that does not close then is left to its worker)."""
        # Not `with`: a worker holding the lock while it records (and is slow to show it) must
        # not keep Ctrl-C waiting; the flag is set either way.
        locked = self.lock.acquire(timeout=STOP_SECONDS)
        try:
            self._set = True
            engines = list(self._engines.values())
            self._engines.clear()
        finally:
            if locked:
                self.lock.release()
        closing = [threading.Thread(target=close_quietly, args=(e,), daemon=True) for e in engines]
        for thread in closing:
            thread.start()
        deadline = time.monotonic() + STOP_SECONDS
        for thread in closing:
            thread.join(max(0.0, deadline - time.monotonic()))


_PLAYS_DERIVED = frozenset({Reach.DERIVED.value, Reach.ANY.value})
"""What an engine's hello says (`rulesets`) when a variant derived for cases applies to it."""


def not_applicable(result: CaseResult) -> bool:
    """Whether the result is of a case on a derived variant the engine does not claim."""
    return result.status is Status.NOT_APPLICABLE


def _not_applicable(item: Selected, names: Mapping[str, str]) -> CaseResult:
    """The result of a case on a derived variant that the engine does not claim to play: never
    asked, never judged, counted apart."""
    said = names.get("rulesets")
    why = (
        f"its hello says `rulesets: {said}`"
        if said
        else "it did not start for any variant of the run"
    )
    message = (
        f"not applicable: {item.ruleset.slug} is derived for cases on clause values "
        f"{base_name(item.ruleset.slug)} does not play, and the engine does not claim to play "
        f"derived variants ({why})"
    )
    return CaseResult.of(item.case, item.ruleset.slug, item.options, Status.NOT_APPLICABLE, message)


def _note_facts(names: dict[str, str], info: EngineInfo) -> None:
    """Keep what the engine said of itself first: its name, version and `rulesets`."""
    names.setdefault("name", info.name)
    names.setdefault("version", info.version)
    names.setdefault("rulesets", info.rulesets.value)


def _probe(config: RunConfig) -> dict[Ruleset, Engine]:
    """The engine started for the first variant asked for (the options of the run, else the
    defaults) and its hello read: that engine by its rule set, or nothing when the engine
    refused it (a refusal is the runner's to report, case by case). An engine that cannot start
    at all raises `EngineNotStarted`, one line: a mistyped command costs a second, not a run."""
    base = config.variants[0]
    chosen = {name: option.default for name, option in base.options.items()}
    chosen.update({k: v for k, v in config.options.items() if k in base.options})
    try:
        ruleset = base.with_options({k: base.options[k].check(v) for k, v in chosen.items()})
    except HarnessError:
        return {}  # an option the variant does not take: the selection says so
    engine: Engine | None = None
    try:
        engine = load_engine(config.engine, ruleset, timeout=config.timeout)
        engine.describe()
    except EngineError as exc:
        if engine is not None:
            close_quietly(engine)
        if exc.kind is EngineErrorKind.UNSUPPORTED:
            return {}
        raise EngineNotStarted(_not_started_line(config, ruleset, exc)) from None
    except Exception as exc:  # whatever an engine raises is a start that failed
        if engine is not None:
            close_quietly(engine)
        raise EngineNotStarted(_not_started_line(config, ruleset, exc)) from None
    return {ruleset: engine}


def _not_started_line(config: RunConfig, ruleset: Ruleset, exc: Exception) -> str:
    """Why the engine could not start, in one line, with the last line it wrote to stderr."""
    said = [line.strip() for line in str(getattr(exc, "detail", "")).splitlines() if line.strip()]
    last = f" (it said: {said[-1][:200]})" if said else ""
    where = f"{ruleset.slug}, {options_text(ruleset.chosen)}"
    return f"{config.engine}: {NOT_STARTED} for {where}: {exc}{last}"


def _run_group(
    config: RunConfig,
    ruleset: Ruleset,
    items: list[Selected],
    record: Callable[[CaseResult], None],
    names: dict[str, str],
    starts: _Starts,
    stop: _Stop,
    engine: Engine | None = None,
) -> None:
    """Run the cases of one variant and option set, on `config.jobs` engines at once (`engine`:
    one started for it already, used where the group runs on one engine, else closed)."""
    slug = ruleset.slug
    jobs = bounded_jobs(config.jobs, len(items))
    shares = [items[i::jobs] for i in range(jobs)]
    if engine is not None and jobs > 1:
        stop.discard(engine)
        close_quietly(engine)
        engine = None

    def settle(share: list[Selected], outcome: bool | EngineError) -> None:
        if isinstance(outcome, EngineError):
            starts.refuse(ruleset, share, outcome)  # recorded once every group has run
        elif outcome:
            starts.start(slug)

    def worker(share: list[Selected]) -> None:
        settle(share, _start_and_run(config, ruleset, share, record, names, stop, engine))

    if jobs == 1:
        # In this thread, so Ctrl-C interrupts the engine's answer itself; the engine is closed
        # on the way out (`_start_and_run`).
        worker(shares[0])
    elif config.engine.startswith("exec:") or "fork" not in mp.get_all_start_methods():
        # An exec engine is a process already; threads only wait for it.
        _in_threads(worker, shares, stop)
    else:
        # A Python engine runs in this interpreter: threads would share one core (the GIL) and
        # its stdout, so each share runs in a process of its own, forked with the run's state.
        _in_children(config, ruleset, shares, record, names, settle)


def _in_threads(
    worker: Callable[[list[Selected]], None], shares: list[list[Selected]], stop: _Stop
) -> None:
    """Run each share in a thread of its own. Ctrl-C reaches this (the main) thread, which
    stops the run, closing the engines, and does not wait for the workers: they are daemon
    threads, which find the run stopped at their next case (a thread cannot be cancelled, and
    a pool's threads would be waited for, case after case, before Ctrl-C could end the run)."""
    failures: list[BaseException] = []

    def guarded(share: list[Selected]) -> None:
        try:
            worker(share)
        except BaseException as exc:  # raised again in the main thread, which stops the others
            failures.append(exc)

    threads = [
        threading.Thread(target=guarded, args=(share,), name=f"guandan-share-{i}", daemon=True)
        for i, share in enumerate(shares)
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive() and not failures:
                thread.join(0.1)
        if failures:
            raise failures[0]
    except BaseException:
        stop.halt()
        raise


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT held back in this thread meanwhile (and so in a process forked meanwhile): a
    Ctrl-C that comes during a fork reaches this process once it is over, never a child that
    has not yet set itself to ignore it."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _in_children(
    config: RunConfig,
    ruleset: Ruleset,
    shares: list[list[Selected]],
    record: Callable[[CaseResult], None],
    names: dict[str, str],
    settle: Callable[[list[Selected], bool | EngineError], None],
) -> None:
    """Run each share in a forked process of its own, which sends each result down a pipe as
    it comes (recorded and journalled here at once) and then how its engine started.

    The children ignore SIGINT (Ctrl-C at a terminal reaches them too): this process stops the
    run, and on the way out, however it leaves, terminates the children still running, which
    close their engines (SIGTERM), and kills those that have not ended within `STOP_SECONDS`."""
    context = mp.get_context("fork")
    children: list[mp.process.BaseProcess] = []
    pipes: dict[Connection, tuple[mp.process.BaseProcess, list[Selected], set[str]]] = {}
    finished = False
    try:
        for share in shares:
            reader, writer = context.Pipe(duplex=False)
            child = context.Process(
                target=_share_in_child, args=(config, ruleset, share, writer), daemon=False
            )
            # Noted before it starts: a Ctrl-C held back during the fork comes as it ends, and
            # the child must be terminated then too.
            children.append(child)
            pipes[reader] = (child, share, set())
            try:
                with _sigint_blocked():
                    child.start()
            finally:
                writer.close()  # the child's copy is the only one: it ending is the pipe's end
        while pipes:
            for conn in wait(list(pipes)):
                assert isinstance(conn, Connection)
                process, owed, seen = pipes[conn]
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    # The child ended without saying so: its engine took it down.
                    del pipes[conn]
                    conn.close()
                    process.join(STOP_SECONDS)
                    _record_lost(ruleset.slug, owed, seen, process.exitcode, record)
                    settle(owed, bool(seen))
                    continue
                if message[0] == "result":
                    result: CaseResult = message[1]
                    seen.add(result.key)
                    record(result)
                else:
                    _, outcome, got = message
                    for key, value in got.items():
                        names.setdefault(key, value)
                    settle(owed, outcome)
                    del pipes[conn]
                    conn.close()
        finished = True
    finally:
        for conn in pipes:
            conn.close()
        _end_children(children, finished)


def _end_children(children: Sequence[mp.process.BaseProcess], finished: bool) -> None:
    """Wait for the children (a child that has finished its share is ending), or, when the run
    is stopping, terminate them at once; kill any still there after `STOP_SECONDS`."""
    started = [child for child in children if child.pid is not None]
    if not finished:
        for child in started:
            if child.is_alive():
                child.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for child in started:
        child.join(max(0.0, deadline - time.monotonic()))
    for child in started:
        if child.is_alive():
            child.kill()
            child.join(STOP_SECONDS)


def _record_lost(
    slug: str,
    share: list[Selected],
    seen: set[str],
    exitcode: int | None,
    record: Callable[[CaseResult], None],
) -> None:
    """Record the cases of a share whose process died before answering them, as errors."""
    for item in share:
        if item.key in seen:
            continue
        message = f"the process running the engine ended (status {exitcode}) before this case"
        record(CaseResult.of(item.case, slug, item.options, Status.ERROR, message))


def _share_in_child(
    config: RunConfig, ruleset: Ruleset, share: list[Selected], conn: Connection
) -> None:
    """In a forked process: run `share`, sending each result down `conn`, then ("done", whether
    the engine started or the error it refused with, the engine's name and version)."""
    # Ctrl-C is the parent's to handle; SIGTERM, its stop, ends this process through the
    # `finally` that closes the engine.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with_parent()  # a SIGKILLed parent runs no code to end this share

    def send(result: CaseResult) -> None:
        conn.send(("result", result))

    names: dict[str, str] = {}
    outcome = _start_and_run(config, ruleset, share, send, names, _Stop())
    conn.send(("done", outcome, names))
    conn.close()


def _exit_on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM in a child: leave through the `finally`s, which close the engine, quietly."""
    raise SystemExit(128 + signum)


def _start_and_run(
    config: RunConfig,
    ruleset: Ruleset,
    share: list[Selected],
    record: Callable[[CaseResult], None],
    names: dict[str, str],
    stop: _Stop,
    ready: Engine | None = None,
) -> bool | EngineError:
    """Start an engine for `ruleset` (or take `ready`, started for it) and run `share` on it:
    True when it started, the error when it refused to (its cases wait for the refusal's
    wording), False when it failed to start (its cases are recorded as errors)."""
    slug = ruleset.slug

    def fail(message: str, detail: str = "") -> None:
        for item in share:
            record(CaseResult.of(item.case, slug, item.options, Status.ERROR, message, detail))

    # A variant derived for cases on values no variant of the run plays (`huaian[flow.pass=
    # when_unable]`) was not asked for by the user: an engine that claims such variants yet
    # cannot start for it, or says it plays another, does not play it, as if it had refused.
    derived = is_derived(ruleset)

    def not_started(exc: Exception) -> EngineError | bool:
        """A refusal is returned (its cases wait for its wording); any other failure to start
        costs only this share's cases, recorded as errors (on a derived variant: a refusal)."""
        if isinstance(exc, EngineError) and exc.kind is EngineErrorKind.UNSUPPORTED:
            return exc
        if derived:
            return EngineError(EngineErrorKind.UNSUPPORTED, str(exc), getattr(exc, "detail", ""))
        fail(f"{NOT_STARTED}: {exc}", getattr(exc, "detail", ""))
        return False

    try:
        engine = ready or load_engine(config.engine, ruleset, timeout=config.timeout)
    except Exception as exc:  # whatever an engine raises must cost only its cases
        return not_started(exc)
    if not stop.add(engine):  # the run stopped while this engine was made
        close_quietly(engine)
        return True
    try:
        try:
            info = engine.describe()
        except Exception as exc:  # whatever an engine raises must cost only its cases
            return not_started(exc)
        _note_facts(names, info)
        if derived and not info.plays_derived:
            for item in share:
                record(_not_applicable(item, {"rulesets": info.rulesets.value}))
        elif info.variant != slug and derived:
            return EngineError(
                EngineErrorKind.UNSUPPORTED, f"the engine plays {info.variant!r}, not {slug!r}"
            )
        elif info.variant != slug:
            fail(f"the engine implements {info.variant!r}, not {slug!r}")
        else:
            _run_share(engine, share, record, stop, info.not_modelled)
    finally:
        stop.discard(engine)
        close_quietly(engine)
    return True


def _run_share(
    engine: Engine,
    share: Sequence[Selected],
    record: Callable[[CaseResult], None],
    stop: _Stop,
    not_modelled: Sequence[str] = (),
) -> None:
    # The stop is looked at before every request: an engine the stop closed would otherwise be
    # started again by the next one.
    questions = [(item.case.operation, item.case.input) for item in share]
    for item, answer in zip(share, answers(engine, questions, stop.is_set), strict=False):
        record(_judge(item, answer, not_modelled))
