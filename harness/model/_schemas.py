"""The JSON Schemas of the spec, loaded once, and validators for them."""

from __future__ import annotations

import functools
import json
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
