"""Running the corpus against an engine (`guandan check`): selection, statuses, resumable
results.

Statuses: pass, omitted (passed with omissions: equal once the fields the engine does not model
are left out), fail, unsupported, error, timeout, xfail (a listed failure that fails), xpass (a
listed failure that passes: the list is stale, and that is itself a failure).

The cases are the bundled corpus and one's own case files (`RunConfig.cases_paths`); a case with
a problem is left out and the problem reported (`RunResult.problems`), and the others run.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import json
import multiprocessing as mp
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from multiprocessing.connection import Connection, wait
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from harness.conformance.compare import compare_output
from harness.conformance.corpus import Case, load_corpus
from harness.conformance.judge import BAD as BAD
from harness.conformance.judge import PASSED as PASSED
from harness.conformance.judge import Judgement, judge
from harness.conformance.judge import Status as Status
from harness.conformance.session import close_quietly
from harness.conformance.variants import by_slug, is_bundled, is_bundled_case
from harness.engine import Engine, EngineError, call, load_engine, unwrap_response
from harness.errors import EngineErrorKind, HarnessError, OptionRefused
from harness.interpreter.operations import run_operation
from harness.model.diagnostics import Problem
from harness.model.ruleset import Ruleset

BATCH = 64
STOP_SECONDS = 2.0
"""How long a stopped run waits at most for its engines to close and its worker processes to end
(a process engine busy with a request has a second to take its `bye`, then is terminated), before
it leaves them to their threads or kills the processes: Ctrl-C stops a run within about two
seconds."""

# Written as `\uXXXX` in JSON (the text read back is the same): lone surrogates, which UTF-8
# cannot encode (a report or journal holding one could not be written); DEL and the C1 controls,
# which a terminal showing the file may act on (JSON escapes the C0 ones itself); U+0085, U+2028
# and U+2029, which end a line for `str.splitlines` (a journal is one result a line); U+FFFE and
# U+FFFF, which are no characters.
_JSON_ESCAPED = re.compile(r"[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def json_text(value: Any, indent: int | None = None) -> str:
    """`value` as JSON text that UTF-8 can always encode, whatever strings an engine returned."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    # Outside strings JSON text is ASCII, so each match is inside a string, where an escape is
    # valid and reads back as the same character.
    return _JSON_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass(frozen=True)
class CaseResult:
    """One case on one engine and variant (用例結果): status, what was expected and what came
    back, and the case itself as written (description, input, where), so that a report needs no
    corpus; `omitted` names the fields left out of the comparison because the engine does not
    model them. Built once with its final values: an expect-fail list makes a new one
    (`dataclasses.replace`), it does not rewrite this one."""

    id: str
    variant: str
    status: Status
    operation: str
    clauses: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    message: str = ""
    differences: tuple[str, ...] = ()
    expected: Any = None
    actual: Any = None
    detail: str = ""
    seconds: float = 0.0
    assumed: tuple[str, ...] = ()
    description: str = ""
    input: Any = None
    location: str = ""
    omitted: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # The options are copied behind a read-only view, so that the caller's dict (a case's
        # option set, shared by its group) cannot change a result already recorded; sequences
        # given as lists are kept as tuples.
        set_field = object.__setattr__  # the frozen dataclass's own way to set a field once
        set_field(self, "options", MappingProxyType(dict(self.options)))
        for name in ("clauses", "differences", "assumed", "omitted"):
            set_field(self, name, tuple(getattr(self, name)))

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], CaseResult], tuple[dict[str, Any]]]:
        # A result crosses a pipe from a forked worker (pickle), and a mapping proxy cannot be
        # pickled: the fields go as a dict, the options as a plain one.
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["options"] = dict(self.options)
        return _case_result, (values,)

    @property
    def key(self) -> str:
        """`id[variant]`, the name of the case's test."""
        return f"{self.id}[{self.variant}]"

    def to_json(self) -> dict[str, Any]:
        """The result as an entry of the JSON report (lists and objects, as `from_json` reads)."""
        return {
            "id": self.id,
            "variant": self.variant,
            "status": self.status.value,
            "operation": self.operation,
            "clauses": list(self.clauses),
            "options": dict(self.options),
            "message": self.message,
            "differences": list(self.differences),
            "expected": self.expected,
            "actual": self.actual,
            "detail": self.detail,
            "seconds": round(self.seconds, 6),
            "assumed": list(self.assumed),
            "description": self.description,
            "input": self.input,
            "location": self.location,
            "omitted": list(self.omitted),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> CaseResult:
        """A result read back from a report or journal (for --resume)."""
        return CaseResult(
            data["id"],
            data["variant"],
            Status(data["status"]),
            data["operation"],
            tuple(data["clauses"]),
            dict(data.get("options", {})),
            data.get("message", ""),
            tuple(data.get("differences", [])),
            data.get("expected"),
            data.get("actual"),
            data.get("detail", ""),
            float(data.get("seconds", 0.0)),
            tuple(data.get("assumed", [])),
            str(data.get("description", "")),
            data.get("input"),
            str(data.get("location", "")),
            tuple(data.get("omitted", [])),
        )

    @staticmethod
    def of(
        case: Case,
        variant: str,
        options: Mapping[str, Any],
        status: Status,
        message: str = "",
        detail: str = "",
    ) -> CaseResult:
        """A result for `case` on `variant` that no answer was weighed for (a refusal, an engine
        that did not start or died), carrying the case as written and saying why."""
        return CaseResult(
            case.id,
            variant,
            status,
            case.operation,
            case.clauses,
            options,
            message,
            expected=case.expected,
            detail=detail,
            description=case.description,
            input=case.input,
            location=str(case.location),
        )

    @staticmethod
    def judged(
        case: Case, ruleset: Ruleset, options: Mapping[str, Any], found: Judgement
    ) -> CaseResult:
        """The result of `case` on `ruleset` from the judge's word on the engine's answer
        (判定), with the clauses the case assumes of the variant."""
        return CaseResult(
            id=case.id,
            variant=ruleset.slug,
            status=found.status,
            operation=case.operation,
            clauses=case.clauses,
            options=options,
            message=found.message,
            differences=found.differences,
            expected=case.expected,
            actual=found.actual,
            detail=found.detail,
            seconds=found.seconds,
            assumed=tuple(case.assumed_clauses(ruleset)),
            description=case.description,
            input=case.input,
            location=str(case.location),
            omitted=found.omitted,
        )


def _case_result(values: dict[str, Any]) -> CaseResult:
    """A result rebuilt from its fields (unpickling)."""
    return CaseResult(**values)


@dataclass(frozen=True)
class ExpectFail:
    """An expect-fail list: entries `case-id` or `case-id[variant]`, one a line, `#` comments."""

    entries: tuple[str, ...]
    source: str = ""

    @staticmethod
    def read(path: Path) -> ExpectFail:
        """The list in `path`."""
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise HarnessError(f"--expect-fail {path}: {exc}") from None
        entries = []
        for line in text.splitlines():
            entry = line.split("#", 1)[0].strip()
            if entry:
                entries.append(entry)
        return ExpectFail(tuple(entries), str(path))

    def lists(self, result: CaseResult) -> str | None:
        """The entry that lists this result, or None."""
        for entry in self.entries:
            if entry in (result.id, result.key):
                return entry
        return None


@dataclass
class RunConfig:
    """What `guandan check` was asked to do: the engine spec, the variants (loaded, bundled or
    from files, options not chosen: `options` chooses them), the cases (the bundled corpus unless
    `bundled` is False, and one's own case files or folders, `cases_paths`), and the selection."""

    engine: str
    variants: list[Ruleset]
    options: dict[str, Any] = field(default_factory=dict)
    patterns: list[str] = field(default_factory=list)
    clauses: list[str] = field(default_factory=list)
    expect_fail: ExpectFail | None = None
    timeout: float = 10.0
    jobs: int = 1
    journal: Path | None = None
    resume: list[CaseResult] = field(default_factory=list)
    cases_paths: list[Path] | None = None
    bundled: bool = True
    require_operations: tuple[str, ...] = ()
    """Operations the run must judge at least one case of (`--require-operations`)."""


@dataclass(frozen=True)
class Refusal:
    """An option set of a variant the engine would not start for (it refused the variant or an
    option's value): the cases written for it are `unsupported`."""

    variant: str
    options: Mapping[str, Any]
    message: str
    cases: int
    option: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The refusal as JSON."""
        return {
            "variant": self.variant,
            "options": dict(self.options),
            "option": self.option,
            "message": self.message,
            "cases": self.cases,
        }


def _is_judged(result: CaseResult) -> bool:
    """Whether the engine was judged on the case: it did not refuse it (`unsupported`), and it
    started for the case's option set (a start-up failure judges no case)."""
    if result.status is Status.UNSUPPORTED:
        return False
    return not (result.status is Status.ERROR and result.message.startswith(NOT_STARTED))


def share_percent(part: int, whole: int) -> int:
    """`part` of `whole` in whole percent, rounded to the nearest (2/3 is 67 %), yet 100 % only
    when the part is whole and 0 % only when it is nothing; `whole` must be positive."""
    nearest = (200 * part + whole) // (2 * whole)
    if part < whole:
        nearest = min(nearest, 99)
    return max(nearest, 1) if part else nearest


@dataclass
class RunResult:
    """Every result of a run, the expect-fail entries that are stale, the problems found in the
    case files (those cases did not run), the option sets the engine refused, and the variants
    it started for under no option set at all (`not_started`)."""

    config: RunConfig
    results: list[CaseResult]
    stale: list[str] = field(default_factory=list)
    engine_name: str = ""
    engine_version: str = ""
    seconds: float = 0.0
    cases: dict[str, Case] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    not_started: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    """Bundled cases that rest on a clause value a variant of one's own changes (not run)."""
    interrupted: bool = False
    """The run was stopped (Ctrl-C) before every case ran: `results` holds those that did."""
    selected: int = 0
    """How many results the whole run would have had (resumed ones included)."""
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The explainer's verdict on failing cases, by result key (`verdicts.explain_run`): the
    `verdict` in words and the clause values `explained_by`; set after the run, for reports."""

    def count(self, status: Status) -> int:
        """How many results have `status`."""
        return sum(1 for r in self.results if r.status is status)

    @property
    def judged(self) -> int:
        """How many cases the engine was judged on: all but the unsupported and those of an
        option set it could not even start for (what the verdict is about)."""
        return sum(1 for r in self.results if _is_judged(r))

    def coverage(self) -> dict[str, dict[str, int]]:
        """Cases judged and selected, by operation, in the order operations first appear."""
        out: dict[str, dict[str, int]] = {}
        for result in self.results:
            tally = out.setdefault(result.operation, {"judged": 0, "total": 0})
            tally["total"] += 1
            tally["judged"] += _is_judged(result)
        return out

    @property
    def unjudged(self) -> list[str]:
        """Why the run judged too little to pass: nothing judged at all, or a required
        operation (`--require-operations`) of which no case was judged."""
        if not self.results:
            return []
        coverage = self.coverage()
        out = [] if self.judged else ["no case was judged: the engine answered none"]
        if not self.judged and any(r.status is not Status.UNSUPPORTED for r in self.results):
            out = ["no case was judged: the engine did not start"]
        for operation in self.config.require_operations:
            if not coverage.get(operation, {}).get("judged"):
                total = coverage.get(operation, {}).get("total", 0)
                out.append(f"--require-operations: no {operation} case judged (of {total})")
        return out

    @property
    def ok(self) -> bool:
        """Every case ran, nothing failed, errored, timed out or passed unexpectedly, no entry is
        stale, the case files had no problem, and something was judged (an engine that answers
        nothing, or no case of a required operation, is no pass: never a silent green)."""
        return (
            not self.interrupted
            and not self.stale
            and not self.problems
            and not any(r.status in BAD for r in self.results)
            and not self.unjudged
        )

    def summary(self) -> dict[str, int]:
        """The counts of the JSON report's `summary` (`passed` counts plain passes only;
        `omitted`, passed with omissions, apart; `problems`, those of the case files)."""
        return {
            "total": len(self.results),
            "judged": self.judged,
            "passed": self.count(Status.PASS),
            "omitted": self.count(Status.OMITTED),
            "failed": self.count(Status.FAIL),
            "unsupported": self.count(Status.UNSUPPORTED),
            "errors": self.count(Status.ERROR),
            "timeouts": self.count(Status.TIMEOUT),
            "xfail": self.count(Status.XFAIL),
            "xpass": self.count(Status.XPASS),
            "problems": len(self.problems),
        }


# ---------------------------------------------------------------------------------------------
# Selecting cases


def _option_config(case: Case, ruleset: Ruleset) -> dict[str, Any]:
    """The options a case is written for, defaults filled in."""
    out = {name: opt.default for name, opt in ruleset.options.items()}
    for name, value in case.options.items():
        out[name] = ruleset.options[name].check(value) if name in ruleset.options else value
    return out


def _matches(case: Case, patterns: Sequence[str], clauses: Sequence[str]) -> bool:
    if patterns and not any(p in case.id or fnmatch.fnmatch(case.id, p) for p in patterns):
        return False
    if clauses:
        wanted = [c.rstrip(".") for c in clauses]
        if not any(c == w or c.startswith(w + ".") for c in case.clauses for w in wanted):
            return False
    return True


class Selected(NamedTuple):
    """One case to run: the case, the variant with the case's options chosen, those options."""

    case: Case
    ruleset: Ruleset
    options: dict[str, Any]

    @property
    def key(self) -> str:
        """`id[variant]`, as `CaseResult.key`."""
        return f"{self.case.id}[{self.ruleset.slug}]"


def select(config: RunConfig, cases: Sequence[Case]) -> list[Selected]:
    """The cases a run covers, variant by variant, each in corpus order."""
    return select_with_left_out(config, cases)[0]


def select_with_left_out(
    config: RunConfig, cases: Sequence[Case]
) -> tuple[list[Selected], list[str]]:
    """The cases a run covers, and the keys of the bundled cases left out for a variant that is
    not bundled because they rest on a clause value it changes.

    A bundled case states the clause values it is written for (`applies_when`), but it also
    rests on the values every bundled variant shares (the shapes, the core of play). For a
    variant of one's own that changes one of those, the reference interpreter, the
    specification, answers such a case otherwise: the case does not apply, and is left out
    (and reported), rather than failed.
    """
    chosen: list[Selected] = []
    left_out: list[str] = []
    for base in by_slug(config.variants).values():
        own = not is_bundled(base)
        run_options = {name: opt.default for name, opt in base.options.items()}
        for name, value in config.options.items():
            if name not in base.options:
                raise HarnessError(f"variant {base.slug!r} has no option {name!r}")
            run_options[name] = base.options[name].check(value)
        for case in cases:
            if not _matches(case, config.patterns, config.clauses):
                continue
            if any(name not in base.options for name in case.options):
                continue
            wanted = _option_config(case, base)
            if config.options and wanted != run_options:
                continue
            ruleset = base.with_options(wanted)
            if not case.applies_to(ruleset):
                continue
            item = Selected(case, ruleset, wanted)
            if own and is_bundled_case(case) and not _reference_agrees(item):
                left_out.append(item.key)
                continue
            chosen.append(item)
    return chosen, left_out


def _reference_agrees(item: Selected) -> bool:
    try:
        actual = run_operation(item.case.operation, item.case.input, item.ruleset)
    except HarnessError:
        return False
    return not compare_output(item.case.expected, actual)


# ---------------------------------------------------------------------------------------------
# Running


def _judge(
    item: Selected, answer: Callable[[], dict[str, Any]], not_modelled: Sequence[str] = ()
) -> CaseResult:
    """Ask, and weigh the answer with the one judge (`judge.judge`): the case's result."""
    found = judge(item.case.expected, answer, not_modelled)
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


class _Journal:
    """Results appended as JSON lines as they come, so an interrupted run loses nothing."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.written: set[str] = set()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A line cut short by an interruption is ended, so that the next result is not
            # appended to it (and lost with it).
            if path.exists() and path.stat().st_size:
                with path.open("rb+") as fh:
                    fh.seek(-1, 2)
                    if fh.read(1) != b"\n":
                        fh.write(b"\n")

    def write(self, result: CaseResult) -> None:
        """Append one result (one whole line, in one write)."""
        if self.path is None:
            return
        with self.lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(json_text(result.to_json()) + "\n")
        self.written.add(result.key)

    def catch_up(self, results: Iterable[CaseResult]) -> None:
        """Append the results a Ctrl-C kept from being written, so that the journal holds every
        result the report does (a result is recorded before it is journalled)."""
        for result in results:
            if result.key not in self.written:
                self.write(result)


def read_previous(path: Path) -> list[CaseResult]:
    """The results already written for a report: the report itself, or its journal."""
    results: list[CaseResult] = []
    journal = journal_path(path)
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            results = [CaseResult.from_json(c) for c in data.get("cases", [])]
        except (json.JSONDecodeError, KeyError, ValueError) as exc:
            raise HarnessError(f"--resume {path}: not a report ({exc})") from None
    if journal.exists():
        # Lines end at \n only: `splitlines` would also cut at characters a string may hold.
        for line in journal.read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            try:
                results.append(CaseResult.from_json(json.loads(line)))
            except (json.JSONDecodeError, KeyError, ValueError):
                continue  # a line cut short by the interruption
    seen: dict[str, CaseResult] = {}
    for result in results:
        seen[result.key] = result
    return list(seen.values())


def journal_path(report: Path) -> Path:
    """Where the results of a run that writes `report` are journalled as they come."""
    return report.with_name(report.name + ".partial.jsonl")


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
    groups: dict[Ruleset, list[Selected]] = {}
    for item in todo:
        groups.setdefault(item.ruleset, []).append(item)
    starts = _Starts()
    interrupted = False
    try:
        for ruleset, items in groups.items():
            _run_group(config, ruleset, items, record, names, starts, stop)
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
        not_started = [slug for slug in selected if slug not in starts.started]

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


# The message of every case whose variant the engine started for under no option set at all.
NOT_STARTED = "the engine could not start"


def options_text(options: Mapping[str, Any]) -> str:
    """Option values in words, `target=8, settle=points`, or `no options` (開局選項)."""
    return ", ".join(f"{name}={value}" for name, value in options.items()) or "no options"


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


def _run_group(
    config: RunConfig,
    ruleset: Ruleset,
    items: list[Selected],
    record: Callable[[CaseResult], None],
    names: dict[str, str],
    starts: _Starts,
    stop: _Stop,
) -> None:
    """Run the cases of one variant and option set, on `config.jobs` engines at once."""
    slug = ruleset.slug
    jobs = max(1, min(config.jobs, len(items)))
    shares = [items[i::jobs] for i in range(jobs)]

    def settle(share: list[Selected], outcome: bool | EngineError) -> None:
        if isinstance(outcome, EngineError):
            starts.refuse(ruleset, share, outcome)  # recorded once every group has run
        elif outcome:
            starts.start(slug)

    def worker(share: list[Selected]) -> None:
        settle(share, _start_and_run(config, ruleset, share, record, names, stop))

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
) -> bool | EngineError:
    """Start an engine for `ruleset` and run `share` on it: True when it started, the error when
    it refused to (its cases wait for the refusal's wording), False when it failed to start (its
    cases are recorded as errors)."""
    slug = ruleset.slug

    def fail(message: str, detail: str = "") -> None:
        for item in share:
            record(CaseResult.of(item.case, slug, item.options, Status.ERROR, message, detail))

    def not_started(exc: Exception) -> EngineError | bool:
        """A refusal is returned (its cases wait for its wording); any other failure to start
        costs only this share's cases, recorded as errors."""
        if isinstance(exc, EngineError) and exc.kind is EngineErrorKind.UNSUPPORTED:
            return exc
        fail(f"{NOT_STARTED}: {exc}", getattr(exc, "detail", ""))
        return False

    try:
        engine = load_engine(config.engine, ruleset, timeout=config.timeout)
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
        names.setdefault("name", info.name)
        names.setdefault("version", info.version)
        if info.variant != slug:
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
    def ask(case: Case) -> Callable[[], dict[str, Any]]:
        return functools.partial(call, engine, case.operation, case.input)

    batcher = getattr(engine, "batch", None)
    if batcher is None:
        for item in share:
            if stop.is_set():
                return
            record(_judge(item, ask(item.case), not_modelled))
        return
    supported = set(engine.describe().operations)
    for start in range(0, len(share), BATCH):
        if stop.is_set():
            return
        chunk = list(share[start : start + BATCH])
        asked = [item for item in chunk if item.case.operation in supported]
        for item in chunk:
            if item.case.operation not in supported:
                record(_judge(item, functools.partial(_unsupported, item.case.operation)))
        if not asked:
            continue
        try:
            responses = batcher([(item.case.operation, item.case.input) for item in asked])
        except EngineError:
            # The batch failed as a whole: ask one at a time to find the case that did it.
            for item in asked:
                if stop.is_set():
                    return
                record(_judge(item, ask(item.case), not_modelled))
            continue
        for item, response in zip(asked, responses, strict=True):
            record(_judge(item, functools.partial(unwrap_response, response), not_modelled))


def _unsupported(operation: str) -> dict[str, Any]:
    raise EngineError(EngineErrorKind.UNSUPPORTED, f"operation {operation!r} is not supported")


def families(results: Iterable[CaseResult]) -> dict[str, dict[str, int]]:
    """Counts of statuses by clause family (the first part of each clause id)."""
    table: dict[str, dict[str, int]] = {}
    for result in results:
        for family in sorted({c.split(".")[0] for c in result.clauses}):
            row = table.setdefault(family, {})
            row[result.status.value] = row.get(result.status.value, 0) + 1
    return dict(sorted(table.items()))
