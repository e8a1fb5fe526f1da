"""A variant is a value, not a slug: a club's own variant file goes wherever a bundled slug goes
(`guandan check`, `serve`, `coverage`, the pytest plugin, `py:` and `exec:` engines), and the
corpus applies to it by its clause values.

The club here extends huaian and changes one clause: a double-down (雙下) is worth 4 levels, not
3. Cases written for `levels.up.double_down: 3` must not run for it, those for 4 must run and
pass, and every other case must pass as it does for huaian.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from harness.conformance.cases.case_loader import Case, applicable_variants, derives, load_cases
from harness.conformance.running.runner import RunConfig, run
from harness.engine import ReferenceEngine, load_engine
from harness.engine.process import ProcessEngine
from harness.engine.server import serve
from harness.frontends.cli import main
from harness.model.loader import load_variant, load_variant_spec, variant_slugs
from harness.model.ruleset import Ruleset
from tests.conftest import PLUGIN_ARGS, repo_on_path

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
PYTHON = shlex.quote(sys.executable)
CLAUSE = "levels.up.double_down"
REASON = "our club has always scored a double-down 4 levels"
CLUB = f"""\
id: my-club
title: My club's rules
title_zh: 我的俱樂部
description: Huai'an rules, except that a double-down is worth 4 levels.
extends: huaian
rules:
  levels:
    up:
      double_down:
        value: 4
        assumed:
          reason: {REASON}
          alternatives: ["3, as in Huai'an"]
"""
CASES, _ = load_cases()


def written_for(value: int) -> set[str]:
    """The ids of the corpus cases written for a double-down worth `value` levels."""
    return {c.id for c in CASES if c.applies_when.get(CLAUSE) == value}


def _has(actual: Any, wanted: Any) -> bool:
    """A value as `applies_when` names it: an object by the fields it gives, all else equal."""
    if isinstance(wanted, dict):
        return isinstance(actual, dict) and all(
            k in actual and _has(actual[k], v) for k, v in wanted.items()
        )
    return bool(actual == wanted)


def by_value(ruleset: Ruleset) -> set[str]:
    """The rule restated, as the oracle of these tests: a case applies to a variant when it
    names no slugs, the variant has its options, and every `applies_when` clause has its
    value there once those options are chosen (an object value: the fields it names)."""
    found = set()
    for case in CASES:
        if case.variants or any(name not in ruleset.options for name in case.options):
            continue
        chosen = ruleset.with_options(case.options)
        if all(_has(chosen.value(k), v) for k, v in case.applies_when.items()):
            found.add(case.id)
    return found


@pytest.fixture(scope="module")
def club_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The club's variant file (its name is its id, as the loader requires)."""
    path = tmp_path_factory.mktemp("club") / "my-club.yaml"
    path.write_text(CLUB, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def club(club_file: Path) -> Ruleset:
    """The club's variant, loaded once."""
    return load_variant_spec(str(club_file))


@pytest.fixture(autouse=True)
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`py:tests.engines...` imports here and in engine processes."""
    repo_on_path(monkeypatch)


def check(*args: str | Path) -> tuple[int, str]:
    """`guandan check ARGS` in this process: the exit status and what it printed."""
    out = io.StringIO()
    code = main(["check", *(str(a) for a in args)], out=out)
    return code, out.getvalue()


def report_ids(path: Path) -> dict[str, str]:
    """Case id → status in a JSON report of my-club's own cases, each case once; the others
    ran on variants derived from my-club (cases on values it does not play), and passed."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert data["variant"] == "my-club"
    own = [c for c in data["cases"] if c["variant"] == "my-club"]
    derived = [c for c in data["cases"] if c["variant"] != "my-club"]
    assert own and all(c["variant"].startswith("my-club[") for c in derived)
    assert {c["status"] for c in derived} <= {"pass"}
    found = {c["id"]: c["status"] for c in own}
    assert len(found) == len(own)
    return found


def assert_ran_for_the_club(found: dict[str, str], club: Ruleset) -> None:
    """Everything passed; the cases the club's values call for ran, among them some written
    for 4 levels and none written for 3."""
    assert set(found.values()) == {"pass"}
    assert set(found) == by_value(club)
    assert not written_for(3) & set(found)
    assert written_for(4) & set(found)


def test_the_corpus_has_cases_on_both_values() -> None:
    """The premise of these tests: huaian runs some cases written for 3 levels, and some cases
    written for 4 levels apply to huaian but for that clause."""
    huaian = load_variant("huaian")
    assert huaian.value(CLAUSE) == 3 and load_variant("match-rules").value(CLAUSE) == 4
    assert written_for(3) & by_value(huaian)
    assert {c.id for c in CASES if c.applies_when == {CLAUSE: 4}}


@pytest.mark.slow
def test_check_a_variant_file_with_the_reference(
    club_file: Path, club: Ruleset, tmp_path: Path
) -> None:
    path = tmp_path / "r.json"
    code, text = check("--engine", "reference", "--variant", club_file, "--report", path)
    assert code == 0, text
    found = report_ids(path)
    assert_ran_for_the_club(found, club)
    # Every case judged passed: the club's own, and those on variants derived from it.
    assert re.search(r"guandan-harness reference: (\d+) cases: \1 passed, 0 failed", text), text
    # Against huaian, the club lost only cases written for 3 levels, and gained only cases
    # written for 4.
    huaian = tmp_path / "huaian.json"
    assert check("--variant", "huaian", "--report", huaian)[0] == 0
    entries = json.loads(huaian.read_text(encoding="utf-8"))["cases"]
    on_huaian = {c["id"] for c in entries if c["variant"] == "huaian"}
    assert on_huaian - set(found) <= written_for(3)
    assert set(found) - on_huaian <= written_for(4)
    assert on_huaian - set(found) and set(found) - on_huaian


@pytest.mark.slow
def test_check_a_variant_file_through_the_process_protocol(
    club_file: Path, club: Ruleset, tmp_path: Path
) -> None:
    engine = f"exec:{PYTHON} -m harness.frontends.cli serve --variant {shlex.quote(str(club_file))}"
    path = tmp_path / "r.json"
    # The variants derived from the club's file would each start a server of their own; the
    # process protocol is what this test is about, so they are left out.
    argv = ("--engine", engine, "--variant", club_file, "--no-derived", "--report", path)
    code, text = check(*argv)
    assert code == 0, text
    assert_ran_for_the_club(report_ids(path), club)


def test_check_takes_several_variants(club_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    code, text = check(
        "--variant", "huaian", "--variant", club_file, "--clause", CLAUSE, "--report", path
    )
    assert code == 0, text
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["variant"] == ["huaian", "my-club"]
    ran: dict[str, set[str]] = {"huaian": set(), "my-club": set()}
    for case in data["cases"]:
        ran[case["variant"]].add(case["id"])
    selected = {c.id for c in CASES if CLAUSE in c.clauses}
    assert ran["huaian"] == by_value(load_variant("huaian")) & selected
    assert ran["my-club"] == by_value(load_variant_spec(str(club_file))) & selected
    assert written_for(3) & ran["huaian"] and not written_for(3) & ran["my-club"]
    assert written_for(4) & ran["my-club"] and not written_for(4) & ran["huaian"]


def test_two_variants_of_one_id_are_a_usage_error(
    club_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "my-club.yaml"
    other.write_text(CLUB, encoding="utf-8")
    code, _ = check("--variant", club_file, "--variant", other)
    assert code == 2
    assert "two variants are named 'my-club'" in capsys.readouterr().err


def test_a_failure_cites_the_clause_as_the_variant_file_gives_it(
    club_file: Path, tmp_path: Path
) -> None:
    """An engine that plays huaian fails the club's 4-level cases, and the report quotes the
    club's own reason for the clause (the variant is not reloaded by its slug)."""
    path = tmp_path / "r.json"
    code, text = check(
        "--engine",
        "py:tests.engines.pyengines:PlaysHuaian",
        "--variant",
        club_file,
        "--clause",
        CLAUSE,
        "--report",
        path,
    )
    assert code == 1, text
    failed = {case_id for case_id, status in report_ids(path).items() if status == "fail"}
    assert failed and failed <= written_for(4) | {c.id for c in CASES if CLAUSE in c.clauses}
    assert f"{CLAUSE}: assumed: {REASON}" in text


def test_a_python_factory_may_take_the_ruleset(club: Ruleset) -> None:
    chosen = club.with_options({"target": "8"})
    engine = load_engine("py:tests.engines.pyengines:make_from_ruleset", chosen)
    assert isinstance(engine, ReferenceEngine) and engine.ruleset is chosen
    info = engine.describe()
    assert info.variant == "my-club" and dict(info.options) == {"target": "8"}
    alone = load_engine("py:tests.engines.pyengines:make_from_ruleset_only", chosen)
    assert isinstance(alone, ReferenceEngine) and alone.ruleset is chosen
    # A factory of (variant, options), as before, is given the slug and the options chosen.
    huaian_8 = load_variant("huaian").with_options({"target": "8"})
    by_slug = load_engine("py:tests.engines.pyengines:make", huaian_8)
    assert by_slug.describe().to_json()["variant"] == "huaian"
    assert by_slug.describe().options == {"target": "8"}


def test_the_hello_carries_the_clause_values(club: Ruleset) -> None:
    engine = ProcessEngine("unused", club.with_options({"target": "8"}))
    hello = engine.hello()
    assert hello["variant"] == "my-club" and hello["options"] == {"target": "8"}
    assert hello["clauses"][CLAUSE] == 4
    assert hello["clauses"]["levels.final"] == "8"
    assert set(hello["clauses"]) == set(club.clauses)
    protocol = json.loads((REPO / "spec" / "protocol.schema.json").read_text(encoding="utf-8"))
    cases = json.loads((REPO / "spec" / "case.schema.json").read_text(encoding="utf-8"))
    registry = Registry().with_resources(
        [(s["$id"], Resource.from_contents(s)) for s in (protocol, cases)]
    )
    validator = jsonschema.Draft202012Validator(protocol, registry=registry)
    assert not list(validator.iter_errors(json.loads(json.dumps(hello))))
    without = {k: v for k, v in hello.items() if k != "clauses"}
    assert not list(validator.iter_errors(without)), "clauses must stay optional"


def test_serve_a_variant_file(club: Ruleset) -> None:
    lines = [
        {"type": "hello", "protocol": 1, "variant": "huaian"},
        {"type": "hello", "protocol": 1, "variant": "my-club", "options": {"target": "8"}},
        {
            "type": "request",
            "id": 1,
            "operation": "settle",
            "input": {"state": {"levels": ["2", "2"], "declarer": None}, "finish": [0, 2, 1, 3]},
        },
        {"type": "bye"},
    ]
    out = io.StringIO()
    serve(club, io.StringIO("\n".join(json.dumps(x) for x in lines) + "\n"), out)
    answers = [json.loads(a) for a in out.getvalue().splitlines()]
    assert answers[0]["type"] == "error" and "my-club, not huaian" in answers[0]["message"]
    assert answers[1]["variant"] == "my-club" and answers[1]["options"] == {"target": "8"}
    assert answers[2]["output"]["state"]["levels"] == ["6", "2"]  # 雙下 升4級
    assert answers[3] == {"type": "bye"}


def test_applicability_by_clause_value_and_by_slug(club: Ruleset, tmp_path: Path) -> None:
    """A case applies to a variant file by its clause values, as to the bundled variants; a
    case restricted to named variants applies only to those."""
    huaian = load_variant("huaian")

    def case(**fields: Any) -> Case:
        base: dict[str, Any] = {
            "id": "x",
            "description": "x",
            "operation": "settle",
            "clauses": (CLAUSE,),
            "input": {},
            "expected": {},
        }
        return Case(**{**base, **fields})

    assert applicable_variants(case(applies_when={CLAUSE: 4}), [huaian, club]) == ["my-club"]
    assert applicable_variants(case(applies_when={CLAUSE: 3}), [huaian, club]) == ["huaian"]
    assert applicable_variants(case(variants=("huaian",)), [huaian, club]) == ["huaian"]
    assert applicable_variants(case(variants=("my-club",)), [huaian, club]) == ["my-club"]
    assert applicable_variants(case(options={"target": "8"}), [huaian, club]) == [
        "huaian",
        "my-club",
    ]
    assert applicable_variants(case(options={"no-such": "1"}), [huaian, club]) == []
    # Without rulesets, the bundled variants, as `guandan cases check` and coverage need.
    bundled = applicable_variants(case(applies_when={CLAUSE: 4}))
    assert bundled and "my-club" not in bundled and set(bundled) <= set(variant_slugs())

    # The runner goes by the same rule.
    path = tmp_path / "cases.yaml"
    path.write_text(
        """\
title: Restricted by slug
cases:
  - id: settle-double-down-named-huaian
    description: A double-down from 2, for huaian by name.
    operation: settle
    clauses: [levels.up.double_down]
    variants: [huaian]
    input: {state: {levels: ["2", "2"], declarer: null}, finish: [0, 2, 1, 3]}
    expected: {changes: [3, 0]}
  - id: settle-double-down-by-value
    description: A double-down from 2, wherever it is worth 4 levels.
    operation: settle
    clauses: [levels.up.double_down]
    applies_when: {levels.up.double_down: 4}
    input: {state: {levels: ["2", "2"], declarer: null}, finish: [0, 2, 1, 3]}
    expected: {changes: [4, 0]}
""",
        encoding="utf-8",
    )
    result = run(RunConfig("reference", [huaian, club], cases_paths=[path], bundled=False))
    assert [r.key for r in result.results] == [
        "settle-double-down-named-huaian[huaian]",
        "settle-double-down-by-value[my-club]",
    ]
    assert result.ok


def test_options_are_chosen_once_per_variant(club: Ruleset) -> None:
    first = club.with_options({"target": "8"})
    assert club.with_options({"target": "8"}) is first
    assert club.with_options({"target": "A"}) is not first
    assert club.with_options({}) is club
    target_8 = next(c for c in CASES if c.options.get("target") == "8")
    assert target_8.ruleset_for(club) is first
    assert first.value("levels.final") == "8" and first.value(CLAUSE) == 4


def test_coverage_adds_a_variant_file_to_the_matrix(club_file: Path) -> None:
    out = io.StringIO()
    code = main(["coverage", "--json", "--variant", str(club_file)], out=out)
    report = json.loads(out.getvalue())
    assert report["variants"] == [*variant_slugs(), "my-club"]
    assert all("my-club" in row for row in report["counts"].values())
    assert report["counts"][CLAUSE]["my-club"] >= 2
    # The club differs from huaian by one clause, which some case shows.
    assert not any(
        g["clause"] == CLAUSE and {g["a"], g["b"]} == {"huaian", "my-club"}
        for g in report["untold_clauses"]
    )
    assert code == (0 if report["ok"] else 1)


def test_the_pytest_plugin_takes_a_variant_file(guandan: pytest.Pytester, club_file: Path) -> None:
    result = guandan.runpytest(
        *PLUGIN_ARGS,
        "--guandan-examples=5",
        "--guandan-engine=reference",
        f"--guandan-variant={club_file}",
        "-k",
        "double-down or property-fuzz-settle",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    ran = {
        report.nodeid.rsplit("::", 1)[-1]
        for report in result.reprec.getreports("pytest_runtest_logreport")  # type: ignore[attr-defined]
        if report.when == "call" and report.outcome == "passed"
    }
    assert "property-fuzz-settle" in ran
    for_club = {i for i in by_value(load_variant_spec(str(club_file))) if "double-down" in i}
    assert for_club & written_for(4)
    # Cases on values no bundled variant plays also ran, on variants derived from the club.
    derived = {c.id for c in CASES if derives(c)}
    assert (ran - {"property-fuzz-settle"}) - derived == for_club
    assert not written_for(3) & (ran - derived)


def test_the_pytest_plugin_refuses_a_missing_variant_file(
    guandan: pytest.Pytester, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere.yaml"
    result = guandan.runpytest(
        *PLUGIN_ARGS,
        "--guandan-engine=reference",
        f"--guandan-variant={missing}",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*no such variant file: {missing}*"])
