"""The one explainer (差異說明): which clause value, if any, makes the reference answer as an
engine did. `fingerprint`, `fuzz` and `check` all explain through `explain`.

A *mutant* (one clause value changed, `harness.model.mutants`) explains a set of answers that
disagree with the variant only if it answers each of them as the engine did *and* the engine's
other answers do not refute it. An explanation must explain: on each of those inputs the mutant
changes the reference's answer in the fields compared, the way the engine did, and the cards the
engine chose make its readings under the mutant's rules; a difference in cards alone, or one no
clause value produces, is explained by none. On every answer the engine got right that the
mutant would get wrong, the mutant is refuted (`Evidence`), and so it is wherever a further
probe says so (`fuzz` asks the engine fresh inputs and the corpus cases that tell the mutant
apart). What no unrefuted mutant answers is "no clause value explains it": a bug, with the
clauses its questions cite. Mutants that explain exactly the same answers are equal fits and
are given together ("as if A, or B"), never one picked among them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.conformance.compare import compare_output, project, without_fields
from harness.conformance.judge import weigh
from harness.conformance.outcome import outcome, refusal
from harness.conformance.selection import Selected
from harness.conformance.soundness import soundness
from harness.model.mutants import Mutant, mutate, plain
from harness.model.ruleset import Ruleset

Json = dict[str, Any]
NO_CLAUSE = "no clause value explains it"


FAMILIES: dict[str, frozenset[str]] = {
    "classify": frozenset({"combinations", "sequences", "wild", "ranks", "compare"}),
    "beats": frozenset({"compare", "bombs", "ranks", "sequences", "combinations", "wild"}),
    "legal_plays": frozenset(
        {"combinations", "sequences", "wild", "ranks", "compare", "bombs", "flow", "disclosure"}
    ),
    "legal_actions": frozenset(
        {"combinations", "sequences", "wild", "ranks", "compare", "bombs", "flow", "disclosure"}
    ),
    "tribute": frozenset({"tribute", "ranks", "wild"}),
    "settle": frozenset({"levels", "finish", "match"}),
    "replay": frozenset(
        {"flow", "disclosure", "finish", "combinations", "sequences", "compare", "bombs", "wild"}
        | {"ranks"}
    ),
    "score": frozenset({"scoring", "levels"}),
}
"""The clause families whose values an operation's answer can depend on (an operation not
listed: every family). A replay plays no tribute and settles no level; a classification knows
nothing of levels, tribute or scores: their mutants are not tried there. Checked against the
corpus by tests/test_explainer.py."""


def bears_on(clause_id: str, operation: str) -> bool:
    """Whether a clause's value can change the answer of `operation` (by its family)."""
    families = FAMILIES.get(operation)
    return families is None or clause_id.split(".")[0] in families


@dataclass(frozen=True)
class Question:
    """One question put to an engine (問題): the operation and input, the rule set it is asked
    under (options chosen), the answer expected (only the keys it names are compared), the
    engine's answer (None: it gave none), the clauses the question cites, and its name."""

    operation: str
    input: Mapping[str, Any]
    ruleset: Ruleset
    expected: Mapping[str, Any]
    answer: Any
    clauses: tuple[str, ...] = ()
    name: str = ""


@dataclass(frozen=True)
class Explanation:
    """The verdict on some disagreeing answers (說明): the mutants that answer all of them as the
    engine did, equal fits together (none: no clause value explains them), the questions
    concerned (indices into the disagreeing questions), and the clauses those questions cite."""

    mutants: tuple[Mutant, ...]
    questions: tuple[int, ...]
    cited: tuple[str, ...] = ()

    @property
    def explained(self) -> bool:
        """Whether some clause value explains the answers."""
        return bool(self.mutants)

    def text(self) -> str:
        """`as if sequences.ace_high were false, or wild.suit were "S"`, or `no clause value
        explains it (cites combinations.straight.shape)`."""
        if self.mutants:
            fits = [f"{m.clause} were {shown(m.value)}" for m in self.mutants]
            return "as if " + ", or ".join(fits)
        cites = f" (cites {', '.join(self.cited)})" if self.cited else ""
        return NO_CLAUSE + cites

    def to_json(self) -> dict[str, Any]:
        """The fields a report entry gains: `verdict` (in words) and `explained_by` (`clause =
        value` of each equal fit; empty when no clause value explains it)."""
        return {
            # An entry names its own clauses: the verdict does not repeat the group's.
            "verdict": self.text() if self.mutants else NO_CLAUSE,
            "explained_by": [f"{m.clause} = {shown(m.value)}" for m in self.mutants],
        }


def case_question(item: Selected, answer: Any = None) -> Question:
    """A case (with the options it chose) and an engine's answer to it, as a question."""
    case = item.case
    return Question(
        case.operation, case.input, item.ruleset, case.expected, answer, case.clauses, case.id
    )


def shown(value: Any) -> str:
    """A clause value as one line of JSON, keys sorted."""
    return json.dumps(plain(value), sort_keys=True, ensure_ascii=False)


@dataclass
class Answers:
    """The reference's answers under mutants, each computed once (a cache shared by one run)."""

    cache: dict[tuple[Ruleset, str, str, str, str], Json | None] = field(default_factory=dict)

    def of(self, q: Question, m: Mutant | None) -> Json | None:
        """The reference's answer to `q` under `m`, or under the question's own rules for None
        (None: the mutant cannot be built for the question's options; `outcome.refusal()`: it
        refuses the input)."""
        # By content, not by the question object: probes make questions as they go.
        text = json.dumps(q.input, sort_keys=True, default=str)
        clause, value = ("", "") if m is None else (m.clause, shown(m.value))
        key = (q.ruleset, q.operation, text, clause, value)
        if key not in self.cache:
            changed = q.ruleset if m is None else mutate(q.ruleset, m.clause, m.value)
            if changed is None:
                self.cache[key] = None
            else:
                self.cache[key] = outcome(q.operation, q.input, changed)
        return self.cache[key]

    def reproduces(self, q: Question, m: Mutant, not_modelled: Sequence[str] = ()) -> bool:
        """Whether the mutant answers `q` as the engine did (an explanation must explain): the
        engine's answer agrees with the mutant's on the fields `q` compares, its listing is
        sound under the mutant's rules, and the mutant changes what the engine got wrong: its
        answer differs from the expected one on those fields, or it makes sound a listing the
        question's own rules find unsound (a legal_actions case that compares the count alone).
        A mutant that changes nothing there explains no difference, a card fault least of all."""
        if q.answer is None:
            return False
        mine = self.of(q, m)
        # A reference that refuses the input under the mutant answers no engine that answered.
        changed = mutate(q.ruleset, m.clause, m.value)
        if mine is None or mine == refusal() or changed is None:
            return False
        wanted, _ = without_fields(dict(q.expected), not_modelled)
        if not weigh(project(mine, wanted), q.answer, not_modelled=not_modelled).agrees:
            return False
        # Where the compared fields are as expected, only a listing unsound under the question's
        # rules is left to explain, and a mutant changing nothing on this input cannot.
        as_expected = not compare_output(wanted, mine)
        if as_expected and (mine == self.of(q, None) or not _unsound(q, q.ruleset, not_modelled)):
            return False
        return not _unsound(q, changed, not_modelled)

    def kills(self, q: Question, m: Mutant, not_modelled: Sequence[str] = ()) -> bool:
        """Whether the mutant answers `q` otherwise than expected (on an answer the engine got
        right, that refutes the mutant)."""
        mine = self.of(q, m)
        if mine is None:
            return False
        wanted, _ = without_fields(dict(q.expected), not_modelled)
        return bool(compare_output(wanted, mine))


@dataclass(frozen=True)
class Evidence:
    """What a mutant must not contradict: the questions the engine answered as expected, and a
    probe that may look further (True: the engine's answers refute the mutant)."""

    agreeing: Sequence[Question] = ()
    probe: Callable[[Mutant], bool] | None = None

    def refutes(self, m: Mutant, answers: Answers, not_modelled: Sequence[str] = ()) -> bool:
        """Whether some answer of the engine refutes `m` (the questions citing its clause are
        tried first, as they are likeliest to)."""
        ordered = sorted(
            (q for q in self.agreeing if bears_on(m.clause, q.operation)),
            key=lambda q: m.clause not in q.clauses,
        )
        if any(answers.kills(q, m, not_modelled) for q in ordered):
            return True
        return self.probe is not None and self.probe(m)


def explain(
    disagreeing: Sequence[Question],
    candidates: Iterable[Mutant],
    evidence: Evidence,
    not_modelled: Sequence[str] = (),
    answers: Answers | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Explanation]:
    """The verdicts on `disagreeing`: greedily, the unrefuted mutants that answer the most of the
    open questions as the engine did (equal fits together; one value per clause), then one
    verdict "no clause value explains it" for the rest, with the clauses they cite.
    `progress(done, total)` is told of each mutant tried."""
    answers = answers or Answers()
    every = list(candidates)
    hits: dict[int, frozenset[int]] = {}
    for i, m in enumerate(every):
        if progress is not None:
            progress(i, len(every))
        found = frozenset(
            j
            for j, q in enumerate(disagreeing)
            if bears_on(m.clause, q.operation) and answers.reproduces(q, m, not_modelled)
        )
        if found:
            hits[i] = found
    refuted: dict[int, bool] = {}

    def is_refuted(i: int) -> bool:
        if i not in refuted:
            refuted[i] = evidence.refutes(every[i], answers, not_modelled)
        return refuted[i]

    open_questions = set(range(len(disagreeing)))
    used: set[str] = set()
    out: list[Explanation] = []
    while open_questions:
        ranked = sorted(
            (i for i in hits if every[i].clause not in used),
            key=lambda i: (-len(hits[i] & open_questions), i),
        )
        best: frozenset[int] | None = None
        group: list[int] = []
        for i in ranked:
            mine = hits[i] & open_questions
            if not mine or (best is not None and len(mine) < len(best)):
                break
            if best is not None and mine != best:
                continue
            if is_refuted(i):
                continue
            best = frozenset(mine)
            group.append(i)
        if best is None:
            break
        chosen = tuple(every[i] for i in group)
        out.append(Explanation(chosen, tuple(sorted(best)), _cited(disagreeing, best)))
        used |= {m.clause for m in chosen}
        open_questions -= best
    if open_questions:
        rest = tuple(sorted(open_questions))
        out.append(Explanation((), rest, _cited(disagreeing, rest)))
    return out


def telling(progress: Callable[[str], None] | None, what: str) -> Callable[[int, int], None] | None:
    """`explain`'s progress as a line of words (`WHAT: mutant 40/157`), or None."""
    if progress is None:
        return None
    say = progress

    def told(done: int, total: int) -> None:
        say(f"{what}: mutant {done}/{total}")

    return told


def _unsound(q: Question, ruleset: Ruleset, not_modelled: Sequence[str]) -> bool:
    """Whether the engine's listing in answer to `q` has cards that do not make its readings
    under `ruleset` (or do not beat the play on the table): `soundness`, as the judge reads it."""
    sound = soundness(q.operation, q.input, ruleset, not_modelled)
    return sound is not None and bool(sound(q.answer))


def _cited(questions: Sequence[Question], chosen: Iterable[int]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c for j in sorted(chosen) for c in questions[j].clauses))
