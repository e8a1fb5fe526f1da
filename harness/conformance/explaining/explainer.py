"""The one explainer (差異說明): which clause value, if any, makes the reference answer as an
engine did. `fingerprint`, `fuzz` and `check` all explain through `explain`.

A *mutant* (one clause value changed, `harness.model.mutants`) explains a set of answers that
disagree with the variant only if it answers each of them as the engine did *and* the engine's
other answers do not refute it. An explanation must explain: on each of those inputs the mutant
changes the reference's answer where the engine's differs, the way the engine did, in the fields
compared or in the readings a listing's cards make (the engine's listing is sound under the
mutant's rules); a mutant that leaves the answer as expected explains nothing, so cards that
make no reading under any one changed value are explained by none. On every answer the engine
got right that the mutant would get wrong, the mutant is refuted (`Evidence`), and so it is
wherever a further probe says so (`fuzz` asks the engine fresh inputs and the corpus cases that
tell the mutant apart). What no unrefuted mutant answers is "no clause value explains it": a
bug, with the clauses its questions cite. Mutants that explain exactly the same answers are
equal fits and are given together ("as if A, or B"), never one picked among them.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.conformance.judging.judge import weigh
from harness.conformance.judging.outcome import outcome, refusal
from harness.conformance.judging.outputs import compare_output, project, without_fields
from harness.conformance.judging.soundness import soundness
from harness.conformance.running.selection import Selected
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

    @functools.cached_property
    def digest(self) -> str:
        """What the question asks and was answered, as a short digest: the key of its weighings
        (an engine's answer may be megabytes; it is read once, here)."""
        text = json.dumps(
            [self.operation, self.input, self.expected, self.answer], sort_keys=True, default=str
        )
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


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
        """`as if sequences.ace_high were false, or wild.suit were "S"`, `plays huaian's own
        value of sequences.wrap, not the derived variant's`, or `no clause value explains it
        (cites combinations.straight.shape)`."""
        if self.mutants:
            fits = [f"{m.clause} were {shown(m.value)}" for m in self.mutants if not m.base]
            own = [
                f"plays {m.base}'s own value of {m.clause}, not the derived variant's"
                for m in self.mutants
                if m.base
            ]
            return ", or ".join((["as if " + ", or ".join(fits)] if fits else []) + own)
        cites = f" (cites {', '.join(self.cited)})" if self.cited else ""
        return NO_CLAUSE + cites

    def to_json(self) -> dict[str, Any]:
        """The fields a report entry gains: `verdict` (in words) and `explained_by` (`clause =
        value` of each equal fit, `(huaian's own value)` after a derived variant's clause set
        back to its base's; empty when no clause value explains it)."""
        return {
            # An entry names its own clauses: the verdict does not repeat the group's.
            "verdict": self.text() if self.mutants else NO_CLAUSE,
            "explained_by": [
                f"{m.clause} = {shown(m.value)}" + (f" ({m.base}'s own value)" if m.base else "")
                for m in self.mutants
            ],
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


@dataclass(frozen=True)
class _Weighed:
    """A mutant's answer to a question, weighed once and kept as two bits (an answer itself is
    not kept: one to a 27-card hand's legal_actions is megabytes, and a run weighs hundreds of
    them under every mutant): whether it answers otherwise than expected on the compared
    fields, and whether it answers as the engine did (`Answers.reproduces`)."""

    kills: bool
    reproduces: bool


@dataclass(frozen=True)
class _Asked:
    """What every weighing of one question shares, found once: whether the engine's answer is
    as expected on the compared fields, whether its listing is unsound under the question's own
    rules, and then (only then) the reference's own answer."""

    as_expected: bool
    unsound: bool
    own: Json | None = None


_Key = tuple[Ruleset, str, str, str, tuple[str, ...]]


@dataclass
class Answers:
    """How the reference answers questions under mutants, each question and mutant weighed once
    (a cache shared by one explaining, to be dropped after it)."""

    cache: dict[_Key, _Weighed | None] = field(default_factory=dict)
    asked: dict[tuple[Ruleset, str, tuple[str, ...]], _Asked] = field(default_factory=dict)

    def of(self, q: Question, m: Mutant | None) -> Json | None:
        """The reference's answer to `q` under `m`, or under the question's own rules for None
        (None: the mutant cannot be built for the question's options; `outcome.refusal()`: it
        refuses the input); computed, not kept."""
        changed = q.ruleset if m is None else mutate(q.ruleset, m.clause, m.value)
        return None if changed is None else outcome(q.operation, q.input, changed)

    def reproduces(self, q: Question, m: Mutant, not_modelled: Sequence[str] = ()) -> bool:
        """Whether the mutant answers `q` as the engine did (an explanation must explain): the
        engine's answer agrees with the mutant's on the fields `q` compares, its listing is
        sound under the mutant's rules, and the mutant changes what the engine got wrong: its
        answer differs from the expected one on those fields, or it makes sound a listing the
        question's own rules find unsound (a legal_actions case that compares the count alone).
        A mutant that changes nothing there explains no difference, a card fault least of all."""
        weighed = self._weighed(q, m, not_modelled)
        return weighed is not None and weighed.reproduces

    def kills(self, q: Question, m: Mutant, not_modelled: Sequence[str] = ()) -> bool:
        """Whether the mutant answers `q` otherwise than expected (on an answer the engine got
        right, that refutes the mutant)."""
        weighed = self._weighed(q, m, not_modelled)
        return weighed is not None and weighed.kills

    def _weighed(self, q: Question, m: Mutant, not_modelled: Sequence[str]) -> _Weighed | None:
        # By content, not by the question object: probes make questions as they go.
        key = (q.ruleset, q.digest, m.clause, shown(m.value), tuple(not_modelled))
        if key not in self.cache:
            mine = self.of(q, m)
            if mine is None:
                self.cache[key] = None
            else:
                wanted, _ = without_fields(dict(q.expected), not_modelled)
                kills = bool(compare_output(wanted, mine))
                reproduces = self._explains(q, m, mine, wanted, kills, not_modelled)
                self.cache[key] = _Weighed(kills, reproduces)
        return self.cache[key]

    def _explains(
        self,
        q: Question,
        m: Mutant,
        mine: Json,
        wanted: Mapping[str, Any],
        kills: bool,
        not_modelled: Sequence[str],
    ) -> bool:
        """`reproduces` of the mutant's answer `mine`, `kills` already found."""
        # A reference that refuses the input under the mutant answers no engine that answered.
        changed = mutate(q.ruleset, m.clause, m.value)
        if q.answer is None or mine == refusal() or changed is None:
            return False
        asked = self._asked(q, wanted, not_modelled)
        if kills:
            # An answer as expected where the mutant's is not: an answer the engine got right.
            if asked.as_expected:
                return False
        # Where the compared fields are as expected, only a listing unsound under the question's
        # rules is left to explain, and a mutant changing nothing on this input cannot.
        elif not (asked.as_expected and asked.unsound) or mine == asked.own:
            return False
        if not weigh(project(mine, wanted), q.answer, not_modelled=not_modelled).agrees:
            return False
        return not _unsound(q, changed, not_modelled)

    def _asked(self, q: Question, wanted: Mapping[str, Any], not_modelled: Sequence[str]) -> _Asked:
        """What every weighing of `q` shares (`_Asked`), found at its first."""
        key = (q.ruleset, q.digest, tuple(not_modelled))
        if key not in self.asked:
            as_expected = not compare_output(wanted, q.answer, not_modelled)
            unsound = _unsound(q, q.ruleset, not_modelled)
            own = self.of(q, None) if unsound else None
            self.asked[key] = _Asked(as_expected, unsound, own)
        return self.asked[key]


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
