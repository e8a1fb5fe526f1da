"""Mutant variants (變異規則): a variant with one clause value changed, for every simple alternative
the schema allows and the reference interpreter implements.

Alternatives of a value, from its schema: the other members of an enum, the other boolean, a
whole number one step either way within its bounds, null where null is allowed (and a number
where the value is null), for an object each of its fields changed in the same way, one at a
time, and for a list one item left out, and either one more member put in (a set of names) or
two neighbours swapped (an ordered list). A mutant is built by
`loader.mutant`, so it is valid by construction; a value the loader refuses is left out.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.errors import HarnessError
from harness.model._schemas import clause_specs, clause_value_valid
from harness.model.loader import mutant
from harness.model.registry import INFORMATIONAL
from harness.model.ruleset import Ruleset


def _branches(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The alternatives a schema node allows (its anyOf/oneOf branches, or itself)."""
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return [b for branch in schema[key] for b in _branches(branch)]
    types = schema.get("type")
    if isinstance(types, list):
        return [{**schema, "type": t} for t in types]
    return [schema]


def _matches(schema: Mapping[str, Any], value: Any) -> bool:
    kind = schema.get("type")
    if "enum" in schema:
        return value in schema["enum"]
    if "const" in schema:
        return bool(value == schema["const"])
    return {
        "null": value is None,
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "string": isinstance(value, str),
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
    }.get(str(kind), False)


def alternatives(schema: Mapping[str, Any], value: Any) -> list[Any]:
    """The simple alternatives of `value` under `schema` (one step away), without duplicates."""
    found: list[Any] = []
    branches = _branches(schema)
    current = [b for b in branches if _matches(b, value)]
    for branch in branches:
        if branch in current:
            found += _within(branch, value)
        elif branch.get("type") == "null":
            found.append(None)
        elif value is None and branch.get("type") == "integer":
            low = branch.get("minimum", 0)
            found += [low, low + 2]
    unique: dict[str, Any] = {}
    for alt in found:
        if alt != value or type(alt) is not type(value):
            unique.setdefault(json.dumps(alt, sort_keys=True), alt)
    return list(unique.values())


def _within(schema: Mapping[str, Any], value: Any) -> list[Any]:
    """Alternatives of `value` that keep to the same branch of the schema."""
    if "enum" in schema:
        return [v for v in schema["enum"] if v != value]
    kind = schema.get("type")
    if kind == "boolean":
        return [not value]
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        return [
            v
            for v in (value - 1, value + 1)
            if (low is None or v >= low) and (high is None or v <= high)
        ]
    if kind == "array":
        out = []
        if len(value) > schema.get("minItems", 0):
            out += [value[:i] + value[i + 1 :] for i in range(len(value))]
        members = schema.get("items", {}).get("enum")
        if schema.get("uniqueItems") and members:
            # A set of names (finishes that win, types a wild card may not fill): one member
            # left out, or one more put in; the order means nothing.
            out += [[*value, m] for m in members if m not in value]
        else:
            # An ordered list (the bomb ladder): also two neighbours swapped.
            out += [
                [*value[:i], value[i + 1], value[i], *value[i + 2 :]] for i in range(len(value) - 1)
            ]
        return out
    if kind == "object":
        out = []
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                out += [{**value, name: alt} for alt in alternatives(sub, value[name])]
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            # A table keyed by data (e.g. end bonuses by level): each entry changed, or dropped.
            for name in value:
                out += [{**value, name: alt} for alt in alternatives(extra, value[name])]
                out.append({k: v for k, v in value.items() if k != name})
        return out
    return []


@dataclass(frozen=True)
class Mutant:
    """One clause value changed (a mutant of a variant): the clause and its new value."""

    clause: str
    value: Any
    base: str = field(default="", compare=False)
    """The variant whose own value `value` is, where the mutant sets a clause a derived variant
    changed back to its base's (`huaian`); "" for any other mutant."""


@functools.lru_cache(maxsize=8192)
def _mutant(ruleset: Ruleset, clause_id: str, text: str) -> Ruleset | None:
    value = json.loads(text)
    if clause_id in clause_specs() and not clause_value_valid(clause_id, value):
        return None  # `mutant` refuses it, with a message that would not be read
    try:
        return mutant(ruleset, clause_id, value)
    except HarnessError:
        return None


def mutate(ruleset: Ruleset, clause_id: str, value: Any) -> Ruleset | None:
    """`ruleset` with `clause_id` set to `value` (built once), or None where the loader refuses
    it (a value no implementation covers, or one the other clauses rule out)."""
    return _mutant(ruleset, clause_id, json.dumps(value, sort_keys=True))


def mutants(ruleset: Ruleset, clause_ids: Iterable[str] | None = None) -> Iterator[Mutant]:
    """Every mutant one simple step from `ruleset` that the loader accepts, clause by clause in
    the schema's order (or `clause_ids`' order); prose-only clauses are left out."""
    specs = clause_specs()
    for clause_id in clause_ids if clause_ids is not None else specs:
        if clause_id in INFORMATIONAL or clause_id not in ruleset.clauses:
            continue
        value = ruleset.value(clause_id)
        for alt in alternatives(specs[clause_id].value_schema, plain(value)):
            if mutate(ruleset, clause_id, alt) is not None:
                yield Mutant(clause_id, alt)


def plain(value: Any) -> Any:
    """A clause value as JSON data (tuples and mappings as lists and dicts)."""
    return json.loads(
        json.dumps(value, default=lambda o: list(o) if isinstance(o, tuple) else dict(o))
    )
