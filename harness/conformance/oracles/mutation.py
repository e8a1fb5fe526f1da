"""Corpus strength by mutation (變異測試): every simple one-clause mutant of a variant is played by
the reference interpreter against the cases that apply to the variant; a mutant is killed when a
case fails. A survivor is a hole (no case tells that value from the variant's) unless
`spec/equivalent-mutants.yaml` names it equivalent, with the reason no output can show it.

The same machinery answers the fingerprint's question: which cases tell a clause's values
apart (`kills`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing as mp
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness._paths import data_root, read_cache, spec_dir, write_cache
from harness.conformance.cases.case_loader import Case, load_corpus
from harness.conformance.judging.outcome import outcome
from harness.conformance.judging.outputs import compare_output
from harness.conformance.running.results import RunConfig
from harness.conformance.running.selection import Selected, select
from harness.engine.cluster import bounded_jobs
from harness.engine.process import pool_worker_start
from harness.errors import HarnessError
from harness.model.mutants import Mutant, mutants, mutate, plain
from harness.model.ruleset import Ruleset
from harness.wording import counted

Json = dict[str, Any]


@dataclass(frozen=True)
class Equivalence:
    """A reviewed reason why some mutants of a clause cannot be told apart by any output."""

    clause: str
    values: tuple[Any, ...] | None
    """The mutant values concerned; None for any."""
    when: Mapping[str, Any]
    reason: str

    def covers(self, ruleset: Ruleset, mutant: Mutant) -> bool:
        """Whether this reason is about `mutant` of `ruleset`."""
        if mutant.clause != self.clause:
            return False
        if self.values is not None and not any(_same(mutant.value, v) for v in self.values):
            return False
        return all(
            cid in ruleset.clauses and _same(ruleset.value(cid), value)
            for cid, value in self.when.items()
        )


def shown(value: Any) -> str:
    """A clause value as one line of JSON, keys sorted (also its key for comparing)."""
    return json.dumps(plain(value), sort_keys=True, ensure_ascii=False)


def _same(a: Any, b: Any) -> bool:
    return shown(a) == shown(b)


def load_equivalences(path: Path | None = None) -> list[Equivalence]:
    """The reviewed equivalent mutants (`spec/equivalent-mutants.yaml`); a malformed entry is a
    DataError naming it."""
    path = path or spec_dir() / "equivalent-mutants.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for i, entry in enumerate((data or {}).get("equivalent", [])):
        where = f"{path}: equivalent[{i}]"
        if not isinstance(entry, dict) or not {"clause", "values", "reason"} <= set(entry):
            raise HarnessError(f"{where}: needs clause, values and reason")
        values = entry["values"]
        if values != "any" and not isinstance(values, list):
            raise HarnessError(f"{where}: values must be a list or `any`")
        when = entry.get("when") or {}
        if not isinstance(when, dict):
            raise HarnessError(f"{where}: when must map clause ids to values")
        out.append(
            Equivalence(
                str(entry["clause"]),
                None if values == "any" else tuple(values),
                when,
                " ".join(str(entry["reason"]).split()),
            )
        )
    return out


@dataclass(frozen=True)
class MutantResult:
    """One mutant's fate: the cases that killed it (none: it survived), the cases that cite its
    clause (expected to tell it apart), and the reason it is equivalent, where one is given."""

    clause: str
    value: Any
    killed_by: tuple[str, ...]
    cited_by: tuple[str, ...]
    equivalent: str | None = None

    @property
    def killed(self) -> bool:
        """Whether some case failed on it."""
        return bool(self.killed_by)

    @property
    def family(self) -> str:
        """The clause family (its first part: combinations, tribute, levels…)."""
        return self.clause.split(".")[0]

    def to_json(self) -> Json:
        """As in the JSON report."""
        return {
            "clause": self.clause,
            "value": plain(self.value),
            "killed": self.killed,
            "killed_by": list(self.killed_by),
            "cited_by": list(self.cited_by),
            "equivalent": self.equivalent,
        }


@dataclass
class VariantScore:
    """The mutation score of one variant."""

    slug: str
    results: list[MutantResult] = field(default_factory=list)
    interrupted: bool = False
    """Stopped (Ctrl-C) before every mutant was scored: `results` holds those that were."""

    @property
    def survivors(self) -> list[MutantResult]:
        """Mutants no case killed and no reviewed reason calls equivalent: the holes."""
        return [r for r in self.results if not r.killed and r.equivalent is None]

    @property
    def equivalent(self) -> list[MutantResult]:
        """Mutants that survive for a reviewed reason."""
        return [r for r in self.results if not r.killed and r.equivalent is not None]

    @property
    def stale(self) -> list[MutantResult]:
        """Mutants called equivalent that a case killed: the reason is wrong."""
        return [r for r in self.results if r.killed and r.equivalent is not None]

    def score(self, family: str | None = None) -> tuple[int, int]:
        """(killed, non-equivalent mutants), for the variant or one clause family."""
        chosen = [r for r in self.results if r.equivalent is None and family in (None, r.family)]
        return sum(r.killed for r in chosen), len(chosen)

    def families(self) -> list[str]:
        """The clause families that have mutants, in first-seen order."""
        return list(dict.fromkeys(r.family for r in self.results))

    def to_json(self) -> Json:
        """As in the JSON report."""
        killed, total = self.score()
        return {
            "variant": self.slug,
            "killed": killed,
            "mutants": total,
            "equivalent": len(self.equivalent),
            "score": killed / total if total else 1.0,
            "families": {
                f: dict(zip(("killed", "mutants"), self.score(f), strict=True))
                for f in self.families()
            },
            "survivors": [r.to_json() for r in self.survivors],
            "stale_equivalences": [r.to_json() for r in self.stale],
            "results": [r.to_json() for r in self.results],
            "interrupted": self.interrupted,
        }


def applicable(ruleset: Ruleset, cases: Sequence[Case]) -> list[Selected]:
    """The cases that apply to the variant, each with the options it chooses. Cases run on a
    variant derived from it (a value it does not play, `selection.select`) are left out: a
    fingerprint or a mutant of the variant is about the variant's own values."""
    chosen = select(RunConfig(engine="reference", variants=[ruleset]), cases)
    return [item for item in chosen if item.ruleset.slug == ruleset.slug]


def answer(item: Selected, mutant: Mutant) -> Json | None:
    """The reference's answer to the case under the mutant (of the options the case chose), or
    None where the mutant cannot be built for them or refuses the input."""
    changed = mutate(item.ruleset, mutant.clause, mutant.value)
    if changed is None:
        return None
    return outcome(item.case.operation, item.case.input, changed)


def kills(item: Selected, mutant: Mutant) -> bool:
    """Whether the case fails on the reference built on the mutant."""
    got = answer(item, mutant)
    return got is not None and bool(compare_output(item.case.expected, got))


def score_variant(
    ruleset: Ruleset,
    items: Sequence[Selected],
    equivalences: Sequence[Equivalence],
    chosen: Iterable[Mutant] | None = None,
    every_killer: bool = False,
    into: VariantScore | None = None,
    scored: Callable[[], None] | None = None,
) -> VariantScore:
    """Every mutant of `ruleset` against `items`: the cases citing its clause are tried first,
    and (unless `every_killer`) a mutant's run stops at its first failing case. Each result is
    added to `into` (a new score by default) as it comes, and `scored` told."""
    result = into if into is not None else VariantScore(ruleset.slug)
    for m in chosen if chosen is not None else mutants(ruleset):
        ordered = sorted(items, key=lambda it: m.clause not in it.case.clauses)
        killers: list[str] = []
        for item in ordered:
            if kills(item, m):
                killers.append(item.case.id)
                if not every_killer:
                    break
        result.results.append(_result(ruleset, items, equivalences, m, killers))
        if scored is not None:
            scored()
    return result


def _result(
    ruleset: Ruleset,
    items: Sequence[Selected],
    equivalences: Sequence[Equivalence],
    mutant: Mutant,
    killers: Sequence[str],
) -> MutantResult:
    """The mutant's result: its killers, the cases citing its clause, a reviewed reason."""
    cited = tuple(it.case.id for it in items if mutant.clause in it.case.clauses)
    reason = next((e.reason for e in equivalences if e.covers(ruleset, mutant)), None)
    return MutantResult(mutant.clause, mutant.value, tuple(killers), cited, reason)


MutantProgress = Callable[[str, int, int], None]
"""Told, as mutants are scored, the variant's slug, how many of its mutants are scored and how
many it has (a live line on a terminal)."""


def _teller(progress: MutantProgress | None, score: VariantScore, total: int) -> Callable[[], None]:
    """What to call as mutants are added to `score`: `progress` told how many there are."""

    def told() -> None:
        if progress is not None:
            progress(score.slug, len(score.results), total)

    return told


# Forked workers read the run's state from here (set before the pool starts).
_WORK: dict[str, Any] = {}


def _score_piece(piece: Sequence[Mutant]) -> VariantScore:
    return score_variant(_WORK["ruleset"], _WORK["items"], _WORK["equivalences"], piece)


def mutate_variants(
    variants: Sequence[Ruleset],
    jobs: int = 1,
    cases: Sequence[Case] | None = None,
    into: list[VariantScore] | None = None,
    progress: MutantProgress | None = None,
) -> list[VariantScore]:
    """The mutation score of each variant on the bundled corpus (or `cases`), in `jobs`
    processes (the mutants of a variant shared among them). Each score is added to `into` as
    it starts and filled as mutants are scored, marked `interrupted` until it is complete: after
    Ctrl-C (KeyboardInterrupt, raised on), `into` holds what finished. `progress` is told as
    mutants are scored."""
    bundled = cases is None
    if cases is None:
        cases, problems = load_corpus([], bundled=True)
        if problems:
            raise HarnessError("; ".join(str(p) for p in problems))
    equivalences = load_equivalences()
    out = into if into is not None else []
    for ruleset in variants:
        score = VariantScore(ruleset.slug, interrupted=True)
        out.append(score)
        items = applicable(ruleset, cases)
        every = list(mutants(ruleset))
        told = _teller(progress, score, len(every))
        told()
        # The bundled corpus's killers are kept by what they depend on (the variant, the code,
        # the data): the site build and the test suite score the same variants.
        kept = _kept_killers(ruleset) if bundled else None
        if kept is not None and {_mutant_key(m) for m in every} == set(kept):
            score.results += [
                _result(ruleset, items, equivalences, m, kept[_mutant_key(m)]) for m in every
            ]
            told()
        else:
            # One process per CPU at most, and none more than there are mutants.
            workers = bounded_jobs(jobs, len(every))
            if workers <= 1 or "fork" not in mp.get_all_start_methods():
                score_variant(ruleset, items, equivalences, every, into=score, scored=told)
            else:
                _score_in_pool(score, ruleset, items, equivalences, every, workers, told)
            if bundled:
                _keep_killers(ruleset, score)
        score.interrupted = False
    return out


# The killers of each mutant of a variant on the bundled corpus, kept as JSON in the user's
# cache: data, never code, and only read back for mutants the variant has now.
_KILLERS_FORMAT = "1"


@functools.cache
def _inputs_digest() -> str:
    """What a score on the bundled corpus depends on besides the variant: the harness's code
    and every schema, variant and case file."""
    package = Path(__file__).resolve().parents[1]
    root = data_root()
    files = [(package, p) for p in sorted(package.rglob("*.py"))]
    for folder in ("spec", "variants", "conformance_cases"):
        files += [(root, p) for p in sorted((root / folder).rglob("*")) if p.is_file()]
    digest = hashlib.sha256(_KILLERS_FORMAT.encode())
    for base, path in files:
        digest.update(path.relative_to(base).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _killers_name(ruleset: Ruleset) -> str:
    variant = json.dumps(ruleset.to_json(), sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256(f"{_inputs_digest()}\0{variant}".encode()).hexdigest()
    return f"mutant-killers-{digest[:32]}.json"


def _kept_killers(ruleset: Ruleset) -> dict[str, list[str]] | None:
    """The killers kept for the variant's mutants (by `shown` clause and value); None when
    nothing usable is kept."""
    data = read_cache(_killers_name(ruleset))
    if data is None:
        return None
    try:
        kept = json.loads(data.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(kept, dict) or not all(
        isinstance(v, list) and all(isinstance(c, str) for c in v) for v in kept.values()
    ):
        return None
    return kept


def _mutant_key(mutant: Mutant) -> str:
    return f"{mutant.clause} {shown(mutant.value)}"


def _keep_killers(ruleset: Ruleset, score: VariantScore) -> None:
    kept = {_mutant_key(Mutant(r.clause, r.value)): list(r.killed_by) for r in score.results}
    write_cache(_killers_name(ruleset), json.dumps(kept, ensure_ascii=False).encode("utf-8"))


def _score_in_pool(
    score: VariantScore,
    ruleset: Ruleset,
    items: Sequence[Selected],
    equivalences: Sequence[Equivalence],
    every: Sequence[Mutant],
    jobs: int,
    scored: Callable[[], None],
) -> None:
    """Score `every` mutant into `score` in `jobs` forked processes, in the mutants' order,
    `scored` told as each piece comes back.

    The mutants go out in small pieces, taken by whichever process is free: after Ctrl-C only
    the pieces under way are lost."""
    size = max(1, len(every) // (8 * jobs))
    pieces = [every[i : i + size] for i in range(0, len(every), size)]
    order = {(m.clause, shown(m.value)): i for i, m in enumerate(every)}
    _WORK.update(ruleset=ruleset, items=items, equivalences=equivalences)
    try:
        with mp.get_context("fork").Pool(jobs, initializer=pool_worker_start) as pool:
            for part in pool.imap_unordered(_score_piece, pieces):
                score.results += part.results
                scored()
    finally:
        score.results.sort(key=lambda r: order[(r.clause, shown(r.value))])


def write_markdown(scores: Sequence[VariantScore], equivalences: Sequence[Equivalence]) -> str:
    """The report as Markdown: the score per variant and family, survivors, equivalent mutants
    (and, first, a word on the variants an interruption left partly scored)."""
    lines = [
        f"**Interrupted**: {s.slug} is scored on {counted(len(s.results), 'mutant')} only, the "
        "others "
        "were not run.\n"
        for s in scores
        if s.interrupted
    ]
    lines += [
        "| variant | killed | mutants | score | equivalent |",
        "| --- | --- | --- | --- | --- |",
    ]
    for s in scores:
        killed, total = s.score()
        pct = 100 * killed / total if total else 100.0
        lines.append(f"| {s.slug} | {killed} | {total} | {pct:.1f} % | {len(s.equivalent)} |")
    families = list(dict.fromkeys(f for s in scores for f in s.families()))
    lines += ["", "| family | " + " | ".join(s.slug for s in scores) + " |"]
    lines.append("| --- |" + " --- |" * len(scores))
    for f in families:
        cells = []
        for s in scores:
            killed, total = s.score(f)
            cells.append(f"{killed}/{total}" if total else "–")
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    lines += ["", "## Surviving mutants", ""]
    survivors = [(s.slug, r) for s in scores for r in s.survivors]
    if not survivors:
        lines.append("None: every mutant that an output can show is killed by some case.")
    for slug, r in survivors:
        cited = ", ".join(f"`{c}`" for c in r.cited_by[:8]) or "no case cites the clause"
        lines.append(
            f"- **{slug}**: `{r.clause}` = `{shown(r.value)}`; expected to tell it apart: {cited}"
        )
    stale = [(s.slug, r) for s in scores for r in s.stale]
    if stale:
        lines += ["", "## Equivalences a case refutes", ""]
        lines += [
            f"- **{slug}**: `{r.clause}` = `{shown(r.value)}` killed by `{r.killed_by[0]}`"
            for slug, r in stale
        ]
    lines += ["", "## Equivalent mutants", ""]
    for e in equivalences:
        values = "any value" if e.values is None else ", ".join(f"`{shown(v)}`" for v in e.values)
        when = ", ".join(f"`{k}` = `{shown(v)}`" for k, v in e.when.items())
        where = f", where {when}" if when else ""
        lines.append(f"- `{e.clause}`: {values}{where}. {e.reason}")
    return "\n".join(lines) + "\n"
