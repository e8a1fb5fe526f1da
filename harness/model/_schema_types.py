"""The JSON types a schema node allows, checked fast (規格型別): the mode of `SchemaCheck`
(`harness.model._schemas`) that `guandan serve` judges its requests by.

Only the JSON types are checked (type, const, and where they nest: properties, items,
anyOf/oneOf, $ref). Values (a card's spelling, a level, a seat's range) and missing fields are
left to the interpreter, whose messages name the card or field; the types are what it assumes,
and a wrong one could reach it as a Python TypeError rather than a located error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harness.model.diagnostics import json_path, json_type


def shown(value: Any, limit: int = 80) -> str:
    """`value` as JSON cut to `limit` characters, for messages that echo what they refuse."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_JSON_TYPES = {
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


# Schema nodes live as long as the cached schema, so their ids key the resolutions: a hand of
# thousands of cards resolves `#/$defs/card` once, not once a card.
_RESOLVED: dict[int, tuple[Mapping[str, Any], ...]] = {}


def _resolved(node: Mapping[str, Any], defs: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    """The schema nodes that apply together at `node`: its `$ref` target and its own keywords
    (2020-12 applies both)."""
    known = _RESOLVED.get(id(node))
    if known is not None:
        return known
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = defs[ref.removeprefix("#/$defs/")]
        parts = (*_resolved(target, defs), {k: v for k, v in node.items() if k != "$ref"})
    else:
        parts = (node,)
    _RESOLVED[id(node)] = parts
    return parts


def _fits(value: Any, node: Mapping[str, Any], defs: Mapping[str, Any]) -> bool:
    """Whether `value` has the JSON type (and constant) `node` asks, looking no deeper."""
    for part in _resolved(node, defs):
        if "const" in part and (value != part["const"] or type(value) is not type(part["const"])):
            return False
        types = part.get("type")
        if types is not None:
            wanted = [types] if isinstance(types, str) else types
            kind = json_type(value)
            if kind not in wanted and not (kind == "integer" and "number" in wanted):
                return False
    return True


def _wanted(node: Mapping[str, Any], defs: Mapping[str, Any]) -> str:
    """What `node` asks for, for people: 'a string', 'a list or null', 'true'."""
    names: list[str] = []
    for part in _resolved(node, defs):
        if "const" in part:
            names.append(json.dumps(part["const"]))
        types = part.get("type")
        if types is not None:
            names.extend(_JSON_TYPES[t] for t in ([types] if isinstance(types, str) else types))
        for alternative in part.get("anyOf", part.get("oneOf", [])):
            names.append(_wanted(alternative, defs))
    return " or ".join(dict.fromkeys(names)) or "something else"


def type_problem(
    value: Any, node: Mapping[str, Any], defs: Mapping[str, Any], path: tuple[str | int, ...] = ()
) -> str | None:
    """Where `value` has a JSON type `node` does not allow, and what it should be; None when
    every field present has its type. The path is written out only for a problem."""
    for part in _resolved(node, defs):
        if not _fits(value, part, defs):
            found = f"{json_type(value)} {shown(value)}"
            return f"`{json_path(path)}` must be {_wanted(part, defs)}, found {found}"
        alternatives = part.get("anyOf", part.get("oneOf"))
        if alternatives is not None:
            # Those of the type of `value` all apply: a field one of them declares (an
            # action's `pass`, `ask` or `cards`) must have the type it declares.
            fitting = [a for a in alternatives if _fits(value, a, defs)]
            if not fitting:
                return (
                    f"`{json_path(path)}` must be {_wanted(part, defs)}, found {json_type(value)} "
                    f"{shown(value)}"
                )
            for alternative in fitting:
                problem = type_problem(value, alternative, defs, path)
                if problem is not None:
                    return problem
        properties = part.get("properties")
        if isinstance(value, dict) and properties is not None:
            for key, sub in properties.items():
                if key in value:
                    problem = type_problem(value[key], sub, defs, (*path, key))
                    if problem is not None:
                        return problem
        items = part.get("items")
        if isinstance(value, list) and items is not None:
            for index, item in enumerate(value):
                problem = type_problem(item, items, defs, (*path, index))
                if problem is not None:
                    return problem
    return None


# Schema nodes that ask for a string and nothing more (no nested fields, no alternatives), by
# id, as `_RESOLVED` keeps them.
_STRINGS: dict[int, bool] = {}


def _only_strings(node: Mapping[str, Any], defs: Mapping[str, Any]) -> bool:
    """Whether any string, and only a string, has the JSON type `node` asks for."""
    known = _STRINGS.get(id(node))
    if known is None:
        parts = _resolved(node, defs)
        known = _STRINGS[id(node)] = (
            any(p.get("type") == "string" for p in parts)
            and not any(
                key in p
                for p in parts
                for key in ("const", "anyOf", "oneOf", "properties", "items")
            )
            and all(p.get("type", "string") == "string" for p in parts)
        )
    return known


# The same judgement as `type_problem`, at a fraction of its cost (a request is judged before
# every answer): each schema node is turned once into the Python types it allows and what it
# nests, and the walk only says yes or no. A no is then explained by `type_problem`.

_PYTHON_TYPES: dict[str, frozenset[type]] = {
    "object": frozenset({dict}),
    "array": frozenset({list}),
    "string": frozenset({str}),
    "integer": frozenset({int}),  # exact types: a bool is no integer in JSON
    "number": frozenset({int, float}),
    "boolean": frozenset({bool}),
    "null": frozenset({type(None)}),
}


class _Check:
    """A schema node made ready to judge: the types it allows (None: any), the constants it
    requires, its groups of alternatives, and the checks of its fields and items."""

    __slots__ = ("alternatives", "consts", "items", "properties", "strings", "types")

    def __init__(self) -> None:
        self.types: frozenset[type] | None = None
        self.consts: list[Any] = []
        self.alternatives: list[list[_Check]] = []
        self.properties: list[tuple[str, _Check]] = []
        self.items: list[_Check] = []
        self.strings = False


_CHECKS: dict[int, _Check] = {}


def check_of(node: Mapping[str, Any], defs: Mapping[str, Any]) -> _Check:
    """The check of a schema node, made once (schema nodes live as long as the cached schema)."""
    found = _CHECKS.get(id(node))
    if found is not None:
        return found
    check = _CHECKS[id(node)] = _Check()  # kept first: a schema may refer to itself
    for part in _resolved(node, defs):
        if "const" in part:
            check.consts.append(part["const"])
        types = part.get("type")
        if types is not None:
            allowed = frozenset().union(
                *(_PYTHON_TYPES[t] for t in ([types] if isinstance(types, str) else types))
            )
            check.types = allowed if check.types is None else check.types & allowed
        alternatives = part.get("anyOf", part.get("oneOf"))
        if alternatives is not None:
            check.alternatives.append([check_of(a, defs) for a in alternatives])
        check.properties += [
            (key, check_of(sub, defs)) for key, sub in part.get("properties", {}).items()
        ]
        if "items" in part:
            check.items.append(check_of(part["items"], defs))
    check.strings = _only_strings(node, defs)
    return check


def _fits_check(value: Any, check: _Check) -> bool:
    """Whether `value` has the type and constants `check` asks, looking no deeper."""
    if check.types is not None and type(value) not in check.types:
        return False
    return all(value == c and type(value) is type(c) for c in check.consts)


def typed(value: Any, check: _Check) -> bool:
    """Whether every field of `value` has the JSON type its schema node asks (`type_problem`'s
    judgement, yes or no)."""
    if not _fits_check(value, check):
        return False
    for group in check.alternatives:
        fitting = [a for a in group if _fits_check(value, a)]
        if not fitting or not all(typed(value, a) for a in fitting):
            return False
    if check.properties and type(value) is dict:
        for key, sub in check.properties:
            if key in value and not typed(value[key], sub):
                return False
    if check.items and type(value) is list:
        for sub in check.items:
            if sub.strings and all(type(item) is str for item in value):
                continue
            if not all(typed(item, sub) for item in value):
                return False
    return True
