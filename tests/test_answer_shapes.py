"""Answers checked against the output schema (issue 24, part 4): a malformed answer is an error
of kind `protocol` naming the field and what was expected, never a plain failure; error kinds
the protocol does not have and batch answers that cannot be used are warned of once; the
Python protocol's TypedDicts say what `spec/case.schema.json` says."""

from __future__ import annotations

import json
import shlex
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

from harness.engine import api
from harness.engine.api import checked_output
from harness.errors import EngineError, EngineErrorKind
from harness.frontends.cli import main
from harness.model._schemas import load_schema, schema_check
from tests.conftest import repo_on_path

CLASSIFY_CASES = "combo-single-"
"""A few classify cases (singles), whose answers the engines below spoil."""


def test_a_problem_names_the_field_and_what_was_expected() -> None:
    check = schema_check("case.schema.json", "classify_output")
    assert check.valid({"readings": [], "default": None})
    (problem,) = check.problems({"readings": "pair"})
    assert str(problem) == '`readings`: expected an array, found "pair"'
    bad_type = {"readings": [{"type": "duo", "rank": "3", "size": 2}]}
    (problem,) = check.problems(bad_type)
    assert problem.path == "readings[0].type" and "expected one of" in problem.message
    assert '"pair"' in problem.message and 'found "duo"' in problem.message
    (problem,) = check.problems({"default": None})
    assert problem.path == "readings" and problem.message == "missing"
    assert problem.missing == "readings"


def test_a_definition_not_in_the_schema_is_refused() -> None:
    with pytest.raises(KeyError, match="no 'nothing_output'"):
        schema_check("case.schema.json", "nothing_output")


def test_the_client_refuses_a_malformed_output_but_not_a_field_not_modelled() -> None:
    with pytest.raises(EngineError) as caught:
        checked_output("beats", {"beats": "yes"})
    error = caught.value
    assert error.kind is EngineErrorKind.PROTOCOL
    assert '`beats`: expected a boolean, found "yes"' in str(error)
    assert checked_output("beats", {"beats": True}) == {"beats": True}
    # `readings` missing is a fault unless the engine declares it does not model it.
    with pytest.raises(EngineError):
        checked_output("classify", {"default": None})
    assert checked_output("classify", {"default": None}, ("readings",)) == {"default": None}


def test_check_counts_a_malformed_answer_as_an_error_naming_the_field(tmp_path: Path) -> None:
    """The acceptance: `{readings: "pair"}` is an error, not a failure, and says `readings`."""
    report = tmp_path / "report.json"
    engine = "py:tests.engines.pyengines:MalformedReadings"
    args = ["check", "--engine", engine, "--variant", "huaian", "-k", CLASSIFY_CASES]
    assert main([*args, "--report", str(report)]) == 1
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 3 and {c["status"] for c in cases} == {"error"}, cases
    for case in cases:
        assert "`readings`: expected an array" in case["message"], case


def _hostile(kind: str) -> str:
    return f"exec:{shlex.quote(sys.executable)} -m tests.engines.hostile {kind}"


@pytest.fixture
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Warnings said in an earlier test are said again here (they are once per process)."""
    repo_on_path(monkeypatch)
    monkeypatch.setattr(api, "_WARNED", set())


@pytest.mark.usefixtures("fresh_warnings")
def test_an_unknown_error_kind_is_warned_once_and_taken_as_internal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    args = ["check", "--engine", _hostile("odd-error-kind"), "--variant", "huaian"]
    assert main([*args, "-k", CLASSIFY_CASES, "--report", str(report)]) == 1
    err = capsys.readouterr().err
    assert err.count('error of kind "not_supported"') == 1, err
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 3 and {c["status"] for c in cases} == {"error"}
    assert all(c["message"].startswith("internal") for c in cases), cases


@pytest.mark.usefixtures("fresh_warnings")
def test_a_short_batch_is_warned_once_and_its_requests_asked_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    args = ["check", "--engine", _hostile("short-batch"), "--variant", "huaian"]
    assert main([*args, "-k", CLASSIFY_CASES, "--report", str(report)]) == 0
    err = capsys.readouterr().err
    assert err.count("batch answer could not be used") == 1, err
    assert "wrong number of responses" in err
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 3 and {c["status"] for c in cases} == {"pass"}


# --- the Python protocol's TypedDicts against the schema ------------------------------------

TYPED = {
    name: getattr(api, name)
    for name in dir(api)
    if name.endswith(("Input", "Output")) and typing.is_typeddict(getattr(api, name))
}


def _definition(name: str) -> str:
    """`ClassifyInput` → `classify_input`, `LegalPlaysOutput` → `legal_plays_output`."""
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
    return snake


@pytest.mark.parametrize("name", sorted(TYPED))
def test_each_typeddict_has_the_fields_of_its_schema(name: str) -> None:
    """Every field the schema has is in the TypedDict and the reverse; a field the schema
    requires is required there. (An output field the schema leaves optional may be required in
    the TypedDict only where the reference always gives it.)"""
    definition: dict[str, Any] = load_schema("case.schema.json")["$defs"][_definition(name)]
    typed = TYPED[name]
    fields = set(typed.__required_keys__) | set(typed.__optional_keys__)
    assert fields == set(definition.get("properties", {})), name
    assert set(definition.get("required", [])) <= set(typed.__required_keys__), name


def test_every_operation_has_its_typeddicts_checked() -> None:
    """No TypedDict slips past the test above by its name: one input per operation."""
    inputs = {_definition(n).removesuffix("_input") for n in TYPED if n.endswith("Input")}
    assert inputs == set(api.OPERATION_NAMES)
