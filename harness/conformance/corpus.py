"""The conformance corpus (一致性測試): loading cases, checking them, and comparing outputs.

A case file holds `cases:`, each with a stable id, the operation, its input and expected output,
the clause ids it checks, and where it applies (`applies_when` clause values, or `variants`).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from harness._paths import cases_dir
from harness.errors import HarnessError, NotationError
from harness.model._schemas import load_schema, schema_validator
from harness.model._yaml import parse_yaml
from harness.model.cards import parse_hand
from harness.model.diagnostics import Location, Problem, format_path
from harness.model.loader import (
    bundled_variants,
    clause_specs,
    display_name,
    load_variant,
    variant_slugs,
)
from harness.model.ruleset import ProvenanceKind, Ruleset

# Lists compared as sets (order does not matter), and keys never compared.
UNORDERED = frozenset({"readings", "plays", "payments", "returns", "cards"})
NOT_COMPARED = frozenset({"events", "reason"})
# Mappings compared whole: their keys are data (seats), not fields an expectation may leave out.
WHOLE = frozenset({"counts"})


def case_schema() -> dict[str, Any]:
    """The JSON Schema of a case file (`spec/case.schema.json`)."""
    return load_schema("case.schema.json")


def _validator() -> jsonschema.protocols.Validator:
    return schema_validator("case.schema.json")


@dataclass(frozen=True)
class Case:
    """One conformance case: id, operation, input, expected output, clauses, applicability."""

    id: str
    description: str
    operation: str
    clauses: tuple[str, ...]
    input: Mapping[str, Any]
    expected: Mapping[str, Any]
    applies_when: Mapping[str, Any] = field(default_factory=dict)
    variants: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    note: str | None = None
    location: Location = field(default_factory=lambda: Location("?", 1, 1))

    @property
    def area(self) -> str:
        """The corpus folder the case lives in (combos, compare, flow, tribute, levels, scoring)."""
        return Path(self.location.file).parent.name

    def ruleset_for(self, variant: Ruleset | str) -> Ruleset:
        """The variant (a Ruleset, or a bundled one by slug) with this case's options chosen;
        HarnessError when the variant lacks one of them."""
        ruleset = load_variant(variant) if isinstance(variant, str) else variant
        return ruleset.with_options(self.options)

    def applies_to(self, ruleset: Ruleset) -> bool:
        """Whether the case applies to `ruleset` (its options already chosen): every clause of
        `applies_when` has its value there, and `variants`, if given, names its slug."""
        if self.variants and ruleset.slug not in self.variants:
            return False
        if any(name not in ruleset.options for name in self.options):
            return False
        for clause_id, value in self.applies_when.items():
            if clause_id not in ruleset.clauses or ruleset.value(clause_id) != value:
                return False
        return True

    def assumed_clauses(self, ruleset: Ruleset) -> list[str]:
        """The clauses this case checks that `ruleset` only assumes (its source is silent)."""
        return [
            c
            for c in self.clauses
            if c in ruleset.clauses and ruleset.clause(c).provenance.kind is ProvenanceKind.ASSUMED
        ]


def _case_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.yaml") if p.is_file())


def load_cases(paths: Iterable[Path] | None = None) -> tuple[list[Case], list[Problem]]:
    """Every case in the given files (default: the bundled corpus), and every problem found."""
    files: list[Path] = []
    for path in paths if paths is not None else [cases_dir()]:
        files.extend(_case_files(path) if path.is_dir() else [path])
    cases: list[Case] = []
    problems: list[Problem] = []
    for path in files:
        name = display_name(path)
        doc, found = parse_yaml(path.read_text(encoding="utf-8"), name)
        problems.extend(found)
        if doc.data is None:
            continue
        errors = list(_validator().iter_errors(doc.data))
        for error in errors:
            where = doc.locate(tuple(error.absolute_path))
            message = error.message
            if error.validator == "additionalProperties":
                message = f"unknown key: {message}"
            problems.append(Problem(where, format_path(error.absolute_path), message))
        if errors:
            continue
        for i, raw in enumerate(doc.data["cases"]):
            cases.append(
                Case(
                    id=raw["id"],
                    description=raw["description"],
                    operation=raw["operation"],
                    clauses=tuple(raw["clauses"]),
                    input=raw["input"],
                    expected=raw["expected"],
                    applies_when=raw.get("applies_when", {}),
                    variants=tuple(raw.get("variants", ())),
                    options=raw.get("options", {}),
                    note=raw.get("note"),
                    location=doc.locate(("cases", i)),
                )
            )
    return cases, problems


# ---------------------------------------------------------------------------------------------
# Checks beyond the schema


def _applicability_key(case: Case) -> str:
    # Applicability depends only on these three fields and the variant.
    return json.dumps([case.applies_when, case.variants, case.options], sort_keys=True, default=str)


_APPLIES: weakref.WeakKeyDictionary[Ruleset, dict[str, bool]] = weakref.WeakKeyDictionary()


def applies(case: Case, ruleset: Ruleset) -> bool:
    """Whether the case applies to the variant `ruleset` once the case's options are chosen."""
    table = _APPLIES.setdefault(ruleset, {})
    key = _applicability_key(case)
    if key not in table:
        try:
            chosen = case.ruleset_for(ruleset)
        except HarnessError:
            table[key] = False
        else:
            table[key] = case.applies_to(chosen)
    return table[key]


def applicable_variants(case: Case, rulesets: Sequence[Ruleset] | None = None) -> list[str]:
    """The slugs of the variants the case applies to, with its options chosen: of `rulesets`,
    or of the bundled variants when none are given."""
    candidates = bundled_variants() if rulesets is None else rulesets
    return [r.slug for r in candidates if applies(case, r)]


def _card_lists(case: Case) -> list[tuple[str, list[Any]]]:
    """Each group of cards that must fit in two decks together, with its name."""
    data = case.input
    groups: list[tuple[str, list[Any]]] = []
    if "cards" in data:
        groups.append(("input.cards", data["cards"]))
    if "hand" in data:
        groups.append(("input.hand", data["hand"]))
    if "hands" in data:
        groups.append(("input.hands", [c for hand in data["hands"] for c in hand]))
    for i, action in enumerate(data.get("actions", [])):
        groups.append((f"input.actions[{i}].cards", action.get("cards", [])))
    return groups


def check_cases(cases: Sequence[Case]) -> list[Problem]:
    """Ids unique, clause ids known, applicability non-empty, no duplicates, cards legal."""
    problems: list[Problem] = []
    known = set(clause_specs())
    seen: dict[str, Case] = {}
    inputs: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        where = case.location
        if case.id in seen:
            problems.append(
                Problem(where, case.id, f"duplicate id (first at {seen[case.id].location})")
            )
        seen.setdefault(case.id, case)
        for clause in case.clauses:
            if clause not in known:
                problems.append(Problem(where, case.id, f"unknown clause id '{clause}'"))
        for clause in case.applies_when:
            if clause not in known:
                problems.append(
                    Problem(where, case.id, f"applies_when: unknown clause id '{clause}'")
                )
        for slug in case.variants:
            if slug not in variant_slugs():
                problems.append(Problem(where, case.id, f"unknown variant '{slug}'"))
        if not applicable_variants(case):
            problems.append(Problem(where, case.id, "applies to no bundled variant"))
        for name, group in _card_lists(case):
            try:
                parse_hand([str(c) for c in group])
            except NotationError as exc:
                problems.append(Problem(where, case.id, f"{name}: {exc}"))
        # The same input under other options is another situation, not a duplicate.
        key = (
            case.operation,
            json.dumps([case.input, case.options], sort_keys=True, ensure_ascii=False),
        )
        for other in inputs.get(key, []):
            if set(applicable_variants(other)) & set(applicable_variants(case)):
                problems.append(
                    Problem(
                        where,
                        case.id,
                        f"same operation and input as '{other.id}' for a variant both apply to",
                    )
                )
        inputs.setdefault(key, []).append(case)
    return problems


# ---------------------------------------------------------------------------------------------
# Comparing an engine's output with the expected one


class _Missing:
    """Stands for a key the actual output lacks; equal to nothing."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _canon(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _canon(v, k) for k, v in value.items() if k not in NOT_COMPARED}
    if isinstance(value, list):
        items = [_canon(v) for v in value]
        return sorted(items, key=_dump) if key in UNORDERED else items
    return value


def _project(actual: Any, expected: Any, key: str | None = None) -> Any:
    """`actual` cut down to the keys `expected` names, so that left-out keys are not compared."""
    if key in WHOLE:
        return actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        return {
            k: _project(actual[k], v, k) if k in actual else MISSING for k, v in expected.items()
        }
    if not (isinstance(expected, list) and isinstance(actual, list) and expected):
        return actual
    if key not in UNORDERED:
        # An ordered list: each element against the expected element at its place.
        return [_project(a, e) for a, e in zip(actual, expected, strict=False)] + actual[
            len(expected) :
        ]
    if all(isinstance(e, dict) for e in expected):
        # A set of objects: each actual one cut to the keys the expected ones name.
        keys: set[str] = set().union(*(e.keys() for e in expected))
        template = {k: next(e[k] for e in expected if k in e) for k in keys}
        return [_project(a, template) if isinstance(a, dict) else a for a in actual]
    return actual


def compare_output(expected: Mapping[str, Any], actual: Any) -> list[str]:
    """The differences between an expected output and an actual one (empty when they agree).

    Keys the expected output leaves out are not compared; lists of readings, plays, payments,
    returns and cards are compared as sets.
    """
    if not isinstance(actual, dict):
        return [f"expected an object, found {_dump(actual)}"]
    want = _canon(dict(expected))
    got = _canon(_project(actual, dict(expected)))
    if isinstance(want.get("finish"), list) and isinstance(got.get("finish"), list):
        want["finish"], got["finish"] = _group_finish(want["finish"], got["finish"])
    diffs: list[str] = []
    _diff(want, got, "", diffs)
    return diffs


def _group_finish(want: list[Any], got: list[Any]) -> tuple[list[Any], list[Any]]:
    """A finish whose expected places hold a list of seats (seats that never went out, 雙下):
    the actual seats at those places are grouped the same way, and each group compared as a set."""
    if not any(isinstance(place, list) for place in want):
        return want, got
    grouped: list[Any] = []
    at = 0
    for place in want:
        if isinstance(place, list):
            grouped.append(sorted(got[at : at + len(place)], key=_dump))
            at += len(place)
        else:
            grouped.append(got[at] if at < len(got) else MISSING)
            at += 1
    grouped += got[at:]
    sets = [sorted(p, key=_dump) if isinstance(p, list) else p for p in want]
    return sets, grouped


def _diff(want: Any, got: Any, path: str, out: list[str]) -> None:
    whole = path.rsplit(".", 1)[-1] in WHOLE
    if isinstance(want, dict) and isinstance(got, dict) and not whole:
        for key, value in want.items():
            _diff(value, got.get(key, MISSING), f"{path}.{key}" if path else key, out)
        return
    unordered = path.rsplit(".", 1)[-1] in UNORDERED
    if isinstance(want, list) and isinstance(got, list):
        if unordered:
            missing = [x for x in want if x not in got]
            extra = [x for x in got if x not in want]
            if missing or extra:
                out.append(f"{path}: missing {_dump(missing)}, unexpected {_dump(extra)}")
            return
        if len(want) == len(got):
            for i, (w, g) in enumerate(zip(want, got, strict=True)):
                _diff(w, g, f"{path}[{i}]", out)
            return
    if isinstance(got, _Missing):
        out.append(f"{path}: expected {_dump(want)}, found nothing")
    elif want != got:
        out.append(f"{path}: expected {_dump(want)}, found {_dump(got)}")
