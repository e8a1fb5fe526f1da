"""Cases on clause values no bundled variant plays run on derived variants (issue 25)."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from harness.conformance.cases.case_loader import Case, check_cases, load_cases, run_variants
from harness.conformance.running import selection
from harness.conformance.running.runner import ExpectFail, RunConfig, Status, run, select
from harness.engine.process import ProcessEngine
from harness.engine.server import _Server
from harness.frontends.cli import main
from harness.model.derived import derive, derived_name, merged, value_matches
from harness.model.loader import load_variant
from harness.model.mutants import mutate
from tests.conftest import PLUGIN_ARGS
from tests.engines import ignores_values

pytest_plugins = ["pytester"]

FIXTURES = Path(__file__).parent / "data" / "derived_cases"
CASES, PROBLEMS = load_cases([FIXTURES])
BY_ID = {case.id: case for case in CASES}
PASS_CASE = "derived-pass-refused-when-able-to-beat"
PASS_VARIANT = "huaian[flow.pass=when_unable]"
HAND_KEY = (
    "derived-hand-count-always-visible[competition[disclosure.hand_count.mode=always_visible]]"
)
IGNORES = "py:tests.engines.ignores_values:make_ignores_when_unable"


def _config(engine: str, **kwargs: object) -> RunConfig:
    return RunConfig(
        engine=engine,
        variants=[load_variant(s) for s in ("huaian", "competition")],
        cases_paths=[FIXTURES],
        bundled=False,
        **kwargs,  # type: ignore[arg-type]
    )


def test_the_fixture_cases_load_and_check_clean() -> None:
    assert not PROBLEMS
    assert check_cases(CASES) == []


def test_a_case_on_an_unplayed_value_runs_on_a_derived_variant() -> None:
    [ruleset] = run_variants(BY_ID[PASS_CASE])
    assert ruleset.slug == PASS_VARIANT
    assert ruleset.value("flow.pass") == "when_unable"
    # Every other clause is the base's.
    huaian = load_variant("huaian")
    assert all(ruleset.value(c) == huaian.value(c) for c in huaian.clauses if c != "flow.pass")


def test_one_derived_ruleset_is_shared_by_cases_with_the_same_base_and_values() -> None:
    huaian = load_variant("huaian")
    first = derive(huaian, {"flow.pass": "when_unable", "sequences.wrap": True})
    again = derive(huaian, {"sequences.wrap": True, "flow.pass": "when_unable"})
    assert first is not None and first is again
    assert first.slug == "huaian[flow.pass=when_unable,sequences.wrap=true]"
    twin = dataclasses.replace(BY_ID[PASS_CASE], id="twin")
    assert run_variants(twin)[0] is run_variants(BY_ID[PASS_CASE])[0]


def test_a_value_the_loader_refuses_derives_nothing() -> None:
    # bigger_payer names nobody after a single tribute: the registry refuses it.
    huaian = load_variant("huaian")
    assert derive(huaian, {"tribute.lead.single": "bigger_payer"}) is None
    refused = dataclasses.replace(
        BY_ID[PASS_CASE], id="refused", applies_when={"tribute.lead.single": "bigger_payer"}
    )
    assert run_variants(refused) == []
    [problem] = check_cases([refused])
    assert "nor to one derived from them" in problem.message


def test_a_case_some_bundled_variant_plays_is_not_derived() -> None:
    case = dataclasses.replace(
        BY_ID[PASS_CASE], id="played", applies_when={"flow.pass": "always"}, variants=()
    )
    assert [r.slug for r in run_variants(case)] == [
        "competition",
        "huaian",
        "match-rules",
        "online-app",
    ]


def test_partial_object_match_and_merge() -> None:
    competition = load_variant("competition")  # hand_count {max_cards: 6, mode: on_request}
    value = competition.value("disclosure.hand_count")
    assert value_matches(value, {"mode": "on_request"})
    assert not value_matches(value, {"mode": "announce"})
    assert not value_matches(None, {"mode": "on_request"})
    assert value_matches([1, 2], [1, 2]) and not value_matches([1, 2], [1])  # lists: whole
    assert merged(value, {"mode": "always_visible"}) == {"max_cards": 6, "mode": "always_visible"}
    case = BY_ID["derived-hand-count-always-visible"]
    assert not case.values_hold(competition)
    [ruleset] = run_variants(case)
    assert ruleset.slug == "competition[disclosure.hand_count.mode=always_visible]"
    assert ruleset.value("disclosure.hand_count") == {"max_cards": 6, "mode": "always_visible"}
    assert derived_name("x", {"wild.excluded": ["bomb", "joker_bomb"]}) == (
        "x[wild.excluded=[bomb,joker_bomb]]"
    )


def test_the_reference_passes_the_derived_cases() -> None:
    result = run(_config("reference"))
    assert {r.key: r.status for r in result.results} == {
        f"{PASS_CASE}[{PASS_VARIANT}]": Status.PASS,
        HAND_KEY: Status.PASS,
    }


def test_an_engine_that_ignores_the_value_fails_check() -> None:
    result = run(_config(IGNORES))
    failed = [r.key for r in result.results if r.status is Status.FAIL]
    assert failed == [f"{PASS_CASE}[{PASS_VARIANT}]"]
    args = ["check", "--engine", IGNORES, "--cases", str(FIXTURES), "--no-bundled"]
    args += ["--variant", "huaian"]
    assert main(args, out=io.StringIO()) == 1
    assert main([*args[:2], "reference", *args[3:]], out=io.StringIO()) == 0


def test_the_default_check_runs_derived_variants_of_the_bundled_corpus() -> None:
    args = ["check", "--engine", IGNORES, "--cases", str(FIXTURES), "--no-bundled"]
    out = io.StringIO()
    assert main(args, out=out) == 1
    assert PASS_VARIANT in out.getvalue()


def test_an_expect_fail_entry_names_a_derived_variant(tmp_path: Path) -> None:
    listed = ExpectFail((f"{PASS_CASE}[{PASS_VARIANT}]",), "list")
    result = run(_config(IGNORES, expect_fail=listed))
    statuses = {r.key: r.status for r in result.results}
    assert statuses[f"{PASS_CASE}[{PASS_VARIANT}]"] is Status.XFAIL
    assert result.stale == []
    path = tmp_path / "expected-failures.txt"
    path.write_text(f"{PASS_CASE}[{PASS_VARIANT}]\n", encoding="utf-8")
    args = ["check", "--engine", IGNORES, "--cases", str(FIXTURES), "--no-bundled"]
    assert main([*args, "--expect-fail", str(path)], out=io.StringIO()) == 0


def test_an_engine_is_not_told_the_bundled_slug() -> None:
    [ruleset] = run_variants(BY_ID[PASS_CASE])
    hello = ProcessEngine("true", ruleset).hello()
    assert hello["variant"] == PASS_VARIANT
    assert hello["clauses"]["flow.pass"] == "when_unable"
    # The reference server plays it by the clauses the hello sends, under its own name...
    answer = _Server(None).answer(hello)
    assert answer["type"] == "hello" and answer["variant"] == PASS_VARIANT, answer
    # ...and an engine that knows variants by slug refuses it rather than play huaian.
    result = run(_config("py:tests.engines.ignores_values:make_by_slug"))
    statuses = {r.key: r.status for r in result.results}
    assert statuses[f"{PASS_CASE}[{PASS_VARIANT}]"] is not Status.PASS
    assert PASS_VARIANT in result.not_started


def test_derived_cases_of_a_given_variant_only() -> None:
    # --variant competition: the pass case is for huaian only, the hand-count case runs.
    config = RunConfig(
        engine="reference",
        variants=[load_variant("competition")],
        cases_paths=[FIXTURES],
        bundled=False,
    )
    cases, _ = load_cases([FIXTURES])
    assert [item.key for item in select(config, cases)] == [HAND_KEY]


def test_the_own_variant_filter_never_drops_a_case_on_its_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Even when the reference disagrees (a code mutant of it), a case naming the value runs."""
    monkeypatch.setattr(selection, "is_bundled_case", lambda case: True)
    monkeypatch.setattr(selection, "_reference_agrees", lambda item: False)
    club = mutate(load_variant("huaian"), "flow.pass", "when_unable")
    assert club is not None
    club = dataclasses.replace(club, slug="my-club")
    config = RunConfig(engine="reference", variants=[club, load_variant("huaian")])
    chosen, left_out = selection.select_with_left_out(config, [BY_ID[PASS_CASE]])
    # my-club plays when_unable itself (the case's `variants` names huaian only, so none there);
    # huaian's derived variant runs and is never left out.
    assert [item.key for item in chosen] == [f"{PASS_CASE}[{PASS_VARIANT}]"]
    assert left_out == []
    unrestricted = dataclasses.replace(BY_ID[PASS_CASE], variants=())
    chosen, left_out = selection.select_with_left_out(config, [unrestricted])
    assert [item.key for item in chosen] == [
        f"{PASS_CASE}[my-club]",
        f"{PASS_CASE}[{PASS_VARIANT}]",
    ]
    assert left_out == []


def test_a_derived_case_is_not_a_duplicate_of_a_bundled_one() -> None:
    case: Case = BY_ID[PASS_CASE]
    twin = dataclasses.replace(case, id="twin", applies_when={"flow.pass": "always"})
    assert check_cases([case, twin]) == []


def test_guandan_cases_check_accepts_derived_cases() -> None:
    out = io.StringIO()
    assert main(["cases", "check", str(FIXTURES)], out=out) == 0, out.getvalue()


ECHOING = "py:tests.engines.ignores_values:make_echoing"


def test_an_engine_that_echoes_every_name_is_not_judged_on_derived_variants() -> None:
    """An engine built as the guide's first skeleton (it echoes the name it is handed and plays
    huaian) claims no derived variant: their cases are not applicable, counted apart, and it is
    started for none of them."""
    ignores_values.STARTED.clear()
    result = run(_config(ECHOING))
    statuses = {r.key: r.status for r in result.results}
    assert statuses == {
        f"{PASS_CASE}[{PASS_VARIANT}]": Status.NOT_APPLICABLE,
        HAND_KEY: Status.NOT_APPLICABLE,
    }
    # The only start is the first one, for the variant asked for, whose hello tells.
    assert ignores_values.STARTED == ["huaian"]
    summary = result.summary()
    assert (summary["total"], summary["failed"], summary["not_applicable"]) == (0, 0, 2)
    assert result.not_started == []
    assert all("does not claim to play derived variants" in r.message for r in result.results)


def test_an_echoing_engine_fails_nothing_on_the_bundled_corpus() -> None:
    """Acceptance (issue 47): the echoing engine plays huaian rightly, so `check --variant huaian`
    passes it: no failure on a derived case, each derived case reported not applicable."""
    out = io.StringIO()
    code = main(["check", "--engine", ECHOING, "--variant", "huaian", "--json", "-"], out=out)
    report = json.loads(out.getvalue())
    statuses = {entry["variant"]: entry["status"] for entry in report["cases"]}
    derived = {v: s for v, s in statuses.items() if "[" in v}
    assert derived and set(derived.values()) == {"not_applicable"}
    assert report["summary"]["failed"] == 0 and report["summary"]["not_applicable"] > 0
    assert report["summary"]["total"] == sum(1 for e in report["cases"] if "[" not in e["variant"])
    assert code == 0


def test_an_engine_that_claims_derived_variants_is_judged_on_them() -> None:
    """Claiming derived variants by name opts in: the echoing engine that says so plays huaian
    on the derived case and fails it (huaian allows a pass when able to beat)."""
    ignores_values.STARTED.clear()
    result = run(_config("py:tests.engines.ignores_values:make_echoing_claims_derived"))
    statuses = {r.key: r.status for r in result.results}
    assert statuses[f"{PASS_CASE}[{PASS_VARIANT}]"] is Status.FAIL
    assert PASS_VARIANT in ignores_values.STARTED


def test_an_engine_without_the_claim_is_never_started_for_a_derived_variant_in_the_plugin(
    guandan: pytest.Pytester,
) -> None:
    """The pytest plugin judges as check does: the derived cases are skipped as not applicable,
    and the engine is not started for them."""
    ignores_values.STARTED.clear()
    result = guandan.runpytest_inprocess(
        *PLUGIN_ARGS,
        f"--guandan-engine={ECHOING}",
        "--guandan-variant=huaian",
        f"--guandan-cases={FIXTURES}",
        "--guandan-no-bundled",
        "-k",
        PASS_CASE,
        "-rs",
    )
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not applicable*"])
    assert ignores_values.STARTED == ["huaian"]


def test_an_engine_playing_the_bases_own_value_is_told_so(tmp_path: Path) -> None:
    """An engine that claims derived variants but plays huaian whatever it is told calls S5 H5 a
    pair on a variant derived with no pair (`combinations.pair.shape: null`): no value one step
    from the derived variant explains that, but huaian's own does, and the verdict says so
    (issue 47; before, "no clause value explains it")."""
    report = tmp_path / "r.json"
    engine = "py:tests.engines.ignores_values:make_echoing_claims_derived"
    args = ["check", "--engine", engine, "--variant", "huaian"]
    out = io.StringIO()
    code = main([*args, "-k", "shape-pair-null", "--json", str(report)], out=out)
    assert code == 1
    said = "plays huaian's own value of combinations.pair.shape, not the derived variant's"
    entries = [e for e in json.loads(report.read_text())["cases"] if e["status"] == "fail"]
    assert {e["variant"] for e in entries} == {"huaian[combinations.pair.shape=null]"}
    assert "shape-pair-null-two-equal-cards" in {e["id"] for e in entries}
    for e in entries:
        assert e["verdict"] == said
        assert e["decided_by"] == "combinations.pair.shape"
        [by] = e["explained_by"]
        assert by.startswith("combinations.pair.shape = {") and by.endswith(" (huaian's own value)")
    assert f"  verdict:  {said}\n" in out.getvalue()
