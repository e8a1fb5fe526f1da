"""The operations' inputs and outputs are defined once, in spec/case.schema.json: the TypedDicts
of the Python protocol (`harness.engine.api`) have exactly the schema's keys, and require exactly
the keys the schema requires."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, is_typeddict

import pytest

from harness.engine import api

ROOT = Path(__file__).resolve().parents[1]
SCHEMA: dict[str, Any] = json.loads((ROOT / "spec" / "case.schema.json").read_text("utf-8"))


def operation_defs() -> dict[str, dict[str, str]]:
    """Operation → {"input": def name, "output": def name}, read from the case's if/then rules
    (an operation's output is what a case expects unless it expects a refusal: the `else`)."""
    found: dict[str, dict[str, str]] = {}
    for rule in SCHEMA["$defs"]["case"]["allOf"]:
        if "operation" not in rule["if"].get("properties", {}):
            continue  # the rule for cases that expect a refusal
        operation = rule["if"]["properties"]["operation"]["const"]
        then = rule["then"]["properties"]
        found[operation] = {
            "input": then["input"]["$ref"].rsplit("/", 1)[-1],
            "output": then["expected"]["else"]["$ref"].rsplit("/", 1)[-1],
        }
    return found


OPERATIONS = operation_defs()


def typed_dict(operation: str, kind: str) -> Any:
    """`ClassifyInput` for ("classify", "input"), `LegalPlaysOutput` for ("legal_plays",
    "output"); None when the module has no such TypedDict."""
    name = "".join(part.title() for part in operation.split("_")) + kind.title()
    found = getattr(api, name, None)
    assert found is None or is_typeddict(found), f"{name} is not a TypedDict"
    return found


def test_every_operation_of_the_engine_api_is_in_the_schema() -> None:
    assert set(OPERATIONS) == set(api.OPERATION_NAMES)


@pytest.mark.parametrize("kind", ["input", "output"])
@pytest.mark.parametrize("operation", api.OPERATION_NAMES)
def test_typed_dict_agrees_with_the_schema(operation: str, kind: str) -> None:
    definition = SCHEMA["$defs"][OPERATIONS[operation][kind]]
    cls = typed_dict(operation, kind)
    if cls is None:
        assert kind == "output", f"every operation's input has a TypedDict ({operation})"
        return
    name = cls.__name__
    assert set(cls.__annotations__) == set(definition["properties"]), name
    assert set(cls.__required_keys__) == set(definition.get("required", [])), name
    assert set(cls.__optional_keys__) == set(definition["properties"]) - set(
        definition.get("required", [])
    ), name


def test_the_reading_typed_dict_agrees_with_the_schema() -> None:
    definition = SCHEMA["$defs"]["reading"]
    assert set(api.ReadingJson.__annotations__) == set(definition["properties"])
    assert set(api.ReadingJson.__required_keys__) == set(definition["required"])


def test_some_outputs_have_typed_dicts() -> None:
    """The check above is not vacuous for outputs."""
    assert typed_dict("classify", "output") is api.ClassifyOutput
    assert typed_dict("legal_plays", "output") is api.LegalPlaysOutput
