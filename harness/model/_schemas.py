"""The JSON Schemas of the spec (規格), loaded once, validators for them, and the clauses the
ruleset schema defines (`clause_specs`: the one list of clause ids)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

from harness._paths import spec_dir


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema `spec/<name>` (e.g. `ruleset.schema.json`)."""
    with (spec_dir() / name).open(encoding="utf-8") as fh:
        schema: dict[str, Any] = json.load(fh)
    return schema


@functools.cache
def schema_validator(name: str) -> jsonschema.protocols.Validator:
    """A validator for the schema `spec/<name>`, the schema itself checked first."""
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


CLAUSE_REF = "#/$defs/clause"


def ruleset_schema() -> dict[str, Any]:
    """The JSON Schema of a variant file (`spec/ruleset.schema.json`)."""
    return load_schema("ruleset.schema.json")


@dataclass(frozen=True)
class ClauseSpec:
    """A clause as the schema defines it: id, description, and the schema of its value."""

    id: str
    description: str
    value_schema: Mapping[str, Any]
    group_descriptions: tuple[str, ...]


@functools.cache
def clause_specs() -> dict[str, ClauseSpec]:
    """Every clause the schema defines, by id, in the schema's order."""
    out: dict[str, ClauseSpec] = {}

    def walk(node: Mapping[str, Any], prefix: str, groups: tuple[str, ...]) -> None:
        for key, sub in node.get("properties", {}).items():
            cid = f"{prefix}{key}"
            if sub.get("$ref") == CLAUSE_REF:
                out[cid] = ClauseSpec(
                    cid, sub.get("description", ""), sub["properties"]["value"], groups
                )
            else:
                walk(sub, cid + ".", (*groups, sub.get("description", "")))

    walk(ruleset_schema()["properties"]["rules"], "", ())
    return out
