"""The JSON Schemas of the spec (規格), loaded once, validators for them, and the clauses the
ruleset schema defines (`clause_specs`: the one list of clause ids)."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import marshal
import re
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import fastjsonschema

from harness._paths import read_cache, spec_dir, write_cache
from harness.model._schema_types import check_of, shown, type_problem, typed
from harness.model.diagnostics import json_path

if TYPE_CHECKING:
    import jsonschema
    from jsonschema.exceptions import ValidationError

# jsonschema is imported where it is used: it locates the problems of data that fails the
# compiled check, and valid data (every run of the main job) never needs it.


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema `spec/<name>` (e.g. `ruleset.schema.json`)."""
    with (spec_dir() / name).open(encoding="utf-8") as fh:
        schema: dict[str, Any] = json.load(fh)
    return schema


def keyword_of(error: ValidationError) -> str:
    """The schema keyword a validation error is about (`type`, `enum`, `oneOf`, ...).

    jsonschema gives it as a string; stub releases before 2026 type the field as a validator, so
    reading it through here keeps the type check true at both ends of the declared range."""
    return str(error.validator)


DRAFT_7 = "http://json-schema.org/draft-07/schema#"

# Keywords whose meaning is the same in draft 7 and in 2020-12: a schema that keeps to them is
# checked by the compiled draft-7 validator below exactly as by jsonschema.
SHARED_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$ref",
        "$defs",
        "title",
        "description",
        "type",
        "enum",
        "const",
        "properties",
        "additionalProperties",
        "required",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "minProperties",
        "propertyNames",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
    }
)


@dataclass(frozen=True)
class Problem:
    """One place where data breaks its schema (違反規格): where, as a path such as
    `readings[0].type` ("" for the whole), what was expected, and the schema keyword."""

    path: str
    message: str
    keyword: str
    missing: str | None = None
    """For a `required` problem, the property missing."""

    def __str__(self) -> str:
        return f"`{self.path}`: {self.message}" if self.path else self.message


class SchemaCheck:
    """The one way data is checked against a schema of the spec (規格檢查): the loader, the
    corpus and the engine client all ask through it. A fast yes/no (fastjsonschema, compiled
    once and cached) and, only for data that fails it, the located problems (jsonschema).

    jsonschema locates every problem but reads the corpus in about a second; a compiled check
    does it in a twentieth of that. Valid data needs nothing more."""

    def __init__(self, name: str, definition: str | None = None) -> None:
        self.name = name
        self.definition = definition
        schema = load_schema(name)
        if definition is not None:
            if definition not in schema.get("$defs", {}):
                raise KeyError(f"{name} defines no {definition!r}")
            # The file's definitions, its root replaced by the one wanted.
            root: dict[str, Any] = {
                k: schema[k] for k in ("$schema", "$id", "$defs") if k in schema
            }
            # An `allOf` of one `$ref`, not a `$ref` beside `$defs`: draft 7 (the compiled
            # check) ignores the keywords beside a `$ref`, `$defs` included.
            schema = {**root, "allOf": [{"$ref": f"#/$defs/{definition}"}]}
        self.schema = schema
        self._fast: Callable[[Any], Any] | None = None
        self._full: jsonschema.protocols.Validator | None = None

    def valid(self, data: Any) -> bool:
        """Whether `data` satisfies the schema (the compiled check)."""
        if self._fast is None:
            draft_7 = {**_as_draft_7(self.schema), "$schema": DRAFT_7}
            if self.definition is not None:
                # An answer's check runs on every answer: its definitions written out in place
                # (they are small) check a list's items in a loop, where the compiled code would
                # otherwise call a function for each, with its name formatted for a message.
                draft_7 = _inlined(draft_7, draft_7.get("$defs", {}))
            self._fast = _compiled(draft_7)
        try:
            self._fast(data)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    def errors(self, data: Any) -> list[ValidationError]:
        """jsonschema's errors for `data` (none when the compiled check passes it)."""
        if self.valid(data):
            return []
        if self._full is None:
            if self.definition is None:
                self._full = schema_validator(self.name)
            else:
                self._full = validator_class(self.schema["$schema"])(self.schema)
        return list(self._full.iter_errors(data))

    def type_problem(self, data: Any) -> str | None:
        """Where `data` has a JSON type the schema does not allow, and what it should be, or
        None: the JSON types only, values left out (what `guandan serve` judges a request
        by, so that the interpreter's own messages name a bad card or level). A check made
        once per schema node answers; the walk that explains runs only for a no."""
        defs: Mapping[str, Any] = load_schema(self.name).get("$defs", {})
        node = defs[self.definition] if self.definition is not None else load_schema(self.name)
        if typed(data, check_of(node, defs)):
            return None
        return type_problem(data, node, defs)

    def problems(self, data: Any) -> list[Problem]:
        """The problems of `data`, the most telling first (none when it is valid)."""
        errors = self.errors(data)
        if not errors:
            return []
        from jsonschema.exceptions import best_match

        best = best_match(errors)
        ordered = [best, *(e for e in errors if e is not best)]
        return [problem for error in ordered for problem in _problems(error)]


def _problems(error: ValidationError) -> list[Problem]:
    """One jsonschema error as problems: a `required` one is a problem per property missing."""
    path = json_path(error.absolute_path)
    keyword = keyword_of(error)
    if keyword == "required" and isinstance(error.instance, dict):
        wanted: Any = error.validator_value
        missing = [str(n) for n in wanted if n not in error.instance]
        return [
            Problem(f"{path}.{name}" if path else name, "missing", keyword, name)
            for name in missing
        ]
    return [Problem(path, _expected(error, keyword), keyword)]


def _expected(error: ValidationError, keyword: str) -> str:
    """What the schema expected where `error` is, in a few words."""
    found = shown(error.instance, 60)
    wanted: Any = error.validator_value
    if keyword == "type":
        return f"expected {_a(wanted)}, found {found}"
    if keyword == "enum":
        allowed = ", ".join(json.dumps(v, ensure_ascii=False) for v in wanted)
        return f"expected one of {allowed}, found {found}"
    if keyword == "additionalProperties":
        return error.message
    message = error.message
    return message if len(message) <= 200 else message[:199] + "…"


def _a(types_: Any) -> str:
    """`"array"` as "an array", `["string", "null"]` as "a string or null"."""
    names = types_ if isinstance(types_, list) else [types_]
    article = {"array": "an array", "object": "an object", "integer": "an integer"}
    return " or ".join(article.get(str(n), "null" if n == "null" else f"a {n}") for n in names)


@functools.cache
def schema_check(name: str, definition: str | None = None) -> SchemaCheck:
    """The check of the schema `spec/<name>`, or of one of its `$defs` (made once)."""
    return SchemaCheck(name, definition)


def is_valid(name: str) -> Callable[[Any], bool]:
    """A fast yes/no check against the schema `spec/<name>` (`schema_check(name).valid`)."""
    return schema_check(name).valid


def _as_draft_7(node: Any) -> Any:
    """The schema with `$ref` alone in its object: draft 7 ignores the keywords beside a `$ref`
    (2020-12 applies them), so `{$ref, properties}` becomes `{allOf: [{$ref}, {properties}]}`."""
    if isinstance(node, list):
        return [_as_draft_7(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _as_draft_7(value) for key, value in node.items()}
    if "$ref" in out and len(out) > 1:
        rest = {key: value for key, value in out.items() if key != "$ref"}
        return {"allOf": [{"$ref": out["$ref"]}, rest]}
    return out


def _inlined(node: Any, defs: Mapping[str, Any], within: tuple[str, ...] = ()) -> Any:
    """The schema with each `{"$ref": "#/$defs/NAME"}` replaced by the definition it names
    (itself so written out), but where NAME refers to itself on the way (it stays a `$ref`)."""
    if isinstance(node, list):
        return [_inlined(item, defs, within) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if len(node) == 1 and isinstance(ref, str) and ref.startswith(_DEFS):
        name = ref.removeprefix(_DEFS)
        if name in defs and name not in within:
            return _inlined(defs[name], defs, (*within, name))
        return node
    return {k: v if k == "$defs" else _inlined(v, defs, within) for k, v in node.items()}


_DEFS = "#/$defs/"


def _compiled(schema: dict[str, Any]) -> Callable[[Any], Any]:
    """The compiled check of `schema`; its byte code is kept in the user's cache folder, so a
    later run loads it instead of generating and compiling 400 KB of Python again."""
    text = json.dumps(schema, sort_keys=True) + fastjsonschema.VERSION + sys.version
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]
    root = "validate_" + re.sub(r"[^a-zA-Z0-9_]", "_", str(schema.get("$id", "")))
    name = f"schema-{digest}.code"
    try:
        code = _cached_code(name)
        if code is None:
            # fastjsonschema edits the schema it is given: give it a copy of ours.
            source = fastjsonschema.compile_to_code(copy.deepcopy(schema))
            code = compile(source, name, "exec")
            write_cache(name, marshal.dumps(code))
        namespace: dict[str, Any] = {}
        exec(code, namespace)  # the code fastjsonschema generated from our own schema
        check: Callable[[Any], Any] = namespace[root]
        return check
    except (KeyError, SyntaxError):
        # A cached file gone bad: compile in memory.
        compiled: Callable[[Any], Any] = fastjsonschema.compile(copy.deepcopy(schema))
        return compiled


def _cached_code(name: str) -> types.CodeType | None:
    """The byte code cached as `name`; None when it is not there (or not the user's alone:
    `read_cache` reads only what no one else could have written)."""
    data = read_cache(name)
    if data is None:
        return None
    try:
        code = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def _canonical(value: Any) -> Any:
    """A hashable stand-in for JSON data, equal where JSON Schema calls two values equal: a
    boolean is no number, 1 and 1.0 are the same number, and a mapping's order means nothing."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(v)) for k, v in value.items()))
    return (type(value).__name__, value)


def _unique_items(
    validator: jsonschema.protocols.Validator, unique: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """`uniqueItems` in linear time. jsonschema compares items of objects or arrays pair by
    pair: 20,000 of them in a 200 KB file take minutes (a resource bomb); hashing does not."""
    from jsonschema.exceptions import ValidationError

    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[Any] = set()
    for index, item in enumerate(instance):
        key = _canonical(item)
        if key in seen:
            yield ValidationError(f"item {index} repeats an earlier item; items must be unique")
            return
        seen.add(key)


@functools.cache
def validator_class(schema_id: str) -> type[jsonschema.protocols.Validator]:
    """The validator class for the schema draft `schema_id` (`$schema`), with a linear-time
    `uniqueItems`."""
    import jsonschema

    base = jsonschema.validators.validator_for({"$schema": schema_id})
    extend: Callable[..., type[jsonschema.protocols.Validator]] = jsonschema.validators.extend
    return extend(base, {"uniqueItems": _unique_items})


@functools.cache
def schema_validator(name: str) -> jsonschema.protocols.Validator:
    """A validator for the schema `spec/<name>`, the schema itself checked first."""
    schema = load_schema(name)
    cls = validator_class(schema["$schema"])
    cls.check_schema(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


CLAUSE_REF = "#/$defs/clause"


@functools.cache
def _clause_values_check() -> Callable[[Any], Any]:
    """The compiled check of `{clause id: value}` against each clause's value schema."""
    schema = ruleset_schema()
    values = {
        "$id": VALUES_ID,
        "$defs": schema["$defs"],
        "type": "object",
        "properties": {cid: spec.value_schema for cid, spec in clause_specs().items()},
    }
    return _compiled({**_as_draft_7(values), "$schema": DRAFT_7})


VALUES_ID = "https://guandan-harness.example/spec/clause-values.json"
"""The `$id` of the schema of clause values by clause id (made from the ruleset schema)."""


def clause_value_valid(clause_id: str, value: Any) -> bool:
    """Whether `value` satisfies the schema of the value of `clause_id` (the compiled check;
    jsonschema's `iter_errors` says what is wrong, only where it does not)."""
    try:
        _clause_values_check()({clause_id: value})
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def ruleset_schema() -> dict[str, Any]:
    """The JSON Schema of a variant file (`spec/ruleset.schema.json`)."""
    return load_schema("ruleset.schema.json")


@dataclass(frozen=True)
class ClauseSpec:
    """A clause as the schema defines it: id, title (the short heading players read),
    description, and the schema of its value."""

    id: str
    title: str
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
                    cid,
                    sub.get("title", ""),
                    sub.get("description", ""),
                    sub["properties"]["value"],
                    groups,
                )
            else:
                walk(sub, cid + ".", (*groups, sub.get("description", "")))

    walk(ruleset_schema()["properties"]["rules"], "", ())
    return out
