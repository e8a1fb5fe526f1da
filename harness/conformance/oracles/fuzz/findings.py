"""Discrepancies between an engine and the reference (差異), how they are told apart, and the
clauses the reference's verdict rests on.

A `Finding` is one operation on one input where the engine's answer differs from the
reference's (or the engine failed). Its `kind` is the shape of the difference (which fields,
which way: `readings:extra`, `steps:lead`, `beats:false`, `error:crash`); during the search two
findings with the same operation and kind are the same discrepancy. Once a finding is shrunk,
`explain` asks the one explainer (`harness.conformance.explaining.explainer`) which clause values,
if any, make the reference answer as the engine did without contradicting the engine's other
answers, and which clauses' change alters the reference's answer at all: the clauses the verdict
rests on. The signature (operation, verdict) then deduplicates findings, so one cause gives one
case.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from harness.conformance.cases.case_loader import load_corpus
from harness.conformance.explaining.explainer import (
    NO_CLAUSE,
    Answers,
    Evidence,
    Question,
    bears_on,
    case_question,
    shown,
)
from harness.conformance.explaining.explainer import explain as explain_all
from harness.conformance.judging.judge import weigh
from harness.conformance.judging.outputs import (
    compare_output,
    differing_paths,
    overlaps,
    step_differences,
)
from harness.conformance.judging.soundness import soundness
from harness.conformance.running.results import RunConfig
from harness.conformance.running.selection import select
from harness.conformance.running.session import ruleset_key
from harness.engine import Engine, EngineError, ReferenceEngine, call
from harness.errors import EngineErrorKind, HarnessError
from harness.interpreter.operations import run_operation
from harness.model.mutants import Mutant, mutants, plain
from harness.model.registry import Passage, went_through
from harness.model.ruleset import Ruleset
from harness.model.seats import Finish

Json = dict[str, Any]

# Where no mutant explains a difference, the clause each output field is first about.
_FIELD_CLAUSES: dict[str, dict[str, str]] = {
    "replay": {
        "legal": "flow.turn",
        "next": "flow.turn",
        "lead": "flow.jiefeng",
        "out": "flow.early_end",
        "told": "disclosure.hand_count",
        "counts": "disclosure.hand_count",
        "over": "flow.early_end",
        "finish": "flow.early_end",
        "double_down": "levels.up.double_down",
    },
    "tribute": {
        "anti_tribute": "tribute.anti.big_jokers",
        "payments": "tribute.card",
        "returns": "tribute.return.max_rank",
        "leader": "tribute.lead.single",
        "anti_leader": "tribute.lead.anti",
        "reveal_together": "tribute.return.reveal_together",
    },
    "settle": {
        "won": "levels.final_win",
        "state.declarer": "levels.played",
        "state.failures": "levels.failures.limit",
        "state.firsts": "levels.streak.firsts",
        "state.lasts": "levels.streak.lasts",
        "state.winner": "levels.final_win",
    },
    "score": {"base": "scoring.base", "amounts": "scoring.base"},
}


@dataclass(frozen=True)
class Finding:
    """One operation on one input where the engine and the reference disagree."""

    operation: str
    input: Json
    expected: Json
    actual: Json | None
    differences: tuple[str, ...]
    kind: str
    error: str | None = None
    clause: str | None = None
    clauses: tuple[str, ...] = ()
    explained_by: str | None = None
    fits: tuple[str, ...] = ()
    """Each clause value that explains it (`clause = value`), equal fits together: what
    `explained_by` says in one line."""

    @property
    def probe(self) -> tuple[str, str]:
        """What tells findings apart during the search: the operation and the difference's
        shape."""
        return (self.operation, self.kind)

    @property
    def signature(self) -> tuple[str, str]:
        """What tells findings apart in the report: the operation and the explainer's verdict
        (the clause values that explain it, or "no clause value explains it"; an engine that
        failed to answer, by how it failed). One cause is one finding, whichever fields it
        shows in and whichever clause a field points to."""
        if self.explained_by:
            return (self.operation, f"as if {self.explained_by}")
        if self.kind.startswith("error:"):
            return (self.operation, self.kind)
        return (self.operation, NO_CLAUSE)

    @property
    def verdict(self) -> str:
        """The explainer's verdict in words: `the engine answers as if A = x, or B = y`, `no
        clause value explains it`, or how the engine failed to answer."""
        if self.explained_by:
            return f"the engine answers as if {self.explained_by}"
        if self.error:
            return f"the engine failed to answer ({self.error.split(':')[0]})"
        return NO_CLAUSE

    def size(self) -> tuple[int, str]:
        """How big the example is, to keep the smallest of equal findings (then by text)."""
        text = json.dumps(self.input, sort_keys=True)
        return (len(text), text)

    def to_json(self) -> Json:
        """The finding as JSON (for the summary)."""
        return {
            "operation": self.operation,
            "clause": self.clause,
            "kind": self.kind,
            "differences": list(self.differences),
            "error": self.error,
            "explained_by": self.explained_by,
            "verdict": self.verdict,
            "clauses": list(self.clauses),
            "input": self.input,
            "expected": self.expected,
            "actual": self.actual,
        }


class Found(Exception):
    """Raised inside a search when the engine and the reference disagree."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(f"{finding.operation}: {finding.kind}")
        self.finding = finding


def case_expected(operation: str, output: Json) -> Json:
    """The reference's output as a case expects it: what is compared, nothing else (legal
    plays' representative cards, settle's events and replay's reasons are not)."""
    out: Json = json.loads(json.dumps(output))
    if operation == "legal_plays":
        out["plays"] = [{k: p[k] for k in ("type", "rank", "size")} for p in out["plays"]]
    elif operation == "settle":
        out.pop("events", None)
    elif operation == "replay":
        for step in out.get("steps", []):
            step.pop("reason", None)
        out["finish"] = _grouped_losers(out)
    return out


def _grouped_losers(out: Json) -> Any:
    """A replay's finish with the two seats that never went out grouped, `[0, 2, [1, 3]]`:
    after an early end on a double-down (雙下提前結束) no rule orders them, and the case README
    lets a case group them (compared as a set). Where three went out the order is played."""
    finish = out.get("finish")
    steps = out.get("steps", [])
    went_out = sum(1 for step in steps if isinstance(step, dict) and "out" in step)
    if out.get("over") and isinstance(finish, list) and len(finish) == 4 and went_out == 2:
        return [finish[0], finish[1], list(finish[2:])]
    return finish


PASSED = 100
"""Inputs kept per operation on which the engine agreed: an explanation must agree on them too."""


@dataclass
class Checker:
    """Asks the engine and the reference the same question and raises `Found` when they
    disagree; returns the reference's answer otherwise (so a search can go on from it)."""

    engine: Engine
    reference: ReferenceEngine
    not_modelled: tuple[str, ...] = ()
    operations: tuple[str, ...] = ()
    asked: dict[str, int] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)
    """Of those asked, the inputs the engine answered `unsupported` (nothing compared)."""
    passed: dict[str, deque[tuple[Json, Json]]] = field(default_factory=dict)
    """The latest inputs of each operation on which the engine agreed, with the answer."""

    def check(self, operation: str, data: Json) -> Json:
        """The reference's output for `operation` on `data`, after comparing the engine's."""
        want = call(self.reference, operation, data)
        if operation not in self.operations:
            return want
        self.asked[operation] = self.asked.get(operation, 0) + 1
        expected = case_expected(operation, want)
        try:
            got = call(self.engine, operation, data)
        except EngineError as exc:
            if exc.kind is EngineErrorKind.UNSUPPORTED:
                self.refused[operation] = self.refused.get(operation, 0) + 1
                return want
            raise Found(self._failed(operation, data, expected, str(exc.kind), str(exc))) from None
        except Exception as exc:  # a Python engine that raised: a finding, not a crash of ours
            what = f"{type(exc).__name__}: {exc}"
            raise Found(self._failed(operation, data, expected, "exception", what)) from None
        # Weighed by the judge `check` uses: what it passes (omissions too) is no finding.
        sound = soundness(operation, data, self.reference.ruleset, self.not_modelled)
        judged = weigh(expected, got, not_modelled=self.not_modelled, sound=sound)
        if not judged.agrees:
            kind = shape(operation, expected, got, self.not_modelled)
            raise Found(Finding(operation, data, expected, got, judged.differences, kind))
        self.passed.setdefault(operation, deque(maxlen=PASSED)).append((data, expected))
        return want

    @staticmethod
    def _failed(operation: str, data: Json, expected: Json, kind: str, message: str) -> Finding:
        return Finding(
            operation, data, expected, None, (message,), f"error:{kind}", error=f"{kind}: {message}"
        )


def _differs(want: Any, got: Any, not_modelled: Sequence[str]) -> bool:
    return bool(compare_output(want, got, not_modelled))


def shape(operation: str, expected: Json, actual: Json, not_modelled: Sequence[str] = ()) -> str:
    """The shape of a difference: the fields that differ and, for lists of readings, which way
    (extra, missing); for a replay, the fields of the first step that differs."""
    if not isinstance(actual, dict):
        return "output"
    if operation == "replay":
        want_steps = expected.get("steps", [])
        got_steps = actual.get("steps")
        if not isinstance(got_steps, list):
            return "steps"
        for i, want in enumerate(want_steps):
            got = got_steps[i] if i < len(got_steps) else None
            if not isinstance(got, dict):
                return "steps:missing"
            fields = [k for k in want if _differs({k: want[k]}, got, not_modelled)]
            if fields:
                return "steps:" + ",".join(sorted(fields))
        if len(got_steps) > len(want_steps):
            return "steps:extra"
    if operation == "beats":
        return f"beats:{str(expected.get('beats')).lower()}"
    parts = []
    for key, want in expected.items():
        if not _differs({key: want}, actual, not_modelled):
            continue
        if key in ("readings", "plays") and isinstance(actual.get(key), list):
            mine = {json.dumps(r, sort_keys=True) for r in want}
            theirs = {
                json.dumps({k: r.get(k) for k in ("type", "rank", "size")}, sort_keys=True)
                for r in actual[key]
                if isinstance(r, dict)
            }
            way = [w for w, on in (("extra", theirs - mine), ("missing", mine - theirs)) if on]
            parts.append(f"{key}:{'+'.join(way) or 'count'}")
        elif key == "state" and isinstance(want, dict) and isinstance(actual.get(key), dict):
            parts += [
                f"state.{k}" for k in want if _differs({k: want[k]}, actual[key], not_modelled)
            ]
        else:
            parts.append(key)
    return ",".join(parts) or "output"


def explain(
    finding: Finding,
    ruleset: Ruleset,
    not_modelled: Sequence[str] = (),
    engine: Engine | None = None,
    samples: Sequence[Json] = (),
    passed: Sequence[tuple[Json, Json]] = (),
    operations: Sequence[str] = (),
) -> Finding:
    """`finding` with the one explainer's verdict (`explainer.explain`), its deciding clause and
    the clauses the reference's verdict rests on.

    A clause rests the verdict when one of its mutants answers differently from the reference.
    A mutant explains the finding when it answers as the engine did and the engine's other
    answers do not refute it: the inputs of the operation the engine `passed`, `samples` of the
    operation on which the mutant and the variant differ, and the bundled cases (of the
    `operations` the engine answers) that tell the mutant apart (`_Probe`; the engine asked).
    Equal fits are all named. Where none explains it, the verdict is "no clause value explains
    it" and the deciding clause is the one the reference's answer went through for the fields
    that differ: the clause a refused step of the reference names (`_refused_by`), the shape
    clause of a differing reading (`_shape_of`), else the clause its answer went through whose
    change alters those fields alone (`_went_by`), else the clause a table gives the first
    differing field (`_fallback`)."""
    op = finding.operation
    candidates = [m for m in mutants(ruleset) if bears_on(m.clause, op)]
    asked = Question(op, finding.input, ruleset, finding.expected, finding.actual)
    answers = Answers()
    rests = list(dict.fromkeys(m.clause for m in candidates if answers.kills(asked, m)))
    agreeing = [Question(op, data, ruleset, want, want) for data, want in passed]
    probe = (
        _Probe(engine, ruleset, op, samples, operations, not_modelled, answers)
        if engine is not None
        else None
    )
    evidence = Evidence(agreeing, probe)
    explained = explain_all([asked], candidates, evidence, not_modelled, answers)
    verdict = explained[0] if explained and explained[0].explained else None
    first = (
        verdict.mutants[0].clause
        if verdict
        else _refused_by(finding, not_modelled)
        or _shape_of(finding, ruleset)
        or _went_by(finding, ruleset, candidates, answers, not_modelled)
        or _fallback(finding, rests)
    )
    if first not in ruleset.clauses:
        # A clause id made of what the engine answered (a reading type of its own) is data, not
        # a clause: only ids the variant has are named.
        first = rests[0] if rests else _operation_clause(finding)
    cited = (first, *(m.clause for m in verdict.mutants[1:])) if verdict else (first,)
    fits = tuple(f"{m.clause} = {shown(m.value)}" for m in verdict.mutants) if verdict else ()
    return replace(
        finding,
        clause=first,
        clauses=tuple(dict.fromkeys([*cited, *rests]))[:8],
        explained_by=", or ".join(fits) if fits else None,
        fits=fits,
    )


@dataclass
class _Probe:
    """The engine's other answers that may refute a mutant, asked as needed: samples of the
    operation on which the mutant and the variant differ, then the bundled cases (of the
    operations the engine answers) the mutant fails, those citing its clause first. Refuted
    where the engine answers one of them as the variant."""

    engine: Engine
    ruleset: Ruleset
    operation: str
    samples: Sequence[Json]
    operations: Sequence[str]
    not_modelled: Sequence[str]
    answers: Answers
    asked: dict[str, Json | None] = field(default_factory=dict)
    _sampled: list[Question] | None = None

    def _ask(self, operation: str, data: Mapping[str, Any]) -> Json | None:
        key = json.dumps([operation, data], sort_keys=True)
        if key not in self.asked:
            try:
                self.asked[key] = call(self.engine, operation, dict(data))
            except Exception:  # an engine error, or a Python engine's own bug: no evidence
                self.asked[key] = None
        return self.asked[key]

    def __call__(self, m: Mutant) -> bool:
        # Every question that tells the mutant apart is asked: answers that support the mutant
        # do not outweigh one that refutes it (an engine may play the mutant's value for some
        # combinations and the variant's for others).
        for q in self._telling(m):
            got = self._ask(q.operation, q.input)
            if got is not None and weigh(q.expected, got, not_modelled=self.not_modelled).agrees:
                return True  # the engine answers as the variant, where the mutant would not
        return False

    def _telling(self, m: Mutant) -> Iterator[Question]:
        """The questions on which the mutant answers otherwise than the variant: the samples,
        then the bundled cases (those of the corpus found once per process, variant and mutant:
        it is the reference's work alone)."""
        if self._sampled is None:
            self._sampled = [
                Question(self.operation, data, self.ruleset, want, None)
                for data in self.samples
                if (want := _answer(self.operation, data, self.ruleset)) is not None
            ]
        yield from (q for q in self._sampled if self.answers.kills(q, m, self.not_modelled))
        operations = tuple(sorted(self.operations))
        left_out = tuple(self.not_modelled)
        key = (ruleset_key(self.ruleset), m.clause, shown(m.value), operations, left_out)
        if key not in _TELLING:
            cases = [
                q
                for q in _corpus(self.ruleset)
                if q.operation in operations and bears_on(m.clause, q.operation)
            ]
            ordered = [q for q in cases if m.clause in q.clauses] + [
                q for q in cases if m.clause not in q.clauses
            ]
            _TELLING[key] = [q for q in ordered if self.answers.kills(q, m, self.not_modelled)]
        yield from _TELLING[key]


_TELLING: dict[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], list[Question]] = {}
"""The bundled cases each mutant of a variant fails, by variant, mutant, the operations asked
and the fields left out."""


_CORPUS: dict[str, list[Question]] = {}


def _corpus(ruleset: Ruleset) -> list[Question]:
    """The bundled cases that apply to the variant as chosen (its options), as questions; read
    once per process and variant."""
    key = json.dumps([ruleset.slug, dict(ruleset.chosen)], sort_keys=True, default=str)
    if key not in _CORPUS:
        cases, _ = load_corpus([], bundled=True)
        sets = [o.sets for o in ruleset.options.values()]
        _CORPUS[key] = [
            case_question(it)
            for it in select(RunConfig(engine="reference", variants=[ruleset]), cases)
            if all(plain(it.ruleset.value(c)) == plain(ruleset.value(c)) for c in sets)
        ]
    return _CORPUS[key]


def _answer(operation: str, data: Json, ruleset: Ruleset) -> Json | None:
    """The reference's answer under `ruleset` as a case expects it, or None if it refuses."""
    try:
        return case_expected(operation, run_operation(operation, data, ruleset))
    except HarnessError:
        return None


def _shape_of(finding: Finding, ruleset: Ruleset) -> str | None:
    """Where the readings (or plays) differ, the shape clause of the first differing one's type:
    a reading one answer lists and the other does not is of its type by that clause
    (`combinations.bomb.shape` for a ten-card bomb left out). None for a type the variant has
    no clause of (one of the engine's own)."""
    key = {"classify": "readings", "legal_plays": "plays"}.get(finding.operation)
    if key is None or finding.actual is None:
        return None
    mine = {json.dumps(r, sort_keys=True) for r in finding.expected.get(key, [])}
    got = finding.actual.get(key, [])
    theirs = {
        json.dumps({k: r.get(k) for k in ("type", "rank", "size")}, sort_keys=True)
        for r in (got if isinstance(got, list) else [])
        if isinstance(r, dict)
    }
    differing = sorted(mine ^ theirs)
    clause = f"combinations.{json.loads(differing[0]).get('type')}.shape" if differing else None
    return clause if clause in ruleset.clauses else None


def _refused_by(finding: Finding, not_modelled: Sequence[str] = ()) -> str | None:
    """The clause the reference names for the step it refused, where a replay first differs
    there: its own word on what decided (an engine's `rule` is the engine's, and not read)."""
    if finding.operation != "replay" or finding.actual is None:
        return None
    step = _first_differing_step(finding, not_modelled)
    rule = step.get("rule") if step is not None and step.get("legal") is False else None
    return rule if isinstance(rule, str) else None


def _went_by(
    finding: Finding,
    ruleset: Ruleset,
    candidates: Sequence[Mutant],
    answers: Answers,
    not_modelled: Sequence[str],
) -> str | None:
    """Of the clauses the reference's answer went through (`went_through`), the one whose
    change alters that answer in the fields where the engine's differs, and nowhere else: a
    clause with a mutant answering those fields as the engine did first (gone through or not),
    then the one whose mutant alters the most of them, then the first gone through; None if no
    clause's does.

    A mutant that also changes a field the engine answered as the reference is refuted by the
    engine's answer itself: what it changes there is no part of this difference (for a replay,
    a clause that refuses an earlier step says nothing of the step that differs). Such a mutant
    may be refuted elsewhere (it did not explain the finding): here it only says which clause
    the differing fields hang on."""
    if finding.actual is None:
        return None
    differing = differing_paths(finding.expected, finding.actual, not_modelled)
    asked = Question(finding.operation, finding.input, ruleset, finding.expected, finding.actual)
    by_clause: dict[str, list[Mutant]] = {}
    for m in candidates:
        by_clause.setdefault(m.clause, []).append(m)
    through = _clauses_through(finding, ruleset, not_modelled)
    # Gone through first, then the rest in the schema's order: a clause's value may be read
    # where no function marked with it runs (the rank values PlayRules builds once, read by
    # tribute), so only a mutant answering as the engine did is taken from outside the trace.
    order = [*through, *(c for c in by_clause if c not in through)]
    ranked: list[tuple[bool, int, int, str]] = []
    for at, clause in enumerate(order):
        for m in by_clause.get(clause, ()):
            mine = answers.of(asked, m)
            changed = (
                differing_paths(finding.expected, mine, not_modelled) if mine is not None else ()
            )
            if not changed or not all(any(overlaps(c, d) for d in differing) for c in changed):
                continue
            same = answers.reproduces(asked, m, not_modelled)
            if same or clause in through:
                covered = sum(any(overlaps(c, d) for c in changed) for d in differing)
                ranked.append((not same, -covered, at, clause))
    return min(ranked)[-1] if ranked else None


def _clauses_through(
    finding: Finding, ruleset: Ruleset, not_modelled: Sequence[str] = ()
) -> tuple[str, ...]:
    """The clauses the reference's answer to the finding went through, in call order (each
    function's in the order declared); for a replay, those of the first step that differs."""
    op, data = finding.operation, finding.input

    def passed(data: Json) -> tuple[Passage, ...]:
        # Memos keep a ruleset by identity: on a copy, no answer comes from one, unseen.
        unseen = replace(ruleset)
        try:
            return went_through(lambda: run_operation(op, data, unseen))[1]
        except HarnessError:
            return ()

    through = passed(data)
    at = _first_differing_index(finding, not_modelled) if op == "replay" else None
    if at is not None and isinstance(data.get("actions"), list):
        # The steps before it are the same calls in both: what follows them is the step's own.
        before = passed({**data, "actions": data["actions"][:at]})
        upto = passed({**data, "actions": data["actions"][: at + 1]})
        common = next(
            (i for i, (a, b) in enumerate(zip(before, upto, strict=False)) if a != b),
            min(len(before), len(upto)),
        )
        through = upto[common:]
    return tuple(dict.fromkeys(c for p in through for c in p.clauses))


def _fallback(finding: Finding, rests: Sequence[str]) -> str:
    """The deciding clause where no single mutant answers as the engine did."""
    op, data = finding.operation, finding.input
    if finding.kind.startswith("error:"):
        return rests[0] if rests else _operation_clause(finding)
    if op in ("classify", "legal_plays"):
        return rests[0] if rests else "wild.default"
    if op == "beats":
        return rests[0] if rests else "compare.same_type_and_size"
    if op == "replay":
        # Legality first: a step refused or accepted wrongly shows in its other fields too.
        fields = finding.kind.partition(":")[2].split(",")
        field_name = "legal" if "legal" in fields else fields[0]
        return _FIELD_CLAUSES["replay"].get(field_name, rests[0] if rests else "flow.turn")
    if op == "settle":
        first = finding.kind.split(",")[0]
        if first in _FIELD_CLAUSES["settle"]:
            return _FIELD_CLAUSES["settle"][first]
        return rests[0] if rests else _settle_clause(data)
    table = _FIELD_CLAUSES.get(op, {})
    first = finding.kind.split(",")[0]
    return rests[0] if rests else table.get(first, _operation_clause(finding))


def _first_differing_index(finding: Finding, not_modelled: Sequence[str] = ()) -> int | None:
    """Where a replay's steps first differ (the reference's step there, or past its last)."""
    steps = finding.expected.get("steps", [])
    got = (finding.actual or {}).get("steps")
    if not isinstance(steps, list) or not isinstance(got, list):
        return None
    for i, want in enumerate(steps):
        if (
            i >= len(got)
            or not isinstance(got[i], dict)
            or step_differences(want, got[i], not_modelled)
        ):
            return i
    return None


def _first_differing_step(
    finding: Finding, not_modelled: Sequence[str] = ()
) -> Mapping[str, Any] | None:
    """The reference's step where a replay first differs, None if none."""
    at = _first_differing_index(finding, not_modelled)
    step = finding.expected["steps"][at] if at is not None else None
    return step if isinstance(step, Mapping) else None


def _settle_clause(data: Mapping[str, Any]) -> str:
    try:
        return f"levels.up.{Finish.of(data['finish']).kind.value}"
    except (HarnessError, KeyError, TypeError):
        return "levels.up.double_down"


def _operation_clause(finding: Finding) -> str:
    """A clause every answer of the operation rests on, for an engine that failed."""
    return {
        "classify": "combinations.only_listed",
        "beats": "compare.same_type_and_size",
        "legal_plays": "combinations.only_listed",
        "legal_actions": "combinations.only_listed",
        "tribute": "tribute.enabled",
        "settle": "levels.up.double_down",
        "replay": "flow.turn",
        "score": "scoring.base",
    }.get(finding.operation, "combinations.only_listed")
