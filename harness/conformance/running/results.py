"""The results of a run (用例結果): one case's result, the run's results and what it was asked to
do, the option sets an engine refused, the expect-fail list, and their JSON.

Statuses: pass, omitted (passed with omissions: equal once the fields the engine does not model
are left out), fail, unsupported, error, timeout, xfail (a listed failure that fails), xpass (a
listed failure that passes: the list is stale, and that is itself a failure).

`RunConfig` lives here, not with the selection that reads it, because a `RunResult` holds its
`RunConfig` and a `RunConfig` holds results (`resume`) and an `ExpectFail`: apart, the two
modules would import each other.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness.conformance.cases.case_loader import Case
from harness.conformance.judging.judge import BAD, Judgement, Status
from harness.errors import HarnessError
from harness.model._files import read_regular_text
from harness.model.diagnostics import Problem
from harness.model.ruleset import Ruleset

# Written as `\uXXXX` in JSON (the text read back is the same): lone surrogates, which UTF-8
# cannot encode (a report or journal holding one could not be written); DEL and the C1 controls,
# which a terminal showing the file may act on (JSON escapes the C0 ones itself); U+0085, U+2028
# and U+2029, which end a line for `str.splitlines` (a journal is one result a line); U+FFFE and
# U+FFFF, which are no characters.
_JSON_ESCAPED = re.compile(r"[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def _finite(value: Any) -> Any:
    """`value` with every NaN and infinity written as its name, a string (strict JSON has no
    such numbers; an engine may have answered them)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def json_text(value: Any, indent: int | None = None) -> str:
    """`value` as strict JSON text that UTF-8 can always encode, whatever an engine returned
    (strings of any code point; NaN and infinities, written as the strings "nan", "inf")."""
    try:
        text = json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(value), ensure_ascii=False, indent=indent, allow_nan=False)
    # Outside strings JSON text is ASCII, so each match is inside a string, where an escape is
    # valid and reads back as the same character.
    return _JSON_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# The message of every case whose variant the engine started for under no option set at all.
NOT_STARTED = "the engine could not start"


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
            text = read_regular_text(path)
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
    derived: bool = True
    """Whether cases on clause values no bundled variant plays also run, on the variants checked
    with those values set (derived variants, `huaian[flow.pass=when_unable]`)."""
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


def is_judged(result: CaseResult) -> bool:
    """Whether the engine was judged on the case: it applies to the engine (not on a derived
    variant it does not claim), it did not refuse it (`unsupported`), and it started for the
    case's option set (a start-up failure judges no case)."""
    if result.status in (Status.UNSUPPORTED, Status.NOT_APPLICABLE):
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
    left_unexplained: int | None = None
    """Failing cases the explainer left without a verdict for lack of budget (`verdicts.LIMIT` a
    variant with those derived from it); None where the run was not explained."""
    explain_seconds: float = 0.0
    """Seconds the explaining took, after the cases (whose seconds `seconds` gives)."""
    _counted: tuple[list[CaseResult], int, dict[str, dict[str, int]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def total_seconds(self) -> float:
        """The whole run's seconds: the cases' and the explaining's."""
        return self.seconds + self.explain_seconds

    def count(self, status: Status) -> int:
        """How many results have `status`."""
        return sum(1 for r in self.results if r.status is status)

    @property
    def applicable(self) -> list[CaseResult]:
        """The results of the cases that apply to the engine: all but those on a variant derived
        for cases that it does not claim to play (`not_applicable`, counted apart)."""
        return [r for r in self.results if r.status is not Status.NOT_APPLICABLE]

    @property
    def judged(self) -> int:
        """How many cases the engine was judged on: all but the unsupported, the not applicable
        and those of an option set it could not even start for (what the verdict is about)."""
        return sum(tally["judged"] for tally in self._coverage().values())

    def coverage(self) -> dict[str, dict[str, int]]:
        """Cases judged and applicable, by operation, in the order operations first appear."""
        return {operation: dict(tally) for operation, tally in self._coverage().items()}

    def _coverage(self) -> dict[str, dict[str, int]]:
        """`coverage`, counted once for the results as they are (the reports ask again and
        again: a dozen times a run)."""
        counted = self._counted
        if counted is not None and counted[0] is self.results and counted[1] == len(self.results):
            return counted[2]
        out: dict[str, dict[str, int]] = {}
        for result in self.applicable:
            tally = out.setdefault(result.operation, {"judged": 0, "total": 0})
            tally["total"] += 1
            tally["judged"] += is_judged(result)
        self._counted = (self.results, len(self.results), out)
        return out

    @property
    def unjudged(self) -> list[str]:
        """Why the run judged too little to pass: nothing judged at all, or a required
        operation (`--require-operations`) of which no case was judged."""
        if not self.results:
            return []
        coverage = self.coverage()
        out = [] if self.judged else ["no case was judged: the engine answered none"]
        if not self.judged and any(r.status is not Status.UNSUPPORTED for r in self.applicable):
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
        """The counts of the JSON report's `summary` (`total` counts the cases that apply to the
        engine, `not_applicable` those apart; `passed` counts plain passes only; `omitted`,
        passed with omissions, apart; `problems`, those of the case files)."""
        return {
            "total": len(self.applicable),
            "judged": self.judged,
            "passed": self.count(Status.PASS),
            "omitted": self.count(Status.OMITTED),
            "failed": self.count(Status.FAIL),
            "unsupported": self.count(Status.UNSUPPORTED),
            "errors": self.count(Status.ERROR),
            "timeouts": self.count(Status.TIMEOUT),
            "xfail": self.count(Status.XFAIL),
            "xpass": self.count(Status.XPASS),
            "not_applicable": self.count(Status.NOT_APPLICABLE),
            "problems": len(self.problems),
        }


def options_text(options: Mapping[str, Any]) -> str:
    """Option values in words, `target=8, settle=points`, or `no options` (開局選項)."""
    return ", ".join(f"{name}={value}" for name, value in options.items()) or "no options"


def families(results: Iterable[CaseResult]) -> dict[str, dict[str, int]]:
    """Counts of statuses by clause family (the first part of each clause id)."""
    table: dict[str, dict[str, int]] = {}
    for result in results:
        for family in sorted({c.split(".")[0] for c in result.clauses}):
            row = table.setdefault(family, {})
            row[result.status.value] = row.get(result.status.value, 0) + 1
    return dict(sorted(table.items()))
