"""Which rules an engine really plays (引擎指紋): the closest bundled variant, and for each clause
the value the engine behaves as, inferred from the corpus.

The engine answers every case once; a case it answers `unsupported` is not judged. Against each
candidate variant, the cases it fails are explained by the one explainer
(`harness.conformance.explaining.explainer`): a one-clause mutant explains cases when it answers
them as the engine did and no case the engine passes refutes it; mutants explaining the same cases
are equal fits, reported together. A clause so explained plays the mutant's value; a failing case no
mutant explains is a bug ("no value explains the answers"), kept under the first clause it
cites; a clause whose mutants some passing case kills plays the variant's value; the rest are not
observed. The closest variant is the one the engine fails the smallest share of judged cases of.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml

from harness.conformance.cases.case_loader import Case, load_corpus
from harness.conformance.explaining.explainer import (
    Answers,
    Evidence,
    Explanation,
    Question,
    bears_on,
    case_question,
    explain,
    shown,
    telling,
)
from harness.conformance.judging.judge import Status, expects_refusal, judge, weigh
from harness.conformance.judging.soundness import soundness
from harness.conformance.oracles.mutation import applicable, load_equivalences
from harness.conformance.running.selection import Selected
from harness.conformance.running.session import answers as session_answers
from harness.engine import Engine
from harness.errors import HarnessError
from harness.model._files import write_atomically
from harness.model.mutants import Mutant, mutants, plain
from harness.model.ruleset import Ruleset
from harness.wording import counted

Json = dict[str, Any]


class Verdict(StrEnum):
    """What the corpus says of one clause of the engine."""

    VARIANT = "variant"
    """Plays the variant's value: a case that would fail under a mutant passes."""
    MUTANT = "mutant"
    """Plays another value: a mutant explains the failing cases."""
    UNEXPLAINED = "unexplained"
    """No value explains the answers: a bug."""
    UNOBSERVED = "unobserved"
    """No case tells the clause's values apart here."""


@dataclass(frozen=True)
class ClauseFinding:
    """The verdict on one clause, the value inferred, and the cases that decided it."""

    clause: str
    verdict: Verdict
    variant_value: Any
    value: Any
    cases: tuple[str, ...] = ()
    equal_fits: tuple[str, ...] = ()
    """Other clause values that explain the same cases as well (`B = y`): the engine answers as
    if this value, or one of those, held; the corpus cannot say which."""

    def to_json(self) -> Json:
        """As in the JSON output."""
        return {
            "clause": self.clause,
            "verdict": self.verdict.value,
            "variant_value": plain(self.variant_value),
            "value": plain(self.value),
            "cases": list(self.cases),
            "equal_fits": list(self.equal_fits),
        }


@dataclass
class VariantFit:
    """How an engine fits one variant: the cases it fails, and each clause's verdict."""

    ruleset: Ruleset
    ran: int
    """The cases the engine was judged on (it answered them)."""
    failing: list[str] = field(default_factory=list)
    clauses: list[ClauseFinding] = field(default_factory=list)
    total: int = 0
    """The variant's cases (default options), judged or not."""
    operations: tuple[str, ...] = ()
    """The operations of the judged cases, in first-seen order."""

    def coverage(self) -> str:
        """`judged 218 of 875 cases: classify only` (覆蓋率)."""
        ops = ", ".join(self.operations) or "no operation"
        only = " only" if len(self.operations) == 1 else ""
        return f"judged {self.ran} of {counted(self.total, 'case')}: {ops}{only}"

    @property
    def passed(self) -> float:
        """The share of the variant's cases the engine passes."""
        return (self.ran - len(self.failing)) / self.ran if self.ran else 1.0

    def observed(self) -> tuple[int, int]:
        """(clauses agreeing, clauses observed): a clause is observed when some case tells its
        values apart, and agrees when the engine plays the variant's value there."""
        verdicts: dict[str, set[Verdict]] = {}
        for c in self.clauses:
            if c.verdict is not Verdict.UNOBSERVED:
                verdicts.setdefault(c.clause, set()).add(c.verdict)
        agreeing = sum(found == {Verdict.VARIANT} for found in verdicts.values())
        return agreeing, len(verdicts)

    @property
    def agreement(self) -> float:
        """The share of observed clauses on which the engine plays the variant's value."""
        agreeing, seen = self.observed()
        return agreeing / seen if seen else 1.0

    def differing(self) -> list[ClauseFinding]:
        """The clauses where the engine plays another value, or no value explains it."""
        return [c for c in self.clauses if c.verdict in (Verdict.MUTANT, Verdict.UNEXPLAINED)]

    def to_json(self) -> Json:
        """As in the JSON output."""
        return {
            "variant": self.ruleset.slug,
            "cases": self.ran,
            "total": self.total,
            "operations": list(self.operations),
            "failing": list(self.failing),
            "passed": round(self.passed, 4),
            "agreement": round(self.agreement, 4) if self.clauses else None,
            "clauses": [c.to_json() for c in self.clauses],
        }


@dataclass
class Fingerprint:
    """The fits to every candidate variant, the one explained clause by clause first: the
    variant asked for, else the closest."""

    engine: str
    fits: list[VariantFit]
    interrupted: bool = False
    """Stopped (Ctrl-C) while the first variant was explained: every fit holds the cases the
    engine fails, none its clauses' verdicts."""
    asked: str | None = None
    """The variant asked to be explained (`--variant`), None when the closest was."""

    @property
    def explained(self) -> VariantFit:
        """The variant explained clause by clause: the one asked for, else the closest."""
        return self.fits[0]

    @property
    def closest(self) -> VariantFit:
        """The variant the engine passes the largest share of judged cases of; on a tie, the
        one explained, then the one the engine says it plays (the order of `fits`)."""
        return max(self.fits, key=lambda f: f.passed)

    def to_json(self) -> Json:
        """As in the JSON output: `closest` is the closest variant whatever was asked,
        `asked` the variant asked for (None if none), `explained` the one whose clauses
        `agreement` is about."""
        agreement = None if self.interrupted else round(self.explained.agreement, 4)
        return {
            "engine": self.engine,
            "closest": self.closest.ruleset.slug,
            "asked": self.asked,
            "explained": self.explained.ruleset.slug,
            "agreement": agreement,
            "fits": [f.to_json() for f in self.fits],
            "interrupted": self.interrupted,
        }


class _Answers:
    """The engine's answer to each distinct question, asked once (None: it failed; a question
    it answers `unsupported`, or of an operation it does not declare, is not judged)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.operations = set(engine.describe().operations)
        self.seen: dict[str, Json | None] = {}
        self.refused: set[str] = set()

    def _key(self, item: Selected) -> str:
        return json.dumps([item.case.operation, item.case.input], sort_keys=True)

    def ask(self, items: Sequence[Selected], progress: Progress | None = None) -> None:
        """Ask every question of `items` not yet asked, through the one session's `answers`
        (in batches, where the engine batches)."""
        fresh: dict[str, Selected] = {}
        for item in items:
            key = self._key(item)
            if item.case.operation in self.operations and key not in self.seen:
                fresh.setdefault(key, item)
        questions = [(it.case.operation, it.case.input) for it in fresh.values()]
        asked = session_answers(self.engine, questions)
        for n, (key, answer) in enumerate(zip(fresh, asked, strict=True)):
            if progress is not None and n % 25 == 0:
                progress(f"asking the engine: question {n}/{len(questions)}")
            # Judged against nothing: any object passes, so the status says only whether the
            # engine answered (an object), refused (unsupported) or failed.
            found = judge({}, answer)
            self.seen[key] = found.actual if found.status is Status.PASS else None
            if found.status is Status.UNSUPPORTED:
                self.refused.add(key)

    def judged(self, item: Selected) -> bool:
        """Whether the engine answers the case's question (asking it if not yet asked)."""
        if item.case.operation not in self.operations:
            return False
        self.get(item)
        return self._key(item) not in self.refused

    def get(self, item: Selected) -> Json | None:
        """The engine's answer, or None when it failed to give one."""
        if self._key(item) not in self.seen:
            self.ask([item])
        return self.seen.get(self._key(item))


def _agrees_on(q: Question, not_modelled: Sequence[str]) -> bool:
    """Whether the engine's answer to `q` passes the judge (soundness checked too)."""
    if q.answer is None:
        return False
    sound = soundness(q.operation, q.input, q.ruleset, not_modelled)
    return weigh(q.expected, q.answer, not_modelled=not_modelled, sound=sound).agrees


Progress = Callable[[str], None]
"""Told what a fingerprint is doing, in a few words (a live line on a terminal)."""


def fit(
    ruleset: Ruleset,
    items: Sequence[Selected],
    answers: _Answers,
    not_modelled: Sequence[str],
    progress: Progress | None = None,
) -> VariantFit:
    """How the engine fits `ruleset`: its failing cases explained by the one explainer
    (`explainer.explain`) with the variant's mutants, its passing cases the evidence a mutant
    must not contradict, clause by clause."""
    result = VariantFit(ruleset, len(items))
    asked = [case_question(it, answers.get(it)) for it in items]
    failing = [q for q in asked if not _agrees_on(q, not_modelled)]
    passing = [q for q in asked if _agrees_on(q, not_modelled)]
    result.failing = [q.name for q in failing]
    equivalences = load_equivalences()
    every = [m for m in mutants(ruleset) if not any(e.covers(ruleset, m) for e in equivalences)]
    cache = Answers()
    told = telling(
        progress, f"explaining {counted(len(failing), 'failing case')} of {ruleset.slug}"
    )
    verdicts = explain(failing, every, Evidence(passing), not_modelled, cache, told)
    result.clauses = _verdicts(ruleset, every, passing, failing, verdicts, cache, not_modelled)
    return result


def _verdicts(
    ruleset: Ruleset,
    every: Sequence[Mutant],
    passing: Sequence[Question],
    failing: Sequence[Question],
    verdicts: Sequence[Explanation],
    cache: Answers,
    not_modelled: Sequence[str],
) -> list[ClauseFinding]:
    inferred: dict[str, list[ClauseFinding]] = {}
    unexplained: dict[str, list[str]] = {}
    for v in verdicts:
        names = tuple(failing[j].name for j in v.questions)
        if not v.explained:
            # No clause value explains them: each case under the first clause it cites.
            for j in v.questions:
                first = failing[j].clauses[0] if failing[j].clauses else "(no clause)"
                unexplained.setdefault(first, []).append(failing[j].name)
            continue
        for m in v.mutants:
            others = tuple(f"{o.clause} = {shown(o.value)}" for o in v.mutants if o is not m)
            finding = ClauseFinding(
                m.clause, Verdict.MUTANT, ruleset.value(m.clause), m.value, names, others
            )
            inferred.setdefault(m.clause, []).append(finding)
    out: list[ClauseFinding] = []
    for clause in dict.fromkeys(m.clause for m in every):
        own = ruleset.value(clause)
        if clause in inferred or clause in unexplained:
            out += inferred.get(clause, [])
            if clause in unexplained:
                # Kept beside a mutant that explains other cases of the clause: no failing case
                # leaves the report.
                kept = tuple(unexplained[clause])
                out.append(ClauseFinding(clause, Verdict.UNEXPLAINED, own, None, kept))
            continue
        # One passing case that a mutant of the clause would fail shows the variant's value
        # (the cases citing the clause are tried first).
        ordered = sorted(
            (q for q in passing if bears_on(clause, q.operation)),
            key=lambda q: clause not in q.clauses,
        )
        deciding = next(
            (
                q.name
                for m in every
                if m.clause == clause
                for q in ordered
                if cache.kills(q, m, not_modelled)
            ),
            None,
        )
        verdict = Verdict.VARIANT if deciding else Verdict.UNOBSERVED
        out.append(ClauseFinding(clause, verdict, own, own, (deciding,) if deciding else ()))
    for clause, cases in unexplained.items():
        if clause not in {c.clause for c in out}:
            own = ruleset.value(clause) if clause in ruleset.clauses else None
            out.append(ClauseFinding(clause, Verdict.UNEXPLAINED, own, None, tuple(cases)))
    return out


def fingerprint(
    engine: Engine,
    engine_name: str,
    candidates: Sequence[Ruleset],
    cases: Sequence[Case] | None = None,
    explain: Ruleset | None = None,
    progress: Progress | None = None,
) -> Fingerprint:
    """Fit the engine to every candidate variant (with its default options), on the cases it
    answers only: the cases it fails of each, and one variant explained clause by clause:
    `explain` when given, else the closest (the smallest share of judged cases failed).

    Ctrl-C while the engine answers raises KeyboardInterrupt; once every answer is in, it only
    stops the explaining: the fingerprint comes back `interrupted`, without clause verdicts."""
    if cases is None:
        cases, problems = load_corpus([], bundled=True)
        if problems:
            raise HarnessError("; ".join(str(p) for p in problems))
    not_modelled = engine.describe().not_modelled
    answers = _Answers(engine)
    fits = []
    for ruleset in candidates:
        defaults = {n: o.default for n, o in ruleset.options.items()}
        # An impossible input is refused under every variant: it tells none apart.
        selected = [
            it
            for it in applicable(ruleset, cases)
            if it.options == defaults and not expects_refusal(it.case.expected)
        ]
        # Judged only on what it answers: an unsupported case is neither passed nor failed.
        answers.ask(selected, progress)
        items = [it for it in selected if answers.judged(it)]
        played = ruleset.with_options(defaults)
        failing = [
            it.case.id
            for it in items
            if not _agrees_on(case_question(it, answers.get(it)), not_modelled)
        ]
        share = len(failing) / len(items) if items else 1.0
        fits.append((share, played, items, failing, len(selected)))
    # Equal fits: the variant the engine says it plays comes first.
    claimed = engine.describe().variant
    fits.sort(key=lambda f: (f[0], f[1].slug != claimed))
    if explain is not None:
        # The variant asked for is explained, the closest still named beside it.
        chosen = next(i for i, f in enumerate(fits) if f[1].slug == explain.slug)
        fits.insert(0, fits.pop(chosen))
    ranked = [
        VariantFit(r, len(its), failing, [], n, tuple(dict.fromkeys(i.case.operation for i in its)))
        for _, r, its, failing, n in fits
    ]
    asked = explain.slug if explain is not None else None
    try:
        first = fit(ranked[0].ruleset, fits[0][2], answers, not_modelled, progress)
    except KeyboardInterrupt:
        return Fingerprint(engine_name, ranked, interrupted=True, asked=asked)
    first.total, first.operations = ranked[0].total, ranked[0].operations
    return Fingerprint(engine_name, [first, *ranked[1:]], asked=asked)


def inferred_variant(result: VariantFit, variant_id: str, engine_name: str) -> str:
    """A variant file that `extends` the fitted variant with the values the engine plays, each
    marked assumed with the cases that decided it."""
    rules: Json = {}
    undecided: list[str] = []
    for c in result.differing():
        if c.verdict is not Verdict.MUTANT:
            continue
        if c.equal_fits:
            # Equal fits: the corpus cannot say which value the engine plays, so none is written.
            undecided.append(f"{c.clause} = {shown(c.value)}")
            continue
        node = rules
        *parents, leaf = c.clause.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = {
            "value": plain(c.value),
            "assumed": {
                "reason": (
                    f"inferred by guandan fingerprint: {engine_name} answers as if "
                    f"{c.clause} were {shown(c.value)}, deciding cases {', '.join(c.cases[:6])}"
                ),
                "alternatives": [shown(c.variant_value)],
            },
        }
    doc: Json = {
        "id": variant_id,
        "title": f"{result.ruleset.title}, as {engine_name} plays it",
        "title_zh": result.ruleset.title_zh,
        "description": (
            f"The rules {engine_name} was seen to play: {result.ruleset.slug} with the clauses "
            "below changed (guandan fingerprint)."
        ),
        "extends": result.ruleset.slug,
    }
    if rules:
        doc["rules"] = rules
    text: str = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=100)
    if undecided:
        text += (
            "# Not written: values that explain the same cases equally well (the engine answers\n"
            "# as if one of them held; the corpus cannot tell which):\n"
        )
        text += "".join(f"#   {u}\n" for u in undecided)
    return text


def candidates_of(rulesets: Iterable[Ruleset]) -> list[Ruleset]:
    """Each variant once, by slug (the first kept)."""
    seen: dict[str, Ruleset] = {}
    for r in rulesets:
        seen.setdefault(r.slug, r)
    return list(seen.values())


def write(path: Path, text: str) -> None:
    """Write a file whole or not at all, its folder made if missing."""
    write_atomically(path, text)
