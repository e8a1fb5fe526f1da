"""Corpus strength and engine fingerprints: every non-equivalent one-clause mutant of every
bundled variant is killed by some case, the equivalent ones are reviewed data that no case
refutes; `guandan fingerprint` recovers a mutant engine's one changed clause exactly, names the
reference's variant with full agreement, and calls a planted bug unexplained."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.conformance.cases.case_loader import load_corpus
from harness.conformance.explaining.explainer import Answers, Explanation, Question
from harness.conformance.oracles.fingerprint import Verdict, _verdicts, fingerprint
from harness.conformance.oracles.mutation import (
    Equivalence,
    VariantScore,
    applicable,
    load_equivalences,
    mutate_variants,
    score_variant,
)
from harness.engine import ReferenceEngine, load_engine
from harness.frontends.cli import main
from harness.model.loader import bundled_variants, load_variant
from harness.model.mutants import Mutant, alternatives, mutants
from tests.conftest import once_per_run, repo_on_path, slow_but
from tests.engines.mutants import MUTANTS


@pytest.fixture(scope="session")
def scores(tmp_path_factory: pytest.TempPathFactory) -> list[VariantScore]:
    """The mutation score of every bundled variant (two processes), computed once a run."""
    _, found = once_per_run(
        tmp_path_factory,
        "data-mutant-scores",
        lambda _: mutate_variants(bundled_variants(), jobs=2),
    )
    return found


@pytest.mark.slow
def test_every_non_equivalent_mutant_is_killed(scores: list[VariantScore]) -> None:
    """100 % per variant: a new clause or value that no case tells apart fails here."""
    assert {s.slug for s in scores} == {"huaian", "competition", "match-rules", "online-app"}
    for s in scores:
        killed, total = s.score()
        assert total > 100, s.slug
        assert killed == total, [(s.slug, r.clause, r.value) for r in s.survivors]


@pytest.mark.slow
def test_the_guide_gives_the_mutation_figures_as_they_are(scores: list[VariantScore]) -> None:
    """The fuzzing guide's "All N non-equivalent mutants ... the M that survive" are today's
    counts."""
    root = Path(__file__).resolve().parents[1]
    guide = (root / "docs" / "guide" / "fuzzing.md").read_text(encoding="utf-8")
    said = re.search(
        r"All\s+([\d,]+)\s+non-equivalent mutants.*?the\s+([\d,]+)\s+that\s+survive", guide, re.S
    )
    assert said, "the fuzzing guide no longer gives the mutation figures"
    killed = sum(s.score()[0] for s in scores)
    equivalent = sum(len(s.equivalent) for s in scores)
    assert (int(said.group(1).replace(",", "")), int(said.group(2).replace(",", ""))) == (
        killed,
        equivalent,
    )


@pytest.mark.slow
def test_no_case_kills_a_mutant_called_equivalent(scores: list[VariantScore]) -> None:
    """The reviewed equivalences hold: a case that kills one shows its reason wrong."""
    assert not [(s.slug, r.clause, r.value, r.killed_by) for s in scores for r in s.stale]


@pytest.mark.slow
def test_every_equivalence_is_about_some_mutant(scores: list[VariantScore]) -> None:
    """No dead entry: each reviewed reason names a mutant of some bundled variant."""
    used = {r.equivalent for s in scores for r in s.equivalent}
    unused = [e.clause for e in load_equivalences() if e.reason not in used]
    assert not unused


@pytest.mark.slow
def test_every_family_has_killed_mutants(scores: list[VariantScore]) -> None:
    """The clause families that shape play all have mutants, and each is scored."""
    families = {f for s in scores for f in s.families()}
    assert {"combinations", "sequences", "wild", "bombs", "compare", "flow", "levels"} <= families
    assert {"tribute", "ranks", "scoring", "finish", "disclosure"} <= families


def test_a_survivor_is_reported_with_the_cases_expected_to_kill_it() -> None:
    """With the cases citing the double-down's worth taken away, its mutants survive, named."""
    cases, _ = load_corpus([], bundled=True)
    huaian = load_variant("huaian")
    items = [
        it for it in applicable(huaian, cases) if "levels.up.double_down" not in it.case.clauses
    ]
    chosen = [m for m in mutants(huaian) if m.clause == "levels.up.double_down"]
    assert {m.value for m in chosen} == {2, 4}
    result = score_variant(huaian, items, [], chosen)
    survivors = {(r.clause, r.value) for r in result.survivors}
    # Settle cases citing other clauses may still kill one; at least one survives.
    assert survivors
    assert all(r.cited_by == () for r in result.survivors)
    assert result.score()[0] < result.score()[1]


def test_an_equivalence_a_case_refutes_is_stale() -> None:
    """A reason that covers a killed mutant is reported, not trusted."""
    cases, _ = load_corpus([], bundled=True)
    huaian = load_variant("huaian")
    items = applicable(huaian, cases)
    wrong = Equivalence("sequences.wrap", (True,), {}, "wrongly called equivalent")
    result = score_variant(huaian, items, [wrong], [Mutant("sequences.wrap", True)])
    assert [r.clause for r in result.stale] == ["sequences.wrap"]
    assert result.stale[0].killed_by


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        ({"type": "string", "enum": ["a", "b", "c"]}, "a", ["b", "c"]),
        ({"type": "boolean"}, True, [False]),
        ({"type": "integer", "minimum": 0}, 0, [1]),
        ({"type": "integer", "minimum": 0, "maximum": 3}, 3, [2]),
        ({"type": ["integer", "null"], "minimum": 1}, None, [1, 3]),
        ({"anyOf": [{"type": "null"}, {"type": "integer"}]}, 2, [None, 1, 3]),
        (
            {"type": "object", "properties": {"n": {"type": "integer"}, "m": {"enum": [1, 2]}}},
            {"n": 1, "m": 1},
            [{"n": 0, "m": 1}, {"n": 2, "m": 1}, {"n": 1, "m": 2}],
        ),
        (
            {"type": "object", "additionalProperties": {"type": "integer"}},
            {"8": 5},
            [{"8": 4}, {"8": 6}, {}],
        ),
        (
            {"type": "array", "uniqueItems": True, "items": {"enum": ["x", "y", "z"]}},
            ["x"],
            [[], ["x", "y"], ["x", "z"]],
        ),
        ({"type": "array", "minItems": 1, "items": {"type": "object"}}, [{"a": 1}, {"b": 2}],
         [[{"b": 2}], [{"a": 1}], [{"b": 2}, {"a": 1}]]),
    ],
)  # fmt: skip
def test_alternatives_one_step_away(schema: dict[str, Any], value: Any, expected: Any) -> None:
    """Enum members, the other boolean, numbers a step away within bounds, null, a field of an
    object or an entry of a table changed, a set member left out or put in, a list reordered."""
    assert alternatives(schema, value) == expected


def test_guandan_mutate_prints_and_writes_the_score(tmp_path: Path) -> None:
    """`guandan mutate --variant huaian`: exit 0, the score line, JSON and Markdown."""
    out = io.StringIO()
    report, markdown = tmp_path / "m.json", tmp_path / "m.md"
    code = main(
        ["mutate", "--variant", "huaian", "--json", str(report), "--markdown", str(markdown)], out
    )
    assert code == 0, out.getvalue()
    first = out.getvalue().splitlines()[0]
    assert first.startswith("huaian: ") and "mutants killed (100.0 %)" in first
    (data,) = json.loads(report.read_text(encoding="utf-8"))
    assert data["variant"] == "huaian" and data["score"] == 1.0 and not data["survivors"]
    text = markdown.read_text(encoding="utf-8")
    assert "## Equivalent mutants" in text and "levels.start" in text


# ---------------------------------------------------------------------------------------------
# Fingerprints


@pytest.mark.parametrize(
    "slug", slow_but(["huaian", "competition", "match-rules", "online-app"], "competition")
)
def test_the_reference_is_its_own_variant(slug: str) -> None:
    """The reference on a bundled variant: that variant, every observed clause agreeing."""
    result = fingerprint(ReferenceEngine(load_variant(slug)), "reference", bundled_variants())
    assert result.closest.ruleset.slug == slug
    assert result.closest.failing == []
    assert result.closest.agreement == 1.0
    assert not result.closest.differing()
    assert sum(c.verdict is Verdict.VARIANT for c in result.closest.clauses) > 30


@pytest.mark.parametrize(
    "name", slow_but(sorted(MUTANTS), "first_and_fourth_none", "no_first_streak")
)
def test_a_mutant_engine_is_recovered_exactly(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference on a variant with one clause changed: that variant, that clause and value,
    and nothing else."""
    repo_on_path(monkeypatch)
    slug, clause, value = MUTANTS[name]
    ruleset = load_variant(slug)
    ruleset = ruleset.with_options({n: o.default for n, o in ruleset.options.items()})
    engine = load_engine(f"py:tests.engines.mutants:{name}", ruleset)
    result = fingerprint(engine, name, bundled_variants())
    assert result.closest.ruleset.slug == slug
    found = [(c.verdict, c.clause, c.value) for c in result.closest.differing()]
    assert found == [(Verdict.MUTANT, clause, value)]
    assert result.closest.differing()[0].cases


def test_a_planted_bug_is_explained_by_no_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine that drops ten-card bombs plays no value of the bomb's shape clause."""
    repo_on_path(monkeypatch)
    engine = load_engine("py:tests.engines.planted:NoTenCardBomb", load_variant("huaian"))
    result = fingerprint(engine, "no-ten", bundled_variants())
    assert result.closest.ruleset.slug == "huaian"
    (bug,) = result.closest.differing()
    assert bug.verdict is Verdict.UNEXPLAINED and bug.clause == "combinations.bomb.shape"
    assert bug.cases


@pytest.mark.slow
def test_the_json_names_the_closest_variant_the_text_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine that says it plays huaian and plays match-rules, fingerprinted as huaian: the
    text and the JSON both name match-rules the closest variant (it fails none of its cases),
    and the JSON names huaian apart, as the variant asked for and explained."""
    repo_on_path(monkeypatch)
    report = tmp_path / "f.json"
    out = io.StringIO()
    command = ["fingerprint", "--engine", "py:tests.engines.pyengines:PlaysMatchRules"]
    command += ["--variant", "huaian", "--out", str(tmp_path / "f.yaml"), "--json", str(report)]
    main(command, out)
    assert "the closest variant is match-rules (100.0 % passed)" in out.getvalue()
    data = json.loads(report.read_text(encoding="utf-8"))
    named = (data["closest"], data["asked"], data["explained"])
    assert named == ("match-rules", "huaian", "huaian")
    assert data["fits"][0]["variant"] == "huaian"
    # Nothing asked: the closest is the one explained.
    result = fingerprint(ReferenceEngine(load_variant("competition")), "ref", bundled_variants())
    assert result.asked is None and result.to_json()["closest"] == "competition"
    assert result.closest is result.explained


@pytest.mark.parametrize(
    "name", slow_but(["return_to_payer", "jiefeng_next", "counts_at_seven"], "return_to_payer")
)
def test_the_inferred_variant_validates_and_the_engine_passes_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`guandan fingerprint` writes a variant file that `validate` accepts and on which the
    mutant engine passes `guandan check`."""
    repo_on_path(monkeypatch)
    slug, clause, _ = MUTANTS[name]
    spec = f"py:tests.engines.mutants:{name}"
    inferred = tmp_path / f"{name.replace('_', '-')}.yaml"
    out = io.StringIO()
    code = main(["fingerprint", "--engine", spec, "--variant", slug, "--out", str(inferred)], out)
    assert code == 0, out.getvalue()
    assert f"plays {slug}" in out.getvalue() and clause in out.getvalue()
    text = inferred.read_text(encoding="utf-8")
    assert f"extends: {slug}" in text and "assumed:" in text
    assert main(["validate", str(inferred)], io.StringIO()) == 0
    checked = io.StringIO()
    # On the inferred variant itself: the mutant engine plays its one value whatever it is told,
    # so the variants derived from it (cases that set other values) are left out.
    command = ["check", "--engine", spec, "--variant", str(inferred), "--no-derived"]
    assert main(command, checked) == 0, checked.getvalue()
    # The engine fails its own variant's check: the fingerprint is what made it pass.
    assert main(["check", "--engine", spec, "--variant", slug], io.StringIO()) == 1


@pytest.mark.slow
def test_a_variant_of_ones_own_leaves_out_cases_resting_on_what_it_changes(
    tmp_path: Path,
) -> None:
    """match-rules with 接風 to the next player: the bundled cases that play through a 接風 (and
    name no jiefeng value) are left out and reported, and the reference passes the rest."""
    path = tmp_path / "next-lead.yaml"
    path.write_text(
        "id: next-lead\ntitle: Next lead\ntitle_zh: 下家接風\ndescription: t\n"
        "extends: match-rules\nrules:\n  flow:\n    jiefeng:\n      value: next_active\n"
        "      assumed: {reason: a club's rule, alternatives: [partner]}\n",
        encoding="utf-8",
    )
    out = io.StringIO()
    report = tmp_path / "r.json"
    code = main(
        ["check", "--engine", "reference", "--variant", str(path), "--report", str(report)], out
    )
    assert code == 0, out.getvalue()
    left_out = json.loads(report.read_text(encoding="utf-8"))["left_out"]
    assert "flow-disclosure-counts-with-a-seat-out-ten-announced[next-lead]" in left_out
    assert f"NOTE: {len(left_out)} bundled cases left out for next-lead" in out.getvalue()
    # A bundled variant leaves nothing out.
    out = io.StringIO()
    assert main(["check", "--engine", "reference", "--variant", "match-rules"], out) == 0
    assert "left out" not in out.getvalue()


# ---------------------------------------------------------------------------------------------
# Partial engines (issue 22): judged only on what they answer


def test_a_correct_partial_engine_agrees_fully_and_says_how_much_was_judged(
    tmp_path: Path,
) -> None:
    """Classify for one to three cards only: its refusals are not failures; it agrees with its
    variant on every observed clause, exit 0, and the report says what was judged."""
    out = io.StringIO()
    spec = "py:tests.engines.pyengines:SmallClassifier"
    code = main(["fingerprint", "--engine", spec, "--out", str(tmp_path / "fp.yaml")], out)
    text = out.getvalue()
    assert code == 0, text
    assert re.search(r"plays \S+: (\d+)/\1 clauses agree \(100\.0 %\); it fails 0 of", text), text
    assert re.search(r"judged \d+ of \d+ cases: classify only", text), text
    assert "unexplained" not in text


def test_the_variant_asked_for_is_the_one_explained(tmp_path: Path) -> None:
    out = io.StringIO()
    spec = "py:tests.engines.pyengines:SmallClassifier"
    args = ["fingerprint", "--engine", spec, "--variant", "match-rules"]
    assert main([*args, "--out", str(tmp_path / "fp.yaml")], out) == 0, out.getvalue()
    assert out.getvalue().startswith("small-classifier plays match-rules: ")


def test_failing_cases_a_mutant_leaves_unexplained_stay_in_the_report() -> None:
    """A clause whose failing cases a mutant explains only in part: the rest are reported as
    unexplained beside the mutant, not dropped."""
    ruleset = load_variant("huaian")
    mutant = next(iter(mutants(ruleset)))
    failing = [
        Question("classify", {}, ruleset, {}, {}, (mutant.clause,), name) for name in ("a", "b")
    ]
    verdicts = [Explanation((mutant,), (0,)), Explanation((), (1,))]
    found = _verdicts(ruleset, [mutant], [], failing, verdicts, Answers(), ())
    mine = [(f.verdict, f.cases) for f in found if f.clause == mutant.clause]
    assert mine == [(Verdict.MUTANT, ("a",)), (Verdict.UNEXPLAINED, ("b",))]
