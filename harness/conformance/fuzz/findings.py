"""Discrepancies between an engine and the reference (差異), how they are told apart, and the
clauses the reference's verdict rests on.

A `Finding` is one operation on one input where the engine's answer differs from the
reference's (or the engine failed). Its `kind` is the shape of the difference (which fields,
which way: `readings:extra`, `steps:lead`, `beats:false`, `error:crash`); during the search two
findings with the same operation and kind are the same discrepancy. Once a finding is shrunk,
`explain` names the clause whose change makes the reference answer as the engine did (a mutant
of the variant, `harness.model.mutants`), and the clauses whose change alters the reference's
answer at all: the clauses the verdict rests on. The signature (operation, clause, kind) then
deduplicates findings, so one bug gives one case.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from harness.conformance.compare import compare_output
from harness.conformance.judge import weigh
from harness.engine import Engine, EngineError, ReferenceEngine, call
from harness.errors import EngineErrorKind, HarnessError
from harness.interpreter.operations import run_operation
from harness.model.mutants import mutants, mutate
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

# The clauses whose mutants may change an operation's answer, by family (others cannot).
_FAMILIES: dict[str, tuple[str, ...]] = {
    "classify": ("combinations", "sequences", "wild", "ranks", "compare"),
    "beats": ("compare", "bombs", "ranks", "sequences"),
    "legal_plays": ("combinations", "sequences", "wild", "ranks", "compare", "bombs"),
    "legal_actions": ("combinations", "sequences", "wild", "ranks", "compare", "bombs"),
    "tribute": ("tribute", "ranks", "wild"),
    "settle": ("levels", "finish", "match"),
    "replay": (
        "flow",
        "disclosure",
        "finish",
        "combinations",
        "sequences",
        "compare",
        "bombs",
        "wild",
        "ranks",
    ),
    "score": ("scoring", "levels"),
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

    @property
    def probe(self) -> tuple[str, str]:
        """What tells findings apart during the search: the operation and the difference's
        shape."""
        return (self.operation, self.kind)

    @property
    def signature(self) -> tuple[str, str, str]:
        """What tells findings apart in the report: the operation, the deciding clause, and the
        shape of the difference; where a mutant explains the finding, the value it explains it
        by stands for the shape (one wrong value is one bug, whichever fields it shows in)."""
        return (self.operation, self.clause or "?", self.explained_by or self.kind)

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
        judged = weigh(expected, got, self.not_modelled)
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
) -> Finding:
    """`finding` with its deciding clause and the clauses the reference's verdict rests on.

    A clause rests the verdict when one of its mutants answers differently from the reference;
    a mutant explains the finding when it answers exactly as the engine did, here and on the
    other inputs it was tried on: those the engine `passed`, and `samples` of the operation on
    which the mutant and the variant differ (`_best_supported`). Where none does, the deciding
    clause is that of the differing field."""
    op = finding.operation
    families = _FAMILIES.get(op, ())
    ids = [cid for cid in ruleset.clauses if cid.split(".")[0] in families]
    rests: list[str] = []
    candidates: list[tuple[str, Any, Ruleset]] = []
    for m in mutants(ruleset, ids):
        clause_id, value, changed = m.clause, m.value, mutate(ruleset, m.clause, m.value)
        assert changed is not None  # mutants() lists only those the loader builds
        output = _answer(op, finding.input, changed)
        if output is None or not compare_output(finding.expected, output):
            continue
        if clause_id not in rests:
            rests.append(clause_id)
        if finding.actual is not None and not compare_output(output, finding.actual, not_modelled):
            candidates.append((clause_id, value, changed))
    if candidates and engine is not None:
        candidates = _best_supported(op, candidates, ruleset, engine, samples, passed, not_modelled)
    explained = candidates[0] if candidates else None
    clause = explained[0] if explained else _fallback(finding, rests)
    return replace(
        finding,
        clause=clause,
        clauses=tuple(dict.fromkeys([clause, *rests]))[:8],
        explained_by=(
            f"{explained[0]}: {json.dumps(explained[1], ensure_ascii=False)}" if explained else None
        ),
    )


EVIDENCE = 5
"""Inputs that tell a mutant from the variant, on which the engine is asked, per candidate."""


def _best_supported(
    op: str,
    candidates: list[tuple[str, Any, Ruleset]],
    ruleset: Ruleset,
    engine: Engine,
    samples: Sequence[Json],
    passed: Sequence[tuple[Json, Json]],
    not_modelled: Sequence[str],
) -> list[tuple[str, Any, Ruleset]]:
    """The candidate the engine's other answers support best, or none.

    A candidate is refuted where it and the engine answer an input differently: an input the
    engine passed (its answer known), or a sample on which the candidate and the variant differ
    (the engine asked). Support is the number of such samples where the engine answered as the
    candidate. A coincidence, a mutant that happens to answer this one input as the engine did,
    is refuted by the first input on which that mutant shows."""
    reference: dict[int, Json | None] = {}
    asked: dict[int, Json | None] = {}
    best: list[tuple[str, Any, Ruleset]] = []
    best_support = -1
    for candidate in candidates:
        changed = candidate[2]
        if any(
            (mine := _answer(op, data, changed)) is None
            or compare_output(mine, answer, not_modelled)
            for data, answer in passed
        ):
            continue
        support, refuted = 0, False
        for i, data in enumerate(samples):
            mine = _answer(op, data, changed)
            if i not in reference:
                reference[i] = _answer(op, data, ruleset)
            if mine is None or reference[i] is None or not compare_output(mine, reference[i]):
                continue
            if i not in asked:
                asked[i] = _engine_answer(engine, op, data)
            got = asked[i]
            if got is None:
                continue
            if compare_output(mine, got, not_modelled):
                refuted = True
                break
            support += 1
            if support >= EVIDENCE:
                break
        if not refuted and support > best_support:
            best, best_support = [candidate], support
    return best


def _answer(operation: str, data: Json, ruleset: Ruleset) -> Json | None:
    """The reference's answer under `ruleset` as a case expects it, or None if it refuses."""
    try:
        return case_expected(operation, run_operation(operation, data, ruleset))
    except HarnessError:
        return None


def _engine_answer(engine: Engine, operation: str, data: Json) -> Json | None:
    try:
        return call(engine, operation, data)
    except EngineError:
        return None


def _fallback(finding: Finding, rests: Sequence[str]) -> str:
    """The deciding clause where no single mutant answers as the engine did."""
    op, data, expected = finding.operation, finding.input, finding.expected
    if finding.kind.startswith("error:"):
        return rests[0] if rests else _operation_clause(finding)
    if op in ("classify", "legal_plays"):
        key = "readings" if op == "classify" else "plays"
        mine = {json.dumps(r, sort_keys=True) for r in expected.get(key, [])}
        got = finding.actual.get(key, []) if finding.actual else []
        theirs = {
            json.dumps({k: r.get(k) for k in ("type", "rank", "size")}, sort_keys=True)
            for r in got
            if isinstance(r, dict)
        }
        differing = sorted(mine ^ theirs)
        if differing:
            kind = json.loads(differing[0]).get("type")
            return f"combinations.{kind}.shape"
        return rests[0] if rests else "wild.default"
    if op == "beats":
        return rests[0] if rests else "compare.same_type_and_size"
    if op == "replay":
        field_name = finding.kind.partition(":")[2].split(",")[0]
        if field_name == "legal":
            step = _first_differing_step(finding)
            rule = step.get("rule") if step else None
            if isinstance(rule, str):
                return rule
        return _FIELD_CLAUSES["replay"].get(field_name, rests[0] if rests else "flow.turn")
    if op == "settle":
        first = finding.kind.split(",")[0]
        if first in _FIELD_CLAUSES["settle"]:
            return _FIELD_CLAUSES["settle"][first]
        return rests[0] if rests else _settle_clause(data)
    table = _FIELD_CLAUSES.get(op, {})
    first = finding.kind.split(",")[0]
    return rests[0] if rests else table.get(first, _operation_clause(finding))


def _first_differing_step(finding: Finding) -> Mapping[str, Any] | None:
    steps = finding.expected.get("steps", [])
    got = (finding.actual or {}).get("steps") or []
    for i, want in enumerate(steps):
        if i >= len(got) or compare_output(want, got[i]):
            return want if not want.get("legal", True) else (got[i] if i < len(got) else None)
    return None


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
