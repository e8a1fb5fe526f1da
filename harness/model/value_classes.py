"""Clause value classes (值類): the kinds of value a clause may take that the interpreter treats
apart, read from the clause's schema, so that the corpus can be asked to check each one.

The classes of a value schema: each enum member (an enum of the 13 rank letters is one class,
`<rank>`: no rank is played apart from the others); each boolean; null where null is allowed; a
plain integer is one class, `<number>`; a `{min, max}` range is fixed (min = max), a range
(max > min) or unbounded (max null, where allowed); an object gives the classes of each of its
fields (`disclosure.hand_count.mode=always_visible`), and an object inside those (a shape's
kicker) is one class, `<object>`; a set of names (a list of unique enum
members) one class per member present (`wild.excluded[straight_flush]`); any other list or
table is one class, `<list>` or `<table>`.

A class is implemented when the loader accepts a value of it on some bundled variant (that
variant's value moved into the class, `mutants.mutate`): the registry refuses the others.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harness.model._schemas import clause_specs, ruleset_schema
from harness.model.loader import bundled_variants
from harness.model.mutants import mutate, plain
from harness.model.registry import INFORMATIONAL
from harness.model.ruleset import Ruleset

RANK_LETTERS = frozenset("23456789TJQKA")


class Kind(StrEnum):
    """How a class picks its values."""

    MEMBER = "member"  # one enum member or boolean (`token`)
    NULL = "null"
    RANK = "rank"
    NUMBER = "number"
    RANGE = "range"  # a {min, max} range: `token` is fixed, range or unbounded
    HAS = "has"  # a set of names holding `token`
    LIST = "list"
    TABLE = "table"
    OBJECT = "object"  # an object inside an object (a shape's kicker): one class, whatever it holds


RANGE_CLASSES = ("fixed", "range", "unbounded")
"""The classes of a `{min, max}` range."""


@dataclass(frozen=True)
class ValueClass:
    """One class of a clause's values: the clause, the field inside the value (a path, empty
    for the whole value), how it picks values, and the member or range class it stands for."""

    clause: str
    path: tuple[str, ...]
    kind: Kind
    token: Any = None

    @property
    def name(self) -> str:
        """The class as reports show it: `flow.pass=when_unable`, `wild.excluded[bomb]`,
        `combinations.straight.shape.groups=unbounded`, `levels.start=<rank>`."""
        where = ".".join((self.clause, *self.path))
        if self.kind is Kind.HAS:
            return f"{where}[{self.token}]"
        if self.kind is Kind.MEMBER:
            shown = self.token if isinstance(self.token, str) else str(self.token).lower()
            return f"{where}={shown}"
        if self.kind is Kind.NULL:
            return f"{where}=null"
        if self.kind is Kind.RANGE:
            return f"{where}={self.token}"
        return f"{where}=<{self.kind.value}>"

    def contains(self, value: Any) -> bool:
        """Whether a value of the clause falls in this class."""
        value = plain(value)
        for name in self.path:
            if not isinstance(value, dict) or name not in value:
                return False
            value = value[name]
        return _leaf_contains(self.kind, self.token, value)


def _leaf_contains(kind: Kind, token: Any, value: Any) -> bool:
    if kind is Kind.MEMBER:
        return type(value) is type(token) and bool(value == token)
    if kind is Kind.NULL:
        return value is None
    if kind is Kind.RANK:
        return isinstance(value, str)
    if kind is Kind.NUMBER:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is Kind.RANGE:
        return isinstance(value, dict) and _range_class(value) == token
    if kind is Kind.HAS:
        return isinstance(value, list) and token in value
    if kind is Kind.LIST:
        return isinstance(value, list)
    return isinstance(value, dict)  # a table, or an object inside an object


def _range_class(value: Mapping[str, Any]) -> str:
    if value.get("max") is None:
        return "unbounded"
    return "fixed" if value["max"] == value["min"] else "range"


# ---------------------------------------------------------------------------------------------
# Reading the classes from a schema


def _resolved(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        found: Mapping[str, Any] = ruleset_schema()["$defs"][ref.removeprefix("#/$defs/")]
        return found
    return schema


def _branches(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The alternatives a schema node allows, references resolved, one type each."""
    schema = _resolved(schema)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return [b for branch in schema[key] for b in _branches(branch)]
    types = schema.get("type")
    if isinstance(types, list) and "enum" not in schema:
        return [{**schema, "type": t} for t in types]
    return [schema]


def _is_range(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "object" and set(schema.get("properties", {})) == {"min", "max"}


def _allows_null(schema: Mapping[str, Any]) -> bool:
    return any(b.get("type") == "null" or None in b.get("enum", ()) for b in _branches(schema))


def _schema_classes(schema: Mapping[str, Any], path: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """(path, kind, token) of each class a schema node gives."""
    out: list[tuple[Any, ...]] = []
    for branch in _branches(schema):
        kind = branch.get("type")
        if "enum" in branch:
            members = list(branch["enum"])
            if {m for m in members if isinstance(m, str)} >= RANK_LETTERS:
                out.append((path, Kind.RANK, None))
                members = [m for m in members if m not in RANK_LETTERS]
            for member in members:
                out.append(
                    (path, Kind.NULL, None) if member is None else (path, Kind.MEMBER, member)
                )
        elif kind == "null":
            out.append((path, Kind.NULL, None))
        elif kind == "boolean":
            out += [(path, Kind.MEMBER, True), (path, Kind.MEMBER, False)]
        elif kind == "integer":
            out.append((path, Kind.NUMBER, None))
        elif _is_range(branch):
            allowed = (
                RANGE_CLASSES if _allows_null(branch["properties"]["max"]) else ("fixed", "range")
            )
            out += [(path, Kind.RANGE, token) for token in allowed]
        elif kind == "object" and branch.get("properties") and path:
            out.append((path, Kind.OBJECT, None))
        elif kind == "object" and branch.get("properties"):
            for name, sub in branch["properties"].items():
                out += _schema_classes(sub, (*path, name))
        elif kind == "object":
            out.append((path, Kind.TABLE, None))
        elif kind == "array":
            names = _resolved(branch.get("items", {})).get("enum")
            if branch.get("uniqueItems") and names and branch.get("minItems", 0) < len(names):
                out += [(path, Kind.HAS, m) for m in names]
            else:
                out.append((path, Kind.LIST, None))
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------------------------------------
# A value moved into a class


def example(schema: Mapping[str, Any]) -> Any:
    """A small valid value of a schema node (its first non-null alternative)."""
    branches = _branches(schema)
    branch = next((b for b in branches if b.get("type") != "null"), branches[0])
    if "enum" in branch:
        return next((m for m in branch["enum"] if m is not None), None)
    kind = branch.get("type")
    if kind == "boolean":
        return False
    if kind == "integer":
        return branch.get("minimum", 0)
    if kind == "object":
        props = branch.get("properties", {})
        return {name: example(props[name]) for name in branch.get("required", [])}
    if kind == "array":
        items = _resolved(branch.get("items", {}))
        count = branch.get("minItems", 0)
        if "enum" in items:
            return list(items["enum"][:count])
        return [example(items) for _ in range(count)]
    return None


def _field_schema(schema: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for branch in _branches(schema):
        if name in branch.get("properties", {}):
            found: Mapping[str, Any] = branch["properties"][name]
            return found
    return {}


def _leaf(kind: Kind, token: Any, value: Any, schema: Mapping[str, Any]) -> Any:
    """`value` (a field's current value) moved into the class."""
    if _leaf_contains(kind, token, value) and kind not in (Kind.RANGE, Kind.HAS):
        return value
    if kind is Kind.MEMBER:
        return token
    if kind is Kind.NULL:
        return None
    if kind is Kind.RANGE:
        current = value if isinstance(value, dict) else example(schema)
        low = current["min"]
        top = _field_schema(schema, "max")
        high = next((b["maximum"] for b in _branches(top) if "maximum" in b), low + 1)
        if token == "fixed":
            return {"min": low, "max": low}
        if token == "unbounded":
            return {"min": low, "max": None}
        return {"min": low, "max": low + 1} if low < high else {"min": low - 1, "max": low}
    if kind is Kind.HAS:
        current = list(value) if isinstance(value, list) else []
        return current if token in current else [*current, token]
    return example(schema)


def _moved(value: Any, schema: Mapping[str, Any], path: tuple[str, ...], cls: ValueClass) -> Any:
    if not path:
        return _leaf(cls.kind, cls.token, value, schema)
    node = value if isinstance(value, dict) else example(schema)
    if not isinstance(node, dict):
        return node
    sub = _field_schema(schema, path[0])
    return {**node, path[0]: _moved(node.get(path[0]), sub, path[1:], cls)}


def moved_into(cls: ValueClass, value: Any) -> Any:
    """A value of the clause in `cls`, as near `value` as the class allows (other fields kept)."""
    return _moved(plain(value), clause_specs()[cls.clause].value_schema, cls.path, cls)


# ---------------------------------------------------------------------------------------------
# The implemented classes


def schema_classes(clause_id: str) -> list[ValueClass]:
    """Every class of the clause's value schema, implemented or not."""
    schema = clause_specs()[clause_id].value_schema
    return [ValueClass(clause_id, p, k, t) for p, k, t in _schema_classes(schema, ())]


def is_implemented(cls: ValueClass, bases: Sequence[Ruleset]) -> bool:
    """Whether the loader accepts a value of `cls` on one of `bases`."""
    for base in bases:
        value = base.value(cls.clause)
        if cls.contains(value) or mutate(base, cls.clause, moved_into(cls, value)) is not None:
            return True
    return False


@functools.cache
def _implemented(clause_id: str) -> tuple[ValueClass, ...]:
    bases = bundled_variants()
    return tuple(c for c in schema_classes(clause_id) if is_implemented(c, bases))


def value_classes(clause_id: str) -> tuple[ValueClass, ...]:
    """The classes of the clause the interpreter implements (none for a prose-only clause)."""
    if clause_id in INFORMATIONAL:
        return ()
    return _implemented(clause_id)


def classes_of(clause_id: str, value: Any) -> list[ValueClass]:
    """The implemented classes a value of the clause falls in."""
    return [c for c in value_classes(clause_id) if c.contains(value)]
