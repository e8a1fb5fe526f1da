"""Partial models: an engine names the output fields it does not model (`not_modelled`); they are
not compared, and a case that agrees on the rest and whose expected output named one is `omitted`
(passed with omissions), counted apart, never a plain pass nor a failure."""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from harness.conformance.cases.case_loader import load_cases
from harness.conformance.judging.outputs import without_fields
from harness.conformance.running.runner import ExpectFail, RunConfig, RunResult, Status, run
from harness.engine import EngineInfo, output_fields
from harness.errors import EngineNotStarted, HarnessError
from harness.frontends.cli import main
from harness.model.loader import load_variant
from tests.conftest import PLUGIN_ARGS, repo_on_path

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
BROKEN = REPO / "tests" / "engines" / "broken.py"
NO_COUNTS = "py:tests.engines.pyengines:NoCounts"
UNDECLARED = "py:tests.engines.pyengines:make_no_counts_undeclared"
CASES = {case.id: case for case in load_cases()[0]}


def names_counts(case_id: str) -> bool:
    """Whether the case's expected output gives `counts` somewhere."""
    return bool(without_fields(CASES[case_id].expected, ["counts"])[1])


@pytest.fixture(autouse=True)
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`py:tests.engines...` imports here, and in engine processes."""
    repo_on_path(monkeypatch)


def replays(engine: str, variant: str, **extra: Any) -> RunResult:
    """The replay cases (ids flow-* and replay-*) of `variant` on `engine`, without the variants
    derived from it (the planted engines play bundled slugs only)."""
    extra.setdefault("derived", False)
    config = RunConfig(
        engine=engine, variants=[load_variant(variant)], patterns=["flow-*", "replay-*"], **extra
    )
    return run(config)


@pytest.mark.parametrize("variant", ["huaian", "match-rules"])
def test_a_declared_omission_passes_with_omissions(variant: str) -> None:
    """The acceptance test of issue 12, item 3: the disclosure-free replays pass plainly, those
    whose expected output gives counts are omitted; and undeclared, those fail."""
    result = replays(NO_COUNTS, variant)
    replay_results = [r for r in result.results if r.operation == "replay"]
    with_counts = [r for r in replay_results if names_counts(r.id)]
    without = [r for r in replay_results if not names_counts(r.id)]
    assert with_counts and without
    assert {r.status for r in with_counts} == {Status.OMITTED}
    assert {r.status for r in without} == {Status.PASS}
    for r in with_counts:
        assert r.omitted == ("counts",)
        assert r.differences == ()
        assert "passed with omissions: counts" in r.message
        assert r.to_json()["omitted"] == ["counts"] and r.to_json()["status"] == "omitted"
    assert all(r.omitted == () for r in without)
    assert result.ok
    summary = result.summary()
    assert summary["omitted"] == len(with_counts)
    assert summary["passed"] == summary["total"] - len(with_counts)  # omitted is not a pass

    undeclared = replays(UNDECLARED, variant)
    statuses = {r.id: r.status for r in undeclared.results}
    assert {statuses[r.id] for r in with_counts} == {Status.FAIL}
    assert {statuses[r.id] for r in without} == {Status.PASS}
    assert not undeclared.ok


def test_through_the_cli_omitted_cases_exit_0(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    out = io.StringIO()
    code = main(
        ["check", "--engine", NO_COUNTS, "--variant", "match-rules", "--report", str(path)], out
    )
    assert code == 0, out.getvalue()
    report = json.loads(path.read_text(encoding="utf-8"))
    omitted = [c for c in report["cases"] if c["status"] == "omitted"]
    assert omitted and report["summary"]["omitted"] == len(omitted)
    assert all(names_counts(c["id"]) for c in omitted)
    assert report["summary"]["failed"] == 0 and report["ok"] is True


def test_a_process_engine_declares_it_in_its_hello() -> None:
    engine = f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(BROKEN))} no-counts"
    result = replays(engine, "competition", jobs=2)
    # Variants derived from competition (cases on values it does not play) are refused by
    # this engine, which plays bundled slugs only: unsupported, never failed.
    derived = {r.status for r in result.results if r.variant != "competition"}
    assert derived <= {Status.UNSUPPORTED}
    statuses = {r.id: r.status for r in result.results if r.variant == "competition"}
    assert statuses
    assert {s for i, s in statuses.items() if names_counts(i)} == {Status.OMITTED}
    assert {s for i, s in statuses.items() if not names_counts(i)} == {Status.PASS}


def test_a_listed_case_that_passes_with_omissions_is_an_xpass(tmp_path: Path) -> None:
    case_id = "flow-disclosure-counts-after-pairs-six-on-request"
    listed = tmp_path / "known.txt"
    listed.write_text(case_id + "\n", encoding="utf-8")
    result = replays(NO_COUNTS, "competition", expect_fail=ExpectFail.read(listed))
    (hit,) = [r for r in result.results if r.id == case_id]
    assert hit.status is Status.XPASS
    assert not result.ok


# ---------------------------------------------------------------------------------------------
# Names: only output fields


def test_the_names_are_the_output_fields_of_the_case_schema() -> None:
    fields = output_fields()
    for name in ("counts", "told", "failures", "firsts", "lasts", "lead", "anti_leader"):
        assert name in fields
    assert "reveal_together" in fields and "readings" in fields and "rule" in fields
    for name in ("streaks", "hands", "cards_left", "level", "previous"):
        assert name not in fields  # inputs, or nothing at all
    assert "actions" in fields and "total" in fields  # legal_actions' outputs
    protocol = json.loads((REPO / "spec" / "protocol.schema.json").read_text(encoding="utf-8"))
    listed = protocol["$defs"]["hello_answer"]["properties"]["not_modelled"]["items"]["enum"]
    assert set(listed) == set(fields)


def test_an_unknown_name_is_refused_with_the_known_ones() -> None:
    with pytest.raises(HarnessError, match=r"'count' is not an output field.*known: .*counts"):
        EngineInfo("e", "1", "huaian", not_modelled=("count",))
    with pytest.raises(HarnessError, match="expected a list"):
        EngineInfo("e", "1", "huaian", not_modelled="counts")  # type: ignore[arg-type]
    with pytest.raises(HarnessError, match="not_modelled"):
        EngineInfo.from_json({"name": "e", "variant": "huaian", "not_modelled": "counts"})
    info = EngineInfo.from_json({"name": "e", "variant": "huaian", "not_modelled": ["told"]})
    assert info.not_modelled == ("told",)
    assert info.to_json()["not_modelled"] == ["told"]
    assert "not_modelled" not in EngineInfo("e", "1", "huaian").to_json()


def test_the_hello_answer_with_not_modelled_is_valid() -> None:
    protocol = json.loads((REPO / "spec" / "protocol.schema.json").read_text(encoding="utf-8"))
    cases = json.loads((REPO / "spec" / "case.schema.json").read_text(encoding="utf-8"))
    registry = Registry().with_resources(
        [(s["$id"], Resource.from_contents(s)) for s in (protocol, cases)]
    )
    validator = jsonschema.Draft202012Validator(protocol, registry=registry)
    info = EngineInfo("e", "1", "huaian", {"target": "A"}, ("replay",), ("counts", "told"))
    assert not list(validator.iter_errors({"type": "hello", "protocol": 1, **info.to_json()}))
    bad = {"type": "hello", "protocol": 1, **info.to_json(), "not_modelled": ["count"]}
    assert list(validator.iter_errors(bad))


def _misspelt(mode: str) -> list[str]:
    """The py: and exec: planted engines whose hello misspells something (`mode`)."""
    factory = "make_" + mode.replace("-", "_")
    python = shlex.quote(sys.executable)
    return [
        f"py:tests.engines.pyengines:{factory}",
        f"exec:{python} {shlex.quote(str(BROKEN))} {mode}",
    ]


# A misspelt field or operation would leave the engine's intent unmet without a word (a hello
# listing `clasify` once left every classify case unsupported and the run green, issue 22): each
# is a start-up error that names it.
MISSPELT = [
    *((e, "'count' is not an output field") for e in _misspelt("misspelt-not-modelled")),
    *(
        (e, "'clasify' is not an operation, did you mean 'classify'?")
        for e in _misspelt("misspelt-operation")
    ),
]


@pytest.mark.parametrize(("engine", "words"), MISSPELT)
def test_an_engine_naming_an_unknown_field_or_operation_does_not_start(
    engine: str, words: str
) -> None:
    """It cannot start, so the run stops before any case, saying why in one line."""
    config = RunConfig(
        engine=engine, variants=[load_variant("huaian")], patterns=["combo-straight-a2345*"]
    )
    with pytest.raises(EngineNotStarted) as raised:
        run(config)
    assert words in str(raised.value) and "\n" not in str(raised.value)


# ---------------------------------------------------------------------------------------------
# The pytest plugin


@pytest.mark.parametrize(("engine", "passes"), [(NO_COUNTS, True), (UNDECLARED, False)])
def test_the_plugin_passes_omitted_cases_with_a_warning(
    guandan: pytest.Pytester, engine: str, passes: bool
) -> None:
    result = guandan.runpytest(
        *PLUGIN_ARGS,
        f"--guandan-engine={engine}",
        "--guandan-variant=competition",
        "-k",
        "flow-disclosure-counts-after-pairs",
    )
    outcomes = result.parseoutcomes()
    if passes:
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        assert outcomes.get("passed", 0) >= 1 and "failed" not in outcomes
        result.stdout.fnmatch_lines(["*OmittedFields*passed with omissions (counts not compared*"])
    else:
        assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
        assert outcomes.get("failed", 0) >= 1


def test_reports_say_what_was_left_out(tmp_path: Path) -> None:
    """The text summary counts passes with omissions apart, and JUnit marks each such case."""
    out = io.StringIO()
    junit = tmp_path / "r.xml"
    status = main(
        [
            "check",
            "--engine",
            "py:tests.engines.pyengines:NoCounts",
            "--variant",
            "match-rules",
            "--clause",
            "disclosure",
            "--junit",
            str(junit),
        ],
        out=out,
    )
    assert status == 0
    assert re.search(r"\d+ passed, [1-9]\d* passed with omissions, 0 failed", out.getvalue())
    root = ET.parse(junit).getroot()
    marked = root.findall(".//property[@name='guandan_status'][@value='omitted']")
    assert marked
    assert all(
        "counts" in (case.findtext("system-out") or "")
        for case in root.iter("testcase")
        if case.find("properties") is not None
    )
