"""Derived variants (派生變體): a variant with some clause values set, as a case's `applies_when`
names them, so that a case written for a value no bundled variant plays is run on one that does.

A variant is a value: a derived variant is built from a base one with `mutants.mutate`, one
clause at a time, so the loader checks it as it checks a variant file, and the reference plays
it exactly. It is named after its base and the values set (`huaian[flow.pass=when_unable]`), so
that no engine takes it for the base: an engine that knows variants only by slug refuses it.

A wanted value that is an object matches when every field it gives matches (recursively), and is
set by merging those fields into the base's value; any other value (a list too) matches whole.
"""

from __future__ import annotations

import dataclasses
import json
import weakref
from collections.abc import Mapping
from typing import Any

from harness.model.mutants import mutate, plain
from harness.model.ruleset import Ruleset

# A mapping, a dict tried first: values read from JSON and YAML are dicts, and the abstract
# class's own check is the dearer one.
_MAPPING = (dict, Mapping)


def value_matches(actual: Any, wanted: Any) -> bool:
    """Whether a clause value `actual` has what `wanted` asks: the fields an object gives (a
    partial match, recursively), else the whole value."""
    if isinstance(wanted, _MAPPING):
        return isinstance(actual, _MAPPING) and all(
            name in actual and value_matches(actual[name], value) for name, value in wanted.items()
        )
    return bool(actual == wanted)


def merged(actual: Any, wanted: Any) -> Any:
    """`actual` with what `wanted` asks set: an object's fields merged in (recursively), any
    other value replaced."""
    if isinstance(wanted, _MAPPING) and isinstance(actual, _MAPPING):
        out = dict(actual)
        for name, value in wanted.items():
            out[name] = merged(actual.get(name), value)
        return out
    return plain(wanted)


def _text(value: Any) -> str:
    """A value as a derived variant's name shows it: strings bare, lists in brackets."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return "[" + ",".join(_text(v) for v in value) + "]"
    return json.dumps(plain(value), sort_keys=True, separators=(",", ":"))


def _settings(path: str, value: Any) -> list[str]:
    """`path=value` for each leaf an object gives (`disclosure.hand_count.mode=always_visible`)."""
    if isinstance(value, _MAPPING) and value:
        return [s for name in sorted(value) for s in _settings(f"{path}.{name}", value[name])]
    return [f"{path}={_text(value)}"]


def derived_name(base: str, values: Mapping[str, Any]) -> str:
    """The name of `base` with `values` set: `huaian[flow.pass=when_unable,sequences.wrap=true]`."""
    settings = [s for clause_id in sorted(values) for s in _settings(clause_id, values[clause_id])]
    return f"{base}[{','.join(settings)}]"


def base_name(name: str) -> str:
    """The variant a name was derived from (`huaian` for `huaian[flow.pass=when_unable]`), or
    the name itself where it is no derived one."""
    return name.partition("[")[0]


def is_derived(ruleset: Ruleset) -> bool:
    """Whether `ruleset` was derived for cases (`derive`) rather than asked for: a variant
    file's id never holds `[` (the loader's id pattern), every derived name does."""
    return "[" in ruleset.slug


# Each base's derived variants by their values, built once: cases with the same base and values
# share one Ruleset (and so one engine group).
_DERIVED: weakref.WeakKeyDictionary[Ruleset, dict[str, Ruleset | None]] = (
    weakref.WeakKeyDictionary()
)


def derive(base: Ruleset, values: Mapping[str, Any]) -> Ruleset | None:
    """`base` with `values` set (clause id → value, objects merged), named by `derived_name`;
    `base` itself when it has them all already; None when the loader refuses one of them, or an
    option chosen on `base` sets one of them."""
    key = json.dumps(plain(dict(values)), sort_keys=True)
    table = _DERIVED.setdefault(base, {})
    if key not in table:
        table[key] = _derive(base, values)
    return table[key]


def _derive(base: Ruleset, values: Mapping[str, Any]) -> Ruleset | None:
    if any(clause_id not in base.clauses for clause_id in values):
        return None
    pending = [
        (clause_id, wanted)
        for clause_id, wanted in sorted(values.items())
        if not value_matches(base.value(clause_id), wanted)
    ]
    if not pending:
        return base
    set_by_choice = {base.options[name].sets for name in base.chosen if name in base.options}
    if any(clause_id in set_by_choice for clause_id, _ in pending):
        return None
    ruleset = base
    # One at a time; a value the checks across clauses refuse now may be accepted once the others
    # are set, so the refused ones are tried again while any is accepted.
    while pending:
        left = []
        for clause_id, wanted in pending:
            changed = mutate(ruleset, clause_id, merged(plain(ruleset.value(clause_id)), wanted))
            if changed is None:
                left.append((clause_id, wanted))
            else:
                ruleset = changed
        if len(left) == len(pending):
            return None
        pending = left
    return dataclasses.replace(ruleset, slug=derived_name(base.slug, values))
